"""`review` and `gold` (docs/review.md): three annotators' real exports on a real bundle with questions →
a review bundle ordered by disagreement → hand-written review exports → the gold and its quality report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from schema_lite import errors
from settings_fixtures import build_with_settings
from test_merge_questions import entry, export

from mercury_static.bundle import load_bundle
from mercury_static.bundle_folder import is_bundle
from mercury_static.review.build import load_review, review_bundle
from mercury_static.review.gold import GoldProblems, make_gold
from mercury_static.write_argilla import user_id

SCHEMAS = {name: json.loads((Path(__file__).resolve().parent.parent / "docs" / f"{name}.schema.json")
                            .read_text(encoding="utf-8")) for name in ("manifest", "merged")}
INTRINSIC = ["Unwanted", "Unwanted.Intrinsic"]
SUMMARY = {"r1": "The Eiffel Tower, completed in 1899, stands in Rome.",
           "r2": "Alice met Bob 🎉 at midnight for dinner.", "r3": "Nothing happened."}
SOURCE = {"r1": "The Eiffel Tower is in Paris. It was completed in 1889.",
          "r2": "Alice met Bob 🎉 at noon. They had lunch.", "r3": "Nothing happened today."}


def span(record_id: str, quoted: str, side: str = "summary") -> dict:
    text = (SUMMARY if side == "summary" else SOURCE)[record_id]
    start = text.index(quoted)
    return {"start": start, "end": start + len(quoted), "text": quoted}


def ann(ident: str, record_id: str, quoted: str, source: str | None = None, label=INTRINSIC, note="") -> dict:
    return {"id": ident, "label": list(label), "note": note, "summary": span(record_id, quoted),
            "source": span(record_id, source, "source") if source else None,
            "created_at": "2026-12-01T09:00:00Z", "updated_at": "2026-12-01T09:00:00Z"}


@pytest.fixture(scope="module")
def asked(build_bundle, tmp_path_factory) -> Path:
    """The settings fixture's real bundle: three records, six questions, HHEM suggestions."""
    return build_with_settings(build_bundle, tmp_path_factory.mktemp("asked"), "review-asked")


@pytest.fixture(scope="module")
def team(asked, tmp_path_factory) -> list[Path]:
    """Three annotators: r1 much contested (spans and verdict), r2 a little (one label differs), r3 agreed."""
    folder = tmp_path_factory.mktemp("team")
    bundle = load_bundle(asked)
    alice = export(folder / "alice.json", bundle, "alice",
                   entry("r1", {"verdict": "hallucinated", "quality": 2}, annotations=[
                       ann("a1", "r1", "1899", "1889"), ann("a2", "r1", "Rome", "Paris", note="city")]),
                   entry("r2", {"verdict": "hallucinated"}, annotations=[ann("a3", "r2", "midnight", "noon")]),
                   entry("r3", {"verdict": "consistent"}))
    bob = export(folder / "bob.json", bundle, "bob",
                 entry("r1", {"verdict": "consistent", "quality": 4}, annotations=[ann("b1", "r1", "1899")]),
                 entry("r2", {"verdict": "hallucinated"}, annotations=[
                     ann("b2", "r2", "midnight", label=["Benign"])]),
                 entry("r3", {"verdict": "consistent"}))
    carol = export(folder / "carol.json", bundle, "carol",
                   entry("r1", {"verdict": "hallucinated", "quality": 2}, annotations=[
                       ann("c1", "r1", "completed in 1899"), ann("c2", "r1", "Rome")]),
                   entry("r2", {"verdict": "hallucinated"}, annotations=[ann("c3", "r2", "midnight")]),
                   entry("r3", {"verdict": "consistent"}))
    return [alice, bob, carol]


