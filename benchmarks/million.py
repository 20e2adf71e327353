"""A million-record bundle (issue 15 §1, "done when"): the streaming build of it, the recall of the
similar-records cells, and the page on it in Chromium. Used by `bench_scale.py --parts million`.

- build: `make_large.py --pool` records (FaithBench-like, metadata `summarizer` terms and `hhem` float,
  similar records on) built by `build()` in a child process: wall, CPU, VmHWM of the child; saved beside
  the bundle (`DIR.build.json`), so `--reuse DIR` keeps them and only refreshes the page files.
- recall: recall@10 of the page's similar-records lookup (own cell + the nprobe nearest cells, as
  similar.js) against brute force, for several nprobe, on the bundle's record vectors and on the real
  FaithBench / SummHay summaries' record vectors (embedded here, in cells small enough to be several).
- page: headless Chromium on the bundle: first readable record (cold), a jump to record 900,000, a text
  and a metadata filter over every record (the page's index lookup, and the list filter of this page), a
  similar-records query (the card's own timing: cells fetched + scan), and the tab's memory without a
  DevTools agent (tab_memory.py).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mercury_static.bundle.record_cells import NPROBE, read_cells

ROOT = Path(__file__).resolve().parent.parent

SETTINGS = """metadata:
  - {name: summarizer, title: Summarizer, type: terms, visible: true}
  - {name: hhem, title: HHEM, type: float, visible: true}
vectors: {similar_records: true}
"""
CHILD = """
import json, sys, time
from pathlib import Path
from mercury_static.pipeline.steps import BuildOptions, build
inputs = [Path(p) for p in sys.argv[4:]]
manifest = build(inputs, Path(sys.argv[1]), BuildOptions(cache_dir=Path(sys.argv[2]), settings=Path(sys.argv[3])))
hwm = next(int(x.split()[1]) for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmHWM:"))
print(json.dumps({"vm_hwm_mb": round(hwm / 1024), "counts": manifest["counts"], "shards": manifest["shards"]}))
"""
NPROBES = (1, 2, 4, 8, 16, 32)

def pool_id(k: int) -> str:
    """Record k's id in the bundle: make_large.pool_record's, prefixed by its file's name (several inputs)."""
    from make_large import POOL_FILE_RECORDS

    return f"pool-{k // POOL_FILE_RECORDS:03d}:r{k:07d}"


def figures_path(bundle: Path) -> Path:
    return bundle.parent / (bundle.name + ".build.json")


def build_million(out: Path, records: int, shared: Path, model_cache: Path, src: Path) -> dict:
    """Generate the pool and build it in a child process; the figures, also saved beside the bundle."""
    from make_large import make_pool

    inputs = make_pool(out.parent / f"pool-{records}", records, shared)
    settings = out.parent / "million-settings.yaml"
    settings.write_text(SETTINGS, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(src), HF_HUB_OFFLINE="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(out), str(model_cache), str(settings), *map(str, inputs)],
                            stdout=subprocess.PIPE, text=True, env=env)
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"build of {records:,} records failed (status {status})")
    result = {"records": records, "wall_s": round(time.perf_counter() - t0, 1),
              "cpu_s": round(usage.ru_utime + usage.ru_stime, 1), "load": round(os.getloadavg()[0], 1),
              **json.loads(stdout.strip().splitlines()[-1])}
    figures_path(out).write_text(json.dumps(result, indent=1))
    return result


def rewrite_cells(bundle: Path) -> dict:
    """Write a built bundle's cells again with this checkout's `write_cells` (a pure function of
    record_vectors.bin: what a build of this checkout writes); the step's wall, CPU and this process's VmHWM.
    `python -c 'import million; print(million.rewrite_cells(Path(DIR)))'` in a fresh process."""
    import shutil

    from mercury_static.bundle.record_cells import write_cells

    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    rv = manifest["record_vectors"]
    shutil.rmtree(bundle / rv["cells"]["path"])
    t0, c0 = time.perf_counter(), time.process_time()
    cells = write_cells(bundle, bundle / rv["path"], manifest["counts"]["records"], rv["dim"], 1000)
    if cells.manifest() != rv["cells"]:
        raise SystemExit(f"{bundle}: cells {cells.manifest()} differ from the manifest's {rv['cells']}")
    status = Path("/proc/self/status").read_text().splitlines()
    return {"wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1),
            "vm_hwm_mb": round(next(int(x.split()[1]) for x in status if x.startswith("VmHWM:")) / 1024)}


