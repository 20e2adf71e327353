"""Each judge's status of a record in the review bundle (docs/review.md, "Each judge's status") and identical
spans of several judges as one gold annotation: real exports, a real bundle (with and without queues), `review`
and `gold` for real."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_merge_questions import entry, export
from settings_fixtures import build_with_settings
from test_review import adjudication, ann, decision, review_export

from mercury_static.bundle.assign import assign_bundle
from mercury_static.bundle.contents import load_bundle
from mercury_static.review.gold import make_gold
from mercury_static.review.write_bundle import load_review, review_bundle


@pytest.fixture(scope="module")
def asked(build_bundle, tmp_path_factory) -> Path:
    """The settings fixture's real bundle: three records, queues for alice and bob."""
    return build_with_settings(build_bundle, tmp_path_factory.mktemp("asked"), "judges-asked")


@pytest.fixture(scope="module")
def work(asked, tmp_path_factory) -> list[Path]:
    """r1: alice and carol mark "Rome" alike (linked to "Paris", notes differ), bob submits nothing flagged,
    dave discards it; r2: only alice opens it (in progress); r3: nobody."""
    folder = tmp_path_factory.mktemp("judges")
    bundle = load_bundle(asked)
    return [export(folder / "alice.json", bundle, "alice",
                   entry("r1", {"verdict": "hallucinated"}, annotations=[ann("a1", "r1", "Rome", "Paris", note="city")]),
                   entry("r2", {}, status="in_progress")),
            export(folder / "bob.json", bundle, "bob", entry("r1", {"verdict": "consistent"})),
            export(folder / "carol.json", bundle, "carol",
                   entry("r1", {"verdict": "hallucinated"}, annotations=[
                       ann("c1", "r1", "Rome", "Paris", note="wrong city"), ann("c2", "r1", "1899")])),
            export(folder / "dave.json", bundle, "dave", entry("r1", {}, status="discarded"))]


def statuses(folder: Path) -> dict[str, dict]:
    return {r["id"]: r["statuses"] for r in load_review(folder)[2]}


def without_queues(bundle: Path, folder: Path) -> Path:
    """A copy of `bundle` whose manifest names no queues (every annotator works every record)."""
    shutil.copytree(bundle, folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    del manifest["queues"]
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_each_judges_status_without_queues_every_annotator_had_every_record(asked, work, tmp_path):
    out = tmp_path / "review"
    review_bundle(work, without_queues(asked, tmp_path / "bundle"), out)
    got = statuses(out)
    assert got["r1"] == {"alice": "flagged", "bob": "consistent", "carol": "flagged", "dave": "discarded"}
    assert got["r2"] == {"alice": "in_progress", "bob": "not_opened", "carol": "not_opened", "dave": "not_opened"}
    assert got["r3"] == dict.fromkeys(["alice", "bob", "carol", "dave"], "not_opened")


def test_with_queues_only_the_queues_holders_did_not_open_it(asked, work, tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree(asked, bundle)
    assign_bundle(bundle, ["alice", "bob", "carol", "dave", "erin"], 2)
    queues = json.loads((bundle / load_bundle(bundle).manifest["queues"]["path"]).read_text(encoding="utf-8"))["queues"]
    out = tmp_path / "review"
    review_bundle(work, bundle, out)
    got = statuses(out)
    for rid in ("r2", "r3"):
        holders = {a for a, ids in queues.items() if rid in ids}
        worked = {"r2": {"alice"}, "r3": set()}[rid]
        assert {a for a, st in got[rid].items() if st == "not_opened"} == holders - worked
        assert set(got[rid]) == holders | worked


def test_identical_spans_accepted_are_one_gold_annotation_with_every_judge(asked, work, tmp_path):
    out = tmp_path / "review"
    review_bundle(work, asked, out)
    export_file = review_export(tmp_path / "rita.json", out, "rita", adjudication(
        "r1", {"alice:a1": decision("accept"), "carol:c1": decision("accept"), "carol:c2": decision("reject")},
        added=[{**ann("g1", "r1", "Rome", "Paris"), "created_at": "2026-12-02T10:00:00Z"}]))
    [r1] = make_gold([export_file], out).records
    [rome] = r1["annotations"]  # alice's, carol's and the reviewer's identical one: one annotation
    assert rome["summary"]["text"] == "Rome" and rome["source"]["text"] == "Paris"
    assert rome["provenance"]["judges"] == ["alice", "carol"] and rome["provenance"]["action"] == "accepted"
    assert rome["note"] == "city\nwrong city"
