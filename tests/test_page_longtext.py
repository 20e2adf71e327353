"""Long texts — minimap from the real layout, match counter, sticky document header, scroll
positions across reloads, `[N]` citations as links, and no long task on a 50,000-character word."""

from __future__ import annotations

import json
import random

import pytest

from mercury_static.bundle.record_index import read_columns

from pagedriver import query, wait, wait_open, wait_saved
from page_fixtures import summhay_topic

pytestmark = pytest.mark.browser

N_DOCS = 40
# The longest task the hostile-word tests accept. The page's own target is lower (benchmarks/RESULTS.md),
# but tests assert no speed (that is measured): this bar catches what they are for, a layout or a
# segmentation that grows with the word (seconds), on a slower core too.
LONG_TASK_MS = 250


@pytest.fixture(scope="module")
def sh_bundle(build_bundle, tmp_path_factory):
    return build_bundle([summhay_topic(tmp_path_factory.mktemp("sh") / "topic.json", n_docs=N_DOCS, subtopics=1)],
                        name="sh", fmt="summhay")


def goto(page, base, record=None, size=(1440, 900)):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.route("**/models/**", lambda route: route.abort())
    page.goto(f"{base}?annotator=alice" + (f"#record={record}" if record else ""))
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    wait_open(page, timeout=60_000)
    page.keyboard.press("Escape")


def select_summary_line(page, n: int):
    """Select bullet line n (0-based) of the summary with a DOM selection, as a mouse selection ends."""
    query(page, "async () => { const r = pd.record();"
                " await r.source.vectorsReady; await r.summary.vectorsReady; }")
    query(page, """(n) => { const p = pd.pane('summary'), t = p.view.text;
        let s = 0; for (let i = 0; i < n; i++) s = t.indexOf('\\n', s) + 1;
        const e = t.indexOf('.', s) + 1;
        const sel = getSelection(); sel.removeAllRanges(); sel.addRange(p.rangeFor(s + 2, e));
        p.scroller.dispatchEvent(new MouseEvent('mouseup', {bubbles: true})); }""", n)
    wait(page, "() => pd.assist().side === 'source'"
               " && pd.assist().results.length >= 2")


# Each mark's top (% of the minimap) against where its sentence is once every block is really laid out.
MARKS_VS_LAYOUT = """() => {
    const pane = pd.pane('source'), sc = pane.scroller;
    const marks = [...document.querySelectorAll('#mm-source .mm-mark')];
    if (!marks.length) return null;
    const shown = marks.map(m => parseFloat(m.style.top));
    const blocks = [...sc.querySelectorAll('.block')];
    const saved = blocks.map(b => b.style.contentVisibility);
    blocks.forEach(b => { b.style.contentVisibility = 'visible'; });
    const origin = sc.getBoundingClientRect().top - sc.scrollTop, total = sc.scrollHeight;
    const truth = marks.map(m => 100 * (pane.sentenceEl(Number(m.dataset.sentence)).getBoundingClientRect().top - origin) / total);
    blocks.forEach((b, i) => { b.style.contentVisibility = saved[i]; });
    return {shown, truth, err: Math.max(...shown.map((s, i) => Math.abs(s - truth[i])))};
}"""


def marks_follow_the_layout(page):
    """Wait until the marks sit where their sentences are. MARKS_VS_LAYOUT lays out every block: checked at
    every frame, it left the page no idle time for its own measure of the blocks, whose result the marks
    wait for (on a slower machine the check then failed for 20 s), so it is checked twice a second."""
    wait(page, f"() => {{ const r = ({MARKS_VS_LAYOUT})(); return r && r.err < 1; }}", polling=500,
         timeout=30_000)


def test_minimap_from_the_real_layout_and_redrawn_on_resize(page, sh_bundle, serve_dir):
    goto(page, serve_dir(sh_bundle))
    select_summary_line(page, 0)
    marks_follow_the_layout(page)
    far = query(page, MARKS_VS_LAYOUT)
    assert max(far["truth"]) > 20  # marks spread over the text, not bunched at the top
    # a narrower window changes every block's height: the marks follow
    page.set_viewport_size({"width": 1100, "height": 900})
    marks_follow_the_layout(page)


