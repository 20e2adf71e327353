"""`merge --format argilla`: Argilla's on-disk layout, read back against its schemas and parsed by argilla's
own Settings / Record classes, records.json loaded by `datasets` (argilla 2.8.0 of the `test` extra, or the
Python in $ARGILLA_PYTHON)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import uuid
import warnings
from pathlib import Path

import pytest
from schema_lite import errors
from settings_fixtures import build_with_settings
from typer.testing import CliRunner

from mercury_static.bundle.contents import load_bundle
from mercury_static.cli import app

DOCS = Path(__file__).resolve().parent.parent / "docs"
SCHEMAS = {name: json.loads((DOCS / f"argilla-{name}.schema.json").read_text(encoding="utf-8"))
           for name in ("records", "settings")}
SPAN = {"id": "s1", "label": ["Unwanted", "Unwanted.Intrinsic"], "note": "year", "created_at": None,
        "updated_at": None, "summary": {"start": 31, "end": 35, "text": "1899"},
        "source": {"start": 50, "end": 54, "text": "1889"}}


@pytest.fixture(scope="module")
def asked(build_bundle, tmp_path_factory):
    return load_bundle(build_with_settings(build_bundle, tmp_path_factory.mktemp("argilla"), "argilla"))


def export(path: Path, bundle, annotator: str, *records) -> Path:
    doc = {"format": "mercury-static/annotations", "version": 2, "bundle_id": bundle.manifest["bundle_id"],
           "annotator": annotator, "client_id": "c1", "exported_at": "2026-12-01T12:00:00Z", "records": list(records)}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def entry(record_id, responses, status="submitted", shown=True, accepted=None, annotations=()):
    return {"record_id": record_id, "status": status, "updated_at": "2026-12-01T10:00:00Z",
            "annotations": list(annotations), "responses": responses,
            "suggestions": {"shown": shown, "accepted": accepted or {}}}


def argilla_reads(out: Path) -> dict:
    """What argilla's own classes read of a merged folder (tests/argilla_read.py's output): in this process,
    so that argilla and datasets are imported once per test process, or in $ARGILLA_PYTHON when it is set."""
    python = os.environ.get("ARGILLA_PYTHON")
    if python:
        return json.loads(subprocess.run([python, str(Path(__file__).parent / "argilla_read.py"), str(out)],
                                         capture_output=True, text=True, check=True, timeout=300).stdout)
    printed = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(printed):
        warnings.simplefilter("ignore")  # argilla's own deprecations, unseen in a process of its own too
        import argilla_read

        argilla_read.main(out)
    return json.loads(printed.getvalue())


def merge_argilla(tmp_path: Path, bundle, *exports, notes: tuple[str, ...] = ()) -> Path:
    out = tmp_path / "argilla"
    run = CliRunner().invoke(app, ["merge", *map(str, exports), "--bundle", str(bundle.dir), "-o", str(out),
                                   "--format", "argilla"], env={"COLUMNS": "300"})
    assert run.exit_code == 0, run.output
    assert [x for x in run.output.splitlines() if x.startswith("note: argilla:")] == list(notes)
    return out


def test_argilla_layout(asked, tmp_path):
    alice = export(tmp_path / "alice.json", asked, "alice",
                   entry("r1", {"verdict": "hallucinated", "topics": ["dates"], "quality": 2, "order": ["y", "x", "z"],
                                "comment": "wrong year"}, accepted={"verdict": "HHEM-2.1"}, annotations=[SPAN]),
                   entry("r2", {"quality": 3}, status="in_progress"))
    bob = export(tmp_path / "bob.json", asked, "bob", entry("r1", {"verdict": "consistent"}, shown=False),
                 entry("r3", {}, status="discarded", shown=False))
    notes = ("note: argilla: 1 suggestion(s) not written: Argilla keeps one suggestion per question of a record, "
             "the first one (e.g. record r1, question 'verdict', agent 'judge-llm')",
             "note: argilla: span evidence (source spans) and notes have no place in Argilla's span answers; they "
             "are in the mercury-static output (--format mercury-static)")
    out = merge_argilla(tmp_path, asked, alice, bob, notes=notes)
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        ".argilla/dataset.json", ".argilla/settings.json", ".mercury-static-merge", "annotators.json", "records.json"]
    records = json.loads((out / "records.json").read_text(encoding="utf-8"))
    settings = json.loads((out / ".argilla" / "settings.json").read_text(encoding="utf-8"))
    assert errors(records, SCHEMAS["records"]) == [] and errors(settings, SCHEMAS["settings"]) == []
    users = json.loads((out / "annotators.json").read_text(encoding="utf-8"))
    a, b = users["alice"], users["bob"]
    assert uuid.UUID(a).version == 5 and a != b
    r1, r2, r3 = records
    assert r1["fields"] == {"source": asked.records[0].source, "summary": asked.records[0].summary,
                            "question": "Where is it?"}
    assert r1["metadata"] == {"model": "gpt-4", "hhem": 0.1}  # hidden metadata too (Argilla hides it)
    assert r1["suggestions"] == {"verdict": {"value": "hallucinated", "score": 0.9, "agent": "HHEM-2.1"}}
    assert r1["responses"]["spans"] == [{"value": [{"start": 31, "end": 35, "label": "Unwanted.Intrinsic"}],
                                         "user_id": a, "status": "submitted"},
                                        {"value": [], "user_id": b, "status": "submitted"}]  # no span: consistent
    assert asked.records[0].summary[31:35] == "1899"
    assert r1["responses"]["verdict"] == [{"value": "hallucinated", "user_id": a, "status": "submitted"},
                                          {"value": "consistent", "user_id": b, "status": "submitted"}]
    assert r1["responses"]["order"] == [{"value": ["y", "x", "z"], "user_id": a, "status": "submitted"}]
    assert r1["status"] == "completed"  # two submitted = the bundle's overlap (min_submitted)
    assert r2["responses"] == {"spans": [{"value": [], "user_id": a, "status": "draft"}],
                               "quality": [{"value": 3, "user_id": a, "status": "draft"}]}
    assert r2["status"] == "pending" and r3["responses"]["spans"][0]["status"] == "discarded"
    dim = asked.manifest["model"]["dim"]
    assert [len(r["vectors"]["summary_vector"]) for r in records] == [dim] * 3
    assert [q["type"] for q in settings["questions"]] == ["span", "label_selection", "multi_label_selection",
                                                          "rating", "ranking", "text"]
    assert settings["questions"][0]["settings"]["options"][2] == {"text": "Unwanted.Intrinsic",
                                                                  "value": "Unwanted.Intrinsic"}
    assert [f["name"] for f in settings["fields"]] == ["source", "summary", "question"]
    assert [(m["name"], m["visible_for_annotators"]) for m in settings["metadata"]] == [("model", True), ("hhem", False)]
    assert settings["distribution"] == {"strategy": "overlap", "min_submitted": 2}
    assert settings["vectors"][0]["dimensions"] == dim and settings["guidelines"] == "Read both texts."
    # deterministic: the same inputs give the same bytes
    again = merge_argilla(tmp_path / "again", asked, bob, alice, notes=notes)
    assert all((again / f).read_bytes() == (out / f).read_bytes() for f in ("records.json", ".argilla/settings.json"))
    doc = argilla_reads(out)
    assert [q for q, _ in doc["questions"]] == ["spans", "verdict", "topics", "quality", "order", "comment"]
    assert doc["records"][0]["suggestions"] == [["verdict", "hallucinated", 0.9, "HHEM-2.1"]]
    assert ["verdict", b, "submitted"] in doc["records"][0]["responses"]
    assert doc["datasets_rows"] == 3 and doc["min_submitted"] == 2


def test_argilla_of_a_bundle_without_settings(build_bundle, tmp_path):
    """Today's bundles (no settings, no record vectors) give the span question only, still to the schemas."""
    data = tmp_path / "plain.jsonl"
    data.write_text(json.dumps({"id": "p1", "source": "A cat sat.", "summary": "A dog sat."}) + "\n", encoding="utf-8")
    plain = load_bundle(build_bundle([data], name="plain-argilla", id_field="id"))
    span = {"id": "x", "label": ["Unwanted", "Unwanted.Extrinsic"], "summary": {"start": 2, "end": 5, "text": "dog"},
            "source": None}
    doc = {"format": "mercury-static/annotations", "version": 1, "bundle_id": plain.manifest["bundle_id"],
           "annotator": "alice", "exported_at": "2026-12-01T12:00:00Z",
           "records": [{"record_id": "p1", "status": "submitted", "updated_at": "2026-12-01T10:00:00Z",
                        "annotations": [span]}]}
    (tmp_path / "alice.json").write_text(json.dumps(doc), encoding="utf-8")
    out = merge_argilla(tmp_path, plain, tmp_path / "alice.json")  # no source span, no note: no note
    records = json.loads((out / "records.json").read_text(encoding="utf-8"))
    settings = json.loads((out / ".argilla" / "settings.json").read_text(encoding="utf-8"))
    assert errors(records, SCHEMAS["records"]) == [] and errors(settings, SCHEMAS["settings"]) == []
    assert [q["name"] for q in settings["questions"]] == ["spans"] and settings["vectors"] == []
    assert records[0]["responses"]["spans"][0]["value"] == [{"start": 2, "end": 5, "label": "Unwanted.Extrinsic"}]
    assert records[0]["vectors"] == {} and records[0]["status"] == "completed"


