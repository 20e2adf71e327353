"""Sentence verdicts in the page (docs/sentence-verdicts.md): every summary sentence flagged (a span on it),
judged (a verdict given, with its evidence) or not checked; the keys (v / V walk, y confirms with the top lit
source sentence, u then a digit picks another verdict, 0 clears), the mouse (the verdict bar, a click on a
sentence, a selection in the source as evidence); saved at every change (a reload keeps them), exported as
version 4 and imported back; Submit refuses (`required`) or asks once (`shown`) while sentences are not checked.

Real Chromium, real bundles built with `sentence_verdicts` in the settings file.
"""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import EXAMPLES
from pagedriver import (
    READY, click_sentence, current_sentence, export_file, open_page, own_annotations, query, record_work, select_range,
    sentence_states, sentence_verdicts, shown_sentence_states, wait, wait_open, wait_saved, wait_sentence_lit,
)
from schema_lite import errors
from test_page import block_model
from test_page_keyboard import COUNT_MOUSE, FB_SOURCE, FB_SUMMARY, Keys, selected

pytestmark = pytest.mark.browser

THIRD = "The terminal is expected to open in 2020."
SUMMARY = f"{FB_SUMMARY} {THIRD}"
SCHEMA = json.loads((EXAMPLES.parent / "docs" / "export.schema.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def bundles(build_bundle, tmp_path_factory):
    """{required: the FaithBench settings with `sentence_verdicts: required`, shown / strict: only
    `sentence_verdicts: shown` / `required`} over three records, the first with a three-sentence summary."""
    d = tmp_path_factory.mktemp("sentences")
    rows = [{"id": f"fb-{i}", "source": FB_SOURCE, "summary": SUMMARY if i == 0 else f"Record {i} is short.",
             "summarizer": "model-a", "hhem-2.1": 0.3, "gpt_4o": 1} for i in range(3)]
    (d / "fb.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    doc = yaml.safe_load((EXAMPLES / "faithbench-settings.yaml").read_text(encoding="utf-8"))
    doc["sentence_verdicts"] = "required"
    (d / "fb.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    (d / "shown.yaml").write_text("sentence_verdicts: shown\n", encoding="utf-8")
    (d / "strict.yaml").write_text("sentence_verdicts: required\n", encoding="utf-8")
    return {name: build_bundle([d / "fb.jsonl"], name=f"sv-{name}", settings=d / f"{file}.yaml")
            for name, file in (("required", "fb"), ("shown", "shown"), ("strict", "strict"))}


def test_the_full_faithbench_record_with_every_sentence_judged_takes_at_most_25_keys(page, bundles, serve_dir):
    """The 19 keys of the FaithBench record (two spans, a verdict, a rating, a comment, submit) with
    `sentence_verdicts: required`, and the sentence no span flags confirmed: v to it, y. No mouse."""
    block_model(page)
    base = serve_dir(bundles["required"])
    page.goto(base + "?annotator=kim#record=fb-0")
    page.wait_for_selector(READY)
    page.wait_for_function("() => document.querySelector('#questions').dataset.loaded === 'true'")
    page.evaluate(COUNT_MOUSE)
    assert page.locator("#verdict-count").inner_text() == "0 of 3 sentences judged"
    key = Keys(page)
    key("f")
    key.type("on mon")
    key("Enter")
    assert selected(page, "summary") == "on Monday"
    key("4", "c")
    key.type("no day in the source")
    key("Enter")
    key("f")
    key.type("2015")
    key("Enter")
    wait(page, "() => pd.assist().side === 'source'")
    key("o", "f")
    key.type("2017")
    key("Enter")
    assert selected(page, "source") == "2017" and selected(page, "summary") == "2015"
    key("3", "Enter")
    assert len(own_annotations(page, "fb-0")) == 2
    assert sentence_states(page) == ["flagged", "flagged", "unchecked"]
    # the unflagged sentence: walked to (its evidence lit in the source), confirmed
    key("v", "v", "v")
    assert current_sentence(page) == 2
    wait_sentence_lit(page, 2)
    key("y")
    key("q", "2", "q", "4", "q")
    key.type("Date and day are wrong.")
    key("Escape", "s")
    wait(page, "() => pd.entry('fb-0')?.status === 'submitted'")
    [(index, verdict)] = sentence_verdicts(page, "fb-0").items()
    assert (index, verdict["verdict"], verdict["evidence"]) == (2, "supported", [3])  # "… to open in 2020."
    assert page.evaluate("() => window.mouseEvents") == 0
    assert len(key.pressed) <= 25, key.pressed
    # the spans flag the two others: every sentence is judged, in another tab too
    other = page.context.new_page()
    block_model(other)
    open_page(other, base, "fb-0", annotator="kim")
    assert sentence_states(other) == ["flagged", "flagged", "judged"]
    assert other.locator("#verdict-count").inner_text() == "3 of 3 sentences judged (2 flagged by a span)"
    other.close()


def test_verdicts_by_key_and_mouse_survive_a_reload(page, bundles, serve_dir):
    """v / y / u + digit / 0, a click on a sentence, the bar's buttons, a selection in the source as
    evidence: each saved at once; a reload shows them again, in the text and the counter."""
    block_model(page)
    base = serve_dir(bundles["shown"])
    open_page(page, base, "fb-0")
    help_text = page.locator("#help-keys").inner_text()  # the help lists the sentence keys
    for row in ("next summary sentence", "confirm the current sentence", "pick another verdict"):
        assert row in help_text
    page.keyboard.press("v")
    wait_sentence_lit(page, 0)
    page.keyboard.press("y")
    wait(page, "() => pd.sentenceStates()[0] === 'judged'")
    page.keyboard.press("v")
    page.keyboard.press("u")
    assert page.locator("#verdict-bar").get_attribute("data-picker") == "true"
    page.keyboard.press("2")  # Not supported
    wait(page, "() => pd.sentenceStates()[1] === 'judged'")
    assert sentence_verdicts(page, "fb-0")[1]["verdict"] == "unsupported"
    assert sentence_verdicts(page, "fb-0")[1]["evidence"] == []  # kept only for verdicts that carry evidence
    # the mouse: a click on the third sentence, "Cannot tell", then Clear, then evidence by a selection
    click_sentence(page, "summary", 2)
    assert current_sentence(page) == 2
    page.locator('#verdict-bar button[data-verdict="unverifiable"]').click()
    wait(page, "() => pd.sentenceStates()[2] === 'judged'")
    page.locator('#verdict-bar [data-action="clear-verdict"]').click()
    wait(page, "() => pd.sentenceStates()[2] === 'unchecked'")
    text = query(page, "() => pd.pane('source').view.text")
    start = text.index("The decision came")
    select_range(page, "source", start, start + len("The decision came in 2017"))
    wait(page, "() => pd.sentenceStates()[2] === 'judged'")
    assert sentence_verdicts(page, "fb-0")[2]["verdict"] == "supported"
    assert sentence_verdicts(page, "fb-0")[2]["evidence"] == [1]
    assert own_annotations(page, "fb-0") == []  # the selection was evidence, no span draft
    assert page.locator("#verdict-count").inner_text() == "3 of 3 sentences judged"
    # Ctrl+Z takes the last verdict back, Ctrl+Shift+Z gives it again
    page.locator("#pane-summary").focus()
    page.keyboard.press("Control+z")
    wait(page, "() => pd.sentenceStates()[2] === 'unchecked'")
    page.keyboard.press("Control+Shift+z")
    wait(page, "() => pd.sentenceStates()[2] === 'judged'")
    wait_saved(page)
    before = sentence_verdicts(page, "fb-0")
    page.reload()
    page.wait_for_selector(READY)
    wait_open(page, "fb-0")
    assert sentence_verdicts(page, "fb-0") == before
    wait(page, "() => document.querySelectorAll('#pane-summary .s[data-verdict]').length === 3")
    assert shown_sentence_states(page) == ["judged", "judged", "judged"]
    assert page.locator("#verdict-count").inner_text() == "3 of 3 sentences judged"


def test_the_export_is_version_4_with_the_verdicts_and_imports_back(browser, bundles, serve_dir, tmp_path):
    """The export carries each judged sentence (index, verdict, evidence for a verdict that carries it) and
    validates against docs/export.schema.json; a cleared browser imports it back."""
    base = serve_dir(bundles["shown"])
    ctx = browser.new_context(accept_downloads=True)
    page = ctx.new_page()
    block_model(page)
    open_page(page, base, "fb-0")
    page.keyboard.press("v")
    wait_sentence_lit(page, 0)
    page.keyboard.press("y")
    page.keyboard.press("v")
    page.keyboard.press("u")
    page.keyboard.press("3")  # Cannot tell
    wait(page, "() => pd.sentenceStates().filter((s) => s === 'judged').length === 2")
    given = sentence_verdicts(page, "fb-0")
    exported = export_file(page, tmp_path)
    ctx.close()
    assert exported["version"] == 4
    assert errors(exported, SCHEMA) == []
    [rec] = [r for r in exported["records"] if r["record_id"] == "fb-0"]
    assert [(s["index"], s["verdict"], s.get("evidence")) for s in rec["sentences"]] == [
        (0, "supported", given[0]["evidence"]), (1, "unverifiable", None)]
    assert given[0]["evidence"] == [0]  # "The harbour board approved …": the source's first sentence
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exported), encoding="utf-8")

    ctx2 = browser.new_context()
    p2 = ctx2.new_page()
    block_model(p2)
    open_page(p2, base, "fb-0")
    assert sentence_verdicts(p2, "fb-0") == {}
    p2.set_input_files("#import-file", str(path))
    p2.wait_for_selector("#message")
    wait(p2, "() => pd.sentenceStates().filter((s) => s === 'judged').length === 2")
    assert {i: (v["verdict"], v["evidence"]) for i, v in sentence_verdicts(p2, "fb-0").items()} == {
        0: ("supported", [0]), 1: ("unverifiable", [])}
    ctx2.close()


def test_submit_refuses_while_required_and_asks_once_while_shown(page, bundles, serve_dir):
    """`required`: Submit refuses, naming how many sentences are left; `shown`: the first Submit says how many
    are not checked (a focused, readable message), the second submits."""
    block_model(page)
    open_page(page, serve_dir(bundles["strict"]), "fb-0")
    page.keyboard.press("s")
    wait(page, "() => pd.verdicts().message")
    message = page.locator("#verdict-message")
    assert "Not submitted: 3 sentences not checked" in message.inner_text()
    assert message.evaluate("(el) => el === document.activeElement && el.getAttribute('role') === 'alert'")
    page.keyboard.press("s")
    assert record_work(page, "fb-0") is None or record_work(page, "fb-0")["status"] != "submitted"
    for _ in range(3):
        page.keyboard.press("v")
        page.keyboard.press("u")
        page.keyboard.press("3")
    wait(page, "() => pd.sentenceStates().every((s) => s === 'judged')")
    page.keyboard.press("s")
    wait(page, "() => pd.entry('fb-0')?.status === 'submitted'")

    open_page(page, serve_dir(bundles["shown"]), "fb-1")
    page.keyboard.press("s")
    wait(page, "() => pd.verdicts().message")
    assert page.locator("#verdict-message").inner_text() == (
        "1 sentence not checked — Submit again to submit anyway.")
    assert record_work(page, "fb-1") is None
    page.keyboard.press("s")
    wait(page, "() => pd.entry('fb-1')?.status === 'submitted'")