def test_match_counter_sticky_header_and_citation_links(page, sh_bundle, serve_dir):
    goto(page, serve_dir(sh_bundle))
    page.wait_for_selector("#pane-source .text[data-complete]", state="attached")
    # every block measured first (as the scroll-memory test waits): a citation followed while the idle
    # measure still changes the heights of blocks above it landed 788 px off on a slower machine (noted)
    page.wait_for_selector("#pane-source .text[data-measured]", state="attached", timeout=30_000)
    # citations: the summary's [16][27] are links to those documents of the source
    cites = page.locator("#pane-summary .cite")
    assert cites.count() == 6
    assert cites.evaluate_all("els => els.map(e => e.textContent)")[:2] == ["[16]", "[27]"]
    assert query(page, """() => { const c = document.getElementById('pane-summary').cloneNode(true);
        return c.textContent === pd.pane('summary').view.text; }""")
    page.locator('#pane-summary .cite[data-doc="27"]').first.click()
    doc_top = """(n) => { const d = document.querySelectorAll('#pane-source .doc')[n - 1].getBoundingClientRect();
        return d.top - document.getElementById('pane-source').getBoundingClientRect().top; }"""
    assert abs(page.evaluate(doc_top, 27)) < 4
    # from the keyboard too: focus the [16] citation, Enter follows it
    page.locator('#pane-summary .cite[data-doc="16"]').first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => Math.abs(({doc_top})(16)) < 4")
    assert page.evaluate("() => document.activeElement.dataset.doc") == "16"
    # sticky header: in the middle of document 2 (30 sentences) its header is at the top of the pane
    query(page, """() => { const p = pd.pane('source'), d = document.querySelectorAll('#pane-source .doc')[1];
        const s = Number(d.querySelectorAll('.s')[15].dataset.sentence);
        p.scroller.scrollTop += p.sentenceEl(s).getBoundingClientRect().top - p.scroller.getBoundingClientRect().top; }""")
    page.wait_for_timeout(300)
    head = page.evaluate("""() => { const d = document.querySelectorAll('#pane-source .doc')[1];
        const t = d.querySelector('.doc-title'), r = t.getBoundingClientRect();
        const top = document.getElementById('pane-source').getBoundingClientRect().top;
        return {dy: r.top - top, h: r.height, label: t.dataset.label,
                hit: document.elementFromPoint(r.left + 20, r.top + r.height / 2) === t}; }""")
    assert abs(head["dy"]) < 3 and head["h"] > 8 and head["hit"], head
    assert head["label"].startswith("Document 2")
    # counter: "N matches · best in document 16", then "match k of N · document D" while jumping
    select_summary_line(page, 0)
    counter = page.locator("#match-source")
    n = query(page, "() => pd.assist().results.length")
    assert counter.inner_text() == f"{n} matches · best in document 16"
    for k in range(1, 3):
        page.keyboard.press(".")
        focused = page.locator("#pane-source .s[data-focus]")
        doc = focused.evaluate("el => [...document.querySelectorAll('#pane-source .doc')].indexOf(el.closest('.doc')) + 1")
        assert counter.inner_text() == f"match {k} of {n} · document {doc}"
    page.keyboard.press("Escape")
    assert counter.inner_text() == ""


# Scroll the source so sentence i starts at the pane's top / the sentence at the pane's top (both
# independent of the page's own scroll-memory code).
SCROLL_TO = """(i) => { const p = pd.pane('source'), el = p.sentenceEl(i);
    p.scroller.scrollTop += el.getBoundingClientRect().top - p.scroller.getBoundingClientRect().top; }"""
TOP = """() => { const sc = document.getElementById('pane-source'), top = sc.getBoundingClientRect().top + 1;
    let best = null;
    for (const el of sc.querySelectorAll('.s')) { if (el.getBoundingClientRect().top <= top) best = el; else break; }
    return best ? Number(best.dataset.sentence) : null; }"""


