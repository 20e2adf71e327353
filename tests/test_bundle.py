"""The bundle: determinism, manifest counts, shards, no other origin, the serve command."""

from __future__ import annotations

import hashlib
import json
import re
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from mercury_static.bundle.contents import load_bundle, load_vectors, text_id
from mercury_static.core.segment import split_sentences

from conftest import EXAMPLES


def tree_digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_builds_are_byte_identical(build_bundle, stand_in_demo):
    again = build_bundle([EXAMPLES / "demo.jsonl"], name="demo-again", labels=EXAMPLES / "labels.yaml",
                         guidelines=EXAMPLES / "guidelines.md", title="Demo")
    assert tree_digest(again) == tree_digest(stand_in_demo)


def test_two_builds_with_settings_are_byte_identical(build_bundle):
    """With the demo settings (suggestions file, queues, record vectors, metadata) a rebuild is byte-identical."""
    first, again = (build_bundle([EXAMPLES / "demo.jsonl"], name=name, settings=EXAMPLES / "settings.yaml")
                    for name in ("settings-1", "settings-2"))
    digests = tree_digest(first)
    queues = json.loads((first / "manifest.json").read_text())["queues"]["path"]
    assert {queues, "data/record_vectors.bin"} <= set(digests)
    assert tree_digest(again) == digests


def test_manifest_counts_match_the_data(demo_bundle):
    manifest = json.loads((demo_bundle / "manifest.json").read_text())
    lines = [json.loads(x) for x in (EXAMPLES / "demo.jsonl").read_text().splitlines() if x.strip()]
    bundle = load_bundle(demo_bundle)
    assert manifest["counts"]["records"] == len(lines) == len(bundle.records)
    distinct = {r.source for r in bundle.records} | {r.summary for r in bundle.records}
    assert manifest["counts"]["texts"] == len(distinct)
    assert manifest["counts"]["sentences"] == sum(len(split_sentences(t)) for t in distinct)
    assert manifest["model"]["dim"] == 384 and manifest["model"]["name"] == "all-MiniLM-L6-v2"
    assert re.fullmatch(r"[0-9a-f]{20}", manifest["bundle_id"])
    assert manifest["label_choices"] == ["Questionable", "Benign", "Unwanted.Intrinsic", "Unwanted.Extrinsic"]
    for line, rec in zip(lines, bundle.records):
        assert (rec.source, rec.summary) == (line["source"], line["summary"])


def test_stored_vectors_are_the_embedder_vectors(demo_bundle, embedder):
    """The bundle's float16 rows decode to the Python embedding of each sentence (cosine ≥ 0.999)."""
    bundle = load_bundle(demo_bundle)
    rec = bundle.records[0]
    t = rec.source_text
    rows = load_vectors(demo_bundle, t.shard, 384)[t.row0:t.row0 + len(t.rows)]
    expected = embedder.embed([t.text[s:e] for _, s, e in t.rows])
    cos = (rows * expected).sum(1) / np.linalg.norm(rows, axis=1)
    assert cos.min() >= 0.999
    assert [t.text[s:e] for s, e in t.sentences][0].strip()


def test_shared_texts_are_stored_once(build_bundle, tmp_path):
    source = "One long source. It is shared by many summaries. Each is a record."
    data = tmp_path / "shared.jsonl"
    data.write_text("\n".join(json.dumps({"id": f"r{i}", "source": source, "summary": f"Summary number {i}."})
                              for i in range(12)), encoding="utf-8")
    out = build_bundle([data], name="shared")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["texts"] == 13
    stored = [t for f in sorted((out / "data").glob("texts-*.json"))
              for t in json.loads(f.read_text())["texts"]]
    assert [t["id"] for t in stored].count(text_id(source)) == 1


def test_no_other_origin_in_the_page(stand_in_demo):
    """Nothing in the bundle's HTML, JS or CSS points at another origin."""
    pattern = re.compile(r"""(?:src|href|import|from|fetch|url)\s*[=(]?\s*["'`]?(?:https?:)?//""")
    for path in [stand_in_demo / "index.html", *(stand_in_demo / "app").rglob("*")]:
        if path.is_file() and path.suffix not in (".gz", ".br"):
            assert not pattern.search(path.read_text(encoding="utf-8")), path
    html = (stand_in_demo / "index.html").read_text(encoding="utf-8")
    assert "Content-Security-Policy" in html
    for ref in re.findall(r"""(?:src|href)=["']([^"']+)""", html):
        if ref.startswith("data:"):
            continue
        assert not re.match(r"[a-z]+:|//", ref) and (stand_in_demo / ref.split("?")[0]).exists(), ref


