"""A whole record annotated with the keyboard only: select in either pane by word and
sentence, the assistance as for a mouse selection, pair the match, label, note (Enter saves, Shift+Enter
is a newline), focus back in the summary, `s` submits; focus visible and trapped in dialogs.

Real Chromium and the real demo bundle; no mouse event is sent (the page counts them).
"""

from __future__ import annotations

import pytest
from mercury_static.bundle.contents import load_bundle
from pagedriver import READY, current_id, open_page, own_annotations, query, record_work, select, wait, wait_current, wait_left, wait_open
from test_page import block_model

pytestmark = pytest.mark.browser

COUNT_MOUSE = """() => { window.mouseEvents = 0;
    for (const t of ['mousedown', 'mouseup', 'pointerdown', 'pointerup'])
        document.addEventListener(t, () => { window.mouseEvents += 1; }, true); }"""


def selected(page, side: str) -> str:
    return query(page, "(side) => { const d = pd.draft()[side];"
                       " return d ? pd.pane(side).view.slice(d[0], d[1]) : null; }", side)


def press_until(page, key: str, done, limit: int = 60):
    for _ in range(limit):
        page.keyboard.press(key)
        if done():
            return
    raise AssertionError(f"{key} x{limit} never got there")


def active(page) -> str:
    return page.evaluate("() => document.activeElement.id || document.activeElement.tagName")


def test_a_whole_record_with_the_keyboard_only(page, bundle_server):
    block_model(page)
    page.goto(bundle_server + "?annotator=kim#record=harbor-lighthouse")
    page.wait_for_selector(READY)
    page.evaluate(COUNT_MOUSE)
    assert page.locator("#guidelines").is_visible()
    assert page.evaluate("() => document.getElementById('guidelines').contains(document.activeElement)")
    page.keyboard.press("Escape")
    assert not page.locator("#guidelines").is_visible()

    # summary: a word at a time, then extend by two words
    press_until(page, "ArrowRight", lambda: selected(page, "summary") == "3.2")
    assert active(page) == "pane-summary"
    assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") == "solid"  # visible focus
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    assert selected(page, "summary") == "3.2 million euros"
    page.keyboard.press("Shift+ArrowLeft")  # shrink, then grow again
    assert selected(page, "summary") == "3.2 million"
    page.keyboard.press("Shift+ArrowRight")
    wait(page, "() => { const a = pd.assist();"
               " return a.kind && a.query.text === '3.2 million euros'; }")  # assistance ran on it
    assert page.evaluate("() => getSelection().toString()") == "3.2 million euros"  # the page's selection

    # the lit matches: move to the evidence and pair it
    evidence = "The project cost 2.3 million euros"
    press_until(page, ".", lambda: page.evaluate(
        "(t) => document.querySelector('.s[data-focus]')?.textContent.startsWith(t)", evidence), limit=6)
    page.keyboard.press("l")
    assert selected(page, "source").startswith(evidence)
    # trim it in the source pane, from the keyboard
    page.keyboard.press("o")
    assert active(page) == "pane-source"
    press_until(page, "ArrowRight", lambda: selected(page, "source") == "2.3")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    assert selected(page, "source") == "2.3 million euros"
    assert selected(page, "summary") == "3.2 million euros"  # still the anchor

    # label, note (Shift+Enter is a newline), Enter saves
    page.keyboard.press("3")
    page.keyboard.press("c")
    assert active(page) == "draft-note"
    page.keyboard.type("wrong amount")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("2.3 in the source")
    page.keyboard.press("Enter")
    [a] = own_annotations(page, "harbor-lighthouse")
    assert (a["summary"]["text"], a["source"]["text"]) == ("3.2 million euros", "2.3 million euros")
    assert a["label"] == ["Unwanted", "Unwanted.Intrinsic"] and a["note"] == "wrong amount\n2.3 in the source"
    assert active(page) == "pane-summary"  # focus back in the summary

    # the next selection starts after the last one
    page.keyboard.press("ArrowRight")
    d = query(page, "() => pd.draft().summary")
    assert d[0] >= a["summary"]["end"]
    page.keyboard.press("Escape")  # a bare selection clears at once
    assert query(page, "() => pd.draft().summary") is None

    # after saving, s submits
    page.keyboard.press("s")
    wait_left(page, 'harbor-lighthouse')
    assert record_work(page, 'harbor-lighthouse')['status'] == "submitted"
    assert page.evaluate("() => window.mouseEvents") == 0


