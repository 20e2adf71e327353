"""The dataset settings in the page: the questions form, extra fields, suggestions and blind mode, export version 2.

Real Chromium, a FaithBench-like bundle really built with a settings file and the real model
(settings_fixtures.py), real IndexedDB; the crash test SIGKILLs the real browser.
"""

from __future__ import annotations

import json
import os
import signal
import time

from pathlib import Path

import pytest

from mercury_static.bundle.record_index import read_columns
from mercury_static.formats import EXPORT
from conftest import CHROMIUM_ARGS, chromium_path
from pagedriver import READY, current_id, export_file, open_page, query, wait, wait_current, wait_left, wait_open
from page_settings import faithbench_like
from schema_lite import errors
from test_page import STORED, block_model, stored_records
from test_page_safety import browser_pid

pytestmark = pytest.mark.browser

N = 6
SAVED = '#save-state[data-state="saved"]'


@pytest.fixture(scope="module")
def settings_bundle(build_bundle, tmp_path_factory):
    data, settings = faithbench_like(tmp_path_factory.mktemp("fbq"), n=N)
    return build_bundle([data], name="fbq", settings=settings)


@pytest.fixture(scope="module")
def blind_bundle(build_bundle, tmp_path_factory):
    # no metadata section: the raw input columns (hhem-2.1, the suggestions' score) would be the record's metadata
    # (and a plain text question, without its Markdown preview)
    data, settings = faithbench_like(tmp_path_factory.mktemp("fbq-blind"), n=N, blind=["alice"], metadata=False,
                                     markdown=False)
    return build_bundle([data], name="fbq-blind", settings=settings)


@pytest.fixture(scope="module")
def settings_url(settings_bundle, serve_dir):
    return serve_dir(settings_bundle)


def responses(page, rid: str) -> dict:
    return query(page, """(rid) => { const e = pd.entry(rid);
        const out = {}; for (const [q, r] of Object.entries(e?.responses || {})) if (r.value !== null) out[q] = r.value;
        return out; }""", rid)


def wait_saved_response(page, rid: str, question: str, value):
    wait(page, """([rid, q, v]) => { const e = pd.entry(rid);
        return e && e.responses && JSON.stringify(e.responses[q]?.value) === JSON.stringify(v)
          && document.querySelector('#save-state').dataset.state === 'saved'; }""", [rid, question, value],
               timeout=30_000)


def focused_question(page) -> str | None:
    return page.evaluate("() => document.activeElement?.closest('.question')?.dataset.question ?? null")


def answer_all_by_keyboard(page):
    """Every question of the form answered from the keyboard only (q moves between questions)."""
    page.keyboard.press("q")
    assert focused_question(page) == "verdict"
    page.keyboard.press("2")  # Hallucinated
    page.keyboard.press("q")
    assert focused_question(page) == "topics"
    page.keyboard.press("1")
    page.keyboard.press("3")  # Numbers, Dates
    page.keyboard.press("q")
    assert focused_question(page) == "quality"
    page.keyboard.press("4")
    page.keyboard.press("q")
    assert focused_question(page) == "order"
    page.keyboard.press("Shift+ArrowDown")  # Omission one down: y, x, z
    page.keyboard.press("q")
    assert focused_question(page) == "comment"
    page.keyboard.type(EXPECTED["comment"])
    page.keyboard.press("Escape")  # leaves the text field


EXPECTED = {"verdict": "hallucinated", "topics": ["numbers", "dates"], "quality": 4, "order": ["y", "x", "z"],
            "comment": "Two **numbers** are wrong <img src=x onerror=window.__pwned=1>"}


def test_every_question_by_keyboard_survives_a_reload_and_is_exported(page, settings_url, tmp_path):
    block_model(page)
    open_page(page, settings_url, "0")
    # the form: one control per non-span question, in settings order, required ones marked
    assert page.locator("#questions .question").evaluate_all("els => els.map(e => e.dataset.question)") == [
        "verdict", "topics", "quality", "order", "comment"]
    assert page.locator('#questions [data-question="verdict"] .required').count() == 1
    assert page.locator('#questions [data-question="topics"] .required').count() == 0
    page.keyboard.press("?")  # the form's keys are in the keyboard help
    assert "next question of the form" in page.locator("#help-keys").inner_text()
    page.keyboard.press("Escape")
    answer_all_by_keyboard(page)
    wait_saved_response(page, "0", "comment", EXPECTED["comment"])
    assert responses(page, "0") == EXPECTED
    page.reload()
    page.wait_for_selector(READY)
    page.wait_for_function("() => document.querySelector('#questions').dataset.loaded === 'true'")
    assert responses(page, "0") == EXPECTED
    # and the form shows them again
    checked = page.locator("#questions input:checked").evaluate_all(
        "els => els.map(e => [e.closest('.question').dataset.question, e.dataset.value])")
    assert checked == [["verdict", "hallucinated"], ["topics", "numbers"], ["topics", "dates"], ["quality", "4"]]
    assert page.locator("#questions .q-ranking li").evaluate_all("els => els.map(e => e.dataset.value)") == ["y", "x", "z"]
    assert page.locator('#questions textarea[data-question="comment"]').input_value() == EXPECTED["comment"]
    preview = page.locator('#questions [data-question="comment"] .q-preview')  # markdown: true, built as nodes
    assert preview.locator("strong").inner_text() == "numbers" and preview.locator("img").count() == 0
    assert page.evaluate("() => window.__pwned") is None
    # 0 clears an answer; the clear is undoable (Ctrl+Z) like a delete
    page.keyboard.press("Escape")
    page.keyboard.press("q")
    page.keyboard.press("0")
    assert "verdict" not in responses(page, "0")
    page.keyboard.press("Control+z")
    wait(page, "() => pd.entry('0').responses.verdict.value === 'hallucinated'")
    # the export (version 2 on): the answers and the suggestions shown (none accepted)
    page.keyboard.press("Escape")
    page.keyboard.press("s")
    wait_left(page, '0')
    data = export_file(page, tmp_path)
    assert data["version"] == EXPORT.version
    [rec] = [r for r in data["records"] if r["record_id"] == "0"]
    assert rec["status"] == "submitted" and rec["responses"] == EXPECTED
    assert rec["suggestions"] == {"shown": True, "accepted": {}}