@pytest.fixture(scope="module")
def reviewed(asked, team, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("review") / "review-bundle"
    review_bundle(team, asked, out)
    return out


def test_review_bundle_is_the_bundle_plus_ordered_work(asked, team, reviewed):
    bundle, header, records = load_review(reviewed)
    manifest = bundle.manifest
    assert is_bundle(reviewed) and errors(manifest, SCHEMAS["manifest"]) == []
    assert manifest["bundle_id"] == json.loads((asked / "manifest.json").read_text())["bundle_id"]
    assert manifest["review"]["review_id"] == header["review_id"] and header["annotators"] == ["alice", "bob", "carol"]
    rows = json.loads((reviewed / "data" / "review-order-0000.json").read_text())["rows"]
    assert [r["id"] for r in rows] == ["r1", "r2", "r3"]  # most contested first
    assert rows[0]["questions"] == ["spans", "verdict", "quality"] and rows[1]["questions"] == ["spans"]
    assert rows[2] == {"id": "r3", "score": 0.0, "shard": 0, "questions": [], "annotators": ["alice", "bob", "carol"]}
    assert rows[0]["score"] > rows[1]["score"] > 0
    first = json.loads((reviewed / "data" / "review-records-0000.json").read_text())["records"][0]
    assert first["id"] == "r1" and [a["key"] for a in first["annotations"]] == [  # in summary order, as merged
        "carol:c1", "alice:a1", "bob:b1", "alice:a2", "carol:c2"]
    assert {a["status"] for a in first["annotations"]} == {"submitted"}
    assert [r["values"]["verdict"] for r in first["responses"]] == ["hallucinated", "consistent", "hallucinated"]
    assert first["suggestions"][0]["agent"] == "HHEM-2.1"
    assert {p["a"] + p["b"]: p["spans"] for p in first["disagreement"]["pairs"]}["alicebob"] > 0
    # the rest of the bundle is the same, file for file
    for path in asked.rglob("*"):
        if path.is_file() and path.name != "manifest.json":
            assert (reviewed / path.relative_to(asked)).read_bytes() == path.read_bytes(), path


DECIDED = "2026-12-02T10:00:00Z"


def review_export(path: Path, reviewed: Path, reviewer: str, *records, **override) -> Path:
    """A review export as the page writes it (docs/review.md), bound to the review bundle `reviewed`."""
    info = json.loads((reviewed / "manifest.json").read_text(encoding="utf-8"))
    doc = {"format": "mercury-static/review", "version": 1, "bundle_id": info["bundle_id"],
           "review_id": info["review"]["review_id"], "merge_sha256": info["review"]["merge_sha256"],
           "reviewer": reviewer, "client_id": "c-r", "exported_at": DECIDED, "tool_version": "0.1.0",
           "records": list(records), **override}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def decision(action: str, **edit) -> dict:
    return {"action": action, "updated_at": DECIDED, **edit}


def adjudication(record_id: str, decisions=None, added=(), answers=None, comments=(), adjudicated=True,
                 updated_at=DECIDED) -> dict:
    return {"record_id": record_id, "adjudicated": adjudicated, "updated_at": updated_at,
            "decisions": decisions or {}, "added": list(added), "answers": answers or {}, "comments": list(comments)}


def rita(reviewed: Path, folder: Path) -> Path:
    """rita adjudicates r1 (accepts alice's span, edits bob's, rejects carol's, adds one, answers two questions,
    comments) and r3 (nobody found anything), and leaves r2 half done."""
    wider = span("r1", "completed in 1899")
    return review_export(folder / "rita.json", reviewed, "rita", adjudication(
        "r1", {"alice:a1": decision("accept"), "bob:b1": decision("edit", summary=wider, note="the whole clause"),
               "carol:c1": decision("reject"), "alice:a2": decision("accept"), "carol:c2": decision("reject")},
        added=[{**ann("g1", "r1", "stands", label=["Benign"]), "created_at": DECIDED, "updated_at": DECIDED}],
        answers={"verdict": {"from": "alice"}, "quality": {"value": 3}},
        comments=[{"id": "m1", "on": "bob:b1", "author": "rita", "time": DECIDED, "text": "too short"},
                  {"id": "m2", "on": "record", "author": "rita", "time": DECIDED, "text": "year and city"}]),
        adjudication("r2", {"alice:a3": decision("accept")}, adjudicated=False),
        adjudication("r3", answers={"verdict": {"from": "bob"}}))


def test_gold_holds_exactly_what_was_decided(reviewed, tmp_path, run):
    gold_file, report = tmp_path / "gold.json", tmp_path / "report.json"
    result = run("gold", rita(reviewed, tmp_path), "--bundle", reviewed, "-o", gold_file, "--report", report)
    assert result.exit_code == 0, result.output
    assert "2 record(s) adjudicated (gold); 1 not adjudicated: r2" in result.output
    r1, r3 = json.loads(gold_file.read_text(encoding="utf-8"))
    assert [(a["annotator"], a["summary"]["text"], a["provenance"]["action"]) for a in r1["annotations"]] == [
        ("bob", "completed in 1899", "edited"), ("alice", "1899", "accepted"), ("rita", "stands", "added"),
        ("alice", "Rome", "accepted")]
    edited = r1["annotations"][0]
    assert edited["note"] == "the whole clause" and edited["id"] == "b1"
    assert edited["provenance"] == {"proposed_by": "bob", "proposed_at": "2026-12-01T09:00:00Z", "action": "edited",
                                    "decided_by": "rita", "decided_at": DECIDED, "edited": ["note", "summary"]}
    assert r1["responses"] == [{"annotator": "rita", "status": "submitted", "updated_at": DECIDED,
                                "values": {"verdict": "hallucinated", "quality": 3},
                                "provenance": {"verdict": {"from": "alice"}, "quality": {"from": "rita", "own": True}}}]
    assert [c["text"] for c in r1["review"]["comments"]] == ["too short", "year and city"]
    assert r3["annotations"] == [] and r3["responses"][0]["values"] == {"verdict": "consistent"}
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert doc["not_adjudicated"] == [{"record_id": "r2", "touched_by": ["rita"]}]
    assert doc["counts"] == {"gold": 2, "not_adjudicated": 1, "undecided_annotations": 0}
    quality = {a["annotator"]: a for a in doc["quality"]["annotators"]}
    assert quality["alice"]["accuracy"] == {"verdict": 1.0, "quality": 0.0}
    assert quality["bob"]["accuracy"]["verdict"] == 0.5  # wrong on r1, right on r3
    assert quality["alice"]["span_precision"] == 1.0 and quality["alice"]["span_recall"] < 1
    assert doc["quality"]["changed"][0]["record_id"] == "r1"
    (hhem,) = [a for a in doc["quality"]["agents"] if a["agent"] == "HHEM-2.1"]
    assert hhem["records"] == 1 and hhem["accuracy"] == 1.0  # r1: suggested hallucinated, the gold agrees


def test_gold_in_every_format(reviewed, tmp_path, run):
    """mercury (flat dump), JSONL and Argilla carry the same gold; in Argilla the reviewer's answer is one more
    submitted response beside the annotators' own, as argilla's own parser reads it."""
    export_file = rita(reviewed, tmp_path)
    gold = make_gold([export_file], reviewed).records
    assert [json.loads(x) for x in make_gold([export_file], reviewed, "jsonl").output.splitlines()] == gold
    flat = json.loads(make_gold([export_file], reviewed, "mercury").output)["samples"]
    assert [x["sample_id"] for x in flat] == ["r1", "r3"]
    assert [(a["annotator"], a["summary_span"], a["provenance"]["decided_by"]) for a in flat[0]["annotations"]] == [
        (a["annotator"], a["summary"]["text"], "rita") for a in gold[0]["annotations"]]
    assert flat[0]["responses"] == gold[0]["responses"]
    out = tmp_path / "argilla"
    assert run("gold", export_file, "--bundle", reviewed, "-o", out, "--format", "argilla").exit_code == 0
    records = json.loads((out / "records.json").read_text(encoding="utf-8"))
    r1 = records[0]
    verdicts = {x["user_id"]: (x["value"], x["status"]) for x in r1["responses"]["verdict"]}
    assert verdicts[user_id("rita")] == ("hallucinated", "submitted")
    assert verdicts[user_id("bob")] == ("consistent", "submitted")  # the annotators' answers kept as theirs
    spans = {x["user_id"]: x["value"] for x in r1["responses"]["spans"]}
    assert {(v["start"], v["end"]) for v in spans[user_id("rita")]} == {
        (a["summary"]["start"], a["summary"]["end"]) for a in gold[0]["annotations"]}
    assert user_id("rita") not in {x["user_id"] for x in records[1]["responses"]["verdict"]}  # r2: not adjudicated
    python = os.environ.get("ARGILLA_PYTHON", sys.executable)
    parsed = json.loads(subprocess.run([python, str(Path(__file__).parent / "argilla_read.py"), str(out)],
                                       capture_output=True, text=True, check=True, timeout=300).stdout)
    assert ["verdict", user_id("rita"), "submitted"] in parsed["records"][0]["responses"]
    assert ["verdict", user_id("alice"), "submitted"] in parsed["records"][0]["responses"]
    assert parsed["datasets_rows"] == 3


def test_two_reviewers_agreement(reviewed, tmp_path):
    """sam adjudicates r1 like rita but without her added span and with his own verdict; r3 alike. The newest
    adjudication is the gold (noted), and their agreement is reported."""
    first = rita(reviewed, tmp_path)
    sam = review_export(tmp_path / "sam.json", reviewed, "sam", adjudication(
        "r1", {"alice:a1": decision("accept"), "alice:a2": decision("accept")}, answers={"verdict": {"value": "consistent"}},
        updated_at="2026-12-02T11:00:00Z"), adjudication("r3", answers={"verdict": {"from": "alice"}}))
    result = make_gold([first, sam], reviewed)
    (pair,) = result.reviewers["pairs"]
    assert (pair["a"], pair["b"], pair["records"], pair["differ"]) == ("rita", "sam", 2, ["r1"])
    assert 0 < pair["span_f1"] < 1 and pair["answers_agree"] == 0.5
    assert result.records[0]["review"]["reviewer"] == "sam"  # newer
    assert "record r1: adjudicated by rita, sam; kept the newest (sam, 2026-12-02T11:00:00Z)" in result.notes
    assert result.records[1]["review"]["reviewer"] == "sam"  # r3: tied times, the later name (deterministic)


def test_undecided_annotations_are_not_gold(reviewed, tmp_path):
    export_file = review_export(tmp_path / "r.json", reviewed, "rita",
                                adjudication("r1", {"alice:a1": decision("accept")}))
    result = make_gold([export_file], reviewed)
    assert [a["id"] for a in result.records[0]["annotations"]] == ["a1"]
    assert {x["key"] for x in result.undecided} == {"alice:a2", "bob:b1", "carol:c1", "carol:c2"}
    assert [x["record_id"] for x in result.not_adjudicated] == ["r2", "r3"]
