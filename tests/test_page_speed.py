"""The page's speed paths: the highlight touches only what changes, a whole stored sentence is
answered without the worker."""

from __future__ import annotations

import pytest

from pagedriver import query, wait, wait_model

pytestmark = pytest.mark.browser

READY = "body[data-ready]"
RECORD = "harbor-lighthouse"


def open_demo(page, url: str) -> None:
    page.goto(f"{url}?annotator=alice#record={RECORD}")
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")  # the guidelines panel of a first visit
    query(page, "async () => { const r = pd.record();"
                " await r.source.vectorsReady; await r.summary.vectorsReady; }")


# Mutations of the source pane's sentence attributes and of its minimap while `calls` run, in the page.
COUNT_MUTATIONS = """async (calls) => {
    const pane = pd.pane('source'), n = pane.view.sentences.length;
    const levelOf = (s) => (s >= 0.6 ? 3 : s >= 0.45 ? 2 : 1);
    const res = (pairs) => pairs.map(([index, score]) => ({ index: index % n, score }));
    const counts = [];
    for (const call of calls) {
        const attrs = [], marks = [];
        const a = new MutationObserver((m) => attrs.push(...m)), b = new MutationObserver((m) => marks.push(...m));
        a.observe(pane.root, { attributes: true, subtree: true, attributeFilter: ['data-rank', 'data-score', 'data-level'] });
        b.observe(pane.minimap, { childList: true });
        pane.setHighlights(res(call), levelOf);
        await new Promise((r) => requestAnimationFrame(() => r()));  // the marks are placed at the next frame
        attrs.push(...a.takeRecords()); marks.push(...b.takeRecords());
        a.disconnect(); b.disconnect();
        counts.push({ attrs: attrs.map((m) => m.target.dataset.sentence + ':' + m.attributeName), marks: marks.length });
    }
    return counts;
}"""


def test_a_new_highlight_writes_only_the_attributes_that_change(page, bundle_server):
    open_demo(page, bundle_server)
    first = [[0, 0.7], [2, 0.5], [4, 0.3]]
    same = [[0, 0.7], [2, 0.5], [4, 0.3]]
    moved = [[0, 0.7], [4, 0.31], [1, 0.5]]  # 0 unchanged, 4 re-ranked (2nd, other score), 1 new, 2 gone
    counts = query(page, COUNT_MUTATIONS, [first, same, moved, []])
    assert len(counts[0]["attrs"]) == 9 and counts[0]["marks"] == 1
    assert counts[1] == {"attrs": [], "marks": 0}  # the same answer again (model refining precomputed)
    changed = sorted(counts[2]["attrs"])
    assert changed == sorted(["2:data-rank", "2:data-score", "2:data-level",  # unlit
                              "4:data-rank", "4:data-score",  # same level: data-level kept
                              "1:data-rank", "1:data-score", "1:data-level"])  # lit
    assert counts[2]["marks"] == 1  # the marks moved: the minimap is rebuilt
    assert len(counts[3]["attrs"]) == 9 and counts[3]["marks"] == 1
    assert page.locator("#pane-source .s[data-rank]").count() == 0
    assert page.locator("#mm-source .mm-mark").count() == 0


def test_the_minimap_keeps_its_marks_when_only_scores_change(page, bundle_server):
    open_demo(page, bundle_server)
    counts = query(page, COUNT_MUTATIONS, [[[0, 0.7], [3, 0.5]], [[0, 0.71], [3, 0.52]]])
    assert counts[1]["marks"] == 0 and sorted(counts[1]["attrs"]) == ["0:data-score", "3:data-score"]
    titles = page.locator("#mm-source .mm-mark").evaluate_all("els => els.map(e => e.title)")
    assert titles == ["match 1 of 2: score 0.71 (the best)", "match 2 of 2: score 0.52"]  # they follow the new scores


SELECT = """async ([side, s, e]) => { const p = pd.pane(side);
    const sel = getSelection(); sel.removeAllRanges(); sel.addRange(p.rangeFor(s, e));
    p.scroller.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
    await null;  // the assistant answers in a microtask; a worker's answer could only come in a later task
    const a = pd.assist();
    return {kind: a.kind, results: a.results.map(r => r.index), timings: pd.timings()}; }"""


def test_a_whole_stored_sentence_is_answered_at_once_with_the_models_vector(page, bundle_server):
    open_demo(page, bundle_server)
    wait_model(page, timeout=60_000)
    s, e = query(page, "() => pd.pane('summary').view.sentences[1]")
    got = query(page, SELECT, ["summary", s, e])
    assert got["kind"] == "model" and got["results"]  # no worker round trip
    assert got["timings"]["modelMs"] is not None
    # the same ranking as the worker's vector of that text gives
    text = query(page, "([s, e]) => pd.pane('summary').view.text.slice(s, e)", [s, e])
    cos = query(page, """async ([text, i]) => { const [v] = await pd.embed([text]);
        const w = pd.record().summary.sentenceVectors[i][0];
        let d = 0; for (let j = 0; j < v.length; j++) d += v[j] * w[j]; return d; }""", [text, 1])
    assert cos > 0.9999
    # a part of a sentence whose row the worker has run is answered at once too, from its tokens
    # (a row not run yet goes to the worker: test_page_long.py)
    wait(page, "() => pd.record().summary.tokenRows.every(Boolean)", timeout=60_000)
    page.keyboard.press("Escape")
    got = query(page, SELECT, ["summary", s, s + (e - s) // 2])
    assert got["kind"] == "model" and got["results"]
    assert query(page, "() => pd.assist().pending") is False


EARLY = """
window.__early = { segmenters: 0, scrollWrites: 0 };
const painted = () => performance.getEntriesByName('mercury-first-paint').length > 0;
const Segmenter = Intl.Segmenter;
Intl.Segmenter = class extends Segmenter {
  constructor(...args) { super(...args); if (!painted()) window.__early.segmenters += 1; }
};
const top = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollTop');
Object.defineProperty(Element.prototype, 'scrollTop', {
  configurable: true,
  get() { return top.get.call(this); },
  set(v) { if (!painted()) window.__early.scrollWrites += 1; top.set.call(this, v); },
});
"""


def test_no_work_that_can_wait_runs_before_the_first_paint(page, bundle_server):
    """The word segmenter (its word-break data: main-thread work) is made at the first keyboard
    selection, not at module load; a pane that never scrolled gets no scrollTop write (each one lays out
    the whole page once more before its first paint). Keyboard selection still works after it."""
    page.add_init_script(EARLY)
    page.goto(f"{bundle_server}?annotator=alice")  # no deep link, no stored scroll position
    page.wait_for_function("() => performance.getEntriesByName('mercury-first-paint').length > 0")
    assert page.evaluate("() => window.__early") == {"segmenters": 0, "scrollWrites": 0}
    page.keyboard.press("Escape")  # the guidelines of a first visit
    page.locator("#pane-summary").focus()
    page.keyboard.press("ArrowRight")
    wait(page, "() => pd.draft().summary")
