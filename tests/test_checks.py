"""Check records (docs/checks.md): known answers mixed into every queue by `assign --checks`, kept out of the
bundle; each annotator scored on them by `merge --checks`, flagged below the threshold, the check records kept
out of the agreement and of the output. The round test drives one annotator through the real page."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from conftest import EXAMPLES
from pagedriver import export_file, go_to, open_page, pane_text, wait, wait_open

GOLD = EXAMPLES / "gold.json"
CHECK_IDS = {"harbor-lighthouse", "urban-bees", "council-vote"}


def queues_of(bundle: Path) -> dict[str, list[str]]:
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    return json.loads((bundle / manifest["queues"]["path"]).read_text(encoding="utf-8"))["queues"]


def test_checks_mixed_into_every_queue_same_records_seeded_spread():
    from mercury_static.bundle.assign import check_count, make_queues, mix_checks
    from mercury_static.settings.model import Distribution

    regular = [f"r{i}" for i in range(60)]
    checks = [f"c{i}" for i in range(10)]
    queues = mix_checks(make_queues(regular, Distribution(("a", "b", "c"), 1), "s"), checks, 0.2, "s")
    picked = [set(q) & set(checks) for q in queues.values()]
    assert picked[0] == picked[1] == picked[2] and len(picked[0]) == check_count(20, 0.2, 10) == 5
    assert Counter(r for q in queues.values() for r in q if r in regular) == Counter(regular)  # overlap 1 kept
    for q in queues.values():  # spread: one check in each fifth of the queue
        places = [i for i, r in enumerate(q) if r in checks]
        assert [p * 5 // len(q) for p in places] == [0, 1, 2, 3, 4], places
    assert mix_checks(make_queues(regular, Distribution(("a", "b", "c"), 1), "s"), checks, 0.2, "s") == queues
    assert mix_checks(make_queues(regular, Distribution(("a", "b", "c"), 1), "s"), checks, 0.2, "t") != queues


@pytest.fixture
def bundle(stand_in_demo, tmp_path) -> Path:
    copy = tmp_path / "bundle"
    shutil.copytree(stand_in_demo, copy)
    return copy


def test_assign_checks_writes_only_ids_into_the_bundle(run, bundle):
    before = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    result = run("assign", bundle, "--annotators", "alice,bob,carol", "--checks", GOLD, "--check-rate", "0.34")
    assert result.exit_code == 0, result.output
    queues = queues_of(bundle)
    for q in queues.values():
        assert CHECK_IDS <= set(q) and len(q) == 6 + 3
    after = {p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    changed = {k for k in after if before.get(k) != after[k]}
    assert changed == {"manifest.json", json.loads(after["manifest.json"])["queues"]["path"]}
    manifest = json.loads(after["manifest.json"])
    assert {k: v for k, v in manifest.items() if k != "queues"} == \
        {k: v for k, v in json.loads(before["manifest.json"]).items() if k != "queues"}
    assert b"Unwanted" not in after[manifest["queues"]["path"]]  # the queues file: names and ids only


def test_a_check_record_outside_the_bundle_is_one_line(run, bundle, tmp_path):
    doc = json.loads(GOLD.read_text(encoding="utf-8"))
    doc["samples"][0]["sample_id"] = "not-here"
    doc["samples"][0]["summary"] += " Changed."
    (tmp_path / "outside.json").write_text(json.dumps(doc), encoding="utf-8")
    result = run("assign", bundle, "--annotators", "alice", "--checks", tmp_path / "outside.json")
    assert result.exit_code == 2
    assert "not-here" in result.output and "rebuild" in result.output and len(result.output.strip().splitlines()) == 1
    several = run("assign", bundle, "--annotators", "alice", "--checks", EXAMPLES / "team.json")
    assert several.exit_code == 2 and "one reading" in several.output
    rate = run("assign", bundle, "--annotators", "alice", "--checks", GOLD, "--check-rate", "1")
    assert rate.exit_code == 2 and "--check-rate" in rate.output


def test_sentence_verdicts_and_evidence_scored_on_hand_written_records(stand_in_demo):
    """The `sentences` of merged records (docs/sentence-verdicts.md) against known sentence verdicts."""
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.merge.check_answers import Known, KnownSentence
    from mercury_static.merge.checks_score import score_checks

    b = load_bundle(stand_in_demo)
    rec = b.record("harbor-lighthouse")
    s0, s1 = rec.summary_text.sentences[0], rec.summary_text.sentences[1]
    known = {rec.id: Known(rec.id, [], {}, {0: KnownSentence("unsupported"), 1: KnownSentence("supported",
                                                                                                 frozenset({3}))})}
    span = {"id": "x", "annotator": "ann", "label": ["Unwanted", "Unwanted.Intrinsic"], "note": "", "source": None,
            "summary": {"start": s0[0], "end": s0[0] + 4, "text": rec.summary[s0[0]:s0[0] + 4]}}
    record = {"id": rec.id, "annotations": [span],
              "responses": [{"annotator": n, "status": "submitted"} for n in ("ann", "ben")],
              "sentences": [{"annotator": "ann", "sentence": 1, "verdict": "supported",
                             "evidence": [{"sentence": 3}, {"sentence": 2}]},
                            {"annotator": "ben", "sentence": 1, "verdict": "unsupported", "evidence": []}]}
    assert s1[0] > s0[0]
    people = {a["annotator"]: a for a in score_checks([record], known, b, b.manifest["labels"])["annotators"]}
    # ann: sentence 0 flagged by her span (counts as unsupported), sentence 1 right with the right evidence
    assert people["ann"]["figures"]["sentence_verdict"]["value"] == 1.0
    assert people["ann"]["figures"]["evidence"]["value"] == 1.0
    # ben: sentence 0 not checked, sentence 1 wrong, no evidence
    assert people["ben"]["figures"]["sentence_verdict"]["value"] == 0.0
    assert people["ben"]["figures"]["evidence"]["value"] == 0.0
    assert "sentence_verdict" in people["ben"]["below"] and "sentence_verdict" not in people["ann"]["below"]


def _export(header: dict, annotator: str, entries: list[dict]) -> dict:
    return {**header, "annotator": annotator, "client_id": f"client-{annotator}", "records": entries}


def _entry(record_id: str, annotations: list[dict]) -> dict:
    return {"record_id": record_id, "status": "submitted", "updated_at": "2026-12-06T10:00:00Z",
            "annotations": annotations}


def _copy_of_gold(sample: dict) -> list[dict]:
    return [{"id": f"g{i}", "label": a["label"], "note": "",
             "summary": {"start": a["summary_start"], "end": a["summary_end"], "text": a["summary_span"]},
             "source": {"start": a["source_start"], "end": a["source_end"], "text": a["source_span"]},
             "created_at": "2026-12-06T10:00:00Z", "updated_at": "2026-12-06T10:00:00Z"}
            for i, a in enumerate(sample["annotations"])]


@pytest.mark.browser
def test_a_round_with_check_records_flags_exactly_the_wrong_annotator(demo_bundle, serve_dir, context, run,
                                                                     tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    assigned = run("assign", bundle, "--annotators", "alice,bob,carol", "--checks", GOLD, "--check-rate", "0.34")
    assert assigned.exit_code == 0, assigned.output
    bob_queue = queues_of(bundle)["bob"]
    page = context.new_page()
    page.route("**/models/**", lambda route: route.abort())
    page.route("**/vendor/**", lambda route: route.abort())
    open_page(page, serve_dir(bundle), annotator="bob")
    # bob works his queue in the page: every record submitted with no span, the check records too (wrong:
    # each has a known inconsistency), the page showing nothing that marks them
    for rid in bob_queue:
        go_to(page, rid)
        wait_open(page, rid)
        assert "check" not in pane_text(page, "summary").lower()
        page.keyboard.press("s")
        wait(page, "(id) => (pd.entry(id) || {}).status === 'submitted'", rid)
    bob = export_file(page, tmp_path)
    assert {r["record_id"] for r in bob["records"] if r["status"] == "submitted"} == set(bob_queue)
    header = {k: v for k, v in bob.items() if k != "records"}
    gold = {s["sample_id"]: s for s in json.loads(GOLD.read_text(encoding="utf-8"))["samples"]}
    shared = [r for r in queues_of(bundle)["alice"] if r not in CHECK_IDS][:3]
    for name in ("alice", "carol"):  # right on the check records, and a few records of their own judged by both
        entries = [_entry(rid, _copy_of_gold(gold[rid])) for rid in sorted(CHECK_IDS)]
        entries += [_entry(rid, []) for rid in shared]
        (tmp_path / f"{name}.json").write_text(json.dumps(_export(header, name, entries)), encoding="utf-8")
    (tmp_path / "bob.json").write_text(json.dumps(bob), encoding="utf-8")
    exports = [tmp_path / f"{n}.json" for n in ("alice", "bob", "carol")]

    merged = run("merge", *exports, "--bundle", bundle, "-o", tmp_path / "merged.json", "--report",
                 tmp_path / "report.html", "--checks", GOLD)
    assert merged.exit_code == 0, merged.output
    assert "flagged on the check records: bob" in merged.output
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    people = {a["annotator"]: a for a in report["checks"]["annotators"]}
    assert [n for n, a in people.items() if a["below"]] == ["bob"]
    verdict = people["bob"]["figures"]["verdict"]
    assert verdict["value"] == 0.0 and verdict["ci"] == [0.0, 0.0] and verdict["items"] == 3
    assert people["alice"]["figures"]["span_f1"]["value"] == 1.0
    assert people["alice"]["figures"]["evidence"]["value"] == 1.0
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "flagged: bob (verdict accuracy, span F1)" in html and 'id="t-checks"' in html
    # no check record in the agreement figures nor in the merged output
    assert report["records"]["total"] == 21 - 3
    assert report["records"]["judged_by_2_or_more"] == len(shared)
    assert not CHECK_IDS & {c["record_id"] for c in report["adjudication"]}
    out = json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))
    assert not CHECK_IDS & {r["id"] for r in out} and len(out) == 18
    # without --checks the same exports put them in both: the exclusion is what kept them out
    plain = run("merge", *exports, "--bundle", bundle, "-o", tmp_path / "plain.json", "--report",
                tmp_path / "plain-report.json")
    plain_report = json.loads((tmp_path / "plain-report.json").read_text(encoding="utf-8"))
    assert plain.exit_code == 0 and plain_report["records"]["judged_by_2_or_more"] == len(shared) + 3
    kept = run("merge", *exports, "--bundle", bundle, "-o", tmp_path / "kept.json", "--checks", GOLD,
               "--keep-checks")
    assert kept.exit_code == 0
    assert CHECK_IDS <= {r["id"] for r in json.loads((tmp_path / "kept.json").read_text(encoding="utf-8"))}


def test_a_gold_record_may_hold_spans_proposed_by_several(stand_in_demo, tmp_path):
    """A gold record (it has `review`) was decided by one reviewer, whoever proposed its spans; the same
    record without `review` is two readings and refused."""
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.core.records import InputError
    from mercury_static.merge.check_answers import read_known

    b = load_bundle(stand_in_demo)
    rec = b.record("council-vote")
    spans = [{"id": str(i), "annotator": who, "label": ["Unwanted", "Unwanted.Intrinsic"], "note": "",
              "summary": {"start": start, "end": start + 5, "text": rec.summary[start:start + 5]}, "source": None}
             for i, (who, start) in enumerate((("alice", 0), ("bob", 10)))]
    record = {"id": rec.id, "source": rec.source, "summary": rec.summary, "annotations": spans,
              "responses": [{"annotator": "rita", "status": "submitted", "updated_at": "2026-12-02T10:00:00Z"}],
              "review": {"reviewer": "rita"}}
    (tmp_path / "gold.json").write_text(json.dumps([record]), encoding="utf-8")
    known = read_known(tmp_path / "gold.json", b)
    assert list(known) == [rec.id] and len(known[rec.id].annotations) == 2
    del record["review"]
    (tmp_path / "two.json").write_text(json.dumps([record]), encoding="utf-8")
    with pytest.raises(InputError, match="one reading"):
        read_known(tmp_path / "two.json", b)
