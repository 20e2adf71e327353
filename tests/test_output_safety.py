"""`build -o` never deletes what it did not write: only a folder with our marker and manifest is replaced,
by building beside it and swapping; an input's folder (or a parent of one) is never an output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import TEST_CACHE

DATA = '{"id": "a", "source": "The cat sat on the mat. It was warm.", "summary": "A dog sat on the mat."}\n'


@pytest.fixture
def run(stand_in_model, monkeypatch):
    """The CLI in-process; its builds embed with the stand-in model (these tests check the output folder)."""
    from mercury_static.cli import app

    monkeypatch.setenv("MERCURY_STATIC_CACHE", str(TEST_CACHE))
    return lambda *args: CliRunner().invoke(app, [str(a) for a in (*args, "--model", stand_in_model)])


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_folder_with_someone_elses_manifest_is_left_alone(tmp_path, run):
    ext = tmp_path / "extension"
    ext.mkdir()
    (ext / "manifest.json").write_text('{"manifest_version": 3, "name": "my extension"}')
    (ext / "background.js").write_text("console.log(1)")
    before = snapshot(ext)
    data = tmp_path / "data.jsonl"
    data.write_text(DATA)
    result = run("build", data, "-o", ext)
    assert result.exit_code == 2, result.output
    assert "not a mercury-static bundle" in result.output and "Traceback" not in result.output
    assert snapshot(ext) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.jsonl", "extension"]  # no temp folder left


def test_a_manifest_of_our_format_without_the_marker_is_not_enough(tmp_path, run):
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "manifest.json").write_text('{"format": "mercury-static/bundle", "version": 1}')
    (fake / "notes.txt").write_text("mine")
    data = tmp_path / "data.jsonl"
    data.write_text(DATA)
    result = run("build", data, "-o", fake)
    assert result.exit_code == 2 and "not a mercury-static bundle" in result.output
    assert (fake / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("where", ["same", "parent"])
def test_the_output_may_not_hold_an_input(tmp_path, run, where):
    folder = tmp_path / "old"
    inner = folder if where == "same" else folder / "inputs"
    inner.mkdir(parents=True)
    data = inner / "mydata.jsonl"
    data.write_text(DATA)
    result = run("build", data, "-o", folder)
    assert result.exit_code == 2, result.output
    assert "contains the input" in result.output
    assert data.read_text() == DATA


def test_the_output_may_not_hold_the_labels_or_guidelines(tmp_path, run):
    data = tmp_path / "data.jsonl"
    data.write_text(DATA)
    out = tmp_path / "bundle"
    assert run("build", data, "-o", out).exit_code == 0
    labels = out / "labels.yaml"  # a user keeps their labels inside the bundle folder
    labels.write_text("Wrong:\nRight:\n")
    result = run("build", data, "-o", out, "--labels", labels)
    assert result.exit_code == 2 and "contains the input" in result.output
    assert labels.read_text() == "Wrong:\nRight:\n"


def test_a_bundle_is_replaced_whole_and_nothing_is_left_beside_it(tmp_path, run):
    data = tmp_path / "data.jsonl"
    data.write_text(DATA)
    out = tmp_path / "bundle"
    first = run("build", data, "-o", out, "--title", "one")
    assert first.exit_code == 0, first.output
    from mercury_static.bundle.folder import is_bundle

    assert is_bundle(out)
    (out / "stale.txt").write_text("from the old bundle")
    second = run("build", data, "-o", out, "--title", "two")
    assert second.exit_code == 0, second.output
    assert json.loads((out / "manifest.json").read_text())["title"] == "two"
    assert not (out / "stale.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle", "data.jsonl"]


def test_a_failed_rebuild_keeps_the_old_bundle(tmp_path, run, monkeypatch):
    """A build that fails after the old bundle was found (disk full while writing shards) leaves it as it
    was, and no temp folder behind."""
    import mercury_static.bundle.page as page_step

    data = tmp_path / "data.jsonl"
    data.write_text(DATA)
    out = tmp_path / "bundle"
    assert run("build", data, "-o", out).exit_code == 0
    before = snapshot(out)

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(page_step, "write_page", disk_full)
    result = run("build", data, "-o", out, "--title", "new")
    assert result.exit_code == 2 and "No space left on device" in result.output
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle", "data.jsonl"]


def test_an_output_under_a_file_is_one_line(tmp_path, run):
    data = tmp_path / "data.jsonl"
    data.write_text(DATA)
    result = run("build", data, "-o", data / "bundle")
    assert result.exit_code == 2, result.output
    assert "is a file" in result.output and "Traceback" not in result.output
    assert data.read_text() == DATA
