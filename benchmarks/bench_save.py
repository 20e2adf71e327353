"""Cost of one saved change on a large bundle (issue 10 §1).

Builds a 10,000-record bundle from the demo records (repeated under new ids: identical texts are stored
and embedded once, so the build takes seconds), stores 2,000 annotations over 1,000 records in the
annotator's storage, reloads, then times on one record:
- main-thread time of a change, synchronously (the store, every renderer, the storage call): a label
  toggled on the draft, and an annotation saved;
- the time until the page says "saved" (the IndexedDB transaction has completed, strict durability).
Work is seeded as an older page's localStorage value, which this page carries into IndexedDB, so the
same script also times the localStorage page (the figure it replaced) when run on that version.

Usage:  python benchmarks/bench_save.py [--records 10000] [--annotations 2000] [--changes 40]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
from pagedriver import query  # noqa: E402  (the page reached as the tests reach it)

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]

SEED_JS = """([key, ids, n]) => {
  const at = '2026-01-01T00:00:00.000Z';
  const records = {};
  for (let i = 0; i < n; i++) {
    const rid = ids[i % ids.length];
    records[rid] = records[rid] || {status: 'submitted', status_at: at, updated_at: at, annotations: {}};
    const id = 'seed-' + i;
    records[rid].annotations[id] = {id, label: ['Unwanted', 'Unwanted.Intrinsic'], note: 'a seeded note ' + i,
      summary: {start: 0, end: 3, text: 'The'}, source: null, created_at: at, updated_at: at};
  }
  localStorage.setItem(key, JSON.stringify({records, last_export_at: null}));
}"""

CHANGE_JS = """async (kind) => {
  const saved = () => { const el = document.getElementById('save-state'); return !el || el.dataset.state === 'saved'; };
  const text = pd.record().summary.text;
  if (kind === 'save' || !pd.draft().summary) pd.selectSpan('summary', 0, Math.min(12, text.length));
  const t0 = performance.now();
  if (kind === 'label') pd.toggleLabel(pd.labelChoices()[0]);
  else { if (!pd.draft().labels.length) pd.toggleLabel(pd.labelChoices()[0]); pd.saveDraft(); }
  const t1 = performance.now();
  await new Promise((resolve) => { const tick = () => (saved() ? resolve() : setTimeout(tick, 1)); tick(); });
  return {sync: t1 - t0, saved: performance.now() - t0};
}"""


def build(records: int, out: Path) -> Path:
    from mercury_static.pipeline.steps import BuildOptions, build as build_bundle

    demo = [json.loads(line) for line in (REPO / "examples" / "demo.jsonl").read_text(encoding="utf-8").splitlines() if line]
    rows = [{**demo[i % len(demo)], "id": f"r{i:05d}"} for i in range(records)]
    src = out / "large.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    bundle = out / "bundle"
    build_bundle([src], bundle, BuildOptions(cache_dir=REPO / ".cache" / "test-models", labels=REPO / "examples" / "labels.yaml"))
    return bundle


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--annotations", type=int, default=2_000)
    ap.add_argument("--changes", type=int, default=40)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from mercury_static.bundle.serve import BundleServer

    with tempfile.TemporaryDirectory() as tmp:
        bundle = build(args.records, Path(tmp))
        manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
        server = BundleServer(bundle, "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/?annotator=bench"
        ids = [f"r{i:05d}" for i in range(0, args.records, max(1, args.records // 1000))][:1000]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=ARGS)
            page = browser.new_page()
            page.route("**/models/**", lambda route: route.abort())
            page.goto(url + "#record=r09999")
            page.wait_for_selector("body[data-ready]")
            page.evaluate(SEED_JS, [f"mercury-static:v1:{manifest['bundle_id']}:bench", ids, args.annotations])
            page.reload()
            page.wait_for_selector("body[data-ready]")
            n = query(page, "() => { const r = pd.entries(); return Object.values(r)"
                              ".reduce((n, e) => n + Object.keys(e.annotations).length, 0); }")
            assert n >= args.annotations, n
            rows = {kind: [query(page, CHANGE_JS, kind) for _ in range(args.changes)] for kind in ("label", "save")}
            browser.close()
        server.shutdown()
    print(f"{args.records} records, {n} annotations stored, {args.changes} changes each (ms, p50 / p95 / max)")
    print("| change | main thread (sync) | until \"saved\" (durable) |")
    print("|---|---|---|")
    for kind, label in (("label", "label toggled on the draft"), ("save", "annotation saved")):
        for field in ("sync", "saved"):
            xs = sorted(r[field] for r in rows[kind])
            rows[kind + field] = f"{statistics.median(xs):.1f} / {xs[int(0.95 * (len(xs) - 1))]:.1f} / {xs[-1]:.1f}"
        print(f"| {label} | {rows[kind + 'sync']} | {rows[kind + 'saved']} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
