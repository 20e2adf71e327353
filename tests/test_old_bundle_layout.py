"""A bundle written before data/records.json was dropped (the one-file index no reader needs) still opens:
in every Python reader (load_bundle, assign, merge, a rebuild over it) and in the page, which never asks
for the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mercury_static.bundle.contents import dumps, load_bundle
from mercury_static.bundle.record_index import read_columns


@pytest.fixture
def old_bundle(stand_in_demo, fresh_copy) -> Path:
    """The stand-in demo (nothing here reads what its vectors mean; the page's test keeps the page from the
    model) with data/records.json as the build wrote it before: every record's row in one file, the columns of
    the record index joined."""
    bundle = fresh_copy(stand_in_demo)
    (bundle / "data" / "records.json").write_text(dumps(read_columns(bundle / "data")), encoding="utf-8")
    return bundle


def test_python_readers_open_an_old_bundle(old_bundle, stand_in_demo, stand_in_model, run, tmp_path):
    old, new = load_bundle(old_bundle), load_bundle(stand_in_demo)
    assert [(r.id, r.source, r.summary) for r in old.records] == [(r.id, r.source, r.summary) for r in new.records]

    assigned = run("assign", old_bundle, "--annotators", "alice,bob")
    assert assigned.exit_code == 0, assigned.output

    record = old.records[0]
    export = tmp_path / "alice.json"
    export.write_text(json.dumps({
        "format": "mercury-static/annotations", "version": 1, "bundle_id": old.manifest["bundle_id"], "title": "t",
        "annotator": "alice", "client_id": "c1", "exported_at": "2026-11-29T12:00:00Z", "tool_version": "0.1.0",
        "records": [{"record_id": record.id, "status": "submitted", "updated_at": "2026-11-29T10:00:00Z",
                     "annotations": []}]}), encoding="utf-8")
    merged = run("merge", export, "--bundle", old_bundle, "-o", tmp_path / "merged.json")
    assert merged.exit_code == 0, merged.output
    assert [r["id"] for r in json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))][0] == record.id

    rebuilt = run("build", Path(__file__).resolve().parent.parent / "examples" / "demo.jsonl", "-o", old_bundle,
                  "--model", stand_in_model)
    assert rebuilt.exit_code == 0, rebuilt.output  # an old bundle is ours: a build replaces it
    assert not (old_bundle / "data" / "records.json").exists()


@pytest.mark.browser
def test_the_page_opens_an_old_bundle(old_bundle, serve_dir, page):
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.route("**/models/**", lambda route: route.abort())
    page.goto(f"{serve_dir(old_bundle)}?annotator=alice", timeout=120_000)
    page.wait_for_selector("body[data-ready]", timeout=120_000)
    page.wait_for_selector("#record-list li[data-record]", timeout=120_000)
    rows = page.eval_on_selector_all("#record-list li[data-record]", "els => els.map(e => e.dataset.record)")
    assert rows == [r.id for r in load_bundle(old_bundle).records]
    assert not [u for u in requested if u.endswith("/records.json")]
