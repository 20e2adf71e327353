"""Before/after of the annotator page on the same machine state: the page of a git commit against the
working tree, on the same bundles, cold loads interleaved and selections alternated in slices (a shared machine's load
drifts between runs).

    python benchmarks/page_ab.py --base 1fadfb8 [--runs 5] [--keep-rank] [--no-cold]

Needs the bundles of bench_page.py (.cache/bench/summhay1, .cache/bench/faithbench) and of
bench_scale.py (benchmarks/out/large). Each variant gets its own folder under .cache/bench/ab/ (index.html
and app/ of its page, packed as `build` packs it if it is a packed page; the bundle's data, models and vendor
linked). With --keep-rank both variants use the working tree's app/assist/rank.js (to compare the page without a
ranker change that happened in between).
Prints medians: first paint and main-thread CPU (long source, FaithBench, 10k bundle), selection ->
highlight (precomputed, model), and the 10k tab's memory (Playwright tab and tab_memory.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import jinja2  # noqa: E402

import bench_scale  # noqa: E402
import tab_memory  # noqa: E402
from mercury_static.bundle.record_index import read_columns  # noqa: E402
from bench_page import ARGS, CACHE, cold_loads, open_page, selection_latencies, serve  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = {"summhay1": CACHE / "summhay1", "faithbench": CACHE / "faithbench", "large": ROOT / "benchmarks/out/large"}
if not (BUNDLES["large"] / "manifest.json").is_file():
    del BUNDLES["large"]  # no 10k bundle (bench_scale.py not run): its rows are left out


PARTS = 4  # slices of the selections, alternated between the two variants


def git(*args: str) -> bytes:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, check=True).stdout


def page_files(commit: str | None, keep_rank: bool) -> tuple[str, dict[str, bytes]]:
    """index.html template and app/ files of a commit (None: the working tree)."""
    if commit is None:
        app = ROOT / "site_template" / "app"
        return (ROOT / "site_template" / "index.html").read_text(encoding="utf-8"), {
            p.relative_to(app).as_posix(): p.read_bytes() for p in app.rglob("*") if p.is_file()}
    names = git("ls-tree", "-r", "--name-only", commit, "site_template/app/").decode().split()
    files = {n.removeprefix("site_template/app/"): git("show", f"{commit}:{n}") for n in names}
    if keep_rank:
        files[next(n for n in files if Path(n).name == "rank.js")] = (
            ROOT / "site_template" / "app" / "assist" / "rank.js").read_bytes()
    return git("show", f"{commit}:site_template/index.html").decode(), files


def packed(html: str, files: dict[str, bytes]) -> tuple[list[str] | None, dict[str, bytes]]:
    """A page whose index.html preloads a packed page's chunks (bundle/page.py) gets its modules packed with
    this checkout's esbuild, as `build` would pack them: (preload list, app/ files). An earlier page is
    served as its modules: (None, files)."""
    if "in preload %}" not in html:
        return None, files
    from mercury_static.bundle.page import pack

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name, data in files.items():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_bytes(data)
        page = pack(src, Path(tmp) / "out")
        return page.preload, {p.relative_to(page.app).as_posix(): p.read_bytes() for p in page.app.rglob("*")
                              if p.is_file()}


def prepare(variant: str, commit: str | None, keep_rank: bool) -> dict[str, Path]:
    html, files = page_files(commit, keep_rank)
    preload, files = packed(html, files)
    out = {}
    for name, bundle in BUNDLES.items():
        d = CACHE / "ab" / variant / name
        shutil.rmtree(d, ignore_errors=True)
        (d / "app").mkdir(parents=True)
        for part in ("data", "models", "vendor", "manifest.json"):
            (d / part).symlink_to(bundle.resolve() / part)
        manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
        (d / "index.html").write_text(jinja2.Environment(autoescape=True).from_string(html).render(
            manifest=manifest, title=manifest["title"], tool_version=variant, preload=preload), encoding="utf-8")
        for fname, data in files.items():
            (d / "app" / fname).parent.mkdir(parents=True, exist_ok=True)
            (d / "app" / fname).write_bytes(data)
        out[name] = d
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="git commit of the 'before' page")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep-rank", action="store_true")
    ap.add_argument("--no-cold", action="store_true", help="only the selection rows (no cold loads)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from mercury_static.bundle.contents import load_bundle

    dirs = {"before": prepare("before", args.base, args.keep_rank), "after": prepare("after", None, False)}
    longest = max(load_bundle(BUNDLES["summhay1"]).records, key=lambda r: len(r.source)).id
    res: dict[str, dict[str, list]] = {v: {} for v in dirs}
    mem: dict[str, dict] = {v: {} for v in dirs}

    def add(v: str, key: str, values: list) -> None:
        res[v].setdefault(key, []).extend(values)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    headless=True, args=ARGS)
        urls = {(v, n): serve(d)[1] for v, ds in dirs.items() for n, d in ds.items()}
        for _ in range(0 if args.no_cold else args.runs):
            for v in dirs:
                first, cpu, ready = cold_loads(browser, urls[v, "summhay1"], 1, record=longest)
                add(v, "long source: first paint", first)
                add(v, "long source: main-thread CPU", cpu)
                add(v, "long source: model ready", ready)
                first, cpu, ready = cold_loads(browser, urls[v, "faithbench"], 1)
                add(v, "FaithBench: first record", first)
                add(v, "FaithBench: main-thread CPU", cpu)
                add(v, "FaithBench: model ready", ready)
                if "large" not in BUNDLES:
                    continue
                first, cpu, _ = cold_loads(browser, urls[v, "large"], 1)
                add(v, "10k: first record", first)
                add(v, "10k: main-thread CPU", cpu)
        # Selections: both variants' pages open side by side, their selections alternated in PARTS slices
        # (a shared machine's load drifts over the minutes one variant's selections take).
        pages = {}
        for v in dirs:
            pages[v, "summhay1"] = open_page(browser, urls[v, "summhay1"] + f"?annotator=bench#record={longest}")
            pages[v, "faithbench"] = open_page(browser, urls[v, "faithbench"] + "?annotator=bench")
        for i in range(PARTS):
            for v, ds in dirs.items():
                warmup = 3 if i == 0 else 0
                page = pages[v, "summhay1"][1]
                page.bring_to_front()
                pre, model = selection_latencies(page, ds["summhay1"], 0, long_side="source", part=(i, PARTS), warmup=warmup)
                add(v, "long source: select -> precomputed", pre)
                add(v, "long source: select -> model", model)
                _, model = selection_latencies(page, ds["summhay1"], 0, long_side="source", half=True, part=(i, PARTS), warmup=warmup)
                add(v, "long source: half-sentence select -> model", model)
                page = pages[v, "faithbench"][1]
                page.bring_to_front()
                _, model = selection_latencies(page, ds["faithbench"], 60, part=(i, PARTS), warmup=warmup)
                add(v, "FaithBench: select -> model", model)
        for ctx, _ in pages.values():
            ctx.close()
        for v, ds in dirs.items():
            if "large" not in BUNDLES:
                continue
            index = read_columns(ds["large"] / "data")
            mem[v]["Playwright tab"] = bench_scale.visit(browser, urls[v, "large"], ds["large"], index, block_model=False)["memory"]
        browser.close()
    for v, ds in dirs.items():
        if "large" not in BUNDLES:
            break
        mem[v]["no DevTools agent"] = tab_memory.measure(ds["large"])

    print(f"| measure (medians) | before ({args.base}) | after |\n|---|---|---|")
    for key in [k for k in res["before"] if res["before"][k] and res["after"].get(k)]:
        b, a = res["before"][key], res["after"][key]
        print(f"| {key} (n {len(a)}) | {statistics.median(b):.1f} ms | {statistics.median(a):.1f} ms |")
    for how in mem["before"]:
        for when, m in mem["before"][how].items():
            n = mem["after"][how][when]
            print(f"| 10k tab, {how}: {when} | {m['private']:.0f} MB | {n['private']:.0f} MB |")


if __name__ == "__main__":
    main()
