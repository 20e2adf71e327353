"""The page's ES modules packed for a bundle: esbuild joins site_template/app/*.js into a few files.

Why: the page is some thirty small modules, and a browser fetches them one after another as it
discovers each import; on a 2-core laptop that request chain, not our code, was most of the time to the
first record (FaithBench: 294 → 229 ms packed, benchmarks/RESULTS.md). The sources stay plain modules
(the unit tests import them as they are); only a bundle gets the packed files. Code that is imported
lazily (the settings page's questions, filters, queue, similar records, the model's embedder) stays in
its own file, loaded only when used, and code shared by both sides goes into chunks.

In a checkout the page is packed at every build from site_template/app with the esbuild of
build/node_modules (npm ci); a wheel carries the page packed by `make wheel` (mercury_static/page/).
The output is deterministic: the same sources give the same bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mercury_static.core.records import InputError

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "site_template" / "app"
"""The checkout's page modules (absent in a wheel)."""
ESBUILD = ROOT / "build" / "node_modules" / ".bin" / "esbuild"
PACKED = Path(__file__).resolve().parents[1] / "page"
"""The packed page inside a wheel (`make wheel`): app/ and page.json."""
ENTRY = "main.js"
COPIED = ("embed-worker.js", "assist/weights.js", "assist/tokens.js", "data/formats.js", "style.css",
          "review/review.css")
"""Loaded by URL, not imported by the page: the worker script with its modules of ours (the weights reader, the
formats it checks and the token spans; its other import is the vendored runtime) and the styles."""


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


def find_page(work: Path) -> Page:
    """The page for a bundle: the checkout's sources packed now into `work` (always current), else the
    page a wheel carries."""
    if (SOURCES / ENTRY).is_file():
        if not ESBUILD.is_file():
            raise InputError(str(ESBUILD), None, None, "esbuild not found (it packs the page): run "
                             "`npm ci --ignore-scripts --prefix build` in the mercury-static checkout")
        return pack(SOURCES, work)
    if (PACKED / "page.json").is_file():
        return load(PACKED)
    raise InputError(str(PACKED), None, None, "the packed page is missing from this installation: reinstall "
                     "mercury-static (a wheel is made by `make wheel`)")


if __name__ == "__main__":  # `make wheel`: the page a wheel carries
    pack(SOURCES, PACKED)