def test_submit_is_refused_while_a_required_question_is_unanswered(page, settings_url):
    block_model(page)
    open_page(page, settings_url, "2")
    page.keyboard.press("s")
    msg = page.locator("#message")
    msg.wait_for()
    assert "“Verdict” is required" in msg.inner_text() and "Quality" in msg.inner_text()
    assert current_id(page) == "2" and query(page, "() => pd.entry('2')?.status ?? null") is None
    assert focused_question(page) == "verdict"  # the control of the question it names has the focus
    page.keyboard.press("1")
    page.keyboard.press("s")
    page.wait_for_function("() => document.querySelector('#message')?.textContent.includes('“Quality” is required')")
    assert current_id(page) == "2"
    page.locator('#questions [data-question="quality"] input[data-value="5"]').check()  # the mouse works too
    page.keyboard.press("Escape")
    page.keyboard.press("s")
    wait_left(page, '2')
    assert query(page, "() => pd.entry('2').status") == "submitted"
    assert responses(page, "2") == {"verdict": "consistent", "quality": 5}


def test_clearing_a_required_answer_of_a_submitted_record_takes_it_back_to_in_progress(page, settings_url,
                                                                                      settings_bundle, tmp_path):
    """Submitted, then its required verdict cleared (0): left submitted, merge would skip the whole record entry
    (required, missing on a submitted record), spans and all. It goes back to in progress and says why."""
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.merge.pipeline import merge_files

    block_model(page)
    open_page(page, settings_url, "4")
    page.keyboard.press("q")
    page.keyboard.press("1")  # verdict
    page.locator('#questions [data-question="quality"] input[data-value="3"]').check()
    page.keyboard.press("Escape")
    page.keyboard.press("s")
    wait(page, "() => pd.entry('4')?.status === 'submitted'")
    page.evaluate("() => { location.hash = 'record=4'; }")
    wait_current(page, '4')
    page.locator('#questions [data-question="verdict"] input[data-value="consistent"]').focus()
    page.keyboard.press("0")  # clears the verdict
    wait(page, "() => pd.entry('4').status === 'in_progress'")
    assert "“Verdict” is required" in page.locator("#message").inner_text()
    data = export_file(page, tmp_path)
    [rec] = [r for r in data["records"] if r["record_id"] == "4"]
    assert rec["status"] == "in_progress" and rec["responses"] == {"quality": 3}
    path = tmp_path / "alice.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = merge_files([path], load_bundle(settings_bundle))
    assert result.problems == [] and result.counts.rejected == 0


def test_a_blank_text_answer_is_no_answer_and_the_record_still_merges(page, settings_url, settings_bundle, tmp_path):
    """A stray Enter and space in the comment box: exported as an answer, merge refused it ("expected a
    non-empty text") and skipped the whole record entry, verdict and spans with it."""
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.merge.pipeline import merge_files

    block_model(page)
    open_page(page, settings_url, "5")
    page.keyboard.press("q")
    page.keyboard.press("2")  # verdict
    page.locator('#questions [data-question="quality"] input[data-value="2"]').check()
    area = page.locator('#questions textarea[data-question="comment"]')
    area.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Space")
    page.wait_for_function("() => document.querySelector('#save-state').dataset.state === 'saved'")
    assert area.input_value() == "\n "  # what is being typed stays in the box
    page.keyboard.press("Escape")
    page.keyboard.press("s")
    wait(page, "() => pd.entry('5')?.status === 'submitted'")
    data = export_file(page, tmp_path)
    [rec] = [r for r in data["records"] if r["record_id"] == "5"]
    assert rec["responses"] == {"verdict": "hallucinated", "quality": 2}
    path = tmp_path / "alice.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = merge_files([path], load_bundle(settings_bundle))
    assert result.problems == [] and [r["id"] for r in result.records if r.get("responses")] == ["5"]


