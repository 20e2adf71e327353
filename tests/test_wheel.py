"""A wheel built as `make wheel` builds it works without the checkout: it carries the page template and the
browser runtime, and `mercury-static build` run from it writes a complete bundle."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

from conftest import REPO, TEST_CACHE

from mercury_static.build import RUNTIME_FILES, find_runtime


def _source_copy(dst):
    """The checkout's tracked files (what a clean clone has), without build/node_modules."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if (REPO / rel).is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, dst / rel)


def test_wheel_builds_a_bundle_without_the_checkout(tmp_path, exported_model):
    src = tmp_path / "src"
    _source_copy(src)
    runtime = src / "mercury_static" / "runtime"
    runtime.mkdir(exist_ok=True)
    for path in find_runtime().values():  # what `make wheel` copies from build/node_modules
        shutil.copy2(path, runtime / path.name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path / "dist"), str(src)], check=True, capture_output=True)
    wheel = next((tmp_path / "dist").glob("mercury_static-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"mercury_static/site_template/index.html", "mercury_static/site_template/app/main.js"} <= names
    assert {f"mercury_static/runtime/{dst.split('/')[-1]}" for dst in RUNTIME_FILES} <= names

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = {k: v for k, v in os.environ.items() if k != "MERCURY_STATIC_RUNTIME"}
    env.update(PYTHONPATH=str(site), MERCURY_STATIC_CACHE=str(TEST_CACHE), HF_HUB_OFFLINE="1")
    where = subprocess.run([sys.executable, "-c", "import mercury_static.build as b; print(b.__file__);"
                            "print(*sorted(str(p) for p in b.find_runtime().values()), sep='\\n')"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert all(p.startswith(str(site)) for p in where), where  # the wheel's code, template and runtime

    shutil.copy2(REPO / "examples" / "demo.jsonl", tmp_path / "demo.jsonl")
    run = subprocess.run([sys.executable, "-c", "from mercury_static.cli import app; app()", "build",
                          "demo.jsonl", "-o", "bundle"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    bundle = tmp_path / "bundle"
    for dst, path in find_runtime().items():
        assert (bundle / dst).read_bytes() == path.read_bytes()
    assert (bundle / "index.html").is_file() and (bundle / "app" / "main.js").is_file()
    assert (bundle / "manifest.json").is_file()
