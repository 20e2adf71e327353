"""The build's page step: what a bundle's page needs beside its data (index.html, the packed modules, the
browser runtime and the model), and the packing of the page's ES modules, where esbuild joins
site_template/app/*.js into a few files.

Why packed: the page is some thirty small modules, and a browser fetches them one after another as it
discovers each import; on a 2-core laptop that request chain, not our code, was most of the time to the
first record (FaithBench, packed and not: benchmarks/RESULTS.md). The sources stay plain modules
(the unit tests import them as they are); only a bundle gets the packed files. Code that is imported
lazily (the settings page's questions, filters, queue, similar records, the model's embedder) stays in
its own file, loaded only when used, and code shared by both sides goes into chunks.

In a checkout the page is packed from site_template/app with the esbuild of js/node_modules (npm ci),
once per state of its sources: the packed page is kept in the model cache under the hash of every source
file and of esbuild's version, so a changed module is packed at the next build and an unchanged one never
again. A wheel carries the page packed by `make wheel` (mercury_static/page/).
The output is deterministic: the same sources give the same bytes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jinja2

from mercury_static import __version__
from mercury_static.core.records import InputError

PACKAGE = Path(__file__).resolve().parents[1]
ROOT = PACKAGE.parent
TEMPLATE_DIR = next(p for p in (PACKAGE / "site_template", ROOT / "site_template")
                    if (p / "index.html").is_file())
"""The page template: inside an installed wheel, else the checkout's site_template/ (editable install)."""
SOURCES = ROOT / "site_template" / "app"
"""The checkout's page modules (absent in a wheel)."""
NODE_MODULES = ROOT / "js" / "node_modules"
"""The checkout's npm packages (`npm ci --ignore-scripts` of its lockfile): esbuild and the browser runtime."""
ESBUILD = NODE_MODULES / ".bin" / "esbuild"
PACKED = PACKAGE / "page"
"""The packed page inside a wheel (`make wheel`): app/ and page.json."""
ENTRY = "main.js"
COPIED = ("embed-worker.js", "sw.js", "assist/weights.js", "assist/tokens.js", "data/formats.js", "style.css",
          "review/review.css")
"""Loaded by URL, not imported by the page: the worker script with its modules of ours (the weights reader, the
formats it checks and the token spans; its other import is the vendored runtime), the service worker (moved
to the bundle's root by `write_index`: its scope is the folder it is in) and the styles."""
SERVICE_WORKER = "sw.js"


@dataclass(frozen=True)
class Page:
    """A packed page: `app` holds the files a bundle's app/ gets; `preload` the ones the entry imports
    statically (index.html preloads them so the browser fetches them alongside the entry)."""

    app: Path
    preload: list[str]


def pack(sources: Path, out: Path, esbuild: Path = ESBUILD) -> Page:
    """Pack the modules of `sources` into `out`/app and write `out`/page.json (the preload list).
    esbuild runs in `sources` (its working folder), so every path it is given is absolute."""
    sources, out = Path(os.path.abspath(sources)), Path(os.path.abspath(out))
    app = out / "app"
    if app.exists():
        shutil.rmtree(app)
    app.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="mercury-static-pack-") as tmp:
        meta = Path(tmp) / "meta.json"
        cmd = [str(esbuild), str(sources / ENTRY), "--bundle", "--splitting", "--format=esm", "--charset=utf8",
               "--legal-comments=none", "--log-level=error", f"--outdir={app}", "--entry-names=[name]",
               "--chunk-names=[name]-[hash]", f"--metafile={meta}"]
        run = subprocess.run(cmd, capture_output=True, text=True, cwd=sources, env={**os.environ, "NODE_ENV": ""})
        if run.returncode:
            raise InputError(str(sources), None, None, f"esbuild could not pack the page: {run.stderr.strip()}")
        outputs = json.loads(meta.read_text(encoding="utf-8"))["outputs"]
    entry = next(v for k, v in outputs.items() if Path(k).name == ENTRY)
    preload = sorted(Path(i["path"]).name for i in entry["imports"] if i["kind"] == "import-statement")
    for name in COPIED:
        (app / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sources / name, app / name)
    (out / "page.json").write_text(json.dumps({"entry": ENTRY, "preload": preload}, indent=1) + "\n",
                                   encoding="utf-8")
    return Page(app, preload)