def test_no_source_span_and_sentences_from_the_keyboard(page, bundle_server):
    block_model(page)
    page.goto(bundle_server + "?annotator=kim#record=bakery-coop")
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowDown")  # the first sentence
    first = query(page, "() => pd.record().summary.sentences[0]")
    assert query(page, "() => pd.draft().summary") == first
    page.keyboard.press("Shift+ArrowDown")
    second = query(page, "() => pd.record().summary.sentences[1]")
    assert query(page, "() => pd.draft().summary") == [first[0], second[1]]
    page.keyboard.press("Shift+ArrowUp")
    assert query(page, "() => pd.draft().summary") == first
    wait(page, "() => pd.assist().side === 'source'")
    page.keyboard.press("l")  # pair the best match…
    assert query(page, "() => pd.draft().source") is not None
    page.keyboard.press("x")  # …then "no source span"
    assert query(page, "() => pd.draft().source") is None
    page.keyboard.press("1")
    page.keyboard.press("c")
    page.keyboard.type("not in the source")
    page.keyboard.press("Control+Enter")  # still saves
    [a] = own_annotations(page, "bakery-coop")
    assert a["source"] is None and a["note"] == "not in the source"


def test_focus_is_trapped_in_dialogs_and_returned(page, bundle_server):
    block_model(page)
    page.goto(bundle_server + "?annotator=kim#record=harbor-lighthouse")
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowRight")
    assert active(page) == "pane-summary"
    page.keyboard.press("?")
    assert page.locator("#overlay-help").is_visible()
    inside = "() => document.querySelector('#overlay-help .dialog').contains(document.activeElement)"
    for key in ("Tab", "Tab", "Tab", "Shift+Tab", "Shift+Tab", "Shift+Tab", "Shift+Tab"):
        page.keyboard.press(key)
        assert page.evaluate(inside), key
    page.keyboard.press("n")  # shortcuts do not act behind a dialog
    assert current_id(page) == "harbor-lighthouse"
    page.keyboard.press("Escape")
    assert not page.locator("#overlay-help").is_visible()
    assert active(page) == "pane-summary"
    # the guidelines panel too
    page.keyboard.press("g")
    assert page.evaluate("() => document.getElementById('guidelines').contains(document.activeElement)")
    for _ in range(4):
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.getElementById('guidelines').contains(document.activeElement)")
    page.keyboard.press("Escape")
    assert active(page) == "pane-summary"


def test_the_name_dialog_keeps_the_focus(page, bundle_server):
    block_model(page)
    page.goto(bundle_server)
    page.locator("#annotator-dialog").wait_for()
    assert active(page) != "BODY"
    for _ in range(3):
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.getElementById('annotator-dialog').contains(document.activeElement)")


def test_keyboard_words_after_an_emoji_are_code_point_spans(page, bundle_server, demo_bundle):
    """Words come from JS strings (UTF-16) but the draft holds code points: after 🚀 and before 𝔘 they
    differ, and the draft must still be Python's offsets of the word."""
    block_model(page)
    open_page(page, bundle_server, "space-exhibit")
    summary = load_bundle(demo_bundle).record("space-exhibit").summary
    page.locator("#pane-summary").focus()
    for word in ("Visitors", "shaped"):  # after one, then two astral characters
        press_until(page, "ArrowRight", lambda w=word: selected(page, "summary") == w)
        start = summary.index(word)
        assert query(page, "() => pd.draft().summary") == [start, start + len(word)]
    page.keyboard.press("Shift+ArrowRight")
    assert selected(page, "summary") == "shaped sleeping"
    assert page.evaluate("() => getSelection().toString()") == "shaped sleeping"  # the DOM range: same words


