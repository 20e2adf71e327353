"""The page on a long, multi-document source: document boundaries, minimap, match jumping."""

from __future__ import annotations

import json
import random

import pytest

from pagedriver import add_init_script, query, select_range, wait, wait_model
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
    query(page, "async () => { const r = pd.record();"
                " await r.source.vectorsReady; await r.summary.vectorsReady; }")
    s = query(page, "(t) => pd.pane('summary').view.text.indexOf(t)", target)
    select_range(page, "summary", s, s + len(target))


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
    assert query(page, """() => { const c = document.getElementById('pane-source').cloneNode(true);
        c.querySelectorAll('.doc-title').forEach(e => e.remove());
        return c.textContent === pd.pane('source').view.text; }""")

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
    wait(page, "() => document.querySelectorAll('#mm-source .mm-mark').length >= 2"
               " && document.querySelectorAll('#mm-source .mm-mark').length"
               " === pd.assist().results.length")
    marks = page.locator("#mm-source .mm-mark").evaluate_all(
        "ms => ms.map(m => ({n: Number(m.dataset.match), top: parseFloat(m.style.top), title: m.title,"
        " sentence: Number(m.dataset.sentence), best: m.dataset.best === 'true'}))")
    n = len(marks)
    by_top = sorted(marks, key=lambda m: (m["top"], m["sentence"]))
    assert [m["n"] for m in by_top] == list(range(1, n + 1))  # down the strip: match 1, 2, 3…
    assert all(m["title"].startswith(f"match {m['n']} of {n}") for m in marks)
    best = query(page, "() => pd.assist().results[0].index")
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
    span = query(page, "() => pd.draft().source")
    assert span == query(page, "(i) => pd.record().source.sentences[i]", other["sentence"])
    page.keyboard.press(".")  # and `.` goes on from it
    assert page.locator("#match-source").inner_text().startswith(f"match {other['n'] % n + 1} of {n}")


# The worker's messages watched (and, with window.__embedDelay ms, held back: a slow machine's embedding); its
# rows never run (each `tokens` job sent empty), so a selection takes the path of one made before its rows are
WATCH_WORKER = """
window.__asked = [];
const post = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (msg, ...rest) {
  if (msg && msg.type === 'tokens') return post.call(this, { ...msg, texts: [] }, ...rest);
  if (!msg || msg.type !== 'embed') return post.call(this, msg, ...rest);
  window.__asked.push({ texts: msg.texts, saveSeq: pd.saveSeq() });
  if (window.__embedDelay) setTimeout(() => post.call(this, msg, ...rest), window.__embedDelay);
  else post.call(this, msg, ...rest);
};
"""


