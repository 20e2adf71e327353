"""The review mode's first contested record on a review bundle of 10,000 records x 3 annotators (issue 24).

Builds (once, cached in .cache/bench/) a 10,000-record bundle of pooled FaithBench sentences
(make_large.py --pool: cheap to embed), writes three annotators' exports with 0-3 spans per record (random
word spans, labels drawn so that they disagree), runs `review` on them, then opens the review bundle in
headless Chromium, cold, several times: navigation start -> the first contested record drawn (performance
mark `mercury-review-first-record`, set once its texts and every annotator's spans are in the DOM), and the
switch to the next record (`n` -> the next record's spans drawn).

Usage:  python benchmarks/bench_review_page.py [--records 10000] [--runs 5]
        python benchmarks/bench_review_page.py --screenshot docs/screenshot-review.png   (the demo, for the docs)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_page import ARGS, CACHE, MODEL_CACHE, QUIET_S, REPO, build_cached, main_thread_cpu, serve  # noqa: E402
from make_large import make_pool  # noqa: E402

ANNOTATORS = ["alice", "bob", "carol"]
LABELS = [["Unwanted", "Unwanted.Intrinsic"], ["Unwanted", "Unwanted.Extrinsic"], ["Benign"], ["Questionable"]]


def exports(bundle_dir: Path, out: Path, seed: int = 7) -> list[Path]:
    """Three annotators' export files over every record of the bundle."""
    from mercury_static.bundle.contents import load_bundle

    bundle = load_bundle(bundle_dir)
    rng = random.Random(seed)
    docs = {a: [] for a in ANNOTATORS}
    for rec in bundle.records:
        text = rec.summary_text.text if rec.summary_text else rec.summary
        starts = [0] + [i + 1 for i, c in enumerate(text) if c == " "]
        for a in ANNOTATORS:
            anns = []
            for k in range(rng.randint(0, 3)):
                i = rng.randrange(len(starts))
                s = starts[i]
                e = text.find(" ", starts[min(len(starts) - 1, i + rng.randint(0, 2))])
                e = len(text) if e < 0 else e
                if e <= s:
                    continue
                anns.append({"id": f"{a[0]}{k}", "label": rng.choice(LABELS), "note": "",
                             "summary": {"start": s, "end": e, "text": text[s:e]}, "source": None,
                             "created_at": "2026-12-01T09:00:00Z", "updated_at": "2026-12-01T09:00:00Z"})
            docs[a].append({"record_id": rec.id, "status": "submitted", "updated_at": "2026-12-01T09:00:00Z",
                            "annotations": anns, "responses": {}, "suggestions": {"shown": True, "accepted": {}}})
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for a, records in docs.items():
        path = out / f"{a}.json"
        path.write_text(json.dumps({"format": "mercury-static/annotations", "version": 2,
                                    "bundle_id": bundle.manifest["bundle_id"], "title": None, "annotator": a,
                                    "client_id": "bench", "exported_at": "2026-12-01T12:00:00Z",
                                    "tool_version": "bench", "records": records}), encoding="utf-8")
        paths.append(path)
    return paths