def test_a_suggestion_shows_agent_and_score_and_one_key_accepts_it(page, settings_url, tmp_path):
    block_model(page)
    open_page(page, settings_url, "1")
    box = page.locator('#questions [data-question="verdict"] .q-suggestion')
    text = box.inner_text()
    assert "HHEM-2.1" in text and "score 0.59" in text and "Hallucinated" in text
    page.keyboard.press("a")  # outside the form: the first suggestion not yet accepted
    wait_saved_response(page, "1", "verdict", "hallucinated")
    assert box.get_attribute("data-accepted") == "true"
    assert query(page, "() => pd.entry('1').accepted.verdict.agent") == "HHEM-2.1"
    # the span suggestion has agent and score in the suggestions card, and Accept copies it
    card = page.locator("#suggestions")
    assert "prior-detector" in card.inner_text() and "score 0.70" in card.inner_text()
    page.locator("#pane-summary").focus()
    page.keyboard.press("a")  # every record-level suggestion is accepted: a takes the span suggestion
    wait(page, "() => pd.entry('1').accepted?.spans?.agent === 'prior-detector'")
    assert card.locator('[data-action="accept"]').first.inner_text() == "Accepted"
    page.keyboard.press("a")  # nothing left to accept: no second copy
    assert len(query(page, "() => Object.keys(pd.entry('1').annotations)")) == 1
    # changing the answer by hand takes the acceptance back
    page.locator('#questions [data-question="verdict"] input[data-value="consistent"]').check()
    wait(page, "() => pd.entry('1').accepted.verdict.agent === null")
    page.keyboard.press("a")  # inside the question (its radio has the focus): its suggestion
    wait_saved_response(page, "1", "verdict", "hallucinated")
    data = export_file(page, tmp_path)
    [rec] = [r for r in data["records"] if r["record_id"] == "1"]
    assert rec["suggestions"] == {"shown": True, "accepted": {"verdict": "HHEM-2.1", "spans": "prior-detector"}}
    assert len(rec["annotations"]) == 1 and rec["annotations"][0]["label"] == ["Unwanted", "Unwanted.Intrinsic"]
    # deleting the annotation copied from the span suggestion takes its acceptance back
    page.locator('#annotations [data-action="delete"]').click()
    data = export_file(page, tmp_path / "again")
    [rec] = [r for r in data["records"] if r["record_id"] == "1"]
    assert rec["suggestions"]["accepted"] == {"verdict": "HHEM-2.1"} and rec["annotations"] == []


def test_the_accepted_option_chosen_again_by_keyboard_stays_accepted(page, settings_url, tmp_path):
    """a accepts HHEM's "hallucinated" on record 3; the annotator then presses its digit (2) as well: the answer
    did not change, so the export must still say the suggestion was accepted (the agents' `accepted` share)."""
    block_model(page)
    open_page(page, settings_url, "3")
    page.keyboard.press("q")  # verdict
    page.keyboard.press("a")
    wait_saved_response(page, "3", "verdict", "hallucinated")
    assert query(page, "() => pd.entry('3').accepted.verdict.agent") == "HHEM-2.1"
    page.keyboard.press("2")  # Hallucinated, again
    page.keyboard.press("1")  # and a real change by hand takes it back
    wait_saved_response(page, "3", "verdict", "consistent")
    assert query(page, "() => pd.entry('3').accepted.verdict.agent") is None
    page.keyboard.press("a")
    page.keyboard.press("2")
    wait_saved_response(page, "3", "verdict", "hallucinated")
    [rec] = [r for r in export_file(page, tmp_path)["records"] if r["record_id"] == "3"]
    assert rec["suggestions"]["accepted"] == {"verdict": "HHEM-2.1"}


def test_blind_mode_puts_no_suggestion_in_the_dom(context, blind_bundle, serve_dir, tmp_path):
    base = serve_dir(blind_bundle)
    page = context.new_page()
    block_model(page)
    open_page(page, base, "1", annotator="alice")  # alice is listed as blind
    page.wait_for_function("() => document.querySelector('#questions').dataset.loaded === 'true'")
    html = page.content()
    for needle in ("HHEM", "hhem", "0.41", "prior-detector", "judge-", "Suggested", "score 0."):
        assert needle not in html, needle
    assert query(page, "() => pd.record().suggestions.length + pd.record().prior_annotations.length") == 0
    assert "null" not in page.locator("#questions").inner_text()  # no stray text where no preview is
    assert page.locator('#questions [data-question="comment"] .q-preview').count() == 0
    page.keyboard.press("a")  # nothing to accept
    assert "verdict" not in responses(page, "1")
    page.keyboard.press("q")
    page.keyboard.press("1")
    wait_saved_response(page, "1", "verdict", "consistent")
    data = export_file(page, tmp_path)
    assert [r["suggestions"] for r in data["records"]] == [{"shown": False, "accepted": {}}]
    # bob is not blind in the same bundle: he sees them
    page2 = context.new_page()
    block_model(page2)
    open_page(page2, base, "1", annotator="bob")
    page2.wait_for_function("() => document.querySelector('#questions').dataset.loaded === 'true'")
    assert "HHEM-2.1" in page2.locator("#questions").inner_text()


def test_a_blind_annotator_who_types_her_name_differently_is_still_blind(context, blind_bundle, serve_dir):
    """alice is listed blind; opened without ?annotator=, she types " Alice" in the name dialog: no suggestion
    may reach the page (merge would still count her answers as given blind: shown is false)."""
    base = serve_dir(blind_bundle)
    page = context.new_page()
    block_model(page)
    page.goto(base + "#record=1")
    page.fill("#annotator-dialog input", " Alice\u200b")
    page.keyboard.press("Enter")
    page.wait_for_selector(READY)
    page.wait_for_function("() => document.querySelector('#questions').dataset.loaded === 'true'")
    assert query(page, "() => pd.annotator()") == "Alice"  # normalised (names.js): the name merge and the queues use
    html = page.content()
    for needle in ("HHEM", "prior-detector", "score 0."):
        assert needle not in html, needle
    assert query(page, "() => pd.record().suggestions.length + pd.record().prior_annotations.length") == 0


