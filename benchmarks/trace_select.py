"""Where a model-path selection's time goes on the long source (issue 29): a Chromium trace of warm
half-sentence selections on the SummHay haystack (3,931 sentences), split per selection.

Each selection is marked in the page (`trace-sel-N` at the mouse-up, `trace-model-N` when the store holds
the model's answer, `trace-frame-N` after the next frame) and the trace is cut at those marks:

- worker: the embedding task on the model's worker thread (its wall and CPU time);
- to the worker / back: from the mouse-up to the worker's task, and from its end to the main thread's task
  that takes the answer (the messaging, and any wait for a busy main thread);
- main thread: the mouse-up handler (the instant answer), the answer's task (ranking + marking), the frames
  between them, and its CPU in the whole window;
- other threads: raster, compositor and V8 helper threads of the renderer (they share the 2 cores).

A second pass with the V8 CPU profiler (sampling every 100 µs; wall times are slower with it on) splits the
main thread's JavaScript by function: ranking (rank.js), marking (rankmarks.js, the minimap), the store.

Usage:  python benchmarks/trace_select.py [--n 20] [--rounds 2] [--base COMMIT] [--gap MS] [--trace-out t.json]
Needs the bundle bench_page.py builds (.cache/bench/summhay1); with --base, the pages of that commit and of
the working tree are traced in alternated rounds on the same bundle (page_ab.py prepares them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_page import ARGS, CACHE, open_page, selection_jobs, serve  # noqa: E402
from pagedriver import clear, query, wait, wait_model  # noqa: E402  (tests/, on the path by bench_page)

MARKED_SELECT_JS = """async ([side, start, end, n]) => {
  const pane = pd.pane(side);
  const range = pane.rangeFor(start, end);
  range.startContainer.parentElement.dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));
  const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
  const model = new Promise((resolve) => {
    const un = pd.watch(() => {
      const a = pd.assist();
      if (a.kind === 'model' && a.query && a.query.start === start) {
        un(); performance.mark('trace-model-' + n); resolve(performance.now());
      }
    });
    setTimeout(() => { un(); resolve(null); }, 5000);
  });
  performance.mark('trace-sel-' + n);
  const t0 = performance.now();
  pane.scroller.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
  const t1 = performance.now();
  const t2 = await model;
  // the frame that shows the model's answer: a rAF, then a task after its paint
  await new Promise((r) => requestAnimationFrame(() => { const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0); }));
  performance.mark('trace-frame-' + n);
  return {handler: t1 - t0, model: t2 === null ? null : t2 - t0, frame: performance.now() - t0};
}"""

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing", "toplevel",
              "v8.execute", "blink", "cc", "gpu", "disabled-by-default-devtools.timeline.frame"]


def prepare_page(page, bundle_dir: Path):
    from mercury_static.bundle.contents import load_bundle

    jobs = selection_jobs(load_bundle(bundle_dir), 0, long_side="source", half=True)
    wait_model(page, timeout=120_000)
    rid = jobs[0][0]
    query(page, """async (id) => { await pd.goTo(id);
        const r = pd.record(); await r.source.vectorsReady; await r.summary.vectorsReady; }""", rid)
    # the blocks' idle-time layout and measure done (on a loaded machine it outlasts the model's start; its
    # idle slices would land in the traced windows of the first selections)
    wait(page, "() => pd.panes().every((p) => !p.root || p.root.dataset.measured)", timeout=120_000)
    return jobs


def run_selections(page, jobs, n0: int, count: int, warmup: int, gap: int = 150) -> list[dict]:
    out = []
    for i, (_, side, s, e) in enumerate(jobs[:warmup + count]):
        clear(page)
        if gap:
            page.wait_for_timeout(gap)  # let the previous frame and any idle work settle (0: as bench_page.py)
        r = query(page, MARKED_SELECT_JS, [side, s, e, n0 + i])
        if i >= warmup:
            r["n"] = n0 + i
            out.append(r)
    return out


def threads(events):
    names = {}
    for e in events:
        if e.get("name") == "thread_name" and e.get("ph") == "M":
            names[(e["pid"], e["tid"])] = e["args"].get("name", "")
    return names


def split(trace: bytes, marks: list[dict]) -> list[dict]:
    """Per selection (trace marks trace-sel-N → trace-model-N → trace-frame-N), the pieces of the path."""
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    names = threads(events)
    user = {e["name"]: e for e in events if "user_timing" in e.get("cat", "") and e["name"].startswith("trace-")}
    pid = next(iter(user.values()))["pid"]
    main = next(t for (p, t), n in names.items() if p == pid and n == "CrRendererMain")
    worker = [t for (p, t), n in names.items() if p == pid and n == "DedicatedWorker thread"]
    tasks = defaultdict(list)  # tid -> [(ts, end, tdur)] top-level tasks of the renderer
    inner = defaultdict(list)  # main-thread events inside tasks, by name
    for e in events:
        if e.get("pid") != pid or e.get("ph") != "X":
            continue
        if e.get("name") in ("RunTask", "ThreadControllerImpl::RunTask"):
            tasks[e["tid"]].append((e["ts"], e["ts"] + e.get("dur", 0), e.get("tdur", e.get("dur", 0))))
        elif e["tid"] == main:
            inner[e["name"]].append(e)
    for tid, t in tasks.items():  # RunTask and ThreadControllerImpl::RunTask nest: keep the outer ones
        t.sort(key=lambda x: (x[0], -x[1]))
        outer = []
        for x in t:
            if not outer or x[0] >= outer[-1][1]:
                outer.append(x)
        tasks[tid] = outer
    rows = []
    for m in marks:
        n = m["n"]
        t0, t2, t3 = (user[f"trace-{k}-{n}"]["ts"] for k in ("sel", "model", "frame"))

        def within(tid, a=t0, b=t2):
            return [x for x in tasks[tid] if x[0] < b and x[1] > a]

        wt = [x for tid in worker for x in within(tid)]
        big = max(wt, key=lambda x: x[1] - x[0]) if wt else None  # the embedding (the worker's long task)
        mt = within(main)
        handler = next((x for x in mt if x[0] <= t0 <= x[1]), None)
        answer = next((x for x in reversed(mt) if x[0] <= t2 <= x[1]), None)
        frames = [x for x in mt if x is not handler and x is not answer]
        paint = sum(e.get("tdur", e.get("dur", 0)) for nm in ("UpdateLayoutTree", "Layout", "Paint", "PrePaint",
                                                               "Layerize", "Commit")
                    for e in inner[nm] if t0 <= e["ts"] <= t2)
        others = sum(x[2] for tid, ts in tasks.items() if tid != main and tid not in worker
                     for x in ts if x[0] < t2 and x[1] > t0)
        ms = lambda v: v / 1000  # noqa: E731
        row = {
            "total (mouse-up → model answer in the store)": ms(t2 - t0),
            "… then to the next frame": ms(t3 - t2),
            "mouse-up handler (instant answer), main": ms(handler[1] - handler[0]) if handler else 0,
            "mouse-up handler, main CPU": ms(handler[2]) if handler else 0,
            "to the worker (mouse-up → embedding starts)": ms(big[0] - t0) if big else 0,
            "embedding, worker wall": ms(big[1] - big[0]) if big else 0,
            "embedding, worker CPU": ms(big[2]) if big else 0,
            "back (embedding ends → answer task starts)": ms(answer[0] - big[1]) if big and answer else 0,
            "answer task (rank + mark), main wall": ms(t2 - answer[0]) if answer else 0,
            "answer task, main CPU": ms(answer[2]) if answer else 0,
            "other main-thread tasks in the window (frames, idle work)": ms(sum(x[2] for x in frames)),
            "… of which style, layout, paint": ms(paint),
            "main-thread CPU in the window": ms(sum(x[2] for x in mt)),
            "worker CPU in the window": ms(sum(x[2] for x in wt)),
            "other renderer threads' CPU (raster, compositor, V8 helpers)": ms(others),
        }
        rows.append(row)
    return rows


CATEGORY_OF = (  # first match in a sample's stack, from the leaf: (category, function names)
    ("ranking", {"rankSentences", "computeMaxCos", "maxCos", "coverage", "bm25", "weighted", "finish", "normaliser",
                 "tokenize", "keyTokens", "prepareSentences", "termWeights", "topK", "rank", "rankPrepared"}),
    ("marking (sentences)", {"markRanked", "setHighlights"}),
    ("minimap", {"show", "_draw", "_drawSoon", "redraw"}),
    ("scroll to best", {"scrollToSentence"}),
    ("store + other subscribers", {"showRelated", "rankingPending", "update", "emit", "notify"}),
)


def profile_split(profile: dict) -> dict[str, float]:
    """ms per category of the main thread's samples over the whole profile (the profiled selections and
    the harness's calls between them, which land in "other JS")."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    parent = {}
    for n in profile["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]

    def category(nid):
        while nid is not None:
            fn = nodes[nid]["callFrame"]["functionName"]
            for cat, fns in CATEGORY_OF:
                if fn in fns:
                    return cat
            nid = parent.get(nid)
        return None

    out: dict[str, float] = defaultdict(float)
    memo = {}
    for nid, dt in zip(profile["samples"], profile["timeDeltas"]):
        if nid not in memo:
            fn = nodes[nid]["callFrame"]["functionName"]
            memo[nid] = "idle" if fn == "(idle)" else "native (no JS: style, layout, paint, messages)" if fn == "(program)" else "gc" if fn == "(garbage collector)" else (
                category(nid) or "other JS")
        out[memo[nid]] += dt / 1000
    return dict(out)


def trace_variant(browser, url: str, bundle: Path, n: int, profile: bool, tag: int, gap: int = 150):
    """Trace (then profile) n warm selections on one page: (rows of split(), profile split per selection, trace)."""
    from mercury_static.bundle.contents import load_bundle

    longest = max(load_bundle(bundle).records, key=lambda r: len(r.source))
    ctx, page = open_page(browser, url + f"?annotator=bench#record={longest.id}")
    jobs = prepare_page(page, bundle)
    run_selections(page, jobs, tag, 0, 3)  # warm-up outside the trace
    browser.start_tracing(page=page, categories=CATEGORIES)
    marks = run_selections(page, jobs[3:], tag + 1000, n, 0, gap)
    trace = browser.stop_tracing()
    rows = split(trace, marks)
    for r, m in zip(rows, marks):
        r["the page's own figure (bench_page's model row)"] = m["model"] or 0
    prof = None
    if profile:
        cdp = ctx.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 100})
        cdp.send("Profiler.start")
        pmarks = run_selections(page, jobs[3:], tag + 2000, n, 0, gap)
        raw = cdp.send("Profiler.stop")["profile"]
        prof = {k: v / len(pmarks) for k, v in profile_split(raw).items()}
    ctx.close()
    return rows, prof, trace


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="selections measured per round (after 3 warm-ups)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds (with --base: variants alternated, order flipped)")
    ap.add_argument("--base", help="git commit of a 'before' page, traced beside the working tree's (page_ab.py)")
    ap.add_argument("--bundle", type=Path, default=CACHE / "summhay1")
    ap.add_argument("--trace-out", type=Path, help="also write the last Chromium trace here")
    ap.add_argument("--no-profile", action="store_true", help="skip the CPU-profiler pass")
    ap.add_argument("--gap", type=int, default=150,
                    help="ms between a clear() and the next selection (0: back to back, as bench_page.py selects)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from bench_page import refresh_page

    if args.base:
        from page_ab import prepare

        dirs = {"before": prepare("before", args.base, False)["summhay1"], "after": prepare("after", None, False)["summhay1"]}
    else:
        refresh_page(args.bundle)
        dirs = {"page": args.bundle}
    servers = {v: serve(d) for v, d in dirs.items()}
    rows: dict[str, list] = {v: [] for v in dirs}
    profs: dict[str, list] = {v: [] for v in dirs}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    headless=True, args=ARGS)
        for i in range(args.rounds):
            order = list(dirs) if i % 2 == 0 else list(dirs)[::-1]
            for v in order:
                r, prof, trace = trace_variant(browser, servers[v][1], dirs[v], args.n, not args.no_profile, 10_000 * i,
                                               args.gap)
                rows[v] += r
                if prof:
                    profs[v].append(prof)
                if args.trace_out:
                    args.trace_out.write_bytes(trace)
        browser.close()
    for server, _ in servers.values():
        server.shutdown()
    names = list(dirs)
    print(f"| per selection, ms, p50 (n {len(rows[names[0]])}; wall unless CPU) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for k in rows[names[0]][0]:
        print(f"| {k} | " + " | ".join(f"{statistics.median(r[k] for r in rows[v]):.1f}" for v in names) + " |")
    if any(profs.values()):
        cats = sorted({c for v in names for p in profs[v] for c in p}, key=lambda c: -sum(p.get(c, 0) for p in profs[names[-1]]))
        print("\n| main thread, CPU profile (sampled every 100 µs; ms per selection, whole run) | "
              + " | ".join(names) + " |")
        print("|---|" + "---|" * len(names))
        for c in cats:
            print(f"| {c} | " + " | ".join(f"{statistics.mean(p.get(c, 0) for p in profs[v]):.2f}" for v in names) + " |")


if __name__ == "__main__":
    main()