def open_complete(page, base, rid):
    wait_open(page, rid)
    # every block laid out and measured: until then a measured block above the view may still move it
    page.wait_for_selector("#pane-source .text[data-measured]", state="attached", timeout=30_000)


def test_scroll_positions_kept_per_record_across_reloads(page, sh_bundle, serve_dir):
    base = serve_dir(sh_bundle)
    ids = read_columns(sh_bundle / "data")["ids"]
    goto(page, base, ids[0])
    open_complete(page, base, ids[0])
    query(page, SCROLL_TO, 300)
    page.wait_for_timeout(800)
    first = page.evaluate(TOP)
    assert abs(first - 300) <= 1
    page.keyboard.press("n")
    open_complete(page, base, ids[1])
    query(page, SCROLL_TO, 120)
    page.wait_for_timeout(800)
    second = page.evaluate(TOP)
    page.reload()
    page.wait_for_selector("body[data-ready]")
    open_complete(page, base, ids[1])
    page.wait_for_timeout(300)
    assert page.evaluate(TOP) == second
    page.keyboard.press("p")
    open_complete(page, base, ids[0])
    page.wait_for_timeout(300)
    assert page.evaluate(TOP) == first
    # and it stays there while the rest of the text is laid out
    page.wait_for_timeout(2000)
    assert page.evaluate(TOP) == first


# ------------------------------------------------------------------------------ one unbroken word

LONGTASKS = """window.__longtasks = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longtasks.push(Math.round(e.duration)); })
  .observe({type: 'longtask', buffered: true});"""


def one_word_bundle(build_bundle, folder, name: str, length: int, seed: int, ends: tuple[str, str] = ("", "")):
    """Two records: an unbroken word of `length` letters in the source of one, in the summary of the other."""
    rng = random.Random(seed)
    word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(length))
    rows = [{"id": "in-source", "source": f"It starts plainly. {word} It ends plainly.",
             "summary": "It starts plainly." + ends[0]},
            {"id": "in-summary", "source": "It starts plainly. It ends plainly.",
             "summary": f"It starts plainly. {word}" + ends[1]}]
    path = folder / "word.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return build_bundle([path], name=name)


@pytest.fixture(scope="module")
def word_bundle(build_bundle, tmp_path_factory):
    return one_word_bundle(build_bundle, tmp_path_factory.mktemp("word"), "word", 50_000, 11)


def word_scenario(context, base, side) -> list[int]:
    """Open the record, select inside the word with the mouse, scroll: the long tasks seen (ms)."""
    page = context.new_page()
    page.add_init_script(LONGTASKS)
    goto(page, base, f"in-{side}")
    page.wait_for_selector(f"#pane-{side} .text[data-complete]", state="attached", timeout=30_000)
    page.wait_for_timeout(500)
    box = query(page, """(side) => { const p = pd.pane(side);
        const a = p.rangeFor(30, 31).getClientRects()[0], b = p.rangeFor(900, 901).getClientRects()[0];
        return [a.left + 1, a.top + a.height / 2, b.right - 1, b.top + b.height / 2]; }""", side)
    page.mouse.move(box[0], box[1])
    page.mouse.down()
    page.mouse.move(box[2], box[3], steps=4)
    page.mouse.up()
    wait(page, "(side) => pd.draft()[side]", side)
    page.mouse.wheel(0, 3000)
    page.wait_for_timeout(1500)
    tasks = page.evaluate("() => window.__longtasks")
    page.close()
    return tasks


@pytest.mark.parametrize("side", ["source", "summary"])
def test_50000_character_word_never_blocks_the_page(context, word_bundle, serve_dir, side):
    # Long-task durations are wall time: on a loaded 2-core machine one task can be descheduled, so a
    # second clean run is accepted; a quadratic layout or segmentation (seconds) fails both.
    runs = [word_scenario(context, serve_dir(word_bundle), side)]
    if max(runs[0], default=0) >= LONG_TASK_MS:
        runs.append(word_scenario(context, serve_dir(word_bundle), side))
    assert max(runs[-1], default=0) < LONG_TASK_MS, runs


