"""The one place the browser tests and the benchmarks meet the page's internals: user actions and a small
query API.

The state store's shape and its action names change as the page is refactored; tests or benchmarks that read
`window.mercuryStatic.store…` themselves would freeze them. Every browser test and benchmark acts and reads
through this module instead (tests/test_pagedriver.py fails on any other file of tests/ or benchmarks/ that
reaches the store), so such a change is adapted here, in `PD`, and nowhere else.

Two layers:
- `PD`, a JS object `pd` in scope of every function given to `query` and `wait`: named queries (the open
  record, a record's saved work, the draft, the save status, the assistance, the review state, a text pane)
  and the few actions a test takes without the UI. A test's own JS predicate is written against `pd`.
- Python helpers for what tests do most: open a page, select a span the way a user drags it, annotate,
  export, wait for a record, read the annotations of a record.

Offsets are code points, as the store keeps them and the exports write them.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

READY = "body[data-ready]"

# Everything that knows the store's shape and its action names: keep it here.
PD = """{
    hooked: () => !!window.mercuryStatic,
    currentId: () => window.mercuryStatic.store.state.current.id,
    record: () => window.mercuryStatic.store.state.current.record,
    loading: () => window.mercuryStatic.store.state.current.loading,
    allDone: () => window.mercuryStatic.store.state.ui.allDone,
    entry: (id) => window.mercuryStatic.store.state.work.records[id],
    entries: () => window.mercuryStatic.store.state.work.records,
    draft: () => window.mercuryStatic.store.state.draft,
    savedDraft: (id) => window.mercuryStatic.store.state.drafts[id],
    saveState: () => window.mercuryStatic.store.state.ui.save.state,
    saveSeq: () => window.mercuryStatic.store.state.ui.save.seq,
    message: () => window.mercuryStatic.store.state.ui.message,
    hover: () => window.mercuryStatic.store.state.ui.hover,
    assist: () => window.mercuryStatic.store.state.assist,
    watchAssist: (fn) => window.mercuryStatic.store.subscribe((s, prev) => {
        if (s.assist !== prev.assist) fn(s.assist); }),
    watch: (fn) => window.mercuryStatic.store.subscribe(() => fn()),
    modelStatus: () => window.mercuryStatic.store.state.model.status,
    modelBadge: () => { const m = window.mercuryStatic.store.state.model, el = document.getElementById('model-status');
      return { status: m.status, loaded: m.loaded, total: m.total, text: el.textContent, title: el.title }; },
    review: () => window.mercuryStatic.store.state.review,
    clientId: () => window.mercuryStatic.store.state.clientId,
    annotator: () => window.mercuryStatic.store.state.annotator,
    view: () => window.mercuryStatic.store.state.view,
    labelChoices: () => window.mercuryStatic.store.state.labelChoices,
    goTo: (id) => window.mercuryStatic.store.actions.goToId(id),
    setModel: (model) => window.mercuryStatic.store.actions.setModel(model),
    showMessage: (text) => window.mercuryStatic.store.actions.message(text),
    setNote: (note) => window.mercuryStatic.store.actions.setNote(note),
    setStatus: (status) => window.mercuryStatic.store.actions.setStatus(status),
    showAllDone: (on) => window.mercuryStatic.store.actions.showAllDone(on),
    selectSpan: (side, start, end) => window.mercuryStatic.store.actions.select(side, start, end),
    toggleLabel: (label) => window.mercuryStatic.store.actions.toggleLabel(label),
    saveDraft: () => window.mercuryStatic.store.actions.saveDraft(),
    pane: (side) => window.mercuryStatic.panes[side],
    embed: (texts) => window.mercuryStatic.embed(texts),
    version: () => window.mercuryStatic.version,
    timings: () => window.mercuryStatic.timings(),
    queryVector: () => window.mercuryStatic.queryVector(),
    verdicts: () => window.mercuryStatic.store.state.verdicts,
    sentenceStates: () => window.mercuryStatic.store.actions.sentenceStates(),
    clear: () => window.mercuryStatic.store.actions.clear(),
    showRelated: (answer) => window.mercuryStatic.store.actions.showRelated(answer),
    stopAssistant: () => window.mercuryStatic.stopAssistant(),
    holdModel: (ms) => window.mercuryStatic.holdModel(ms),
    panes: () => Object.values(window.mercuryStatic.panes),
}"""


def _fn(fn: str) -> str:
    """`fn` (a JS function written against `pd`) called with `pd` in scope."""
    return f"(arg) => {{ const pd = {PD}; return ({fn})(arg); }}"


def query(page, fn: str, arg=None):
    """Evaluate `fn(arg)` in the page, `pd` in scope (a promise is awaited)."""
    return page.evaluate(_fn(fn), arg)


def wait(page, fn: str, arg=None, timeout: float | None = None, polling: float | None = None):
    """Wait until `fn(arg)`, `pd` in scope, is truthy (checked at every frame, or every `polling` ms)."""
    return page.wait_for_function(_fn(fn), arg=arg, timeout=timeout, polling=polling)


def expression(fn: str, arg=None) -> str:
    """`fn(arg)` as one JS expression, `pd` in scope: for a tab driven over the DevTools protocol itself
    (the benchmarks' long runs), where there is no `page.evaluate`."""
    return f"({_fn(fn)})({json.dumps(arg)})"


def init_script(script: str) -> str:
    """`script` with `pd` in scope of its functions, for an init script (a page's or a whole context's)."""
    return f"{{ const pd = {PD};\n{script}\n}}"


def add_init_script(page, script: str) -> None:
    """Run `script` in every document of `page` before the page's own, `pd` in scope of its functions."""
    page.add_init_script(init_script(script))


# ------------------------------------------------------------------------------------------ queries

def current_id(page) -> str | None:
    return query(page, "() => pd.currentId()")


def record_work(page, rid: str) -> dict | None:
    """A record's saved work (status, annotations, responses, …) as JSON, None if it has none."""
    return query(page, "(id) => JSON.parse(JSON.stringify(pd.entry(id) || null))", rid)


def query_vector(page) -> list[float] | None:
    """The vector of the assistance's last answer (its query: a selection's tokens, blended)."""
    return query(page, "() => pd.queryVector()")


def current_draft(page) -> dict:
    """The draft being made: its spans (code points), labels, note, …"""
    return query(page, "() => pd.draft()")


def pane_text(page, side: str) -> str:
    return query(page, "(side) => pd.pane(side).view.text", side)


def describe(page) -> str:
    """Where the page is, as one line of JSON (printed when a wait times out)."""
    return query(page, """() => JSON.stringify({id: pd.currentId(), rec: !!pd.record(), loading: pd.loading(),
        work: Object.entries(pd.entries()).map(([k, e]) => [k, e.status]), msg: pd.message(), url: location.href})""")


def own_annotations(page, record: str) -> list[dict]:
    """The annotations of `record` saved by this page, without the deleted ones."""
    return query(page, """(rid) => {
        const e = pd.entry(rid);
        return e ? Object.values(e.annotations).filter(a => !a.deleted) : [];
    }""", record)


def sentence_verdicts(page, rid: str) -> dict[int, dict]:
    """The verdicts given to the summary sentences of `rid` in this page's saved work: {index: {verdict,
    evidence, …}} (cleared ones left out)."""
    got = query(page, """(rid) => { const e = pd.entry(rid); const out = {};
        for (const [i, r] of Object.entries(e?.sentences || {})) if (r.value) out[i] = r.value;
        return JSON.parse(JSON.stringify(out)); }""", rid)
    return {int(i): v for i, v in got.items()}


def sentence_states(page) -> list[str]:
    """The open record's summary sentences as the page counts them: 'flagged' | 'judged' | 'unchecked'."""
    return query(page, "() => pd.sentenceStates()")


def shown_sentence_states(page) -> list[str | None]:
    """The state each summary sentence element shows (its data-verdict), in sentence order."""
    return page.evaluate("""() => [...document.querySelectorAll('#pane-summary .s[data-sentence]')]
        .sort((a, b) => a.dataset.sentence - b.dataset.sentence).map((el) => el.dataset.verdict || null)""")


def current_sentence(page) -> int | None:
    """The summary sentence the verdict walk is on (None: none)."""
    return query(page, "() => pd.verdicts().current")


def wait_sentence_lit(page, index: int) -> None:
    """The assistant has answered summary sentence `index` (its evidence lit in the source)."""
    wait(page, """(i) => { const a = pd.assist(); const [s, e] = pd.record().summary.sentences[i];
        return a.side === 'source' && a.query && a.query.start === s && a.query.end === e && !a.pending; }""", index)


def ranked(page, side: str) -> dict[int, str]:
    """{rank: sentence text} of the highlighted sentences of a pane."""
    return {int(el["rank"]): el["text"] for el in page.evaluate(
        """(side) => [...document.querySelectorAll(`.s[data-side="${side}"][data-rank]`)]
             .map(el => ({rank: el.dataset.rank, text: el.textContent}))""", side)}


# -------------------------------------------------------------------------------------------- waits

def wait_current(page, rid: str, timeout: float | None = None) -> None:
    """The page is on record `rid` (its texts may still be loading)."""
    wait(page, "(id) => pd.currentId() === id", rid, timeout=timeout)


def wait_left(page, rid: str, timeout: float | None = None) -> None:
    """The page has moved on from record `rid`."""
    wait(page, "(id) => pd.currentId() !== id", rid, timeout=timeout)


def wait_open(page, rid: str | None = None, timeout: float | None = None) -> None:
    """Record `rid` (else any record) is open: current and its texts loaded."""
    if rid is None:
        wait(page, "() => pd.record()", None, timeout=timeout)
    else:
        wait(page, "(id) => pd.currentId() === id && pd.record()?.id === id", rid, timeout=timeout)


def wait_saved(page, timeout: float | None = None) -> None:
    wait(page, "() => pd.saveState() === 'saved'", None, timeout=timeout)


def wait_model(page, status: str = "ready", timeout: float | None = None) -> None:
    wait(page, "(status) => pd.modelStatus() === status", status, timeout=timeout)


def wait_model_settled(page, timeout: float | None = None) -> str:
    """The model has loaded or failed to: its status, 'ready' or 'failed'."""
    wait(page, "() => ['ready', 'failed'].includes(pd.modelStatus())", None, timeout=timeout)
    return model_status(page)


def model_status(page) -> str:
    return query(page, "() => pd.modelStatus()")


def model_badge(page) -> dict:
    """The model's state in the store ({status, loaded, total}) and its badge in the top bar ({text, title})."""
    return query(page, "() => pd.modelBadge()")


# ------------------------------------------------------------------------------------------ actions

def go_to(page, rid: str) -> None:
    """Open record `rid` as the page's navigation does (the list, a deep link)."""
    query(page, "(id) => pd.goTo(id)", rid)


def set_model(page, status: str, message: str = "") -> None:
    """Show the model as `status` (loading, ready, failed) without loading it."""
    query(page, "([status, message]) => pd.setModel({status, message})", [status, message])


def clear(page) -> None:
    """Drop the draft and the highlights at once (Escape asks first when the draft has a label or a note)."""
    query(page, "() => pd.clear()")


def show_message(page, text: str | None) -> None:
    """The page's message line (None clears it), as an import or a save writes it."""
    query(page, "(text) => pd.showMessage(text)", text)


def open_page(page, base: str, record: str | None = None, annotator: str | None = "alice"):
    url = base + (f"?annotator={quote(annotator)}" if annotator else "")
    if record:
        url += f"#record={quote(record)}"
    page.goto(url)
    page.wait_for_selector(READY)
    if record:  # ready comes before the deep-linked record is drawn: wait for its texts
        page.wait_for_function("(id) => document.body.dataset.record === id", arg=record)
        for side in ("source", "summary"):  # and for its texts, which go into the DOM in idle time
            page.wait_for_selector(f"#pane-{side} .text[data-complete]", state="attached", timeout=30_000)
    page.keyboard.press("Escape")  # closes the guidelines panel that opens on the first visit
    return page


def select(page, side: str, needle: str, nth: int = 0, ranked: bool = True) -> tuple[int, int]:
    """Select `needle` in a pane with a real mouse drag; returns the code-point span the page recorded.

    With `ranked`, wait until the other pane shows the answer for this selection (query spans only)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.bring_to_front()  # an annotator selects in the tab in front (a background tab renders no frames)
    for attempt in range(3):
        # the coordinates are taken right before the drag, after a frame (the page scrolls a pane to the best
        # match at the next frame after an answer); on a loaded machine a late layout step (fonts, measured
        # block heights) can still move the text under them, so a drag that missed is redone
        box = query(page,
                    """async ([side, needle, nth]) => {
                await new Promise((r) => requestAnimationFrame(() => r()));
                const pane = pd.pane(side);
                let u = -1;
                for (let i = 0; i <= nth; i++) u = pane.view.text.indexOf(needle, u + 1);
                if (u < 0) throw new Error('needle not in text: ' + needle);
                const [s, e] = pane.view.offsets.spanCp([u, u + needle.length]); // the store's unit
                pane.sentenceEl(pane.view.sentencesIn(s, e)[0]).scrollIntoView({block: 'center'});
                const first = pane.rangeFor(s, s + 1).getClientRects()[0];
                const rects = pane.rangeFor(e - 1, e).getClientRects();
                const last = rects[rects.length - 1];
                return {x1: first.left + 1, y1: first.top + first.height / 2,
                        x2: last.right - 1, y2: last.top + last.height / 2, s, e};
            }""", [side, needle, nth])
        page.mouse.move(box["x1"], box["y1"])
        page.mouse.down()
        page.mouse.move((box["x1"] + box["x2"]) / 2, (box["y1"] + box["y2"]) / 2, steps=3)
        page.mouse.move(box["x2"], box["y2"], steps=3)
        page.mouse.up()
        try:
            wait(page, "([side, s, e]) => { const d = pd.draft()[side];"
                       " return d && d[0] === s && d[1] === e; }", [side, box["s"], box["e"]],
                 timeout=10_000 if attempt < 2 else 30_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            page.wait_for_timeout(700)  # past the double-click interval: the next drag is a fresh single press
    if ranked:
        wait(page, "([s, e]) => { const a = pd.assist();"
                   " return a.kind && a.query.start === s && a.query.end === e; }", [box["s"], box["e"]])
    return box["s"], box["e"]


def select_range(page, side: str, start: int, end: int) -> None:
    """Select code points [start, end) of a pane as a finished mouse selection (the selection set, then
    the pane's mouseup): the page takes it as the user's."""
    query(page, """([side, s, e]) => { const p = pd.pane(side);
        const sel = getSelection(); sel.removeAllRanges(); sel.addRange(p.rangeFor(s, e));
        p.scroller.dispatchEvent(new MouseEvent('mouseup', {bubbles: true})); }""", [side, start, end])


def click_sentence(page, side: str, index: int) -> None:
    """Click sentence `index` of a pane with the mouse, on its first line (a wrapped sentence's box holds
    other text)."""
    box = query(page, """([side, i]) => { const el = pd.pane(side).sentenceEl(i); el.scrollIntoView({block: 'center'});
        const r = el.getClientRects()[0]; return {x: r.left + Math.min(8, r.width / 2), y: r.top + r.height / 2}; }""",
                [side, index])
    page.mouse.click(box["x"], box["y"])


def set_min_score(page, value: float):
    """Move the minimum-score control (the ranking is then checked independently of the ranker's threshold)."""
    page.evaluate("(v) => { const m = document.getElementById('ctl-min'); m.value = String(v);"
                  " m.dispatchEvent(new Event('input')); }", value)


def annotate(page, summary: str, label_key: str = "3", note: str = "", source: str | None = None):
    """Select a summary span, optionally pair a source span, pick a label by number, save with Enter."""
    select(page, "summary", summary)
    if source:
        select(page, "source", source, ranked=False)
    page.keyboard.press(label_key)
    if note:
        page.fill("#draft-note", note)
        page.locator("#draft-note").blur()
    page.keyboard.press("Enter")


def export_file(page, tmp_path: Path) -> dict:
    """Export with the header's button; the file the browser downloads, parsed."""
    with page.expect_download() as dl:
        page.click('header [data-action="export"]')
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    return json.loads(path.read_text(encoding="utf-8"))
