"""A sentence-level dataset's verdicts as suggestions in the page (docs/sentence-verdicts.md, "Sentence-level
datasets in"; docs/annotating.md, "Sentence verdicts"): the verdict bar names who suggested what for the current
sentence (QAGS's workers, SummHay's evaluator), as text; Y (or the bar's button) accepts the majority, a tie
accepts none; the accepted verdict is exported with `suggested_by` and merge keeps it; a blind annotator sees none.

Real Chromium, real bundles built from a generated QAGS file and a small SummHay topic.
"""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES
from pagedriver import export_file, open_page, query, sentence_verdicts, wait
from schema_lite import errors
from test_page import block_model
from test_sentence_datasets import write_jsonl
from tests.test_read import summhay_topic

from mercury_static.bundle.contents import load_bundle
from mercury_static.merge.pipeline import merge_files

pytestmark = pytest.mark.browser

SCHEMA = json.loads((EXAMPLES.parent / "docs" / "export.schema.json").read_text(encoding="utf-8"))
TAG = "<b>x</b>"  # a worker id that is markup: shown as text, never as an element


def qags_rows() -> list[dict]:
    """Three workers; sentence 0: yes, no, yes (majority yes); 1: no, yes (a tie); 2: all no, one worker's id
    markup."""
    def r(*answers):
        return [{"worker_id": w, "response": a} for w, a in answers]

    return [{"article": "The council met on Monday. It approved the new park. Work starts in May.",
             "summary_sentences": [
                 {"sentence": "The council approved a park.", "responses": r((0, "yes"), (1, "no"), (2, "yes"))},
                 {"sentence": "The council met on Monday.", "responses": r((0, "no"), (1, "yes"))},
                 {"sentence": "Work starts in June.", "responses": r((0, "no"), (1, "no"), (TAG, "no"))}]}]


@pytest.fixture(scope="module")
def bundles(build_bundle, tmp_path_factory):
    """{qags: the QAGS file, bob works blind; summhay: the SummHay topic} and their first records' ids."""
    d = tmp_path_factory.mktemp("sentence-suggestions")
    qags = write_jsonl(d / "mturk.jsonl", qags_rows())
    (d / "blind.yaml").write_text("suggestions:\n  blind: [bob]\n", encoding="utf-8")
    topic = d / "topic.json"
    topic.write_text(json.dumps(summhay_topic()), encoding="utf-8")
    built = {"qags": build_bundle([qags], name="qags-suggest", settings=d / "blind.yaml"),
             "summhay": build_bundle([topic], name="summhay-suggest")}
    return {name: (path, load_bundle(path).records[0].id) for name, path in built.items()}


def suggested_line(page) -> str:
    return page.locator("#verdict-suggested").inner_text()


def test_qags_workers_verdicts_are_suggested_accepted_by_key_exported_and_merged(browser, bundles, serve_dir,
                                                                                  tmp_path):
    path, rid = bundles["qags"]
    ctx = browser.new_context(accept_downloads=True)
    page = ctx.new_page()
    block_model(page)
    open_page(page, serve_dir(path), rid)
    assert "accept the current sentence's suggested verdict" in page.locator("#help-keys").inner_text()
    page.keyboard.press("v")
    wait(page, "() => pd.verdicts().current === 0")
    assert suggested_line(page) == "suggested: Yes (worker-0, worker-2), No (worker-1)"
    page.keyboard.press("Y")
    wait(page, "(id) => pd.entry(id)?.sentences?.[0]", rid)
    assert {k: v for k, v in sentence_verdicts(page, rid)[0].items() if k != "elapsed_ms"} == {
        "verdict": "yes", "evidence": sentence_verdicts(page, rid)[0]["evidence"],
        "suggested_by": ["worker-0", "worker-2"]}
    # a tie: said in the bar, the button disabled, the key accepts none and says so
    page.keyboard.press("v")
    wait(page, "() => pd.verdicts().current === 1")
    assert suggested_line(page) == "suggested: Yes (worker-1), No (worker-0) — a tie: none to accept"
    assert page.locator('[data-action="accept-sentence-suggestion"]').is_disabled()
    page.keyboard.press("Y")
    wait(page, "() => pd.message()")
    assert query(page, "() => pd.message()") == "Sentence 2: the suggestions tie (yes, no); none accepted."
    assert 1 not in sentence_verdicts(page, rid)
    # the dataset's names are text: markup in a worker id stays text; the bar's button accepts too
    page.keyboard.press("v")
    wait(page, "() => pd.verdicts().current === 2")
    assert suggested_line(page) == f"suggested: No — worker-0, worker-1, worker-{TAG}"
    assert page.locator("#verdict-suggested *").count() == 0
    page.locator('[data-action="accept-sentence-suggestion"]').click()
    wait(page, "(id) => pd.entry(id)?.sentences?.[2]", rid)
    assert sentence_verdicts(page, rid)[2]["suggested_by"] == ["worker-0", "worker-1", f"worker-{TAG}"]

    exported = export_file(page, tmp_path)
    ctx.close()
    assert errors(exported, SCHEMA) == []
    [rec] = exported["records"]
    assert [(s["index"], s["verdict"], s["suggested_by"]) for s in rec["sentences"]] == [
        (0, "yes", ["worker-0", "worker-2"]), (2, "no", ["worker-0", "worker-1", f"worker-{TAG}"])]
    file = tmp_path / "alice.json"
    file.write_text(json.dumps(exported), encoding="utf-8")
    result = merge_files([file], path)
    assert result.problems == []
    [merged] = [r for r in result.records if r["id"] == rid]
    assert [(v["annotator"], v["sentence"], v["suggested_by"]) for v in merged["sentences"]] == [
        ("alice", 0, ["worker-0", "worker-2"]), ("alice", 2, ["worker-0", "worker-1", f"worker-{TAG}"])]


def test_a_blind_annotator_sees_no_suggested_verdict_and_accepts_none(page, bundles, serve_dir):
    path, rid = bundles["qags"]
    block_model(page)
    open_page(page, serve_dir(path), rid, annotator="bob")
    page.keyboard.press("v")
    wait(page, "() => pd.verdicts().current === 0")
    assert page.locator("#verdict-suggested").is_hidden()
    assert page.locator('[data-action="accept-sentence-suggestion"]').is_hidden()
    assert "worker" not in page.locator("#verdict-bar").inner_text()
    page.keyboard.press("Y")
    wait(page, "() => pd.message()")
    assert query(page, "() => pd.message()") == "Sentence 1 has no suggested verdict."
    assert sentence_verdicts(page, rid) == {}


def test_summhay_evaluators_coverage_is_suggested_and_accepted(page, bundles, serve_dir):
    path, rid = bundles["summhay"]
    block_model(page)
    open_page(page, serve_dir(path), rid)
    page.keyboard.press("Y")  # from no sentence: the first becomes the current one
    wait(page, "() => pd.verdicts().current === 0")
    assert suggested_line(page) == "suggested: No coverage — summhay-eval"
    page.keyboard.press("v")
    wait(page, "() => pd.verdicts().current === 1")
    assert suggested_line(page) == "suggested: Full coverage — summhay-eval"
    page.keyboard.press("Y")
    wait(page, "(id) => pd.entry(id)?.sentences?.[1]", rid)
    got = sentence_verdicts(page, rid)[1]
    assert (got["verdict"], got["suggested_by"]) == ("full", ["summhay-eval"])