def test_serve_mime_types(bundle_server):
    for path, mime in [("index.html", "text/html"), ("vendor/ort-wasm-simd-threaded.mjs", "text/javascript"),
                       ("vendor/ort-wasm-simd-threaded.wasm", "application/wasm"),
                       ("manifest.json", "application/json")]:
        with urllib.request.urlopen(bundle_server + path) as r:
            assert r.headers["Content-Type"].startswith(mime), path


def test_serve_refuses_a_folder_that_is_not_a_bundle(tmp_path):
    from typer.testing import CliRunner
    from mercury_static.cli import app

    result = CliRunner().invoke(app, ["serve", str(tmp_path), "--port", "0"])
    assert result.exit_code == 2
    assert "not a mercury-static bundle" in result.output


def test_build_refuses_to_replace_a_folder_that_is_not_a_bundle(tmp_path):
    from typer.testing import CliRunner
    from mercury_static.cli import app

    (tmp_path / "precious.txt").write_text("keep me")
    result = CliRunner().invoke(app, ["build", str(EXAMPLES / "demo.jsonl"), "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "not a mercury-static bundle" in result.output
    assert (tmp_path / "precious.txt").read_text() == "keep me"


def test_ranker_options_are_bundle_options(tmp_path, stand_in_model, monkeypatch):
    """`build --ranker-option` lands in the manifest (the page reads it); unknown keys are refused."""
    from typer.testing import CliRunner
    from mercury_static.cli import app
    from conftest import TEST_CACHE

    monkeypatch.setenv("MERCURY_STATIC_CACHE", str(TEST_CACHE))
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps({"id": "a", "source": "The cat sat on the mat.", "summary": "A dog sat."}))
    model = ["--model", str(stand_in_model)]
    ok = CliRunner().invoke(app, ["build", str(data), "-o", str(tmp_path / "b"), "--ranker-option", "min_score=0.5",
                                  *model])
    assert ok.exit_code == 0, ok.output
    assert json.loads((tmp_path / "b" / "manifest.json").read_text())["ranker"]["min_score"] == 0.5
    bad = CliRunner().invoke(app, ["build", str(data), "-o", str(tmp_path / "c"), "--ranker-option", "bogus=1", *model])
    assert bad.exit_code == 2 and "bogus" in bad.output


def test_the_runtime_is_linked_where_the_disk_allows_it_else_copied(stand_in_demo, tmp_path):
    """The browser runtime (most of a bundle's bytes) is a hard link to its source on the same disk, a copy on
    another one (a bundle written to another disk, or a link refused), the same bytes either way."""
    import os

    import shutil

    from mercury_static.bundle.page import copy_bundle_file, find_runtime, link_or_copy

    wasm = "vendor/ort-wasm-simd-threaded.wasm"
    source = find_runtime()[wasm]
    built = stand_in_demo / wasm
    if os.stat(built).st_dev == os.stat(source).st_dev:
        assert os.path.samefile(built, source)
    assert built.read_bytes() == source.read_bytes()
    copied = tmp_path / "copy"  # a bundle copied as review copies it: the runtime linked, the rest copied
    shutil.copytree(stand_in_demo, copied, copy_function=copy_bundle_file)
    assert os.path.samefile(copied / wasm, built) and not os.path.samefile(copied / "index.html",
                                                                           stand_in_demo / "index.html")
    other = Path("/dev/shm")
    if not other.is_dir() or os.stat(other).st_dev == os.stat(source).st_dev:
        pytest.skip("no second file system here")
    target = other / f"mercury-static-{os.getpid()}.wasm"
    try:
        link_or_copy(source, target)
        assert not os.path.samefile(target, source) and target.read_bytes() == source.read_bytes()
    finally:
        target.unlink(missing_ok=True)
