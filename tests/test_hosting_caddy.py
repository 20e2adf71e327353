"""docs/bundle.md's Caddyfile, run as written by Debian's Caddy: brotli or gzip siblings with the files' own types,
the cache header, and the page works through it in Chromium."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import brotli
import pytest
from collect_servers import free_port, serving
from test_hosting_nginx import the_page_answers_through
from test_precompress import request

DOC = Path(__file__).resolve().parents[1] / "docs" / "bundle.md"
TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json",
         ".html": "text/html", ".css": "text/css"}
BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}


@pytest.fixture(scope="module")
def caddy(demo_bundle, tmp_path_factory):
    """Caddy running the documented Caddyfile on a free port, the demo bundle under its root: `(base URL, bundle)`."""
    binary = shutil.which("caddy")
    if binary is None:
        pytest.skip("caddy is not installed (.ci/run installs Debian's)")
    [block] = re.findall(r"```caddy\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    work = tmp_path_factory.mktemp("caddy")
    shutil.copytree(demo_bundle, work / "bundles" / "demo")
    port = free_port()
    site = block.replace("/srv/bundles", str(work / "bundles")).replace(":8080", f"http://127.0.0.1:{port}")
    (work / "Caddyfile").write_text("{\n\tadmin off\n}\n" + site, encoding="utf-8")
    env = {**os.environ, "HOME": str(work), "XDG_DATA_HOME": str(work / "data"), "XDG_CONFIG_HOME": str(work / "config")}
    proc = subprocess.Popen([binary, "run", "--config", str(work / "Caddyfile"), "--adapter", "caddyfile"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}/demo/"
    with serving(proc, base, "/demo/manifest.json", "caddy"):
        yield base, work / "bundles" / "demo"


def test_caddy_sends_the_siblings_with_the_files_types(caddy):
    base, bundle = caddy
    files = sorted({p.with_suffix("") for p in bundle.rglob("*.gz")})
    assert len(files) > 10 and any(f.suffix == ".mjs" for f in files)
    for file in files:
        path = "/demo/" + file.relative_to(bundle).as_posix()
        status, headers, body = request(base, path, **BROWSER)
        encoding = "br" if file.with_name(file.name + ".br").is_file() else "gzip"
        assert status == 200 and headers.get("content-encoding") == encoding, path
        assert (brotli.decompress if encoding == "br" else gzip.decompress)(body) == file.read_bytes(), path
        want = TYPES.get(file.suffix)  # none for the model's files: Caddy then sends no type, which fetch() takes
        assert headers.get("content-type", "").split(";")[0] == (want or ""), path
        status, headers, body = request(base, path)  # a client that accepts neither gets the file
        assert status == 200 and "content-encoding" not in headers and body == file.read_bytes(), path
    for name in ("manifest.json", "index.html"):
        status, headers, body = request(base, "/demo/" + name, **BROWSER)
        assert status == 200 and headers["cache-control"] == "no-cache" and body == (bundle / name).read_bytes()


@pytest.mark.browser
def test_the_page_works_through_caddy(caddy, page):
    the_page_answers_through(page, caddy[0])