def bundle_sizes(bundle: Path) -> dict:
    """MB per kind of data file (records.json apart: the page of the sharded index no longer needs it)."""
    out: dict[str, float] = {}
    for p in (bundle / "data").rglob("*"):
        if p.is_file():
            kind = "records.json" if p.name == "records.json" else p.name.split("-")[0].split(".")[0]
            out[kind] = out.get(kind, 0) + p.stat().st_size / 1e6
    out["total"] = sum(out.values())
    return {k: round(v, 1) for k, v in sorted(out.items())}


# --- recall of the cells -----------------------------------------------------------------------------


def brute_top(vectors_file: Path, n: int, dim: int, queries: np.ndarray, k: int = 10) -> list[set[int]]:
    """The exact top k (the record itself left out) of each query position, the file read in chunks."""
    mm = np.memmap(vectors_file, dtype="<f2", mode="r", shape=(n, dim))
    q = np.asarray(mm[queries], dtype=np.float32)
    best_s = np.full((len(queries), k), -np.inf, np.float32)
    best_i = np.zeros((len(queries), k), np.int64)
    step = 65_536
    for first in range(0, n, step):
        s = q @ np.asarray(mm[first:first + step], dtype=np.float32).T
        for r, p in enumerate(queries):
            if first <= p < first + step:
                s[r, p - first] = -np.inf
        cand_s = np.concatenate([best_s, s], axis=1)
        cand_i = np.concatenate([best_i, np.arange(first, first + s.shape[1])[None, :].repeat(len(queries), 0)], axis=1)
        top = np.argpartition(-cand_s, k, axis=1)[:, :k]
        best_s, best_i = np.take_along_axis(cand_s, top, 1), np.take_along_axis(cand_i, top, 1)
    return [set(map(int, row)) for row in best_i]


def cell_top(cells, dim: int, pos: int, nprobe: int, k: int = 10) -> set[int]:
    """similar.js's query: the record's cell and the nearest cells to nprobe in all, top k in them."""
    cents, members, vectors, of = cells
    own = int(of[pos])
    q = vectors[own][int(np.searchsorted(members[own], pos))].astype(np.float64)
    order = np.lexsort((np.arange(len(cents)), -(cents.astype(np.float64) @ q)))
    probe = [own] + [int(c) for c in order if c != own][:nprobe - 1]
    pos_all = np.concatenate([members[c] for c in probe]).astype(np.int64)
    scores = np.concatenate([vectors[c].astype(np.float64) @ q for c in probe])
    scores[pos_all == pos] = -np.inf
    top = np.lexsort((pos_all, -scores))[:k]
    return set(map(int, pos_all[top]))


def recall(vectors_file: Path, n: int, dim: int, bundle: Path, count: int, queries: int = 200) -> dict:
    cells = read_cells(bundle, dim, count)
    qs = (np.arange(queries, dtype=np.int64) * n) // queries
    exact = brute_top(vectors_file, n, dim, qs)
    out = {}
    for nprobe in NPROBES:
        if nprobe > count:
            break
        hits = sum(len(cell_top(cells, dim, int(p), nprobe) & e) for p, e in zip(qs, exact))
        out[nprobe] = round(hits / (10 * len(qs)), 3)
    sizes = [len(m) for m in cells[1]]
    return {"records": n, "cells": count, "cell_median": int(statistics.median(sizes)), "cell_max": max(sizes),
            "queries": len(qs), "recall": out}


def real_vectors(files: list[Path], embedder) -> np.ndarray:
    """Record vectors of the records' summaries, as the build computes them (record_vectors.text_vector)."""
    from mercury_static.read.inputs import read_records
    from mercury_static.bundle.record_vectors import text_vector
    from mercury_static.core.segment import embedding_windows, split_sentences

    rows_of = []
    for r in read_records(files):
        spans = split_sentences(r.summary)
        rows_of.append([r.summary[s:e] for _, s, e in
                        embedding_windows(r.summary, spans, embedder.count_tokens, embedder.max_seq_length)])
    flat = [x for rows in rows_of for x in rows]
    unique, slot = embedder.embed_unique(flat, dtype=np.float16)
    out, first = [], 0
    for rows in rows_of:
        block = unique[slot[first:first + len(rows)]]
        first += len(rows)
        out.append(np.frombuffer(text_vector(block), "<f2"))
    return np.stack(out)


