"""Sentence verdicts from the annotators' keys to the gold, every step the real one: two annotators judge every
summary sentence in Chromium (keys, evidence from the lit source), the page's export (version 4), `merge`,
`review`, the review page settling the disputed sentence and taking the agreed one, its export, `gold`. Every
verdict and its evidence is in the merged file, and the settled ones in the gold; exports of versions 1-3 merge
beside them."""

from __future__ import annotations

import json

import pytest
from pagedriver import export_file, open_page, sentence_verdicts, wait, wait_sentence_lit
from test_page import block_model
from test_page_review import download_file, open_review

pytestmark = pytest.mark.browser

SOURCE = "The bridge opened in 1932. It was built of steel. It carries a railway and a road."
SUMMARY = "The bridge opened in 1932. It is made of stone."


@pytest.fixture(scope="module")
def bundle(build_bundle, tmp_path_factory):
    d = tmp_path_factory.mktemp("e2e")
    (d / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "b1", "source": SOURCE, "summary": SUMMARY},
        {"id": "b2", "source": "Nothing happened.", "summary": "Nothing happened."}]), encoding="utf-8")
    (d / "settings.yaml").write_text("sentence_verdicts: shown\n", encoding="utf-8")
    return build_bundle([d / "data.jsonl"], name="sentences-e2e", id_field="id", settings=d / "settings.yaml")


def judge(browser, base: str, annotator: str, second: str, tmp_path) -> dict:
    """`annotator` confirms sentence 0 with the top lit source sentence (y) and gives sentence 1 the verdict of
    digit `second` (u, digit), submits, and exports through the page."""
    ctx = browser.new_context(accept_downloads=True)
    page = ctx.new_page()
    block_model(page)
    open_page(page, base, "b1", annotator=annotator)
    page.keyboard.press("v")
    wait_sentence_lit(page, 0)
    page.keyboard.press("y")
    page.keyboard.press("v")
    page.keyboard.press("u")
    page.keyboard.press(second)
    wait(page, "() => pd.sentenceStates().every((s) => s === 'judged')")
    given = sentence_verdicts(page, "b1")
    page.keyboard.press("s")
    wait(page, "() => pd.entry('b1')?.status === 'submitted'")
    doc = export_file(page, tmp_path / annotator)
    ctx.close()
    assert doc["version"] == 4
    return given


def test_every_verdict_and_its_evidence_from_the_keys_to_the_gold(browser, page, bundle, serve_dir, tmp_path, run):
    base = serve_dir(bundle)
    (tmp_path / "exports").mkdir()
    for name in ("alice", "bob"):
        (tmp_path / name).mkdir()
    alice = judge(browser, base, "alice", "2", tmp_path)  # sentence 1: Not supported
    bob = judge(browser, base, "bob", "1", tmp_path)  # sentence 1: Supported (the top lit sentence)
    assert alice[0]["evidence"] == bob[0]["evidence"] == [0]  # "The bridge opened in 1932." lit first
    exports = sorted(p for name in ("alice", "bob") for p in (tmp_path / name).glob("*.json"))
    assert len(exports) == 2
    old = tmp_path / "exports" / "carol-v3.json"  # an older page's export merges beside them
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    old.write_text(json.dumps({"format": "mercury-static/annotations", "version": 3, "bundle_id": manifest["bundle_id"],
                               "annotator": "carol", "client_id": "c", "exported_at": "2026-12-01T10:00:00Z",
                               "records": [{"record_id": "b2", "status": "submitted",
                                            "updated_at": "2026-12-01T10:00:00Z", "annotations": [],
                                            "active_ms": 1000}]}), encoding="utf-8")
    merged = tmp_path / "merged.json"
    result = run("merge", *exports, old, "--bundle", bundle, "-o", merged, "--report", tmp_path / "report.json")
    assert result.exit_code == 0, result.output
    records = {r["id"]: r for r in json.loads(merged.read_text(encoding="utf-8"))}
    kept = {(s["annotator"], s["sentence"]): (s["verdict"], [e["sentence"] for e in s.get("evidence", [])])
            for s in records["b1"]["sentences"]}
    assert kept == {("alice", 0): ("supported", [0]), ("alice", 1): ("unsupported", []),
                    ("bob", 0): ("supported", [0]), ("bob", 1): ("supported", bob[1]["evidence"])}
    assert [r["annotator"] for r in records["b2"]["responses"]] == ["carol"]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["adjudication"][0]["record_id"] == "b1"  # the sentence disagreement first

    review_dir = tmp_path / "review-bundle"
    result = run("review", *exports, old, "--bundle", bundle, "-o", review_dir)
    assert result.exit_code == 0, result.output
    open_review(page, serve_dir(review_dir), record="b1")
    disputed = page.locator("#rv-sentences li[data-sentence='1']")
    assert disputed.get_attribute("data-disputed") == "true"
    assert page.locator("#rv-sentences li[data-sentence='0']").get_attribute("data-disputed") == "false"
    disputed.locator("[data-take=alice]").click()
    wait(page, "() => pd.entry('b1')?.review?.['s:1']?.value?.from === 'alice'")
    page.locator("#rv-sentences li[data-sentence='0'] [data-take=bob]").click()
    wait(page, "() => pd.entry('b1')?.review?.['s:0']?.value?.from === 'bob'")
    page.keyboard.press("Escape")
    page.click("[data-rv=adjudicate]")
    wait(page, "() => pd.entry('b1')?.status === 'submitted'")
    review_export = download_file(page, tmp_path)
    gold_path = tmp_path / "gold.json"
    result = run("gold", review_export, "--bundle", review_dir, "-o", gold_path)
    assert result.exit_code == 0, result.output
    [gold] = [g for g in json.loads(gold_path.read_text(encoding="utf-8")) if g["id"] == "b1"]
    settled = {s["sentence"]: (s["verdict"], [e["sentence"] for e in s.get("evidence", [])],
                               s["provenance"]["judges"]) for s in gold["sentences"]}
    assert settled == {0: ("supported", [0], ["alice", "bob"]), 1: ("unsupported", [], ["alice"])}
    assert all(s["summary"]["text"] == SUMMARY[s["summary"]["start"]:s["summary"]["end"]] for s in gold["sentences"])
