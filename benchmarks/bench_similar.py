"""Similar records in the page (issue 13): time of one top-10 scan over N record vectors of 384 float16
values, in real Chromium's main thread (similar.js `topSimilar`, the function the card calls), for N up to
50,000 records. Serves the demo bundle built with examples/settings.yaml (for the page's modules only);
the vectors are random unit vectors generated in the page, encoded as float16 like record_vectors.bin.

Usage:  python benchmarks/bench_similar.py [--sizes 1000,10000,50000] [--repeat 9]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]

SCAN_JS = """async ([n, dim, repeat]) => {
  const { topSimilar } = await import('./modules/similar.js');
  // random unit vectors as float16 bit patterns (the page decodes them through its table as it scans)
  const f32 = new Float32Array(1); const u32 = new Uint32Array(f32.buffer);
  const half = (x) => { f32[0] = x; const b = u32[0]; const e = ((b >> 23) & 0xff) - 112;
    return ((b >> 16) & 0x8000) | (e <= 0 ? 0 : (e << 10) | ((b >> 13) & 0x3ff)); };
  const halves = new Uint16Array(n * dim);
  for (let r = 0; r < n; r++) {
    const v = Array.from({ length: dim }, () => Math.random() - 0.5);
    const norm = Math.hypot(...v);
    for (let d = 0; d < dim; d++) halves[r * dim + d] = half(v[d] / norm);
  }
  const cells = [{ positions: Uint32Array.from({ length: n }, (_, i) => i), halves }]; // one cell: all
  const table = (await import('./modules/data.js')).halfTable();
  const row = (i) => Float64Array.from({ length: dim }, (_, d) => table[halves[i * dim + d]]);
  topSimilar(cells, dim, row(0), 0, 10); // warm-up (JIT)
  const ms = [];
  for (let k = 0; k < repeat; k++) {
    const i = (k * 7919) % n;
    const q = row(i);
    const t0 = performance.now();
    topSimilar(cells, dim, q, i, 10);
    ms.push(performance.now() - t0);
  }
  return ms;
}"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from playwright.sync_api import sync_playwright

    from mercury_static.pipeline.steps import BuildOptions, build
    from mercury_static.bundle.serve import BundleServer

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bundle"
        build([REPO / "examples/demo.jsonl"], out, BuildOptions(settings=REPO / "examples/settings.yaml",
                                                                 cache_dir=REPO / ".cache/test-models"))
        shutil.copytree(REPO / "site_template" / "app", out / "modules")  # the modules as written (app/ is packed)
        server = BundleServer(out, "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        chromium = os.environ.get("CHROMIUM") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=ARGS)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_port}/?annotator=bench")
            page.wait_for_selector("body[data-ready]", timeout=120_000)
            print(f"| records | top-10 scan, main thread (median of {args.repeat}) | min | max |")
            print("|---|---|---|---|")
            for n in (int(s) for s in args.sizes.split(",")):
                ms = page.evaluate(SCAN_JS, [n, 384, args.repeat])
                print(f"| {n:,} | {statistics.median(ms):.1f} ms | {min(ms):.1f} ms | {max(ms):.1f} ms |")
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
