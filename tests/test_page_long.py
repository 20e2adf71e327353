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


# The worker's messages watched (and, with window.__embedDelay ms, held back: a slow machine's embedding)
WATCH_WORKER = """
window.__asked = [];
const post = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (msg, ...rest) {
  if (!msg || msg.type !== 'embed') return post.call(this, msg, ...rest);
  const span = window.mercuryStatic.store.state.draft.summary;
  window.__asked.push({ texts: msg.texts, draft: span ? [...span] : null });
  if (window.__embedDelay) setTimeout(() => post.call(this, msg, ...rest), window.__embedDelay);
  else post.call(this, msg, ...rest);
};
"""


def select_half(page, target: str) -> tuple[int, int]:
    s = page.evaluate("(t) => mercuryStatic.panes.summary.view.text.indexOf(t)", target)
    e = s + target.rindex(" ", 0, len(target) // 2)
    page.evaluate("""([s, e]) => { const p = mercuryStatic.panes.summary;
        const sel = getSelection(); sel.removeAllRanges(); sel.addRange(p.rangeFor(s, e));
        p.scroller.dispatchEvent(new MouseEvent('mouseup', {bubbles: true})); }""", [s, e])
    return s, e


def open_with_model(page, url: str) -> None:
    page.add_init_script(WATCH_WORKER)
    page.goto(url + "?annotator=alice")
    page.wait_for_selector("body[data-ready]")
    page.keyboard.press("Escape")
    page.wait_for_function("() => mercuryStatic.store.state.model.status === 'ready'", timeout=60_000)
    page.evaluate("async () => { const r = mercuryStatic.store.state.current.record;"
                  " await r.source.vectorsReady; await r.summary.vectorsReady; }")


def test_the_worker_is_asked_before_the_draft_takes_the_selection(page, long_bundle, serve_dir):
    """Issue 29: the span's embedding waited for the draft's update and save (a store update, its
    subscribers, an IndexedDB write) before it was sent to the worker."""
    bundle, target = long_bundle
    open_with_model(page, serve_dir(bundle))
    s, e = select_half(page, target)
    page.wait_for_function("() => mercuryStatic.store.state.assist.kind === 'model'")
    asked = page.evaluate("() => window.__asked.at(-1)")
    assert asked["texts"] == [page.evaluate("([s, e]) => mercuryStatic.panes.summary.view.slice(s, e)", [s, e])]
    assert asked["draft"] != [s, e]  # sent before the draft held it
    assert page.evaluate("() => mercuryStatic.store.state.draft.summary") == [s, e]


def test_an_instant_answer_about_to_be_refined_waits_to_scroll(page, long_bundle, serve_dir):
    """Issue 29: on a long source the instant answer scrolled the pane and drew the minimap, and the model's
    answer a few tens of milliseconds later did it again elsewhere: two layouts and paints of new blocks
    while the worker embedded. Now its sentences light at once; the pane and the marks wait for the model's
    answer, or go by themselves after REFINE_WAIT_MS (150 ms) if it is late."""
    bundle, target = long_bundle
    open_with_model(page, serve_dir(bundle))
    page.evaluate("() => { window.__embedDelay = 700; }")
    select_half(page, target)
    assert page.evaluate("() => mercuryStatic.store.state.assist.kind") == "precomputed"
    assert page.locator("#pane-source .s[data-rank]").count() >= 1  # lit at once
    page.wait_for_timeout(60)
    scroller = page.locator("#pane-source")
    assert scroller.evaluate("el => el.scrollTop") == 0
    assert page.locator("#mm-source .mm-mark").count() == 0
    # the model is late: the instant answer scrolls and draws its marks itself
    page.wait_for_function("() => document.getElementById('pane-source').scrollTop > 0"
                           " && document.querySelectorAll('#mm-source .mm-mark').length > 0", timeout=2_000)
    assert page.evaluate("() => mercuryStatic.store.state.assist.kind") == "precomputed"
    page.wait_for_function("() => mercuryStatic.store.state.assist.kind === 'model'", timeout=10_000)
    page.wait_for_function("() => document.querySelectorAll('#mm-source .mm-mark').length"
                           " === mercuryStatic.store.state.assist.results.length")
    best = page.locator('#pane-source .s[data-rank="1"]')
    page.wait_for_function("""() => { const el = document.querySelector('#pane-source .s[data-rank="1"]'),
        b = document.getElementById('pane-source').getBoundingClientRect(), r = el.getBoundingClientRect();
        return r.top >= b.top && r.bottom <= b.bottom; }""")
    assert best.count() == 1
