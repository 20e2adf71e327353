"""Citations in the page: a selected summary sentence that cites documents of a long (SummHay) source
lights the best matches inside each cited document and, apart and marked, the best match outside them,
and says it in one line ("cited doc 30: … — best elsewhere: doc 6 …"); every lit sentence says its score
and grade probability on hover."""

from __future__ import annotations

import json

import pytest

from pagedriver import query, select_range, wait
from page_fixtures import summhay_topic

pytestmark = pytest.mark.browser

N_DOCS = 120  # ~1,600 source sentences


@pytest.fixture(scope="module")
def cited_bundle(build_bundle, tmp_path_factory):
    path = summhay_topic(tmp_path_factory.mktemp("cite") / "topic.json", n_docs=N_DOCS, subtopics=1)
    topic = json.loads(path.read_text(encoding="utf-8"))
    first = [d["document_text"].split(". ")[0] for d in topic["documents"]]
    # document 6's sentence cited as document 30 (a wrong citation), document 16's cited as 16 (right)
    topic["subtopics"][0]["summaries"]["summary_subtopic_cited_check"] = [
        f"- {first[5]}. [30]", f"- {first[15]}. [doc 16]"]
    path.write_text(json.dumps(topic), encoding="utf-8")
    return build_bundle([path], name="cited"), first, [d["document_id"] for d in topic["documents"]]


def select(page, text: str) -> None:
    query(page, "async () => { const r = pd.record();"
                " await r.source.vectorsReady; await r.summary.vectorsReady; }")
    s = query(page, "(t) => pd.pane('summary').view.text.indexOf(t)", text)
    assert s >= 0
    select_range(page, "summary", s, s + len(text))


def lit(page) -> list[dict]:
    return page.locator("#pane-source .s[data-rank]").evaluate_all("""els => els.map(e => ({
        rank: +e.dataset.rank, cite: e.dataset.cite || null, doc: e.closest('.doc').dataset.doc,
        text: e.textContent, title: e.title, level: e.dataset.level}))""")


def test_cited_matches_and_the_best_match_elsewhere(page, cited_bundle, serve_dir):
    bundle, first, ids = cited_bundle
    page.route("**/models/**", lambda route: route.abort())
    page.goto(serve_dir(bundle) + "?annotator=alice#record=st0:cited_check")
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    wait(page, "() => pd.currentId() === 'st0:cited_check'"
               " && pd.record()", timeout=60_000)
    page.keyboard.press("Escape")
    assert query(page, "() => pd.pane('source').view.sentences.length") > 1500

    # a wrong citation: the sentence is document 6's, the bullet cites document 30
    select(page, first[5] + ".")
    page.wait_for_function("() => document.getElementById('assist-source').textContent.includes('elsewhere')")
    info = page.locator("#assist-source").text_content()
    assert info.startswith("cited doc 30: ") and "best elsewhere: doc 6, " in info
    assert "check the citation" in info
    shown = lit(page)
    cited = [x for x in shown if x["cite"] == "30"]
    [other] = [x for x in shown if x["cite"] == "elsewhere"]
    assert len(cited) == 2 and all(x["doc"] == ids[29] for x in cited)  # the two best inside document 30
    assert other["doc"] == ids[5] and other["text"] == first[5] + "." and other["rank"] == len(shown)
    assert len(shown) == 3  # nothing else lit
    for x in shown:  # hover: score and grade probability
        assert x["title"].startswith(f"related #{x['rank']}: score ") and "P(evidence) " in x["title"]
    assert "outside the cited documents" in other["title"] and "in cited document 30" in cited[0]["title"]
    assert page.locator('#pane-source .s[data-cite="elsewhere"]').evaluate(
        "e => getComputedStyle(e).outlineStyle") == "dashed"

    # a right citation: the best match is inside the cited document, the one elsewhere scores below it
    select(page, first[15] + ".")
    page.wait_for_function("() => document.getElementById('assist-source').textContent.startsWith('cited doc 16')")
    info = page.locator("#assist-source").text_content()
    assert "best elsewhere: doc " in info and "check the citation" not in info
    best = page.locator('#pane-source .s[data-rank="1"]')
    assert best.get_attribute("data-cite") == "16" and best.text_content() == first[15] + "."
