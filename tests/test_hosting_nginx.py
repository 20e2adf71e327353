"""docs/bundle.md's nginx server block, run as written by Debian's nginx with its brotli module: it sends each
file's precompressed sibling, the types a module and the runtime need, the cache header, and the page works through
it in Chromium."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from collect_servers import free_port, serving
from pagedriver import open_page, query_vector, select, wait, wait_model
from test_precompress import request

import brotli

DOC = Path(__file__).resolve().parents[1] / "docs" / "bundle.md"
BROTLI_MODULE = Path("/usr/lib/nginx/modules/ngx_http_brotli_static_module.so")
TYPES = {".js": "application/javascript", ".mjs": "application/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".html": "text/html", ".css": "text/css"}


def recipe() -> str:
    [block] = re.findall(r"```nginx\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return block


@pytest.fixture(scope="module")
def nginx(demo_bundle, tmp_path_factory):
    """Debian's nginx running the documented server block on a free port, the demo bundle under its root:
    `(base URL of the bundle, bundle folder)`."""
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if binary is None or not BROTLI_MODULE.is_file():
        pytest.skip("nginx or its brotli module is not installed (.ci/run installs Debian's)")
    work = tmp_path_factory.mktemp("nginx")
    root = work / "bundles"
    root.mkdir()
    shutil.copytree(demo_bundle, root / "demo")
    port = free_port()
    server = recipe().replace("/srv/bundles", str(root)).replace("listen 8080;", f"listen 127.0.0.1:{port};")
    user = "user root;\n" if os.geteuid() == 0 else ""  # its workers read the test's private temp folder
    temp = "".join(f"{kind}_temp_path {work / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (work / "nginx.conf").write_text(
        f"load_module {BROTLI_MODULE};\n{user}worker_processes 1;\ndaemon off;\npid {work / 'nginx.pid'};\nerror_log stderr;\nevents {{}}\n"
        f"http {{\naccess_log off;\n{temp}{server}}}\n", encoding="utf-8")
    proc = subprocess.Popen([binary, "-p", str(work), "-c", str(work / "nginx.conf")], stderr=subprocess.PIPE,
                            text=True)
    base = f"http://127.0.0.1:{port}/demo/"
    with serving(proc, base, "/demo/manifest.json", "nginx"):
        yield base, root / "demo"


def test_nginx_sends_the_siblings_with_the_files_types(nginx):
    base, bundle = nginx
    siblings = sorted(bundle.rglob("*.gz"))
    assert len(siblings) > 10
    for sibling in siblings:
        file = sibling.with_name(sibling.name.removesuffix(".gz"))
        path = "/demo/" + file.relative_to(bundle).as_posix()
        status, headers, body = request(base, path, **{"Accept-Encoding": "gzip"})
        assert status == 200 and headers.get("content-encoding") == "gzip", path
        assert gzip.decompress(body) == file.read_bytes(), path
        want = TYPES.get(file.suffix, "application/octet-stream")
        assert headers["content-type"].split(";")[0] == want, path
        status, headers, body = request(base, path, **{"Accept-Encoding": "gzip, deflate, br, zstd"})
        if file.with_name(file.name + ".br").is_file():  # a browser's request: brotli's sibling
            assert headers.get("content-encoding") == "br" and brotli.decompress(body) == file.read_bytes(), path
        else:
            assert headers.get("content-encoding") == "gzip", path
        status, headers, body = request(base, path)  # a client that does not accept gzip gets the file
        assert status == 200 and "content-encoding" not in headers and body == file.read_bytes(), path
    assert any(s.name.endswith(".mjs.gz") for s in siblings)
    assert (bundle / "vendor" / "ort-wasm-simd-threaded.wasm.br").is_file()
    for name in ("manifest.json", "index.html"):
        status, headers, body = request(base, "/demo/" + name, **{"Accept-Encoding": "gzip"})
        assert status == 200 and headers["cache-control"] == "no-cache" and body == (bundle / name).read_bytes()


def the_page_answers_through(page, base: str) -> None:
    """The runtime's module and wasm, the model and the records all come from the server at `base`: the model
    gets ready and a selection is answered from its tokens."""
    open_page(page, base, "harbor-lighthouse")
    wait_model(page, timeout=120_000)
    select(page, "summary", "3.2 million euros")
    wait(page, "() => pd.queryVector() !== null", timeout=30_000)
    assert len(query_vector(page) or []) == 384


@pytest.mark.browser
def test_the_page_works_through_nginx(nginx, page):
    the_page_answers_through(page, nginx[0])
