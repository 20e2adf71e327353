"""merge's tables in an 80-column terminal: every header word whole (headers wrap between words, never cut
with "…"), with the widest tables (questions, suggestion agents) on; a table wider than the terminal is
printed at its own narrowest width and the terminal wraps its lines."""

from __future__ import annotations

import re

import pytest
from settings_fixtures import build_with_settings
from test_merge_questions import entry, export

from mercury_static.bundle.contents import load_bundle
from mercury_static.printing import _show, _table


@pytest.fixture(scope="module")
def asked(build_bundle, tmp_path_factory):
    return build_with_settings(build_bundle, tmp_path_factory.mktemp("asked"), "tables-asked")


def test_merge_table_headers_are_whole_at_80_columns(asked, tmp_path, run, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    bundle = load_bundle(asked)
    files = [export(tmp_path / f"{name}.json", bundle, name,
                    *(entry(r.id, {"verdict": verdict}, accepted={"verdict": "HHEM-2.1"} if r.id != "r3" else None) for r in bundle.records))
             for name, verdict in (("alice", "hallucinated"), ("bob", "consistent"))]
    result = run("merge", *files, "--bundle", asked, "-o", tmp_path / "m.json")
    assert result.exit_code == 0, result.output
    assert "Suggestion agents" in result.output
    assert "…" not in result.output, result.output
    for header in ("records annotated", "maj. acc", "accepted", "Cohen κ", "records 2+", "exact F1"):
        for word in header.split():
            assert re.search(rf"(?<!\S){re.escape(word)}(?!\S)", result.output), (word, result.output)


def test_a_table_too_wide_wraps_its_headers_between_words():
    from rich.console import Console

    console = Console(width=24, record=True)
    _show(console, _table("t", ["first column", "a long header", "another long one"], [["x", 1, 2]]))
    text = console.export_text()
    assert "…" not in text and all(w in text.split() for w in "first column a long header another one".split())