def load(out: Path) -> Page:
    """A page packed earlier (a wheel's)."""
    info = json.loads((out / "page.json").read_text(encoding="utf-8"))
    return Page(out / "app", list(info["preload"]))


def sources_key(sources: Path, esbuild: Path = ESBUILD) -> str:
    """The hash of every file of `sources` (its path and bytes) and of esbuild's version: what a pack is of."""
    digest = hashlib.sha256()
    version = esbuild.resolve().parents[1] / "package.json"
    digest.update(version.read_bytes() if version.is_file() else str(esbuild.resolve()).encode())
    for path in sorted(p for p in sources.rglob("*") if p.is_file()):
        digest.update(path.relative_to(sources).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:20]


def packed_page(sources: Path, cache: Path, esbuild: Path = ESBUILD) -> Page:
    """The page of `sources` packed into `cache`/<sources_key>, packing it first if no build did: packed into a
    folder of its own and renamed into place, so a concurrent build sees a whole page or none."""
    final = cache / sources_key(sources, esbuild)
    if (final / "page.json").is_file():
        return load(final)
    if final.exists():  # a cached page without its page.json was damaged by hand: packed again
        shutil.rmtree(final)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".pack-", dir=cache))
    try:
        pack(sources, tmp, esbuild)
        tmp.chmod(0o755)
        os.rename(tmp, final)
    except OSError:
        if not (final / "page.json").is_file():  # not another build's page renamed in first: a real failure
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return load(final)


def find_page(cache_dir: Path | None = None) -> Page:
    """The page for a bundle: the checkout's sources as they are now, packed (or found packed) in the cache
    (model_export.cache_root), else the page a wheel carries."""
    from mercury_static.assist.model_export import cache_root

    if (SOURCES / ENTRY).is_file():
        if not ESBUILD.is_file():
            raise InputError(str(ESBUILD), None, None, "esbuild not found (it packs the page): run "
                             "`npm ci --ignore-scripts --prefix js` in the mercury-static checkout")
        return packed_page(SOURCES, cache_root(cache_dir) / "pages")
    if (PACKED / "page.json").is_file():
        return load(PACKED)
    raise InputError(str(PACKED), None, None, "the packed page is missing from this installation: reinstall "
                     "mercury-static (a wheel is made by `make wheel`)")


RUNTIME_FILES = {
    "vendor/transformers.min.js": "@huggingface/transformers/dist/transformers.min.js",
    "vendor/ort-wasm-simd-threaded.mjs": "onnxruntime-web/dist/ort-wasm-simd-threaded.mjs",
    "vendor/ort-wasm-simd-threaded.wasm": "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm",
}
RUNTIME_NAMES = {Path(dst).name for dst in RUNTIME_FILES}
PACKAGED_RUNTIME = PACKAGE / "runtime"
"""The browser runtime inside a wheel built by `make wheel` (the three files, flat)."""
MODEL_FILES = {"config.json": "config.json", "tokenizer.json": "tokenizer.json",
               "tokenizer_config.json": "tokenizer_config.json",
               "onnx/model_quantized.onnx": "page/model_quantized.onnx",
               "onnx/model_quantized.weights": "page/model_quantized.weights"}
"""A bundle's model folder: its file -> the exported model's. The page loads the model's page form
(page_model.py), where transformers.js looks for a q8 model."""