def real_recall(shared: Path, model_cache: Path) -> dict:
    """Recall on the real summaries, in cells of 20 (FaithBench, 400 records) and 50 (SummHay)."""
    from mercury_static.assist.embed import Embedder
    from mercury_static.assist.model_export import ensure_model
    from mercury_static.bundle.record_cells import write_cells

    embedder = Embedder(ensure_model(cache_dir=model_cache).dir)
    sets = {"faithbench": (sorted((shared / "faithbench").glob("batch_*.json")), 20),
            "summhay": (sorted((shared / "summhay").glob("topic_*.json")), 50)}
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (files, cell_records) in sets.items():
            x = real_vectors(files, embedder)
            path = Path(tmp) / f"{name}.bin"
            path.write_bytes(x.astype("<f2").tobytes())
            cells = write_cells(Path(tmp) / name, path, len(x), x.shape[1], cell_records)
            out[name] = recall(path, len(x), x.shape[1], Path(tmp) / name, cells.count,
                               queries=min(len(x), 400))
    return out


# --- the page ----------------------------------------------------------------------------------------

LOOKUP_JS = """async ([word, name, value, at]) => {
  const { RecordIndex } = await import('./modules/recordindex.js');
  const fetchJson = async (path) => (await fetch(path)).json();
  const t0 = performance.now();
  const index = await RecordIndex.open(fetchJson);
  const text = await index.textPositions(word);
  const t1 = performance.now();
  const meta = await index.metaPositions(name, [value]);
  const t2 = performance.now();
  const row = await index.rowAt(at);
  const t3 = performance.now();
  return { text_ms: t1 - t0, text_hits: text.length, meta_ms: t2 - t1, meta_hits: meta.length,
           row_ms: t3 - t2, row_id: row.id };
}"""

UI_FILTER_JS = """(word) => new Promise((resolve) => {
  // typed into the page's filter box, until the list shows the answer (its rows replaced)
  const f = document.getElementById('record-filter'), list = document.getElementById('record-list');
  const t0 = performance.now();
  const seen = new MutationObserver(() => { seen.disconnect(); resolve(performance.now() - t0); });
  seen.observe(list, { childList: true });
  setTimeout(() => { seen.disconnect(); resolve(null); }, 60000);
  f.value = word;
  f.dispatchEvent(new Event('input'));
})"""


def data_requests(bundle: Path, urls: list[str], under: str = "/data/") -> dict:
    """Files and kB (their sizes on disk) of the requests for bundle files under `under`."""
    paths = [u.split("/", 3)[3].split("?")[0] for u in urls if under in u]
    return {"files": len(paths), "kb": round(sum((bundle / p).stat().st_size for p in paths) / 1e3)}


def first_paints(browser, url: str, runs: int, timeout_s: float = 600) -> list[float | None]:
    """Cold loads in fresh contexts: ms to the mark `mercury-first-paint` (None: not within `timeout_s`).
    bench_page.cold_loads polls the store too, which a page still fetching records.json has not made."""
    out = []
    for _ in range(runs):
        ctx = browser.new_context(viewport={"width": 1500, "height": 900})
        page = ctx.new_page()
        page.goto(url + "?annotator=bench", wait_until="commit")
        deadline, t = time.time() + timeout_s, None
        while t is None and time.time() < deadline:
            t = page.evaluate("() => performance.getEntriesByName('mercury-first-paint')[0]?.startTime ?? null")
            time.sleep(0.05)
        out.append(t)
        ctx.close()
    return out


