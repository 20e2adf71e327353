"""Output paths, printing and merge faults: one line and exit 2 (or a skipped line and exit 1),
inputs never overwritten, names and ids printed as they are (no markup, no emoji codes, no terminal
control characters), annotator names compared after Unicode normalisation."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from conftest import REPO

RECORDS = [
    {"id": "a:smile:b", "source": "The Eiffel Tower is in Paris. It was completed in 1889.",
     "summary": "The Eiffel Tower, completed in 1899, stands in Rome."},
    {"id": "r2", "source": "Nothing happened today.", "summary": "Nothing happened."},
]


@pytest.fixture(scope="module")
def bundle(build_bundle, tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("faults") / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    return build_bundle([data], name="faults")


def bundle_id(bundle: Path) -> str:
    return json.loads((bundle / "manifest.json").read_text())["bundle_id"]


def export(path: Path, bundle: Path, annotator: str, record_id: str = "a:smile:b", **override) -> Path:
    summary = RECORDS[0]["summary"] if record_id == "a:smile:b" else RECORDS[1]["summary"]
    doc = {"format": "mercury-static/annotations", "version": 1, "bundle_id": bundle_id(bundle), "title": "t",
           "annotator": annotator, "client_id": f"c-{len(annotator)}", "exported_at": "2026-11-29T12:00:00Z",
           "tool_version": "0.1.0",
           "records": [{"record_id": record_id, "status": "submitted", "updated_at": "2026-11-29T10:00:00Z",
                        "annotations": [{"id": f"x-{annotator}", "label": ["Benign"], "note": "",
                                         "summary": {"start": 4, "end": 16, "text": summary[4:16]},
                                         "source": None, "created_at": "2026-11-29T09:00:00Z",
                                         "updated_at": "2026-11-29T10:00:00Z"}]}], **override}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def error_line(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    lines = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, result.output
    return lines[0]


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------- outputs

def test_merge_output_may_not_be_an_input(tmp_path, run, bundle):
    alice = export(tmp_path / "alice.json", bundle, "alice")
    before = alice.read_bytes()
    line = error_line(run("merge", alice, "--bundle", bundle, "-o", alice))
    assert f"error: {alice}: is an input of this command" in line
    assert alice.read_bytes() == before
    line = error_line(run("merge", alice, "--bundle", bundle, "-o", tmp_path / "m.json",
                          "--report", bundle / "manifest.json"))
    assert "is an input of this command" in line and not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("option", ["-o", "--report"])
def test_merge_output_under_an_existing_file(tmp_path, run, bundle, option):
    alice = export(tmp_path / "alice.json", bundle, "alice")
    plain = tmp_path / "plain.txt"
    plain.write_text("keep")
    args = ["-o", plain / "m.json"] if option == "-o" else ["-o", tmp_path / "m.json", "--report", plain / "r.json"]
    line = error_line(run("merge", alice, "--bundle", bundle, *args))
    assert f"{plain} is a file, not a folder" in line
    assert plain.read_text() == "keep" and not (tmp_path / "m.json").exists()


def test_eval_report_under_an_existing_file(tmp_path, run):
    plain = tmp_path / "plain.txt"
    plain.write_text("keep")
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(RECORDS[1]))
    line = error_line(run("eval", data, "--report", plain / "r.json"))
    assert f"{plain} is a file, not a folder" in line and plain.read_text() == "keep"


def test_build_output_under_an_existing_file(tmp_path, run):
    plain = tmp_path / "plain.txt"
    plain.write_text("keep")
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(RECORDS[1]))
    assert "is a file, not a folder" in error_line(run("build", data, "-o", plain / "out"))
    assert plain.read_text() == "keep"


def test_serve_port_out_of_range(run, bundle):
    assert "--port 70000: not a port number (0 to 65535" in error_line(run("serve", bundle, "--port", "70000"))


def test_paths_and_ids_print_as_they_are(tmp_path, run, stand_in_model):
    data = tmp_path / "d[red]x.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = tmp_path / "out[bold]:smile:[/]"
    result = run("build", data, "-o", out, "--model", stand_in_model)
    assert result.exit_code == 0, result.output
    assert f"built {out}: 2 records" in result.output and f"mercury-static serve {out}" in result.output
    dup = tmp_path / "dup.jsonl"
    dup.write_text(json.dumps(RECORDS[0]) + "\n" + json.dumps(RECORDS[0]) + "\n")
    assert f"duplicate id 'a:smile:b' (first seen at {dup}: line 1)" in error_line(run("build", dup, "-o", tmp_path / "o2"))


# ---------------------------------------------------------------- what merge prints and merges

def test_control_characters_in_names_are_shown_as_escapes(tmp_path, run, bundle):
    eve = export(tmp_path / "eve.json", bundle, "eve\x1b[2K\x07", bundle_id="other\x1b[1A")
    mal = export(tmp_path / "mal.json", bundle, "mal\x1b[2K\u202e")
    result = run("merge", eve, mal, "--bundle", bundle, "-o", tmp_path / "m.json")
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\x07" not in result.output and "\u202e" not in result.output
    assert "field 'bundle_id': 'other\\x1b[1A' is another bundle" in result.output
    assert "│ mal[2K " in result.output  # the annotators table: control characters are no part of a name


def test_annotator_names_are_compared_after_unicode_normalisation(tmp_path, run, bundle):
    composed, decomposed = "Jos\u00e9", unicodedata.normalize("NFD", "Jos\u00e9")
    files = [export(tmp_path / "1.json", bundle, composed),
             export(tmp_path / "2.json", bundle, decomposed, "r2"),
             export(tmp_path / "3.json", bundle, "alice"),
             export(tmp_path / "4.json", bundle, "alice\u200b", "r2")]
    report = tmp_path / "r.json"
    result = run("merge", *files, "--bundle", bundle, "-o", tmp_path / "m.json", "--report", report)
    assert result.exit_code == 0, result.output
    merged = json.loads((tmp_path / "m.json").read_text())
    assert sorted({a["annotator"] for r in merged for a in r["annotations"]}) == ["Jos\u00e9", "alice"]
    notes = json.loads(report.read_text())["notes"]
    assert any("'Jose\\u0301', 'Jos\\xe9' are one annotator 'José'" in n and "merged" in n for n in notes), notes
    assert any("'alice', 'alice\\u200b'" in n for n in notes), notes
    assert "are one annotator 'alice' once Unicode-normalised" in result.output


def test_a_deeply_nested_file_is_skipped_and_the_others_merged(tmp_path, run, bundle):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    alice = export(tmp_path / "alice.json", bundle, "alice")
    out = tmp_path / "m.json"
    result = run("merge", deep, alice, "--bundle", bundle, "-o", out)
    assert result.exit_code == 1, result.output
    assert f"skipped: {deep}: invalid JSON: nested too deeply" in result.output
    assert [a["id"] for r in json.loads(out.read_text()) for a in r["annotations"]] == ["x-alice"]


def test_values_json_cannot_carry_skip_only_their_record(tmp_path, run, bundle):
    alice = export(tmp_path / "alice.json", bundle, "alice")
    doc = json.loads(alice.read_text())
    doc["records"].append(dict(doc["records"][0], record_id="r2", annotations=[]))
    text = json.dumps(doc).replace('"note": ""', '"note": NaN', 1)
    text = text.replace('"record_id": "r2"', '"record_id": "r2", "record_id": "a:smile:b"')
    alice.write_text(text)
    out = tmp_path / "m.json"
    result = run("merge", alice, "--bundle", bundle, "-o", out)
    assert result.exit_code == 1
    assert "record a:smile:b, annotation x-alice: field 'note': nan is not a JSON number" in result.output
    assert "records[1]: field 'record_id': duplicate key" in result.output
    assert "NaN" not in out.read_text()
    json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(c))


def test_an_unknown_export_version_is_refused(tmp_path, run, bundle):
    from mercury_static.formats import EXPORT

    newer = EXPORT.version + 1
    v3 = export(tmp_path / "newer.json", bundle, "alice", version=newer)
    other = export(tmp_path / "other.json", bundle, "bob", format="mercury-static/somethingelse")
    result = run("merge", v3, other, "--bundle", bundle, "-o", tmp_path / "m.json")
    assert result.exit_code == 1
    assert (f"skipped: {v3}: field 'version': unsupported version {newer} of mercury-static/annotations (this "
            f"tool reads versions {' and '.join(map(str, EXPORT.reads))})") in result.output
    assert f"skipped: {other}: field 'format': 'mercury-static/somethingelse' is not" in result.output


def test_a_fifo_export_is_skipped_without_hanging(tmp_path, bundle):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    alice = export(tmp_path / "alice.json", bundle, "alice")
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", "from mercury_static.cli import app; app()", "merge", str(fifo),
                           str(alice), "--bundle", str(bundle), "-o", str(tmp_path / "m.json")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 1, done.stderr
    assert f"skipped: {fifo}: not a regular file (a FIFO)" in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------- broken bundles

def broken(bundle: Path, tmp_path: Path, fault) -> Path:
    copy = tmp_path / "broken"
    shutil.copytree(bundle, copy)
    fault(copy)
    return copy


def edit_json(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


BUNDLE_FAULTS = {
    "manifest not JSON": (lambda b: (b / "manifest.json").write_text("{"), "manifest.json: line 1: invalid JSON"),
    "manifest a list": (lambda b: (b / "manifest.json").write_text("[]"), "not a mercury-static/bundle file"),
    "manifest version 2": (lambda b: edit_json(b / "manifest.json", lambda d: d.update(version=2)),
                           "field 'version': unsupported version 2 of mercury-static/bundle"),
    "labels not a list": (lambda b: edit_json(b / "manifest.json", lambda d: d.update(labels="x")),
                          "field 'labels'"),
    "shards missing": (lambda b: edit_json(b / "manifest.json", lambda d: d.pop("shards")), "field 'shards'"),
    "too many shards": (lambda b: edit_json(b / "manifest.json", lambda d: d["shards"].update(texts=5)),
                        "data/texts-0001.json: file not found"),
    "text shard a list": (lambda b: (b / "data" / "texts-0000.json").write_text("[1]"),
                          "data/texts-0000.json: unexpected content"),
    "record of a missing text": (lambda b: edit_json(b / "data" / "records-0000.json",
                                                     lambda d: d["records"][0].update(source="t0")),
                                 "data/records-0000.json: unexpected content"),
    "record id a number": (lambda b: edit_json(b / "data" / "records-0000.json",
                                               lambda d: d["records"][0].update(id=5)),
                           "data/records-0000.json: unexpected content"),
    "no manifest": (lambda b: (b / "manifest.json").unlink(), "manifest.json: missing"),
}


@pytest.mark.parametrize("fault", list(BUNDLE_FAULTS))
def test_a_broken_bundle_is_one_line(tmp_path, run, bundle, fault):
    change, words = BUNDLE_FAULTS[fault]
    copy = broken(bundle, tmp_path, change)
    alice = export(tmp_path / "alice.json", bundle, "alice")
    line = error_line(run("merge", alice, "--bundle", copy, "-o", tmp_path / "m.json"))
    assert line.startswith(f"error: {copy}: cannot read the bundle: ") and words in line, line
    assert not (tmp_path / "m.json").exists()