def test_argilla_output_paths(asked, tmp_path):
    export_file = export(tmp_path / "alice.json", asked, "alice", entry("r1", {"verdict": "consistent"}))
    runner = CliRunner()
    base = ["merge", str(export_file), "--bundle", str(asked.dir), "--format", "argilla"]
    from mercury_static.merge.pipeline import merge_files

    assert merge_files([export_file], asked, fmt="argilla").report()["output"] == {
        "format": "argilla", "files": [".argilla/dataset.json", ".argilla/settings.json", "annotators.json",
                                       "records.json"]}
    taken = tmp_path / "taken"
    taken.write_text("mine", encoding="utf-8")
    run = runner.invoke(app, [*base, "-o", str(taken)])
    assert run.exit_code == 2 and "is a file; --format argilla writes a folder" in run.output
    assert taken.read_text(encoding="utf-8") == "mine"
    run = runner.invoke(app, [*base, "-o", str(asked.dir / "out")])
    assert run.exit_code == 2 and "is an input of this command" in run.output and not (asked.dir / "out").exists()
    out = tmp_path / "out"
    run = runner.invoke(app, [*base, "-o", str(out), "--report", str(out / "records.json")])
    assert run.exit_code == 2 and "--report is one of the files -o writes" in run.output and not out.exists()
    out.mkdir()
    (out / "notes.txt").write_text("keep", encoding="utf-8")  # a folder it did not write is refused, untouched
    run = runner.invoke(app, [*base, "-o", str(out)])
    assert run.exit_code == 2 and "not a folder mercury-static wrote" in run.output
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("damage", ["truncated", "a row short", "missing"])
def test_damaged_record_vectors_are_one_line(asked, tmp_path, damage):
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(asked.dir, copy)
    vectors = copy / "data" / "record_vectors.bin"
    raw, dim = vectors.read_bytes(), asked.manifest["model"]["dim"]
    if damage == "missing":
        vectors.unlink()
    else:
        vectors.write_bytes(raw[:-3] if damage == "truncated" else raw[:-dim * 2])
    export_file = export(tmp_path / "alice.json", asked, "alice", entry("r1", {"verdict": "consistent"}))
    run = CliRunner().invoke(app, ["merge", str(export_file), "--bundle", str(copy), "-o", str(tmp_path / "out"),
                                   "--format", "argilla"], env={"COLUMNS": "300"})
    assert run.exit_code == 2 and "Traceback" not in run.output and not (tmp_path / "out").exists()
    (line,) = [x for x in run.output.splitlines() if x.strip()]
    assert line.startswith(f"error: {copy}: cannot read the bundle: data/record_vectors.bin: ")
    assert {"truncated": f"not {dim}-dimensional", "a row short": "2 rows for 3 records",
            "missing": "record_vectors.bin"}[damage] in line
