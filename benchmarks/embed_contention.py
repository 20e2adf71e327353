"""What the page's half-sentence path costs beyond the model itself (issue 29): the worker's embedding of
the same spans alone, beside the page's own work, and against sentence-transformers in this process.

On the SummHay haystack bundle that bench_page.py builds (.cache/bench/summhay1), for the half-sentence
spans of two or more words of the longest record's summary (bench_page.selection_jobs, half=True), p50 ms:

- the full selection, as bench_page.py measures it: clear(), then select (mouse-up → the model's answer in
  the store);
- `embed` alone (the worker's round trip, no selection, nothing on screen changes): after a settled page,
  right after a clear() of the previous answer's highlights (its frame runs beside the embedding), and
  with the browser's own selection of the span made meanwhile (its frame);
- the main thread busy in plain JavaScript for as long as the embedding (no frame): whether the cores
  alone slow the worker;
- sentence-transformers (PyTorch, one thread, as the Mercury-style server runs it) encoding the same spans,
  and onnxruntime in Python on the page's graph: what the model costs natively.

Usage:  python benchmarks/embed_contention.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_page import ARGS, CACHE, SELECT_JS, open_page, refresh_page, selection_jobs, serve  # noqa: E402
from pagedriver import clear, query, wait, wait_model  # noqa: E402  (tests/, on the path by bench_page)

EMBED_JS = """async ([start, end, how]) => {
  const pane = pd.pane('summary'), text = pd.record().summary.slice(start, end);
  pd.clear();
  if (how === 'settled') await new Promise((r) => setTimeout(r, 150));
  const t0 = performance.now();
  const vector = pd.embed([text]);
  if (how === 'selection') { const sel = getSelection(); sel.removeAllRanges(); sel.addRange(pane.rangeFor(start, end)); }
  if (how === 'busy') { let x = 0; while (performance.now() - t0 < 30) x += Math.sqrt(x + 1); }
  await vector;
  const t = performance.now() - t0;
  getSelection().removeAllRanges();
  await new Promise((r) => setTimeout(r, 100));
  return t;
}"""

ROWS = {
    "select": "the full selection (clear, then select; bench_page.py's figure)",
    "clear": "embed alone, right after a clear() of the previous answer's highlights",
    "selection": "embed alone, with the browser's selection of the span made meanwhile",
    "settled": "embed alone, on a settled page (150 ms after a clear)",
    "busy": "embed alone, the main thread busy 30 ms in plain JavaScript (no frame)",
}


def page_rows(bundle_dir: Path, rounds: int) -> tuple[dict[str, list[float]], list[str]]:
    from playwright.sync_api import sync_playwright

    from mercury_static.bundle.contents import load_bundle

    bundle = load_bundle(bundle_dir)
    rec = max(bundle.records, key=lambda r: len(r.source))
    spans = [(s, e) for _, _, s, e in selection_jobs(bundle, 0, long_side="source", half=True)
             if len(rec.summary[s:e].split()) > 1]
    server, url = serve(bundle_dir)
    out: dict[str, list[float]] = {k: [] for k in ROWS}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    headless=True, args=ARGS)
        ctx, page = open_page(browser, url + f"?annotator=bench#record={rec.id}")
        wait_model(page, timeout=120_000)
        wait(page, "() => pd.panes().every((p) => !p.root || p.root.dataset.measured)", timeout=120_000)

        def select(s: int, e: int) -> float:
            clear(page)
            return query(page, SELECT_JS, ["summary", s, e])["model"]

        for s, e in spans[:3]:  # warm-up
            select(s, e)
        for _ in range(rounds):
            for s, e in spans:
                # each "clear" follows a selection, so that it clears a real answer's highlights
                out["select"].append(select(s, e))
                out["clear"].append(query(page, EMBED_JS, [s, e, "clear"]))
                for how in ("settled", "selection", "busy"):
                    out[how].append(query(page, EMBED_JS, [s, e, how]))
        ctx.close()
        browser.close()
    server.shutdown()
    return out, [rec.summary[s:e] for s, e in spans]


def native_rows(texts: list[str], bundle_dir: Path, rounds: int) -> dict[str, tuple[list[float], list[float]]]:
    """(wall, process CPU) ms per text: sentence-transformers and onnxruntime on the page's graph, one thread each."""
    from mercury_server import load_model

    from mercury_static.assist.embed import Embedder

    st = load_model()
    ort = Embedder(bundle_dir / "models" / next(p.name for p in (bundle_dir / "models").iterdir()), workers=1,
                   meta={"pooling": "mean"})
    engines = {
        "sentence-transformers (PyTorch fp32, 1 thread), encode one span": lambda t: st.encode([t], normalize_embeddings=True),
        "onnxruntime (Python, the page's graph, 1 thread), one span": lambda t: ort.embed([t]),
    }
    out = {}
    for name, run in engines.items():
        for t in texts[:3]:
            run(t)
        wall, cpu = [], []
        for _ in range(rounds):
            for t in texts:
                w0, c0 = time.perf_counter(), time.process_time()
                run(t)
                wall.append((time.perf_counter() - w0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
        out[name] = (wall, cpu)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2, help="passes over the spans")
    ap.add_argument("--bundle", type=Path, default=CACHE / "summhay1")
    args = ap.parse_args()
    if not (args.bundle / "manifest.json").is_file():
        sys.exit(f"{args.bundle}: no bundle; run benchmarks/bench_page.py once first")
    refresh_page(args.bundle)
    page, texts = page_rows(args.bundle, args.rounds)
    native = native_rows(texts, args.bundle, args.rounds)
    settled = statistics.median(page["settled"])
    print(f"| {len(texts)} half-sentence spans of two or more words, × {args.rounds} | p50 ms | CPU p50 ms | "
          "/ embed alone, settled |")
    print("|---|---|---|---|")
    for key, label in ROWS.items():
        p50 = statistics.median(page[key])
        print(f"| page: {label} | {p50:.1f} | – | {p50 / settled:.2f}× |")
    for label, (wall, cpu) in native.items():
        p50 = statistics.median(wall)
        print(f"| {label} | {p50:.1f} | {statistics.median(cpu):.1f} | {p50 / settled:.2f}× |")


if __name__ == "__main__":
    main()