FIRST = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const m = performance.getEntriesByName('mercury-review-first-record')[0];
  return m ? m.startTime - (nav ? nav.startTime : 0) : null;
}"""


DEMO_MARKS = {"alice": (0, 2, LABELS[0], "the source says 2.3 million"), "bob": (1, 3, LABELS[2], "fair paraphrase"),
              "carol": (5, 6, LABELS[3], "")}


def demo_team(out: Path) -> Path:
    """The demo bundle with its settings, three annotators who overlap and disagree, and its review bundle."""
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.review.write_bundle import review_bundle

    bundle_dir = build_cached("review-demo", [REPO / "examples" / "demo.jsonl"], settings=REPO / "examples" / "settings.yaml")
    bundle = load_bundle(bundle_dir)
    docs = {a: [] for a in ANNOTATORS}
    for rec in bundle.records[:8]:
        text = rec.summary_text.text
        starts = [0] + [i + 1 for i, c in enumerate(text) if c == " "]
        ends = [text.find(" ", s) if text.find(" ", s) > 0 else len(text) for s in starts]
        for a, verdict in zip(ANNOTATORS, ["hallucinated", "consistent", "hallucinated"]):
            w0, w1, label, note = DEMO_MARKS[a]
            source = rec.source_text.text
            linked = {"start": 0, "end": source.index(" "), "text": source[:source.index(" ")]} if a == "alice" else None
            anns = [{"id": f"{a[0]}1", "label": label, "note": note, "source": linked,
                     "summary": {"start": starts[w0], "end": ends[w1], "text": text[starts[w0]:ends[w1]]},
                     "created_at": "2026-12-01T09:00:00Z", "updated_at": "2026-12-01T09:00:00Z"}]
            docs[a].append({"record_id": rec.id, "status": "submitted", "updated_at": "2026-12-01T09:00:00Z",
                            "annotations": anns, "responses": {"verdict": verdict, "quality": 2 + ANNOTATORS.index(a)},
                            "suggestions": {"shown": True, "accepted": {}}})
    folder = CACHE / "review-demo-exports"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for a in ANNOTATORS:
        path = folder / f"{a}.json"
        path.write_text(json.dumps({"format": "mercury-static/annotations", "version": 2,
                                    "bundle_id": bundle.manifest["bundle_id"], "title": None, "annotator": a,
                                    "client_id": "demo", "exported_at": "2026-12-01T12:00:00Z",
                                    "tool_version": "demo", "records": docs[a]}), encoding="utf-8")
        paths.append(path)
    review_bundle(paths, bundle_dir, out)
    return out


def screenshot(path: Path) -> None:
    """The review mode on the demo: the first record, alice's annotation accepted, bob's selected, a comment."""
    import shutil
    import tempfile

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        out = demo_team(Path(tmp) / "review")
        server, url = serve(out)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.route("**/models/**", lambda route: route.abort())
            page.goto(url + "?annotator=rita")
            page.wait_for_selector("body[data-ready]")
            for key in ["ArrowDown", "a", "1", "ArrowDown", "c"]:
                page.keyboard.press(key)
                page.wait_for_timeout(150)
            page.keyboard.type("widen it to the whole phrase?")
            page.keyboard.press("Enter")
            page.evaluate("() => { document.querySelector('.side-scroll').scrollTop = 0; }")
            page.wait_for_timeout(300)
            page.screenshot(path=str(path))
            browser.close()
        server.shutdown()
        shutil.rmtree(CACHE / "review-demo-exports", ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--screenshot", type=Path, default=None)
    args = ap.parse_args()
    if args.screenshot:
        screenshot(args.screenshot)
        return
    from playwright.sync_api import sync_playwright

    from mercury_static.review.write_bundle import review_bundle

    name = f"review-pool-{args.records}"
    pool = make_pool(CACHE / f"{name}-input", args.records)
    bundle = build_cached(name, pool, id_field="id")
    review_dir = CACHE / f"{name}-review"
    if not (review_dir / "data" / "review.json").is_file():
        t0 = time.perf_counter()
        review_bundle(exports(bundle, CACHE / f"{name}-exports"), bundle, review_dir)
        print(f"review bundle written in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    else:  # the page files of the cached review bundle: the current page
        from bench_page import refresh_page
        refresh_page(review_dir)
    header = json.loads((review_dir / "data" / "review.json").read_text(encoding="utf-8"))
    server, url = serve(review_dir)
    firsts, cpus, switches, annotating = [], [], [], []
    target = url + "?annotator=rita"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
        for _ in range(args.runs):
            for trace in (False, True):  # wall time untraced; the main thread's CPU time from a traced load
                ctx = browser.new_context(viewport={"width": 1500, "height": 900})
                page = ctx.new_page()
                if trace:
                    browser.start_tracing(page=page, categories=["devtools.timeline", "blink.user_timing",
                                                                   "disabled-by-default-devtools.timeline"])
                page.goto(target, wait_until="commit")
                time.sleep(QUIET_S)  # untouched by Playwright while it loads
                page.wait_for_selector("body[data-ready]")
                if trace:
                    cpus.append(main_thread_cpu(browser.stop_tracing(), "mercury-review-first-record"))
                    ctx.close()
                    continue
                firsts.append(page.evaluate(FIRST))
                first = page.evaluate("() => document.body.dataset.record")
                t0 = time.perf_counter()
                page.keyboard.press("n")
                page.wait_for_function("(id) => document.body.dataset.record && document.body.dataset.record !== id",
                                       arg=first)
                switches.append((time.perf_counter() - t0) * 1000)
                ctx.close()
        # the reference on the same machine at the same time: the annotation page's first record, same bundle
        plain, plain_url = serve(bundle)
        for _ in range(args.runs):
            ctx = browser.new_context(viewport={"width": 1500, "height": 900})
            page = ctx.new_page()
            page.route("**/models/**", lambda route: route.abort())
            page.goto(plain_url + "?annotator=rita", wait_until="commit")
            time.sleep(QUIET_S)
            page.wait_for_selector("body[data-ready]")
            annotating.append(page.evaluate(FIRST.replace("mercury-review-first-record", "mercury-first-record")))
            ctx.close()
        plain.shutdown()
        browser.close()
    server.shutdown()
    load = os.getloadavg()[0]
    sizes = {f: (review_dir / "data" / f).stat().st_size for f in ("review.json", "review-order-0000.json",
                                                                   "review-records-0000.json")}
    print(f"| review bundle: {header['counts']['records']:,} records x {len(header['annotators'])} annotators, "
          f"{header['counts']['annotations']:,} annotations | first contested record "
          f"{statistics.median(firsts):.0f} ms (p50 of {args.runs} cold loads; max {max(firsts):.0f}), main-thread CPU "
          f"{statistics.median(cpus):.0f} ms (the annotation page on the same bundle meanwhile: "
          f"{statistics.median(annotating):.0f} ms) | "
          f"next record {statistics.median(switches):.0f} ms (p50, key press to spans drawn) | "
          f"first files: " + ", ".join(f"{k} {v / 1024:.0f} KB" for k, v in sizes.items()) + f" | load {load:.1f} |")


if __name__ == "__main__":
    if not MODEL_CACHE.is_dir():
        sys.exit(f"{MODEL_CACHE}: the test model cache is missing (make test-models)")
    main()