def select_half(page, target: str) -> tuple[int, int]:
    s = query(page, "(t) => pd.pane('summary').view.text.indexOf(t)", target)
    e = s + target.rindex(" ", 0, len(target) // 2)
    select_range(page, "summary", s, e)
    return s, e


def open_with_model(page, url: str) -> None:
    add_init_script(page, WATCH_WORKER)
    page.goto(url + "?annotator=alice")
    page.wait_for_selector("body[data-ready]")
    page.keyboard.press("Escape")
    wait_model(page, timeout=60_000)
    query(page, "async () => { const r = pd.record();"
                " await r.source.vectorsReady; await r.summary.vectorsReady; }")


def test_the_worker_is_asked_before_the_draft_takes_the_selection(page, long_bundle, serve_dir):
    """The span's embedding waited for the draft's save (the page's renderers, an IndexedDB write)
    before it was sent to the worker: the assistant asks as the store takes the selection."""
    bundle, target = long_bundle
    open_with_model(page, serve_dir(bundle))
    before = query(page, "() => pd.saveSeq()")
    s, e = select_half(page, target)
    wait(page, "() => pd.assist().kind === 'model'")
    asked = page.evaluate("() => window.__asked.at(-1)")
    assert asked["texts"] == [query(page, "([s, e]) => pd.pane('summary').view.slice(s, e)", [s, e])]
    assert asked["saveSeq"] == before  # sent before the draft's save began
    assert query(page, "() => pd.saveSeq()") > before
    assert query(page, "() => pd.draft().summary") == [s, e]


# Every assist state the store takes, in order: [kind, pending, number of results, the source pane's header]
# (the page's own subscribers have drawn it by then); the minimum score at 0, so an answer lights something.
WATCH_ASSIST = """() => { window.__shown = []; pd.watchAssist((a) => {
    window.__shown.push([a.kind, a.pending, a.results.length, document.getElementById('assist-source').textContent]); });
    const m = document.getElementById('ctl-min'); m.value = '0'; m.dispatchEvent(new Event('input')); }"""


def test_a_ready_models_answer_is_not_preceded_by_the_instant_one(page, long_bundle, serve_dir):
    """On a long source the instant answer lit, scrolled to and drew the marks of sentences that the
    model's answer replaced a few tens of milliseconds later: frames that ran while the worker embedded, and
    that its answer then waited for. With a ready model free to answer, the pane now says the model is
    ranking, and the instant answer is shown only if the model has not answered within the hold (HOLD_MS;
    held longer here, so that a loaded machine's slower model still answers within it)."""
    bundle, target = long_bundle
    open_with_model(page, serve_dir(bundle))
    query(page, "() => pd.holdModel(10000)")
    query(page, WATCH_ASSIST)
    select_half(page, target)
    wait(page, "() => pd.assist().kind === 'model'", timeout=10_000)
    shown = page.evaluate("() => window.__shown")
    assert shown[0] == [None, True, 0, "ranking with the model…"]  # at once, at the selection
    n = shown[-1][2]
    assert [k[:2] for k in shown] == [[None, True], ["model", False]] and n >= 1
    assert shown[-1][3] == f"{n} related · model"
    assert page.locator("#pane-source .s[data-rank]").count() == n
    page.wait_for_function(f"() => document.querySelectorAll('#mm-source .mm-mark').length === {n}")


def test_a_late_models_answer_follows_the_instant_one_shown_after_a_wait(page, long_bundle, serve_dir):
    """The instant answer waits the hold (HOLD_MS) for a ready model; a model later than that (a slow
    machine) gets the instant answer shown, scrolled to and marked in the minimap, then replaced by its own.
    The hold and the model's delay are lengthened here alike, so that a loaded machine keeps their order."""
    bundle, target = long_bundle
    open_with_model(page, serve_dir(bundle))
    query(page, "() => pd.holdModel(1000)")
    page.evaluate("() => { window.__embedDelay = 3000; }")
    query(page, WATCH_ASSIST)
    select_half(page, target)
    page.wait_for_timeout(60)
    assert query(page, "() => pd.assist().pending") is True
    assert page.locator("#pane-source .s[data-rank]").count() == 0
    scroller = page.locator("#pane-source")
    assert scroller.evaluate("el => el.scrollTop") == 0
    # the model is late: the instant answer lights, scrolls and draws its marks
    page.wait_for_function("() => document.getElementById('pane-source').scrollTop > 0"
                           " && document.querySelectorAll('#mm-source .mm-mark').length > 0", timeout=3_000)
    assert query(page, "() => pd.assist().kind") == "precomputed"
    wait(page, "() => pd.assist().kind === 'model'", timeout=15_000)
    assert [k[:2] for k in page.evaluate("() => window.__shown")] == [[None, True], ["precomputed", False], ["model", False]]
    wait(page, "() => document.querySelectorAll('#mm-source .mm-mark').length"
               " === pd.assist().results.length")
    best = page.locator('#pane-source .s[data-rank="1"]')
    page.wait_for_function("""() => { const el = document.querySelector('#pane-source .s[data-rank="1"]'),
        b = document.getElementById('pane-source').getBoundingClientRect(), r = el.getBoundingClientRect();
        return r.top >= b.top && r.bottom <= b.bottom; }""")
    assert best.count() == 1
