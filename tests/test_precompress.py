"""Precompressed siblings written by `build` (bundle/precompress.py) and `serve` sending them."""

from __future__ import annotations

import gzip
import http.client
import urllib.parse
from pathlib import Path

import pytest

import brotli

from mercury_static.bundle.precompress import SUFFIXES, accepted, wanted

SUFFIX = ".gz"
DECODE = {".gz": gzip.decompress, ".br": brotli.decompress}

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def request(base: str, path: str, method: str = "GET", **headers) -> tuple[int, dict, bytes]:
    """One request with exactly `headers` (urllib would add its own Accept-Encoding)."""
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    conn.request(method, path, headers=headers)
    res = conn.getresponse()
    body = res.read()
    conn.close()
    return res.status, {k.lower(): v for k, v in res.getheaders()}, body


def test_siblings_hold_their_files_bytes(stand_in_demo):
    files = [p for p in stand_in_demo.rglob("*") if p.is_file() and p.suffix not in SUFFIXES]
    siblings = {p.relative_to(stand_in_demo).as_posix() for s in SUFFIXES for p in stand_in_demo.rglob(f"*{s}")}
    for name in ("vendor/ort-wasm-simd-threaded.wasm", "vendor/transformers.min.js", "app/main.js", "data/texts-0000.json"):
        assert {name + ".gz", name + ".br"} <= siblings, name
    for name in ("manifest.json", "index.html"):  # rewritten in place by tune --apply, assign, links
        assert not {name + ".gz", name + ".br"} & siblings
    for path in files:
        for suffix in SUFFIXES:
            sibling = path.with_name(path.name + suffix)
            if sibling.is_file():
                assert wanted(stand_in_demo, path)
                assert DECODE[suffix](sibling.read_bytes()) == path.read_bytes(), sibling
                assert sibling.stat().st_size <= 0.9 * path.stat().st_size
        br, gz = path.with_name(path.name + ".br"), path.with_name(path.name + ".gz")
        if br.is_file():  # brotli's sibling only where it beats gzip's
            assert br.stat().st_size < gz.stat().st_size, path
    wasm = stand_in_demo / "vendor" / "ort-wasm-simd-threaded.wasm"
    assert (wasm.with_name(wasm.name + ".gz")).stat().st_size < 0.3 * wasm.stat().st_size
    assert (wasm.with_name(wasm.name + ".br")).stat().st_size < 0.7 * (wasm.with_name(wasm.name + ".gz")).stat().st_size


def test_a_rebuild_gives_the_same_siblings(stand_in_demo, build_bundle):
    again = build_bundle([EXAMPLES / "demo.jsonl"], name="demo-again", labels=EXAMPLES / "labels.yaml",
                         guidelines=EXAMPLES / "guidelines.md", title="Demo")
    for sibling in (p for s in SUFFIXES for p in stand_in_demo.rglob(f"*{s}")):
        assert (again / sibling.relative_to(stand_in_demo)).read_bytes() == sibling.read_bytes()


def test_siblings_from_the_cache_are_served_in_a_later_build(demo_bundle, build_bundle, serve_dir):
    """A build after the first takes the runtime's and the weights' siblings from the cache, written earlier:
    serve sends them all the same (none may look older than its file)."""
    again = build_bundle([EXAMPLES / "demo.jsonl"], name="demo-later", title="Demo", model=None)
    base = serve_dir(again)
    weights = next(again.glob("models/*/onnx/*.weights"))
    for file in (weights, again / "vendor" / "ort-wasm-simd-threaded.wasm"):
        assert file.with_name(file.name + ".gz").is_file(), file
        status, head, _ = request(base, "/" + file.relative_to(again).as_posix(),
                                  **{"Accept-Encoding": "gzip, deflate, br, zstd"})
        assert status == 200 and head.get("content-encoding") == ("br" if file.suffix == ".wasm" else "gzip"), file


@pytest.mark.parametrize(("header", "gz", "br"), [
    ("gzip, deflate, br, zstd", True, True), ("br", False, True), ("", False, False), ("gzip;q=0", False, False),
    ("*", True, True), ("*, gzip;q=0", False, True), ("GZIP;q=0.5", True, False), ("identity", False, False),
    ("x-gzip", True, False), ("br;q=0, *", True, False)])
def test_accept_encoding(header, gz, br):
    assert accepted(header, "gzip") is gz
    assert accepted(header, "br") is br


def test_serve_sends_the_sibling_when_accepted(stand_in_demo, serve_dir):
    base = serve_dir(stand_in_demo)
    wasm = (stand_in_demo / "vendor" / "ort-wasm-simd-threaded.wasm").read_bytes()
    status, head, body = request(base, "/vendor/ort-wasm-simd-threaded.wasm", **{"Accept-Encoding": "gzip, br"})
    assert status == 200 and head["content-encoding"] == "br" and head["content-type"] == "application/wasm"
    assert head["vary"] == "Accept-Encoding" and int(head["content-length"]) == len(body) < len(wasm)
    assert brotli.decompress(body) == wasm
    status, head, body = request(base, "/vendor/ort-wasm-simd-threaded.wasm", **{"Accept-Encoding": "gzip"})
    assert status == 200 and head["content-encoding"] == "gzip" and gzip.decompress(body) == wasm
    status, head, body = request(base, "/vendor/ort-wasm-simd-threaded.wasm")
    assert status == 200 and "content-encoding" not in head and body == wasm and head["vary"] == "Accept-Encoding"
    status, head, body = request(base, "/vendor/ort-wasm-simd-threaded.wasm", "HEAD", **{"Accept-Encoding": "gzip"})
    assert status == 200 and head["content-encoding"] == "gzip" and body == b""
    status, _, body = request(base, "/vendor/ort-wasm-simd-threaded.wasm",
                              **{"Accept-Encoding": "gzip", "If-Modified-Since": head["last-modified"]})
    assert status == 304 and body == b""
    status, head, body = request(base, "/app/style.css", **{"Accept-Encoding": "gzip"})
    assert head["content-type"].startswith("text/css") and gzip.decompress(body) == (
        stand_in_demo / "app" / "style.css").read_bytes()
    status, head, body = request(base, "/manifest.json", **{"Accept-Encoding": "gzip"})
    assert status == 200 and "content-encoding" not in head and head["cache-control"] == "no-cache"


def test_a_file_changed_after_the_build_is_served_as_it_is_now(stand_in_demo, serve_dir, tmp_path):
    """A file edited after the build (its sibling is then older) is sent as it is, never its stale copy."""
    import os
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(stand_in_demo, copy)
    style = copy / "app" / "style.css"
    assert (copy / "app" / f"style.css{SUFFIX}").is_file()
    style.write_text(style.read_text(encoding="utf-8") + "\n/* edited */\n", encoding="utf-8")
    stamp = max((copy / "app" / f"style.css{s}").stat().st_mtime_ns for s in SUFFIXES) + 1_000_000_000
    os.utime(style, ns=(stamp, stamp))
    status, head, body = request(serve_dir(copy), "/app/style.css", **{"Accept-Encoding": "gzip, br"})
    assert status == 200 and "content-encoding" not in head and body.endswith(b"/* edited */\n")