def test_extra_fields_show_dataset_text_as_text(page, settings_url):
    block_model(page)
    open_page(page, settings_url, "0")
    field = page.locator('#fields [data-field="question"]')
    assert field.locator(".field-title").inner_text().lower() == "question"
    body = field.locator(".field-body")
    assert '<img src=x onerror="window.__pwned=1">' in body.inner_text()
    assert body.locator("img").count() == 0 and page.evaluate("() => window.__pwned") is None
    assert body.locator("strong").inner_text() == "Is"  # Markdown, built as nodes
    # the settings' titles of the texts
    assert page.locator('.pane[data-pane="source"] .pane-title').inner_text().lower().startswith("source article")


def test_text_answer_survives_a_killed_browser_mid_typing(browser, settings_url, tmp_path):
    profile = tmp_path / "profile"
    kind = browser.browser_type

    def launch():
        ctx = kind.launch_persistent_context(profile, executable_path=chromium_path(), headless=True,
                                             args=CHROMIUM_ARGS)
        pg = ctx.pages[0] if ctx.pages else ctx.new_page()
        block_model(pg)
        return ctx, pg

    ctx, pg = launch()
    open_page(pg, settings_url, "3")
    pg.locator('#questions textarea[data-question="comment"]').click()
    pg.keyboard.type("half a thou")  # still typing: no Enter, no blur
    wait_saved_response(pg, "3", "comment", "half a thou")
    os.kill(browser_pid(profile), signal.SIGKILL)
    try:
        ctx.close()
    except Exception:  # noqa: BLE001 - the browser is gone: closing may only report it
        pass
    time.sleep(0.2)
    ctx, pg = launch()
    try:
        pg.goto(settings_url + "?annotator=alice#record=3")
        pg.wait_for_selector(READY)
        pg.wait_for_function("() => document.querySelector('#questions').dataset.loaded === 'true'")
        assert pg.locator('#questions textarea[data-question="comment"]').input_value() == "half a thou"
        assert responses(pg, "3") == {"comment": "half a thou"}
    finally:
        ctx.close()


def shown_rows(page) -> list[str]:
    return page.locator("#record-list li[data-record]").evaluate_all("els => els.map(e => e.dataset.record)")


def test_metadata_filters_and_sort_combine_with_the_text_filter_and_hidden_metadata_is_never_shown(
        page, settings_url, settings_bundle):
    index = read_columns(settings_bundle / "data")
    meta = dict(zip(index["ids"], index["meta"]))
    assert all("hhem" not in m for m in meta.values())  # hidden: not in the index the page reads
    block_model(page)
    open_page(page, settings_url, "1")
    page.wait_for_selector("#record-list li[data-record]")
    info = page.locator("#record-info")
    info.locator("summary").click()
    assert "Model" in info.inner_text() and "model-a" in info.inner_text()
    assert "hhem" not in info.inner_text().lower() and "0.41" not in info.inner_text()
    assert "HHEM score" not in page.content()
    page.locator("#meta-filters > summary").click()
    page.locator('#meta-filters [data-meta="summarizer"] input[data-value="model-a"]').check()
    model_a = [rid for rid in index["ids"] if meta[rid]["summarizer"] == "model-a"]
    page.wait_for_function("(n) => document.querySelectorAll('#record-list li[data-record]').length === n",
                           arg=len(model_a))
    assert shown_rows(page) == model_a
    # a range on an integer property narrows further
    lo = sorted(meta[r]["length"] for r in model_a)[1]
    page.locator('#meta-filters [data-meta="length"] input[data-bound="lo"]').fill(str(lo))
    in_range = [r for r in model_a if meta[r]["length"] >= lo]
    page.wait_for_function("(n) => document.querySelectorAll('#record-list li[data-record]').length === n",
                           arg=len(in_range))
    assert shown_rows(page) == in_range
    # combined with the text filter (status words): answer one question of one of them → in progress
    target = in_range[-1]
    page.evaluate("(id) => { location.hash = 'record=' + id; }", target)
    wait_open(page, target)
    page.keyboard.press("Escape")  # leaves the range field
    page.keyboard.press("q")
    page.keyboard.press("1")
    wait_saved_response(page, target, "verdict", "consistent")
    page.fill("#record-filter", "progress")
    page.wait_for_function("(id) => [...document.querySelectorAll('#record-list li[data-record]')]"
                           ".map(e => e.dataset.record).join() === id", arg=target)
    # clear the filters; sort by length, descending
    page.fill("#record-filter", "")
    page.locator('#meta-filters [data-meta="length"] input[data-bound="lo"]').fill("")
    page.locator('#meta-filters [data-meta="summarizer"] input[data-value="model-a"]').uncheck()
    page.select_option("#record-sort", "meta:length|-1")
    by_length = sorted(index["ids"], key=lambda r: -meta[r]["length"])
    page.wait_for_function("(ids) => [...document.querySelectorAll('#record-list li[data-record]')]"
                           ".map(e => e.dataset.record).join() === ids.join()", arg=by_length)
    # by status: the one in progress after the ones to do
    page.select_option("#record-sort", "status")
    rows = shown_rows(page)
    assert rows[-1] == target and sorted(rows) == sorted(index["ids"])


