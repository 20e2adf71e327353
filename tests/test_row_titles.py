"""Record index row titles and filter tags: what the page's record list shows and matches."""

from __future__ import annotations

import json

from mercury_static.bundle.contents import ROW_TITLE_CHARS, row_tags, row_title
from mercury_static.bundle.record_index import read_columns


def test_row_title_is_the_start_of_the_summary():
    assert row_title("  The  council\nvoted.  ") == "The council voted."
    long = "word " * 100
    t = row_title(long)
    assert len(t) <= ROW_TITLE_CHARS and t.endswith("…") and t.startswith("word word")


def test_row_tags_keep_short_scalar_values_once():
    meta = {"title": "not a tag", "summary_model": "model-a", "judge": "model-a", "n": 3, "ok": True,
            "nested": {"x": 1}, "list": ["a"], "none": None, "empty": "", "text": "x" * 41}
    assert row_tags(meta) == ["model-a", "3", "true"]
    assert row_tags(None) == []


def test_index_titles_and_tags(build_bundle, tmp_path):
    rows = [{"id": "a", "source": "One. Two.", "summary": "A short summary of it.", "model": "model-b"},
            {"id": "b", "source": "One. Two.", "summary": "Another one.", "title": "Own title"}]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    index = read_columns(build_bundle([path], name="titles") / "data")
    assert index["titles"] == ["A short summary of it.", "Own title"]
    assert index["tags"] == [["model-b"], []]