def test_rewritten_guidelines_open_again_once(page, serve_dir, tmp_path):
    """The guidelines are not part of the bundle id (rewording keeps exports mergeable), so the page
    remembers having shown them per text: a rebuild with new guidelines opens them once more."""
    import json

    from conftest import EXAMPLES, TEST_CACHE
    from mercury_static.pipeline.steps import BuildOptions, build

    guide, out = tmp_path / "guide.md", tmp_path / "bundle"

    def rebuild(text: str) -> str:
        guide.write_text(text, encoding="utf-8")
        build([EXAMPLES / "demo.jsonl"], out, BuildOptions(cache_dir=TEST_CACHE, guidelines=guide))
        return json.loads((out / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]

    first = rebuild("# Guidelines\nMark what the source does not support.")
    url = serve_dir(out) + "?annotator=kim"
    block_model(page)

    def shown_on_open() -> bool:
        page.goto(url)
        page.wait_for_selector(READY)
        visible = page.locator("#guidelines").is_visible()
        if visible:
            page.keyboard.press("Escape")
        return visible

    assert shown_on_open() and not shown_on_open()
    assert rebuild("# Guidelines\nMark what the source does not support, then submit.") == first
    assert shown_on_open() and not shown_on_open()


# ------------------------------------------------------------------ keyboard traps

LEADS = {  # summaries starting before their first sentence: a space (FaithBench), a newline and a quote, a dash
    "lead-space": (" The ferry left at dawn. It came back at noon.", "The", "It", "dawn"),
    "lead-quote": ("\n“Quoted,” said the mayor. Then she left the hall.", "Quoted", "Then", "mayor"),
    "lead-dash": ("  - (Bullet) the first point here. - A second point.", "Bullet", "A", "here"),
}


@pytest.fixture(scope="module")
def leads_url(build_bundle, serve_dir, tmp_path_factory):
    import json

    path = tmp_path_factory.mktemp("leads") / "leads.jsonl"
    source = "The ferry left the harbor at dawn with forty passengers. It came back at noon. The mayor spoke."
    path.write_text("".join(json.dumps({"id": rid, "source": source, "summary": summary}) + "\n"
                            for rid, (summary, *_) in LEADS.items()), encoding="utf-8")
    return serve_dir(build_bundle([path], name="leads"))


def test_arrows_select_the_first_word_whatever_comes_before_it(page, leads_url):
    """→ from the start of a text, or from a caret left between two sentences (↓ then Esc), selects the
    next word: it used to look for a sentence at the caret only, and found none before the first one or
    in the space between two."""
    block_model(page)
    for rid, (_, first, second, last) in LEADS.items():
        for n, (keys, want) in enumerate(((["ArrowRight"], first), (["ArrowDown", "Escape", "ArrowRight"], second),
                                          (["ArrowDown", "Escape", "ArrowLeft"], last))):
            page.goto("about:blank")  # a fresh page, caret at the start, no stored draft (another annotator)
            open_page(page, leads_url, rid, annotator=f"kim{n}")
            for key in keys:
                page.keyboard.press(key)
            assert selected(page, "summary") == want, (rid, keys)


def test_a_modifier_key_up_never_brings_back_a_saved_span(page, bundle_server):
    """After a save the page's selection still shows the saved span; a key-up of Shift (Shift+↓ in a
    ranking, Shift+Q), Ctrl or Alt, or a mouse-up on the scrollbar, used to take it again as a new,
    unlabeled draft, so `s` then stopped on "This draft is not finished"."""
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowRight")  # a keyboard selection
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    assert len(own_annotations(page, "harbor-lighthouse")) == 1
    for key in ("Shift", "Shift+Q", "Control", "Alt"):  # Shift+↓ in a ranking: test_page_questions.py
        page.keyboard.press(key)
        assert query(page, "() => pd.draft().summary") is None, key
    # a mouse selection, saved, then a Shift key-up
    select(page, "summary", "14 June", ranked=False)
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    assert len(own_annotations(page, "harbor-lighthouse")) == 2
    page.keyboard.press("Shift")
    assert query(page, "() => pd.draft().summary") is None
    # a mouse-up after no press in the text (the release of a pane's scrollbar) does not take it either
    query(page, "() => pd.pane('summary').scroller.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}))")
    assert query(page, "() => pd.draft().summary") is None
    page.keyboard.press("s")
    wait_left(page, 'harbor-lighthouse')
    assert record_work(page, 'harbor-lighthouse')['status'] == "submitted"


def test_a_selection_extended_with_native_shift_keys_is_still_taken(page, bundle_server):
    """The key-up that takes a selection the browser extended itself (Shift+End) still works."""
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    page.keyboard.press("ArrowRight")
    first = query(page, "() => pd.draft().summary")
    page.keyboard.press("Shift+End")
    d = query(page, "() => pd.draft().summary")
    assert d[0] == first[0] and d[1] > first[1]


def test_enter_in_a_text_field_leaves_it(page, bundle_server):
    """Enter in the note saves, and leaves the note even when there is nothing to save yet (no span):
    the keys typed next were note text. Enter in the record filter and in k leaves them too."""
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    page.keyboard.press("c")
    page.keyboard.type("wrong amount")
    page.keyboard.press("Enter")
    assert "Select a span" in page.locator("#draft-message").inner_text()
    assert active(page) == "pane-summary"
    page.keyboard.press("ArrowRight")  # a shortcut again: a span, a label, Enter saves with the note
    page.keyboard.press("3")
    assert query(page, "() => pd.draft().note") == "wrong amount"
    page.keyboard.press("Enter")
    [a] = own_annotations(page, "harbor-lighthouse")
    assert a["note"] == "wrong amount"
    # the k field: Enter applies it and leaves it
    page.locator("#ctl-k").fill("3")
    page.locator("#ctl-k").press("Enter")
    assert query(page, "() => pd.view().k") == 3
    assert active(page) not in ("ctl-k", "INPUT")
    # the record filter: Enter opens the first match and leaves the filter; n is "next record" again
    if not page.locator("#record-filter").is_visible():
        page.keyboard.press("[")  # the record list
    page.locator("#record-filter").fill("bakery")
    page.wait_for_function("() => document.querySelectorAll('#record-list li[data-record]').length === 1")
    page.locator("#record-filter").press("Enter")
    wait_current(page, 'bakery-coop')
    assert active(page) not in ("record-filter", "INPUT")
    page.keyboard.press("n")
    assert page.locator("#record-filter").input_value() == "bakery"


@pytest.mark.shared_data
def test_arrow_right_selects_the_first_word_of_every_real_faithbench_summary(page, build_bundle, serve_dir):
    """The batch the trap was found on: 10 of its 50 summaries start with a space (5 with a quote or a bracket)."""
    import re

    from conftest import SHARED_DATA

    path = SHARED_DATA / "faithbench" / "batch_1.json"
    if not path.exists():
        pytest.skip("../shared/data/faithbench is absent")
    bundle = build_bundle([path], name="batch1-keys")
    records = load_bundle(bundle).records
    assert sum(r.summary[:1].isspace() for r in records) == 10
    block_model(page)
    open_page(page, serve_dir(bundle), records[0].id)
    missed = []
    for i, rec in enumerate(records):
        wait_open(page, rec.id)
        page.locator("#pane-summary").focus()
        page.keyboard.press("ArrowRight")
        d = query(page, "() => pd.draft().summary")
        if not d or d[0] != re.search(r"[^\W_]", rec.summary).start():
            missed.append(rec.id)
        page.keyboard.press("Escape")  # a bare selection clears at once: n then moves on
        if i + 1 < len(records):
            page.keyboard.press("n")
    assert missed == []


def test_keys_for_export_and_the_filter_box(page, bundle_server, tmp_path):
    """`e` exports (the button's download), `/` puts the cursor in the filter box, opening the
    list where it is a closed drawer (1024 px); both are in the help."""
    block_model(page)
    page.set_viewport_size({"width": 1024, "height": 768})
    open_page(page, bundle_server, record="harbor-lighthouse", annotator="kim")
    page.keyboard.press("Escape")  # the guidelines
    assert not page.locator("#records").is_visible()
    page.keyboard.press("/")
    assert page.locator("#records").is_visible()
    assert active(page) == "record-filter"
    assert page.input_value("#record-filter") == ""  # the key is not typed into the box
    page.keyboard.type("harbor")
    page.keyboard.press("Escape")  # leaves the field
    with page.expect_download() as dl:
        page.keyboard.press("e")
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    assert path.read_text(encoding="utf-8").startswith("{")
    page.keyboard.press("?")
    keys = page.locator("#help-keys kbd").all_inner_texts()
    assert "/" in keys and "e" in keys


# --------------------------------------------------------------- fewer keys to a span

FB_SUMMARY = ("The harbour board approved the new ferry terminal in 2015 after a long debate. "
              "The plan was put forward by Councillor Warburton on Monday, who said it would cost 4 million pounds.")
FB_SOURCE = ("The harbour board has approved a new ferry terminal. The decision came in 2017, after two years of "
             "debate in the council. Councillor Warburton, who chairs the transport committee, put the plan "
             "forward. The terminal is expected to cost 4 million pounds and to open in 2020.")


@pytest.fixture(scope="module")
def fb_bundles(build_bundle, tmp_path_factory):
    """A FaithBench record with the FaithBench settings (examples/faithbench-settings.yaml: span labels, a
    required verdict, a rating, a comment), once as given and once with `granularity: character`."""
    import json

    import yaml
    from conftest import EXAMPLES

    d = tmp_path_factory.mktemp("fb-keys")
    rows = [{"id": f"fb-{i}", "source": FB_SOURCE, "summary": FB_SUMMARY if i == 0 else f"Record {i} is short.",
             "summarizer": "model-a", "hhem-2.1": 0.3, "gpt_4o": 1} for i in range(3)]
    (d / "fb.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    doc = yaml.safe_load((EXAMPLES / "faithbench-settings.yaml").read_text(encoding="utf-8"))
    doc["questions"][0]["granularity"] = "character"
    (d / "chars.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    return (build_bundle([d / "fb.jsonl"], name="fb-keys", settings=EXAMPLES / "faithbench-settings.yaml"),
            build_bundle([d / "fb.jsonl"], name="fb-chars", settings=d / "chars.yaml"))


class Keys:
    """The keys pressed (each press one key, a chord too) and the characters typed, counted apart."""

    def __init__(self, page):
        self.page, self.pressed, self.typed = page, [], 0

    def __call__(self, *keys):
        for k in keys:
            self.page.keyboard.press(k)
            self.pressed.append(k)

    def type(self, text):
        self.page.keyboard.type(text)
        self.typed += len(text)


def test_the_full_faithbench_record_takes_at_most_20_keys(page, fb_bundles, serve_dir):
    """An unsupported span with a note, a paired span, a verdict, a rating, a comment, submit,
    from the keyboard only: find-and-select (f, a phrase, Enter) instead of walking word by word (the audit's
    34 keys, half of them → to reach "2015")."""
    block_model(page)
    page.goto(serve_dir(fb_bundles[0]) + "?annotator=kim#record=fb-0")
    page.wait_for_selector(READY)
    page.wait_for_function("() => document.querySelector('#questions').dataset.loaded === 'true'")
    page.evaluate(COUNT_MOUSE)
    key = Keys(page)
    # 1. an unsupported span with a note: "Monday" is not in the source
    key("f")
    assert active(page) == "find-input"
    key.type("on mon")
    assert page.locator("#find-count").inner_text() == "1 of 1"
    key("Enter")
    assert selected(page, "summary") == "on Monday"  # the phrase grown to whole words
    assert active(page) == "pane-summary"
    key("4")  # Unwanted.Extrinsic
    key("c")
    key.type("no day in the source")
    key("Enter")
    [first] = own_annotations(page, "fb-0")
    assert (first["summary"]["text"], first["source"], first["note"]) == ("on Monday", None, "no day in the source")
    # 2. a paired span: 2015 against the source's 2017
    key("f")
    key.type("2015")
    key("Enter")
    assert selected(page, "summary") == "2015"
    wait(page, "() => pd.assist().side === 'source'")
    key("o", "f")
    key.type("2017")
    key("Enter")
    assert selected(page, "source") == "2017" and selected(page, "summary") == "2015"
    key("3", "Enter")  # Unwanted.Intrinsic, saved
    second = [a for a in own_annotations(page, "fb-0") if a["id"] != first["id"]]
    assert [(a["summary"]["text"], a["source"]["text"]) for a in second] == [("2015", "2017")]
    # 3. the verdict, the rating, a comment; 4. submit
    key("q", "2")  # Hallucinated
    key("q", "4")
    key("q")
    key.type("Date and day are wrong.")
    key("Escape", "s")
    wait(page, "() => pd.entry('fb-0')?.status === 'submitted'")
    rec = query(page, "() => pd.entry('fb-0').responses")
    assert {k: v["value"] for k, v in rec.items()} == {"verdict": "hallucinated", "confidence": 4,
                                                      "comment": "Date and day are wrong."}
    assert page.evaluate("() => window.mouseEvents") == 0
    assert len(key.pressed) <= 20, key.pressed
    assert key.typed == len("on mon" "no day in the source" "2015" "2017" "Date and day are wrong.")


def test_find_walks_the_occurrences_and_grows_and_shrinks_by_words(page, fb_bundles, serve_dir):
    """Shift+Enter / ↓ / ↑ move between occurrences in the box; f then Enter takes the next occurrence of
    the same phrase; Esc closes without a change; Shift+→ and Alt+Shift+← / → grow and shrink either end."""
    block_model(page)
    page.goto(serve_dir(fb_bundles[0]) + "?annotator=kim#record=fb-0")
    page.wait_for_selector(READY)
    page.keyboard.press("f")
    page.keyboard.type("the")
    assert page.locator("#find-count").inner_text() == "1 of 3"  # The, the, the (not "there")
    page.keyboard.press("Shift+Enter")
    assert page.locator("#find-count").inner_text() == "2 of 3"
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert page.locator("#find-count").inner_text() == "3 of 3"  # wraps
    page.keyboard.press("Escape")
    assert query(page, "() => pd.draft().summary") is None and active(page) == "pane-summary"
    assert not page.locator("#find-bar").is_visible()
    page.keyboard.press("f")
    assert page.input_value("#find-input") == "the"  # the phrase is kept
    page.keyboard.press("Enter")
    assert selected(page, "summary") == "The"
    page.keyboard.press("f")
    page.keyboard.press("Enter")  # the next occurrence
    assert selected(page, "summary") == "the"
    assert query(page, "() => pd.draft().summary")[0] == FB_SUMMARY.index("the new")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    assert selected(page, "summary") == "the new ferry"
    page.keyboard.press("Alt+Shift+ArrowLeft")
    assert selected(page, "summary") == "approved the new ferry"
    page.keyboard.press("Alt+Shift+ArrowRight")
    page.keyboard.press("Alt+Shift+ArrowRight")
    assert selected(page, "summary") == "new ferry"
    page.keyboard.press("f")
    page.keyboard.type("zzz")
    assert page.locator("#find-count").inner_text() == "not found"
    page.keyboard.press("Enter")
    assert selected(page, "summary") == "new ferry"  # nothing found: the selection stays


def drag(page, side: str, start: int, end: int) -> None:
    """A real mouse drag from code point `start` to `end` (mid-word ends)."""
    box = query(page, """([side, s, e]) => { const p = pd.pane(side);
        const a = p.rangeFor(s, s + 1).getClientRects()[0], b = p.rangeFor(e - 1, e).getClientRects()[0];
        return [a.left + 1, a.top + a.height / 2, b.right - 1, b.top + b.height / 2]; }""", [side, start, end])
    page.mouse.move(box[0], box[1])
    page.mouse.down()
    page.mouse.move(box[2], box[3], steps=4)
    page.mouse.up()


@pytest.mark.parametrize("which, want", [(0, "ferry terminal"), (1, "rry termi")])
def test_a_mouse_selection_snaps_to_whole_words_unless_the_settings_keep_characters(page, fb_bundles, serve_dir,
                                                                                     which, want):
    block_model(page)
    page.goto(serve_dir(fb_bundles[which]) + "?annotator=kim#record=fb-0")
    page.wait_for_selector(READY)
    page.wait_for_selector("#pane-summary .text[data-complete]", state="attached")
    s = FB_SUMMARY.index("rry termi")
    drag(page, "summary", s, s + len("rry termi"))
    wait(page, "() => pd.draft().summary")
    assert selected(page, "summary") == want
    assert page.evaluate("() => getSelection().toString()") == want  # what is shown is what the draft holds


# --------------------------------------------------------------- saved annotations by keyboard

def history(page) -> list[tuple[str, str]]:
    return [tuple(x) for x in page.locator("#history-list li").evaluate_all(
        "els => els.map(e => [e.firstChild.textContent, e.dataset.step])")]


def test_saved_annotations_walked_edited_deleted_and_the_history_undone_and_redone(page, bundle_server):
    """m / M walk the saved annotations (lit, in summary order), Enter opens one to change its range, note and
    source span, Delete deletes it; Ctrl+Z undoes step after step, Ctrl+Shift+Z / Ctrl+Y redo, the side
    panel lists the record's changes; all from the keyboard, stored."""
    block_model(page)
    open_page(page, bundle_server, record="harbor-lighthouse", annotator="kim")
    page.evaluate(COUNT_MOUSE)
    for phrase, label in (("Mondays", "1"), ("3.2 million euros", "3")):
        page.keyboard.press("f")
        page.keyboard.type(phrase)
        page.keyboard.press("Enter")
        page.keyboard.press(label)
        page.keyboard.press("Enter")
    anns = {a["summary"]["text"]: a for a in own_annotations(page, "harbor-lighthouse")}
    money, days = anns["3.2 million euros"]["id"], anns["Mondays"]["id"]
    current = lambda: query(page, "() => pd.hover()")  # noqa: E731
    page.keyboard.press("m")
    assert current() == money  # summary order, not the order they were made in
    assert page.locator("#annotations li.current").get_attribute("data-annotation") == money
    page.keyboard.press("m")
    assert current() == days
    page.keyboard.press("M")
    assert current() == money
    # open it: shrink its span, pair a source span, add to its note, save it back
    page.keyboard.press("Enter")
    assert query(page, "() => pd.draft().editingId") == money
    page.locator("#pane-summary").focus()
    page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("o")
    page.keyboard.press("f")
    page.keyboard.type("2.3 million eu")  # grown to the whole word
    page.keyboard.press("Enter")
    page.keyboard.press("c")
    page.keyboard.type("the source says 2.3")
    page.keyboard.press("Enter")
    edited = {a["id"]: a for a in own_annotations(page, "harbor-lighthouse")}[money]
    assert (edited["summary"]["text"], edited["source"]["text"], edited["note"]) == (
        "3.2 million", "2.3 million euros", "the source says 2.3")
    # the walk goes on from it: the next one, deleted
    page.keyboard.press("m")
    assert current() == days
    page.keyboard.press("Delete")
    assert [a["id"] for a in own_annotations(page, "harbor-lighthouse")] == [money]
    assert history(page) == [("Annotation added", "done"), ("Annotation added", "done"),
                             ("Annotation edited", "done"), ("Annotation deleted", "done")]
    # three undos: the delete, the edit, the second add
    page.keyboard.press("Escape")
    for _ in range(3):
        page.keyboard.press("Control+z")
    assert [a["summary"]["text"] for a in own_annotations(page, "harbor-lighthouse")] == ["Mondays"]
    assert [s for _, s in history(page)] == ["done", "undone", "undone", "undone"]
    page.keyboard.press("Control+Shift+Z")
    page.keyboard.press("Control+y")
    now = {a["id"]: a for a in own_annotations(page, "harbor-lighthouse")}
    assert set(now) == {money, days} and now[money]["summary"]["text"] == "3.2 million"
    assert now[money]["source"]["text"] == "2.3 million euros"
    assert [s for _, s in history(page)] == ["done", "done", "done", "undone"]
    assert page.evaluate("() => window.mouseEvents") == 0
    page.wait_for_selector('#save-state[data-state="saved"]')
    page.reload()
    page.wait_for_selector(READY)
    stored = {a["id"]: a for a in own_annotations(page, "harbor-lighthouse")}
    assert set(stored) == {money, days} and stored[money]["note"] == "the source says 2.3"  # undo and redo stored


def test_hotkeys_from_the_settings_file_act_and_are_in_the_help(page, build_bundle, serve_dir, tmp_path):
    """`keys:` in the settings file changes an action's key (the old one then does nothing) and
    the help shows the keys as configured."""
    from conftest import EXAMPLES

    settings = tmp_path / "keys.yaml"
    settings.write_text("keys:\n  find: F2\n  next_saved: ['>', 'm']\n  no_source: f\n", encoding="utf-8")
    bundle = build_bundle([EXAMPLES / "demo.jsonl"], name="demo-keys", labels=EXAMPLES / "labels.yaml",
                          settings=settings)
    block_model(page)
    open_page(page, serve_dir(bundle), record="harbor-lighthouse", annotator="kim")
    page.keyboard.press("f")  # now "no source span": no find box
    assert not page.locator("#find-bar").is_visible()
    page.keyboard.press("F2")
    assert active(page) == "find-input"
    page.keyboard.type("Mondays")
    page.keyboard.press("Enter")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    [a] = own_annotations(page, "harbor-lighthouse")
    page.keyboard.press(">")
    assert query(page, "() => pd.hover()") == a["id"]
    page.keyboard.press("?")
    rows = dict(tuple(r) for r in page.locator("#help-keys tr").evaluate_all(
        "els => els.map(e => [e.cells[0].textContent, e.cells[1].textContent])"))
    assert rows["F2"].startswith("find in the focused text") and rows["> / m"].startswith("next saved annotation")
    assert rows["f"].startswith("no source span")


# --------------------------------------------------------------- suggested spans one at a time

@pytest.fixture(scope="module")
def prior_bundle(build_bundle, tmp_path_factory):
    """A FaithBench dump whose record 0 has 5 prior annotations (tests/page_fixtures.py)."""
    from page_fixtures import faithbench_dump

    return build_bundle([faithbench_dump(tmp_path_factory.mktemp("walk") / "batch.json", n=3, suggestions=5)],
                        name="walk")


def walk_state(page):
    return query(page, """() => ({ hover: pd.hover(),
        bar: document.querySelector('#suggest-walk')?.hidden === false,
        what: document.querySelector('#suggest-walk .walk-what b')?.textContent })""")


def test_suggested_spans_walked_one_at_a_time_by_keys(page, prior_bundle, serve_dir):
    """w starts the walk at the first suggestion (lit in the texts); a accepts it (the annotator's own), r
    rejects, n / → skips, ← goes back, e puts it into the draft to change and save, Esc ends the walk;
    decided ones are not offered again."""
    block_model(page)
    open_page(page, serve_dir(prior_bundle), record="0", annotator="kim")
    prior = query(page, "() => pd.record().prior_annotations")
    assert len(prior) == 5
    page.evaluate(COUNT_MOUSE)
    page.keyboard.press("w")
    assert walk_state(page) == {"hover": "prior:0", "bar": True, "what": "Suggestion 1 of 5"}
    page.keyboard.press("a")
    [mine] = own_annotations(page, "0")
    assert (mine["summary"]["start"], mine["summary"]["end"], mine["label"]) == (
        prior[0]["summary"]["start"], prior[0]["summary"]["end"], prior[0]["label"])
    assert walk_state(page)["hover"] == "prior:1"
    page.keyboard.press("r")  # rejected: not taken
    assert walk_state(page)["hover"] == "prior:2" and len(own_annotations(page, "0")) == 1
    page.keyboard.press("n")
    page.keyboard.press("ArrowRight")
    assert walk_state(page)["hover"] == "prior:4"
    page.keyboard.press("ArrowLeft")
    assert walk_state(page)["hover"] == "prior:3"
    page.keyboard.press("e")  # into the draft: change the label, save
    assert not walk_state(page)["bar"]
    assert query(page, "() => pd.draft().summary") == [prior[3]["summary"]["start"], prior[3]["summary"]["end"]]
    assert query(page, "() => pd.draft().note") == prior[3]["note"]
    page.keyboard.press("3")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    assert len(own_annotations(page, "0")) == 2
    # again: the accepted, rejected and edited ones are decided; 2 and 4 are left
    page.keyboard.press("w")
    assert walk_state(page)["hover"] == "prior:2"
    page.keyboard.press("Enter")  # Enter accepts too
    assert walk_state(page)["hover"] == "prior:4"
    page.keyboard.press("Escape")
    assert walk_state(page) == {"hover": None, "bar": False, "what": None}
    page.keyboard.press("n")  # the walk is over: n is the next record again
    wait_current(page, '1')
    assert page.evaluate("() => window.mouseEvents") == 0


def test_the_suggestion_walk_by_touch(browser, prior_bundle, serve_dir):
    """The same walk with the bar's buttons on a touch phone (390×844): tap Accept, Reject, Next."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    block_model(page)
    open_page(page, serve_dir(prior_bundle), record="0", annotator="lee")
    page.keyboard.press("w")
    bar = page.locator("#suggest-walk")
    box = bar.bounding_box()
    assert box and box["width"] <= 390
    bar.locator('[data-walk="accept"]').tap()
    bar.locator('[data-walk="reject"]').tap()
    bar.locator('[data-walk="next"]').tap()
    assert walk_state(page)["hover"] == "prior:3"
    assert len(own_annotations(page, "0")) == 1
    for what in ("accept", "reject", "edit", "next", "close"):
        b = bar.locator(f'[data-walk="{what}"]').bounding_box()
        assert b["height"] >= 40  # a finger's target
    bar.locator('[data-walk="close"]').tap()
    assert not bar.is_visible()
    context.close()
