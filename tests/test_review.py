"""`review` and `gold` (docs/review.md): three annotators' real exports on a real bundle with questions →
a review bundle ordered by disagreement → hand-written review exports → the gold and its quality report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from schema_lite import errors
from settings_fixtures import build_with_settings
from test_merge_questions import entry, export

from mercury_static.bundle import load_bundle
from mercury_static.bundle_folder import is_bundle
from mercury_static.review.build import load_review, review_bundle

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