def measure_page(bundle: Path, runs: int) -> dict:
    """Chromium on the bundle (served on localhost): timings with Playwright, memory without DevTools."""
    from bench_page import ARGS, serve
    from pagedriver import go_to, wait  # tests/, on the path by bench_page
    from playwright.sync_api import sync_playwright

    # the page's modules as written, for LOOKUP_JS (the bundle's app/ holds them packed: bundle/page.py)
    shutil.rmtree(bundle / "modules", ignore_errors=True)
    shutil.copytree(ROOT / "site_template" / "app", bundle / "modules")
    server, url = serve(bundle)
    out: dict = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                        headless=True, args=ARGS)
            out["first_paint_ms"] = first_paints(browser, url, runs)
            ctx = browser.new_context(viewport={"width": 1500, "height": 900})
            ctx.route("**/models/**", lambda route: route.abort())  # the data path only
            page = ctx.new_page()
            requests: list[str] = []
            page.on("requestfinished", lambda r: requests.append(r.url))
            n = json.loads((bundle / "data" / "index.json").read_text(encoding="utf-8"))["count"]
            jump = n * 9 // 10
            t0 = time.perf_counter()
            page.goto(url + "?annotator=bench")
            page.wait_for_selector("body[data-ready]", timeout=600_000)
            out["ready_s"] = round(time.perf_counter() - t0, 2)
            out["ready_requests"] = data_requests(bundle, requests)
            page.keyboard.press("Escape")
            out["lookups"] = page.evaluate(LOOKUP_JS, ["model", "summarizer", "model-3", jump])
            requests.clear()
            t0 = time.perf_counter()
            go_to(page, pool_id(jump))
            wait(page, "(id) => pd.currentId() === id && pd.record() && !pd.loading()", pool_id(jump), timeout=120_000)
            out["jump"], out["jump_ms"] = jump, round((time.perf_counter() - t0) * 1000)
            out["jump_requests"] = data_requests(bundle, requests)
            out["ui_filter_ms"] = [page.evaluate(UI_FILTER_JS, w) for w in ("model", "model 3", "")]
            page.locator("#similar > summary").click()
            sims = []
            for k in range(12):
                rid = pool_id((k * 83_311 + 17) % n)
                requests.clear()
                go_to(page, rid)
                page.wait_for_function("(id) => document.querySelector('#similar-list')?.dataset.for === id", arg=rid,
                                       timeout=120_000)
                cells = data_requests(bundle, requests, "/data/cells/")
                sims.append({"ms": float(page.locator("#similar").get_attribute("data-ms")),
                             "cells_requests": cells["files"], "cells_kb": cells["kb"]})
            out["similar"] = sims
            ctx.close()
            browser.close()
    finally:
        server.shutdown()
    out["memory"] = memory(bundle, jump)
    return out


def memory(bundle: Path, jump: int) -> dict:
    """The tab's renderer memory (no DevTools agent): first record, after the jump, a filter and similar
    records, after a GC."""
    from bench_page import ARGS, serve
    from pagedriver import expression  # tests/, on the path by bench_page
    from tab_memory import PipeBrowser, Tab, renderer

    server, url = serve(bundle)
    browser = PipeBrowser([*ARGS, "--js-flags=--expose-gc"])
    try:
        tab = Tab(browser, url + "?annotator=bench")
        tab.wait("document.body.dataset.ready === 'true'", 600)
        tab.wait(expression("() => ['ready', 'failed'].includes(pd.modelStatus())"), 300)
        time.sleep(0.5)
        mem = {"first record": renderer(browser)}
        rid = json.dumps(pool_id(jump))
        tab.eval(expression("(id) => pd.goTo(id)", pool_id(jump)))
        tab.wait(expression("(id) => pd.currentId() === id && !pd.loading()", pool_id(jump)))
        tab.eval(f"({UI_FILTER_JS})('model')")
        tab.eval("document.querySelector('#similar > summary').click()")
        tab.wait(f"document.querySelector('#similar-list')?.dataset.for === {rid}", 300)
        time.sleep(0.5)
        mem["after jump, filter, similar"] = renderer(browser)
        tab.collect_garbage()
        time.sleep(1)
        mem["after those + GC"] = renderer(browser)
        return mem
    finally:
        browser.close()
        server.shutdown()


# --- report ------------------------------------------------------------------------------------------