@pytest.fixture(scope="module")
def word20_bundle(build_bundle, tmp_path_factory):
    return one_word_bundle(build_bundle, tmp_path_factory.mktemp("word20"), "word20", 20_000, 12,
                           (" Then it ends.", " It ends."))


def word_annotate_reload(context, base, side) -> dict[str, list[int]]:
    """The whole 20,000-character word selected with the keyboard (→ steps onto it) and with a
    double click, saved as an annotation, the page reloaded with it, a drag inside it: long tasks per step,
    with the model running (its assistance lights the word's sentence in the other pane)."""
    page = context.new_page()
    page.add_init_script(LONGTASKS)
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{base}?annotator=alice#record=in-{side}")
    steps = {}

    def step(name):
        steps[name] = page.evaluate("() => { const t = window.__longtasks; window.__longtasks = []; return t; }")

    def ready():
        page.wait_for_selector("body[data-ready]", timeout=60_000)
        page.wait_for_selector(f"#pane-{side} .text[data-complete]", state="attached", timeout=30_000)
        page.wait_for_selector("#model-status[data-status=ready]", timeout=60_000)
        page.wait_for_timeout(800)

    ready()
    page.keyboard.press("Escape")
    step("load")
    page.locator(f"#pane-{side}").focus()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    wait(page, "(side) => { const d = pd.draft()[side]; return d && d[1] - d[0] === 20000; }", side)
    page.wait_for_timeout(500)
    step("select with the keyboard")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    wait_saved(page)
    step("save")
    page.reload()
    ready()
    step("reload with it saved")
    box = query(page, """(side) => { const p = pd.pane(side);
        const a = p.rangeFor(30, 31).getClientRects()[0], b = p.rangeFor(200, 201).getClientRects()[0];
        return [a.left + 1, a.top + a.height / 2, b.right - 1, b.top + b.height / 2]; }""", side)
    page.mouse.dblclick(box[0], box[1])
    page.wait_for_timeout(500)
    step("double click")
    page.keyboard.press("Escape")
    page.mouse.move(box[0], box[1])
    page.mouse.down()
    page.mouse.move(box[2], box[3], steps=20)
    page.mouse.up()
    wait(page, "(side) => pd.draft()[side]", side)
    page.wait_for_timeout(500)
    step("drag")
    page.close()
    return steps


@pytest.mark.parametrize("side", ["source", "summary"])
def test_20000_character_word_annotated_and_reloaded_never_blocks_the_page(context, word20_bundle, serve_dir, side):
    # wall-time durations on a loaded machine: a second run is accepted (as above)
    runs = [word_annotate_reload(context, serve_dir(word20_bundle), side)]
    worst = lambda r: max((t for ts in r.values() for t in ts), default=0)  # noqa: E731
    if worst(runs[0]) >= LONG_TASK_MS:
        runs.append(word_annotate_reload(context, serve_dir(word20_bundle), side))
    assert worst(runs[-1]) < LONG_TASK_MS, runs


def test_a_document_title_is_not_read_twice(page, sh_bundle, serve_dir):
    """Where the text opens with the document's title, the sticky header stays empty at the
    document's top (the title once, in the text) and shows the title once that line is scrolled away."""
    goto(page, serve_dir(sh_bundle))
    page.wait_for_selector("#pane-source .text[data-complete]", state="attached")
    header = """(i) => { const t = document.querySelectorAll('#pane-source .doc')[i].querySelector('.doc-title');
        return getComputedStyle(t, '::before').content; }"""
    at_top = page.evaluate(header, 1)
    assert "Document 2" not in at_top, at_top
    query(page, """() => { const p = pd.pane('source'), d = document.querySelectorAll('#pane-source .doc')[1];
        const s = Number(d.querySelectorAll('.s')[15].dataset.sentence);
        p.scroller.scrollTop += p.sentenceEl(s).getBoundingClientRect().top - p.scroller.getBoundingClientRect().top; }""")
    page.wait_for_function(f"() => ({header})(1).includes('Document 2')")