def test_a_name_with_no_queue_is_told_so(context, settings_url):
    """Queues for alice, bob, carol; "Bob" (typed, or a link edited) has none: said, not silently bundle order."""
    page = context.new_page()
    block_model(page)
    page.goto(settings_url + "?annotator=Bob")  # (open_page's Escape would close the message)
    page.wait_for_selector(READY)
    msg = page.locator("#message")
    msg.wait_for()
    assert "No queue for “Bob” in this bundle (queues: alice, bob, carol)" in msg.inner_text()
    assert "of your queue" not in page.locator("#progress-text").inner_text()
    page2 = context.new_page()  # alice has one: no such line
    block_model(page2)
    open_page(page2, settings_url, annotator="alice")
    page2.wait_for_function("() => document.querySelector('#progress-text')?.textContent.includes('of your queue')")
    assert "No queue" not in page2.locator("body").inner_text()
    page3 = context.new_page()  # a link with a zero-width space and a decomposed name: alice's queue (names.js)
    block_model(page3)
    page3.goto(settings_url + "?annotator=%20alice%E2%80%8B")
    page3.wait_for_function("() => document.querySelector('#progress-text')?.textContent.includes('of your queue')")
    assert query(page3, "() => pd.annotator()") == "alice"


def test_the_annotators_queue_leads_and_other_records_stay_reachable(page, settings_url, settings_bundle):
    queues = json.loads((settings_bundle / json.loads((settings_bundle / "manifest.json").read_text())["queues"]["path"]).read_text(encoding="utf-8"))["queues"]
    ids = read_columns(settings_bundle / "data")["ids"]
    mine = queues["alice"]
    others = [r for r in ids if r not in mine]
    assert mine and others  # 6 records, 3 annotators, overlap 2: 4 each
    block_model(page)
    page.goto(settings_url + "?annotator=alice")
    page.wait_for_selector(READY)
    wait_open(page, mine[0])
    page.keyboard.press("Escape")
    progress = page.locator("#progress-text")
    assert progress.inner_text() == f"0 / {len(mine)} of your queue"
    # the list marks her records; "your queue" shows only them, and back
    page.wait_for_selector("#record-list li[data-record]")
    marked = page.locator("#record-list li[data-queue]").evaluate_all("els => els.map(e => e.dataset.record)")
    assert sorted(marked) == sorted(mine)
    page.locator('#status-filter [data-filter="queue"]').click()
    page.wait_for_function("(n) => document.querySelectorAll('#record-list li[data-record]').length === n", arg=len(mine))
    page.locator('#status-filter [data-filter="queue"]').click()
    page.wait_for_function("(n) => document.querySelectorAll('#record-list li[data-record]').length === n", arg=len(ids))
    page.keyboard.press("Escape")
    page.keyboard.press("d")  # discard: the next one of her queue, not of the bundle
    wait_current(page, mine[1])
    page.wait_for_function("(t) => document.querySelector('#progress-text').textContent === t",
                           arg=f"1 / {len(mine)} of your queue")
    # a record outside her queue is reachable; "to do" from it goes back to her queue
    page.evaluate("(id) => { location.hash = 'record=' + id; }", others[0])
    wait_open(page, others[0])
    page.keyboard.press("t")
    wait_current(page, mine[1])
    for rid in mine[1:]:
        wait_open(page, rid)
        page.keyboard.press("d")
    done = page.locator("#all-done")
    done.wait_for()
    assert f"All {len(mine)} records of your queue done" in done.inner_text()
    assert progress.inner_text() == f"{len(mine)} / {len(mine)} of your queue"
    # the records outside it are still to do, and still open
    assert all(query(page, "(id) => pd.entry(id)?.status ?? null", r) is None for r in others)


def test_similar_records_are_the_top_10_by_cosine_of_the_built_record_vectors(page, build_bundle, tmp_path_factory,
                                                                                serve_dir):
    import numpy as np

    data, settings = faithbench_like(tmp_path_factory.mktemp("fbq-many"), n=16)
    bundle = build_bundle([data], name="fbq-many", settings=settings)
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    ids = read_columns(bundle / "data")["ids"]
    rv = manifest["record_vectors"]
    vecs = np.frombuffer((bundle / rv["path"]).read_bytes(), dtype="<f2").reshape(len(ids), rv["dim"]).astype(np.float64)
    base = serve_dir(bundle)
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    block_model(page)
    open_page(page, base, "0")
    assert not any("/data/cells/" in u for u in requested)  # fetched on first use only
    page.locator("#similar > summary").click()
    for rid in ("0", "7"):
        page.evaluate("(id) => { location.hash = 'record=' + id; }", rid)  # the open card follows the record
        page.wait_for_function("(id) => document.querySelector('#similar-list')?.dataset.for === id", arg=rid)
        shown = page.locator("#similar-list li").evaluate_all("els => els.map(e => e.dataset.record)")
        i = ids.index(rid)
        scores = vecs @ vecs[i]
        scores[i] = -np.inf
        expected = [ids[j] for j in sorted(range(len(ids)), key=lambda j: (-scores[j], j))[:10]]
        assert shown == expected
        shown_scores = page.locator("#similar-list .similar-score").all_inner_texts()
        assert all(abs(float(x) - scores[ids.index(r)]) <= 0.005 + 1e-9 for x, r in zip(shown_scores, expected))
    # one cell (16 records): the one cell file, every vector, read once; never the whole record_vectors.bin
    assert [u.split("/data/")[1] for u in requested if "/data/cells/" in u or "record_vectors" in u] == \
        ["cells/cell-0000.bin"]
    # a click opens the record
    target = page.locator("#similar-list li").first.get_attribute("data-record")
    page.locator("#similar-list li button").first.click()
    wait_current(page, target)