def p50(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else float("nan")


def p95(v):
    v = sorted(x for x in v if x is not None)
    return v[min(len(v) - 1, round(0.95 * (len(v) - 1)))] if v else float("nan")


def report(section: str, command: str, build: dict | None, sizes: dict | None, rec: dict | None,
           page: dict | None) -> str:
    lines = [section, "", f"Command: `{command}` (`--reuse DIR` measures an already built bundle again, its "
             "page files refreshed: the build's figures are kept beside it). 2-core machine shared with other "
             "engineers' runs: wall times are inflated (load average given).", ""]
    if build:
        lines += ["### The build", "", "| records | texts | rows | wall | CPU | peak memory (VmHWM) | load avg |",
                  "|---|---|---|---|---|---|---|",
                  f"| {build['records']:,} | {build['counts']['texts']:,} | {build['counts']['rows']:,} | "
                  f"{build['wall_s']:.0f} s | {build['cpu_s']:.0f} s | {build['vm_hwm_mb']:,} MB | {build['load']:.1f} |", ""]
        if build.get("note"):
            lines += [build["note"], ""]
    if sizes:
        lines += ["Bundle data, MB: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()) + ".", ""]
    if rec:
        lines += ["### Similar records: recall@10 of the cells against brute force", "",
                  "The page's lookup (the record's own cell and the nearest cells by centroid, `nprobe` in all; "
                  "similar.js) replayed in numpy on the stored float16 vectors; queries evenly spaced over the "
                  "records. FaithBench and SummHay: the record vectors of their real summaries (embedded as the "
                  "build does), in cells smaller than the default 1,000 so that there are several.", "",
                  "| data | records | cells | cell size median / max | queries | "
                  + " | ".join(f"nprobe {n}" for n in NPROBES) + " |", "|---|---|---|---|---|" + "---|" * len(NPROBES)]
        for name, r in rec.items():
            lines.append(f"| {name} | {r['records']:,} | {r['cells']:,} | {r['cell_median']} / {r['cell_max']} | "
                         f"{r['queries']} | " + " | ".join(f"{r['recall'].get(str(n), r['recall'].get(n, '–'))}"
                                                          for n in NPROBES) + " |")
        lines += ["", f"The bundle probes {NPROBE} cells (`record_cells.NPROBE`, manifest `record_vectors.cells.nprobe`), "
                  "chosen from this table and the page's time below: 16 would double what a query reads.", ""]
    if page:
        lk, sims = page["lookups"], page["similar"]
        ms = [s["ms"] for s in sims]
        lines += [f"### The page (headless Chromium, localhost; {len(page['first_paint_ms'])} cold loads)", "",
                  "| measure | p50 | p95 | n | target |", "|---|---|---|---|---|",
                  f"| readable first record, cold (ms, mark `mercury-first-paint`) | {p50(page['first_paint_ms']):.0f} | "
                  f"{p95(page['first_paint_ms']):.0f} | {len(page['first_paint_ms'])} | ≤ 1000 |",
                  f"| page ready (`body[data-ready]`, s; data: {page['ready_requests']['files']} files, "
                  f"{page['ready_requests']['kb']:,} kB) | {page['ready_s']} | | 1 | |",
                  f"| jump to record {page['jump']:,} (`goToId`, until shown; ms; {page['jump_requests']['files']} files, "
                  f"{page['jump_requests']['kb']:,} kB) | {page['jump_ms']} | | 1 | |",
                  f"| index: row {page['jump']:,} (`RecordIndex.rowAt`, cold, ms) | {lk['row_ms']:.0f} | | 1 | |",
                  f"| index: text filter `model` over all records (open + `textPositions`, cold, ms; "
                  f"{lk['text_hits']:,} hits) | {lk['text_ms']:.0f} | | 1 | |",
                  f"| index: metadata filter summarizer = model-3 (`metaPositions`, ms; {lk['meta_hits']:,} hits) | "
                  f"{lk['meta_ms']:.0f} | | 1 | |",
                  "| list filter typed into the page (`model`, `model 3`, cleared; until the list shows it, ms) | "
                  + " / ".join("–" if x is None else f"{x:.0f}" for x in page["ui_filter_ms"]) + " | | 3 | |",
                  f"| similar records, card's time (cells fetched + scan, ms; first query includes the centroids) | "
                  f"{p50(ms):.0f} | {p95(ms):.0f} | {len(ms)} | ≤ 200 |",
                  f"| similar records: cell files / kB read per query (p50) | "
                  f"{p50([s['cells_requests'] for s in sims]):.0f} / {p50([s['cells_kb'] for s in sims]):,.0f} | "
                  f"{max(s['cells_requests'] for s in sims)} / {max(s['cells_kb'] for s in sims):,} | {len(sims)} | |",
                  ""]
        if page["ready_requests"]["kb"] > 10_000:  # records.json still on the boot path
            lines += [f"This page still fetches every record's columns (records.json, "
                      f"{page['ready_requests']['kb'] / 1e3:,.0f} MB of the ready path's data) before it sets up "
                      "the list: the first record, the ready time, the list filter and the tab memory measure "
                      "that, and wait for the page on the sharded index (re-run with `--reuse`). The index "
                      "rows (`RecordIndex` in this Chromium) and similar records are the sharded path's.", ""]
        lines += ["Tab memory without a DevTools agent (tab_memory.py; model loaded):", "",
                  "| when | renderer private | PSS | RSS |", "|---|---|---|---|"]
        for when, m in page["memory"].items():
            lines.append(f"| {when} | {m['private']:.0f} MB | {m['pss']:.0f} MB | {m['rss']:.0f} MB |")
        lines.append("")
    return "\n".join(lines)
