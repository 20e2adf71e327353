"""The model's cold start in the page: the page form of the model (page_model.py) against the model file itself.

    python benchmarks/bench_model_ready.py [--runs 10]

Both variants are the same bundle and the same page, loaded cold (a fresh browser context each time),
interleaved (before, after; then after, before): `after` is the bundle as built (the graph optimized at export, int8 weights apart, the session
created with optimization off); `before` is a copy whose model folder holds the exported ONNX file itself
and whose manifest names no weights file: the page then loads it as it did before, and onnxruntime-web
optimizes the graph at every start. Bundles: FaithBench and the longest source of SummHay news1 (as
bench_page.py builds them, cached in .cache/bench/).

Per load: the page's marks (first paint, model ready: the first call answered) and the worker's (worker
start, weights ready, session ready), the time of 8 embeddings of one sentence after ready, the CPU
time of every Chromium process from navigation to model ready (the machine is shared: wall times include
waiting for a core), and model ready once more after a reload in the same context (an annotator's next
visit: the HTTP cache and Chromium's code caches are warm). Prints medians and the after/before ratio.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_page import ARGS, CACHE, MODEL_CACHE, SHARED, build_cached, mark, serve  # noqa: E402
from pagedriver import query  # noqa: E402  (tests/, on the path by bench_page)

WORKER_MARKS = ("mercury-worker-start", "mercury-weights-ready", "mercury-session-ready")
SENTENCE = "The annual report says revenue grew by 3.2 million euros in the second half of the year."
TICK = os.sysconf("SC_CLK_TCK")
ORDER = ["first paint", "worker-start", "weights-ready", "session-ready", "model ready",
         "CPU (all processes) to ready", "8 embeddings after ready", "model ready, reloaded (warm caches)"]


def chromium_cpu() -> float:
    """CPU seconds used so far by every running Chromium process (this benchmark's browser only)."""
    total = 0
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except OSError:
            continue
        name, fields = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
        if "chrom" in name:
            total += int(fields[11]) + int(fields[12])
    return total / TICK


def before_copy(bundle: Path) -> Path:
    """The bundle with the exported model file itself in its model folder, and no weights file."""
    from mercury_static.assist.model_export import default_model_path, ensure_model

    out = CACHE / "model-ready-before" / bundle.name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for part in bundle.iterdir():
        if part.name not in ("manifest.json", "models"):
            (out / part.name).symlink_to(part.resolve())
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    shutil.copytree(bundle / "models", out / "models")
    onnx_dir = out / manifest["model"]["path"] / "onnx"
    (onnx_dir / "model_quantized.weights").unlink()
    shutil.copyfile(ensure_model(default_model_path(), cache_dir=MODEL_CACHE).onnx_path, onnx_dir / "model_quantized.onnx")
    manifest["model"].pop("weights")
    (out / "manifest.json").write_text(json.dumps(manifest, sort_keys=True), encoding="utf-8")
    return out


def cold_load(browser, url: str) -> dict[str, float]:
    ctx = browser.new_context(viewport={"width": 1500, "height": 900})
    page = ctx.new_page()
    cpu0 = chromium_cpu()
    page.goto(url, wait_until="commit")
    time.sleep(1.0)  # untouched while it loads (see bench_page.QUIET_S)
    row = {"model ready": mark(page, "mercury-model-ready")}
    row["CPU (all processes) to ready"] = (chromium_cpu() - cpu0) * 1000
    row["first paint"] = mark(page, "mercury-first-paint")
    origin = page.evaluate("performance.timeOrigin")
    for worker in page.workers:
        found = worker.evaluate("(names) => [performance.timeOrigin, names.map((n) => "
                                "performance.getEntriesByName(n)[0]?.startTime ?? null)]", list(WORKER_MARKS))
        for name, t in zip(WORKER_MARKS, found[1]):
            if t is not None:
                row[name.removeprefix("mercury-")] = t + found[0] - origin
    row["8 embeddings after ready"] = query(page, """async (s) => {
        const t = performance.now();
        for (let i = 0; i < 8; i++) await pd.embed([s + ' ' + i]);
        return performance.now() - t; }""", SENTENCE)
    time.sleep(1.0)  # Chromium writes the wasm code cache a moment after the module ran
    page.reload(wait_until="commit")
    time.sleep(1.0)
    row["model ready, reloaded (warm caches)"] = mark(page, "mercury-model-ready")
    ctx.close()
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from mercury_static.bundle.contents import load_bundle

    fb = build_cached("faithbench", sorted(Path(x) for x in glob.glob(str(SHARED / "faithbench" / "batch_*.json"))),
                      title="FaithBench")
    sh = build_cached("summhay1", [SHARED / "summhay" / "topic_news1.json"], title="SummHay news1")
    longest = max(load_bundle(sh).records, key=lambda r: len(r.source)).id
    targets = {"FaithBench": (fb, ""), "long source": (sh, f"#record={longest}")}
    urls = {(name, v): serve(b if v == "after" else before_copy(b))[1] + "?annotator=bench" + frag
            for name, (b, frag) in targets.items() for v in ("before", "after")}
    res: dict[tuple[str, str], dict[str, list[float]]] = {k: {} for k in urls}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    headless=True, args=ARGS)
        for run in range(args.runs):
            for key, url in sorted(urls.items(), key=lambda kv: (kv[0][0], (kv[0][1] == "after") == run % 2)):
                for k, v in cold_load(browser, url).items():
                    if v is not None:
                        res[key].setdefault(k, []).append(v)
        browser.close()
    load = os.getloadavg()[0]
    print(f"cold loads: {args.runs} per variant, interleaved; load average {load:.1f}; medians (ms)\n")
    for name in targets:
        print(f"{name}\n\n| measure (ms) | before | after | after / before |\n|---|---|---|---|")
        b, a = res[name, "before"], res[name, "after"]
        for k in [k for k in ORDER if k in a or k in b]:
            mb = statistics.median(b[k]) if b.get(k) else None
            ma = statistics.median(a[k]) if a.get(k) else None
            ratio = f"{ma / mb:.2f}" if ma and mb else "–"
            print(f"| {k} | {'–' if mb is None else f'{mb:,.0f}'} | {'–' if ma is None else f'{ma:,.0f}'} | {ratio} |")
        print()


if __name__ == "__main__":
    main()