def find_runtime() -> dict[str, Path]:
    """Where each browser runtime file comes from: $MERCURY_STATIC_RUNTIME (a node_modules folder), the
    wheel's runtime/ folder, else the checkout's js/node_modules (`npm ci --ignore-scripts` in js/)."""
    env = os.environ.get("MERCURY_STATIC_RUNTIME")
    layouts = [{dst: Path(env) / src for dst, src in RUNTIME_FILES.items()}] if env else []
    layouts.append({dst: PACKAGED_RUNTIME / Path(dst).name for dst in RUNTIME_FILES})
    layouts.append({dst: NODE_MODULES / src for dst, src in RUNTIME_FILES.items()})
    for files in layouts:
        if all(path.is_file() for path in files.values()):
            return files
    raise InputError(str(env or NODE_MODULES), None, None,
                     "browser runtime not found: run `npm ci --ignore-scripts --prefix js` in the "
                     "mercury-static checkout (or set MERCURY_STATIC_RUNTIME to a node_modules folder)")


def copy_tree(src: Path, dst: Path) -> None:
    """Copy files in sorted order (plain bytes; no metadata, so rebuilds are identical)."""
    for path in sorted(src.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            target = dst / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())


@functools.cache
def _templates() -> jinja2.Environment:
    """The page's templates, compiled once per process (a changed file is compiled again: jinja's auto_reload)."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE_DIR), autoescape=True,
                              keep_trailing_newline=True)


def write_index(out: Path, manifest: dict, page: Page) -> None:
    """index.html from the jinja2 template, and the packed page's app/."""
    html = _templates().get_template("index.html").render(manifest=manifest, title=manifest["title"],
                                                 tool_version=__version__, preload=page.preload)
    (out / "index.html").write_text(html, encoding="utf-8")
    copy_tree(page.app, out / "app")
    os.replace(out / "app" / SERVICE_WORKER, out / SERVICE_WORKER)


def link_or_copy(src: Path, dst: Path) -> None:
    """A hard link to `src` where the file system allows one, else a copy. Only for the browser runtime: files
    that nothing rewrites in place (npm and pip replace theirs), and the larger part of a bundle's bytes, so a
    bundle built again or copied on the same disk does not write them again."""
    try:
        os.link(src, dst)
    except OSError:  # another file system, or a link refused (a file of another user): a copy
        dst.write_bytes(src.read_bytes())


def copy_bundle_file(src: str, dst: str) -> str:
    """shutil.copytree's copy function for a bundle (a review bundle copies its annotators' one): the browser
    runtime linked as a build links it, every other file copied."""
    if Path(src).parent.name == "vendor" and Path(src).name in RUNTIME_NAMES:
        link_or_copy(Path(src), Path(dst))
        return dst
    return shutil.copy2(src, dst)


def write_model(folder: Path, model_dir: Path) -> None:
    """The build's model step: the exported model's page form as a bundle's model folder."""
    for name, exported in MODEL_FILES.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((model_dir / exported).read_bytes())


def model_download(folder: Path, runtime: dict[str, Path]) -> int:
    """Bytes the page's model worker fetches: the runtime's wasm and the model folder's files."""
    wasm = next(src for dst, src in runtime.items() if dst.endswith(".wasm"))
    return wasm.stat().st_size + sum((folder / name).stat().st_size for name in MODEL_FILES)


def write_page(out: Path, manifest: dict, page: Page, runtime: dict[str, Path]) -> None:
    """The build's page step: index.html and app/, and the runtime."""
    write_index(out, manifest, page)
    for dst, src in runtime.items():
        (out / dst).parent.mkdir(parents=True, exist_ok=True)
        link_or_copy(src, out / dst)


def package() -> None:
    """`make wheel`: what a wheel carries of the page, from the checkout: the page packed (`PACKED`) and the
    browser runtime (`PACKAGED_RUNTIME`)."""
    pack(SOURCES, PACKED)
    PACKAGED_RUNTIME.mkdir(exist_ok=True)
    for dst, src in RUNTIME_FILES.items():
        shutil.copyfile(NODE_MODULES / src, PACKAGED_RUNTIME / Path(dst).name)


if __name__ == "__main__":
    package()
