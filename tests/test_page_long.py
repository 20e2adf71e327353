"""The page on a long, multi-document source (issue 5): document boundaries, minimap, match jumping."""

from __future__ import annotations

import json
import random

import pytest

from page_fixtures import sentence

pytestmark = pytest.mark.browser

N_DOCS, PER_DOC = 16, 25


@pytest.fixture(scope="module")
def long_bundle(build_bundle, tmp_path_factory):
    rng = random.Random(7)
    docs = []
    for d in range(N_DOCS):
        sents = [sentence(rng, d * PER_DOC + j) for j in range(PER_DOC)]
        docs.append({"id": f"doc-{d}", "title": f"Report number {d}", "text": " ".join(sents)})
    target = docs[11]["text"].split(". ")[12] + "."
    summary = f"Several things happened this year. {target} Nothing else was reported."
    path = tmp_path_factory.mktemp("long") / "long.jsonl"
    path.write_text(json.dumps({"id": "long-1", "source": docs, "summary": summary}) + "\n", encoding="utf-8")
    return build_bundle([path], name="long"), target



def select_in_summary(page, target: str) -> None:
    """Select `target` in the summary once the record's vectors are in (a selection as a mouse-up makes it)."""
    page.evaluate("async () => { const r = mercuryStatic.store.state.current.record;"
                  " await r.source.vectorsReady; await r.summary.vectorsReady; }")
    s = page.evaluate("(t) => mercuryStatic.panes.summary.view.text.indexOf(t)", target)
    page.evaluate("""([s, e]) => { const p = mercuryStatic.panes.summary;
        const sel = getSelection(); sel.removeAllRanges(); sel.addRange(p.rangeFor(s, e));
        p.scroller.dispatchEvent(new MouseEvent('mouseup', {bubbles: true})); }""", [s, s + len(target)])

def test_long_source_sections_minimap_and_match_keys(page, long_bundle, serve_dir):
    bundle, target = long_bundle
    page.route("**/models/**", lambda route: route.abort())
    page.goto(serve_dir(bundle) + "?annotator=alice")
    page.wait_for_selector("body[data-ready]")
    # blocks get their sentence elements when shown or in idle time after the first paint
    page.wait_for_selector("#pane-source .text[data-complete]", state="attached")
    assert page.locator('#pane-source .s[data-side="source"]').count() >= N_DOCS * PER_DOC
    # document boundaries: one block per document, labelled, title line kept as text
    docs = page.locator("#pane-source .doc")
    assert docs.count() == N_DOCS
    assert docs.nth(11).get_attribute("data-doc") == "doc-11"
    assert docs.nth(11).locator(".doc-head").text_content().strip() == "Report number 11"
    assert page.evaluate("""() => { const c = document.getElementById('pane-source').cloneNode(true);
        c.querySelectorAll('.doc-title').forEach(e => e.remove());
        return c.textContent === mercuryStatic.panes.source.view.text; }""")

    # select the summary sentence copied from document 11: its source sentence ranks first, scrolled to
    select_in_summary(page, target)
    best = page.locator('#pane-source .s[data-rank="1"]')
    assert best.text_content() == target
    assert best.evaluate("el => el.closest('.doc').dataset.doc") == "doc-11"
    scroller = page.locator("#pane-source")
    top = scroller.evaluate("el => el.scrollTop")
    assert top > 0
    assert best.evaluate("""el => { const r = el.getBoundingClientRect(),
        b = document.getElementById('pane-source').getBoundingClientRect();
        return r.top >= b.top && r.bottom <= b.bottom; }""")

    # minimap: one marker per highlighted sentence, the best one where the sentence is
    n_lit = page.locator("#pane-source .s[data-rank]").count()
    marks = page.locator("#mm-source .mm-mark")
    assert n_lit >= 2 and marks.count() == n_lit
    frac = page.locator('#mm-source .mm-mark[data-best]').evaluate("m => parseFloat(m.style.top)")
    assert 60 < frac < 80  # document 11 of 16

    # next/previous match keys walk the highlighted sentences in text order and scroll to them
    order = sorted(int(x) for x in page.locator("#pane-source .s[data-rank]").evaluate_all(
        "els => els.map(e => e.dataset.sentence)"))
    seen = []
    for _ in range(len(order)):
        page.keyboard.press(".")
        seen.append(int(page.locator("#pane-source .s[data-focus]").get_attribute("data-sentence")))
    assert seen == order
    page.keyboard.press(",")
    assert int(page.locator("#pane-source .s[data-focus]").get_attribute("data-sentence")) == order[-2]
    positions = set()
    for _ in range(2):
        page.keyboard.press(".")
        positions.add(scroller.evaluate("el => el.scrollTop"))
    assert len(positions) == 2 or len(order) < 3


def test_minimap_marks_are_numbered_as_the_counter_and_a_click_is_the_match_l_pairs(page, long_bundle, serve_dir):
    """Marks were numbered by score and the counter by text order, and a click on a mark only scrolled: `l`
    then paired the best match, off-screen. One numbering now, text order (the order of the marks down the
    strip and of `.`); a clicked mark is the current match, as after `.`."""
    bundle, target = long_bundle
    page.route("**/models/**", lambda route: route.abort())
    page.goto(serve_dir(bundle) + "?annotator=alice")
    page.wait_for_selector("body[data-ready]")
    page.wait_for_selector("#pane-source .text[data-complete]", state="attached")
    page.evaluate("() => { const m = document.getElementById('ctl-min'); m.value = '0'; m.dispatchEvent(new Event('input')); }")
    select_in_summary(page, target)
    page.wait_for_function("() => document.querySelectorAll('#mm-source .mm-mark').length >= 2"
                           " && document.querySelectorAll('#mm-source .mm-mark').length"
                           " === mercuryStatic.store.state.assist.results.length")
    marks = page.locator("#mm-source .mm-mark").evaluate_all(
        "ms => ms.map(m => ({n: Number(m.dataset.match), top: parseFloat(m.style.top), title: m.title,"
        " sentence: Number(m.dataset.sentence), best: m.dataset.best === 'true'}))")
    n = len(marks)
    by_top = sorted(marks, key=lambda m: (m["top"], m["sentence"]))
    assert [m["n"] for m in by_top] == list(range(1, n + 1))  # down the strip: match 1, 2, 3…
    assert all(m["title"].startswith(f"match {m['n']} of {n}") for m in marks)
    best = page.evaluate("() => mercuryStatic.store.state.assist.results[0].index")
    assert [m["sentence"] for m in marks if m["best"]] == [best]
    # the same numbers as `.` walks them
    page.keyboard.press(".")
    assert page.locator("#match-source").inner_text().startswith(f"match 1 of {n}")
    assert int(page.locator("#pane-source .s[data-focus]").get_attribute("data-sentence")) == by_top[0]["sentence"]
    # a click on a mark that is not the best: it is the current match, and `l` pairs it
    other = next(m for m in by_top if m["sentence"] != best)
    page.click(f'#mm-source .mm-mark[data-match="{other["n"]}"]')
    assert page.locator("#match-source").inner_text().startswith(f"match {other['n']} of {n}")
    assert int(page.locator("#pane-source .s[data-focus]").get_attribute("data-sentence")) == other["sentence"]
    page.keyboard.press("l")
    span = page.evaluate("() => mercuryStatic.store.state.draft.source")
    assert span == page.evaluate("(i) => mercuryStatic.store.state.current.record.source.sentences[i]", other["sentence"])
    page.keyboard.press(".")  # and `.` goes on from it
    assert page.locator("#match-source").inner_text().startswith(f"match {other['n'] % n + 1} of {n}")