def test_end_to_end_filter_answer_by_keyboard_accept_export_merge_agreement(browser, settings_url, settings_bundle,
                                                                              tmp_path):
    """The settings' whole round: two annotators in real Chromium filter the list, answer every question by
    keyboard, one accepts the HHEM suggestion, both export (version 2), `mercury-static merge` merges the
    files and prints the agreement per question and per suggestion agent."""
    from typer.testing import CliRunner

    from mercury_static.cli import app

    exports = []
    for who, verdict_keys in (("alice", ["a"]), ("bob", ["q", "1"])):
        ctx = browser.new_context(accept_downloads=True)
        page = ctx.new_page()
        block_model(page)
        open_page(page, settings_url, "0", annotator=who)
        page.locator("#meta-filters > summary").click()
        page.locator('#meta-filters [data-meta="summarizer"] input[data-value="model-a"]').check()
        page.wait_for_function("() => !document.querySelector('#record-list li[data-record=\"0\"]')")
        page.locator('#record-list li[data-record="1"] button').click()
        wait(page, "() => pd.record()?.id === '1'")
        page.keyboard.press("Escape")  # out of the list
        for rid, quality in (("1", "4" if who == "alice" else "2"), ("3", "3")):
            wait_open(page, rid)
            for key in (verdict_keys if rid == "1" else ["q", "2"]):
                page.keyboard.press(key)
            page.keyboard.press("q")  # topics
            page.keyboard.press("1")
            page.keyboard.press("q")  # quality
            page.keyboard.press(quality)
            page.keyboard.press("q")  # order: keep it as shown
            page.keyboard.press("Enter")
            page.keyboard.press("q")  # comment
            page.keyboard.type(f"{who} on {rid}")
            page.keyboard.press("Escape")
            wait_saved_response(page, rid, "comment", f"{who} on {rid}")
            page.keyboard.press("s")
            wait_left(page, rid)
            if rid == "1":
                page.evaluate("() => { location.hash = 'record=3'; }")
        path = tmp_path / f"{who}.json"
        path.write_text(json.dumps(export_file(page, tmp_path / who)), encoding="utf-8")
        exports.append(path)
        ctx.close()
    alice = json.loads(exports[0].read_text(encoding="utf-8"))
    schema = json.loads((Path(__file__).parent.parent / "docs/export.schema.json").read_text(encoding="utf-8"))
    for path in exports:
        assert errors(json.loads(path.read_text(encoding="utf-8")), schema) == []
    [a1] = [r for r in alice["records"] if r["record_id"] == "1"]
    assert a1["responses"]["verdict"] == "hallucinated" and a1["suggestions"]["accepted"] == {"verdict": "HHEM-2.1"}
    assert a1["responses"]["order"] == ["x", "y", "z"]
    out = tmp_path / "merged.json"
    run = CliRunner().invoke(app, ["merge", *map(str, exports), "--bundle", str(settings_bundle), "-o", str(out)],
                             env={"COLUMNS": "200"})
    assert run.exit_code == 0, run.output
    assert "Agreement per question" in run.output and "verdict" in run.output and "HHEM-2.1" in run.output
    merged = {r["id"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    answers_1 = {r["annotator"]: r["values"]["verdict"] for r in merged["1"]["responses"]}
    assert answers_1 == {"alice": "hallucinated", "bob": "consistent"}
    assert {r["annotator"]: r["values"]["quality"] for r in merged["3"]["responses"]} == {"alice": 3, "bob": 3}


def test_two_tabs_answering_one_record_keep_both_answers(context, settings_url):
    """Tab B never hears of tab A's answer (no BroadcastChannel): its write still merges per question with
    the stored entry inside the transaction, so neither answer overwrites the other."""
    a, b = context.new_page(), context.new_page()
    b.add_init_script("delete window.BroadcastChannel;")
    for pg in (a, b):
        block_model(pg)
        open_page(pg, settings_url, "4")
    a.bring_to_front()
    a.keyboard.press("q")
    a.keyboard.press("2")
    wait_saved_response(a, "4", "verdict", "hallucinated")
    b.bring_to_front()
    assert "verdict" not in responses(b, "4")  # b's view is stale
    b.keyboard.press("q")
    b.keyboard.press("q")
    b.keyboard.press("q")  # quality
    b.keyboard.press("5")
    wait_saved_response(b, "4", "quality", 5)
    assert responses(b, "4") == {"verdict": "hallucinated", "quality": 5}  # the merged entry came back
    stored = stored_records(b)["4"]["responses"]
    assert (stored["verdict"]["value"], stored["quality"]["value"]) == ("hallucinated", 5)
    a.reload()
    a.wait_for_selector(READY)
    assert responses(a, "4") == {"verdict": "hallucinated", "quality": 5}


def test_an_unreadable_stored_response_is_kept_aside_and_the_rest_goes_on(page, settings_url):
    block_model(page)
    open_page(page, settings_url, "5")
    page.keyboard.press("q")
    page.keyboard.press("1")
    wait_saved_response(page, "5", "verdict", "consistent")
    page.keyboard.press("q")
    page.keyboard.press("q")
    page.keyboard.press("3")
    wait_saved_response(page, "5", "quality", 3)
    page.evaluate("""async () => {
        const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
        const db = await req(indexedDB.open('mercury-static'));
        const os = db.transaction('entries', 'readwrite').objectStore('entries');
        const keys = await req(os.getAllKeys());
        const k = keys.find((x) => x[1] === 'r' && x[2] === '5');
        const e = await req(os.get(k));
        e.responses.verdict = {value: {html: '<b>x</b>'}, updated_at: 'later'};
        await req(os.put(e, k));
        db.close(); }""")
    before = page.evaluate(STORED)
    page.reload()
    page.wait_for_selector(READY)
    page.locator("#storage-aside").wait_for()
    assert "responses.verdict" in page.locator("#storage-aside").inner_text()
    assert responses(page, "5") == {"quality": 3}  # what could be read
    page.keyboard.press("Escape")
    page.keyboard.press("q")
    page.keyboard.press("2")
    wait_saved_response(page, "5", "verdict", "hallucinated")
    after = page.evaluate(STORED)
    assert [kv for kv in after if kv in before] == before  # the unreadable entry was not overwritten


@pytest.mark.shared_data
def test_faithbench_with_its_settings_file_end_to_end(browser, build_bundle, serve_dir, tmp_path):
    """The real FaithBench batch built with examples/faithbench-settings.yaml: filter by summarizer, answer
    the verdict (accepting HHEM-2.1's suggestion), the rating and the comment by keyboard, export, merge."""
    from typer.testing import CliRunner

    from conftest import EXAMPLES, SHARED_DATA
    from mercury_static.cli import app

    bundle = build_bundle([SHARED_DATA / "faithbench/batch_1.json"], name="fb-settings",
                          settings=EXAMPLES / "faithbench-settings.yaml")
    index = read_columns(bundle / "data")
    base = serve_dir(bundle)
    ctx = browser.new_context(accept_downloads=True)
    page = ctx.new_page()
    block_model(page)
    open_page(page, base, index["ids"][0])
    assert page.locator("#questions .question").evaluate_all("els => els.map(e => e.dataset.question)") == [
        "verdict", "confidence", "comment"]
    model = index["meta"][0]["summarizer"]
    page.locator("#meta-filters > summary").click()
    page.locator(f'#meta-filters [data-meta="summarizer"] input[data-value="{model}"]').check()
    picked = [rid for rid, m in zip(index["ids"], index["meta"]) if m.get("summarizer") == model]
    page.wait_for_function("(n) => document.querySelectorAll('#record-list li[data-record]').length === n",
                           arg=len(picked))
    page.locator(f'#record-list li[data-record="{picked[-1]}"] button').click()
    wait_open(page, picked[-1])
    page.keyboard.press("Escape")
    suggestion = page.locator('#questions [data-question="verdict"] .q-suggestion')
    assert "HHEM-2.1" in suggestion.inner_text()
    page.keyboard.press("a")
    page.keyboard.press("q")
    page.keyboard.press("4")
    page.keyboard.press("q")
    page.keyboard.type("checked against the source")
    page.keyboard.press("Escape")
    wait_saved_response(page, picked[-1], "comment", "checked against the source")
    page.keyboard.press("s")
    wait_left(page, picked[-1])
    path = tmp_path / "alice.json"
    path.write_text(json.dumps(export_file(page, tmp_path / "dl")), encoding="utf-8")
    ctx.close()
    [rec] = [r for r in json.loads(path.read_text(encoding="utf-8"))["records"] if r["record_id"] == picked[-1]]
    assert rec["status"] == "submitted" and rec["suggestions"]["accepted"] == {"verdict": "HHEM-2.1"}
    assert rec["responses"]["confidence"] == 4
    out = tmp_path / "merged.json"
    run = CliRunner().invoke(app, ["merge", str(path), "--bundle", str(bundle), "-o", str(out)], env={"COLUMNS": "200"})
    assert run.exit_code == 0, run.output
    assert "HHEM-2.1" in run.output
    merged = {r["id"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    assert merged[picked[-1]]["responses"][0]["values"]["confidence"] == 4


def test_a_bundle_without_settings_looks_as_before_and_loads_none_of_their_modules(page, bundle_server, tmp_path):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    for sel in ("#questions", "#fields", "#meta-filters", "#similar-card", '#status-filter [data-filter="queue"]'):
        assert page.locator(sel).count() == 0, sel
    assert page.evaluate("() => document.body.dataset.form") is None
    assert page.locator('.pane[data-pane="source"] .pane-title').inner_text().lower().startswith("source")
    assert "question" not in page.locator("#help-keys").inner_text()
    page.keyboard.press("q")  # no form: q and a do nothing
    page.keyboard.press("a")
    assert query(page, "() => pd.entry('harbor-lighthouse') ?? null") is None
    loaded = {u.rsplit("/", 1)[-1] for u in requested if "/app/" in u}
    assert not loaded & {"questions.js", "fields.js", "filters.js", "queue.js", "similar.js"}, loaded
    page.keyboard.press("s")
    wait_left(page, 'harbor-lighthouse')
    [rec] = export_file(page, tmp_path)["records"]
    assert rec["responses"] == {} and rec["suggestions"] == {"shown": True, "accepted": {}}


def test_q_on_a_new_record_starts_at_the_first_question(page, settings_url):
    """`q` moved on from the question last focused, on whichever record: on the next record it went on
    from the previous record's place in the form."""
    block_model(page)
    open_page(page, settings_url, "1")
    for _ in range(3):
        page.keyboard.press("q")
    assert focused_question(page) == "quality"
    page.keyboard.press("n")
    wait_current(page, '2')
    page.keyboard.press("q")
    assert focused_question(page) == "verdict"
    page.keyboard.press("Escape")
    page.keyboard.press("p")
    wait_current(page, '1')
    page.keyboard.press("Shift+Q")  # back from the start: the last question
    assert focused_question(page) == "comment"


WIDE = [f"c{i}" for i in range(1, 13)]  # twelve options: 10, 11 and 12 are typed as two digits


@pytest.fixture(scope="module")
def wide_url(build_bundle, serve_dir, tmp_path_factory):
    """A rating 0..10 and questions (and span labels) with twelve options."""
    data, settings = faithbench_like(tmp_path_factory.mktemp("fbq-wide"), n=2, metadata=False)
    doc = json.loads(settings.read_text(encoding="utf-8"))
    options = [{"value": v, "text": f"Option {v[1:]}"} for v in WIDE]
    doc["questions"] = [
        {"name": "spans", "type": "span", "title": "Spans", "labels": [f"L{i}" for i in range(1, 13)]},
        {"name": "score", "type": "rating", "title": "Score", "values": list(range(11))},
        {"name": "category", "type": "label", "title": "Category", "options": options},
        {"name": "tags", "type": "multi_label", "title": "Tags", "options": options},
        {"name": "steps", "type": "ranking", "title": "Steps", "options": options},
    ]
    for key in ("suggestions", "distribution", "vectors"):
        del doc[key]
    settings.write_text(json.dumps(doc), encoding="utf-8")
    return serve_dir(build_bundle([data], name="fbq-wide", settings=settings))


def test_ratings_0_to_10_and_options_past_9_have_keys(page, wide_url):
    """A rating's keys are its values (0 and 10 included), an option's its number (10, 11, 12 past 9);
    with ten options or more, two digits typed quickly make one number (Argilla's rating shortcut), a
    single digit is taken after a pause or at once by the next key. Backspace clears an answer."""
    block_model(page)
    open_page(page, wide_url, "0")
    page.keyboard.press("q")
    assert focused_question(page) == "score"
    # the keys shown are the keys typed: 0 beside 0, 10 beside 10, 12 beside option 12
    assert page.locator('[data-question="score"] kbd').all_inner_texts() == [str(v) for v in range(11)]
    assert page.locator('[data-question="category"] kbd').all_inner_texts() == [str(i) for i in range(1, 13)]
    page.keyboard.press("0")
    assert responses(page, "0").get("score") == 0  # at once: no other key starts with 0
    page.keyboard.press("7")
    assert responses(page, "0").get("score") == 7
    page.keyboard.press("1")
    page.keyboard.press("0")
    assert responses(page, "0").get("score") == 10
    page.keyboard.press("1")  # 1 or the start of 10: taken after a pause
    wait(page, "() => pd.entry('0').responses.score.value === 1")
    page.keyboard.press("Backspace")
    assert "score" not in responses(page, "0")
    page.keyboard.press("q")
    assert focused_question(page) == "category"
    page.keyboard.press("1")
    page.keyboard.press("2")
    assert responses(page, "0").get("category") == "c12"
    page.keyboard.press("1")
    page.keyboard.press("q")  # the next key takes the pending 1 at once, then acts
    assert responses(page, "0").get("category") == "c1"
    assert focused_question(page) == "tags"
    page.keyboard.press("1")
    page.keyboard.press("1")
    page.keyboard.press("3")
    page.keyboard.press("q")
    assert responses(page, "0").get("tags") == ["c3", "c11"]
    assert focused_question(page) == "steps"
    page.keyboard.press("1")  # its first item, c1, to rank 11
    page.keyboard.press("1")
    page.keyboard.press("1")
    assert responses(page, "0").get("steps") == WIDE[1:11] + ["c1", "c12"]
    page.keyboard.press("Escape")
    # the span labels: eleven and twelve typed as two digits too
    page.locator("#pane-summary").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("1")
    page.keyboard.press("1")
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    [a] = query(page, "() => Object.values(pd.entry('0').annotations)")
    assert sorted(a["label"]) == ["L11", "L2"]
    for _ in range(5):  # to the ranking, after a saved span: Shift+↓ there starts no draft
        page.keyboard.press("Shift+Q")
        if focused_question(page) == "steps":
            break
    page.keyboard.press("Shift+ArrowDown")
    assert query(page, "() => pd.draft().summary") is None
    page.keyboard.press("?")  # and the help says so
    assert "two digits" in page.locator("#help-keys").inner_text()
