"""Annotator-page latencies in headless Chromium (issue 3, and the long-text figures of issue 5).

Measures, on a bundle built from ../shared/data/faithbench (built once, cached in .cache/bench/), and on a
second one built with ``--ranker-option selection=span`` (the selection's vector before its tokens: the span
embedded alone; its rows say "selection=span", so before and after show in the same run):
- time to the first readable record (navigation start -> first record painted), cold, several runs,
  with the main thread's CPU time over that interval (from a Chromium trace: on a shared machine the
  wall time includes waiting for a core, the CPU time does not);
- model ready time (navigation start -> in-browser model answered a first call);
- selection -> highlight latency, p50/p95, using the summary spans of FaithBench's human annotations as
  selections: the precomputed path (synchronous, DOM updated) and the model path with the span embedded
  in the worker (selection=span), and the model path from the selection's tokens once the record's rows
  are run (the page runs them in idle time; the bench waits for them, as a reading annotator does), each
  with its main-thread CPU (the thread time of the trace's marks at the mouse-up and at the answer);
- a selection made 300 ms after a record's texts show (opened by a hash change, the model ready): time
  to its first highlight and to its answer from the tokens (at once, or a refinement);
- the cold first highlight: a fresh context, a summary span selected at the first paint; navigation
  start -> its first highlight (with main-thread CPU), -> the model's first answer, -> the answer from
  its tokens;
- the same selections on the longest source of a SummHay topic bundle (first paint of a ~3,500-sentence
  source), whole summary bullets and their halves (the halves of two or more words, what annotators
  select, apart from the one-character halves of citation markers);
- beside each model path, the original Mercury's path for the same selections (benchmarks/mercury_server.py:
  a page of a loopback server POSTs the span, sentence-transformers embeds it, kNN, JSON), and the ratio;
  on the long source also from the annotator page itself (the server serves the bundle: the same page,
  clear, selection, draft and highlights as the page's model path, only the engine differs).

Usage:  python benchmarks/bench_page.py [--records 60] [--runs 5] [--opening-records 20] [--no-long]
            [--no-mercury] [--no-span] [--no-opening] [--no-cold-highlight]
        python benchmarks/bench_page.py --screenshot docs/screenshot.png   (demo bundle, README picture)
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # the page is reached through the tests' driver, as the tests reach it

from pagedriver import clear, init_script, query, wait_model, wait_model_settled  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
CACHE = REPO / ".cache" / "bench"
MODEL_CACHE = REPO / ".cache" / "test-models"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]

SELECT_JS = """async ([side, start, end, tag]) => {
  const pane = pd.pane(side);
  const range = pane.rangeFor(start, end);
  // pressed in the text first, as a drag is (a mouse-up alone does not take a span taken already)
  range.startContainer.parentElement.dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));
  const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
  let answered = null;
  const model = new Promise((resolve) => {
    const un = pd.watch(() => { // at every change of the page's state, as the page's own views are
      const a = pd.assist(), q = a.query; // the span as the page took it (a selection may snap to words)
      if (a.kind === 'model' && q && q.side === side && q.start < end && q.end > start) {
        un(); answered = performance.now(); if (tag !== undefined) performance.mark('bench-answer:' + tag); resolve(answered);
      }
    });
    setTimeout(() => { un(); resolve(null); }, 5000);
  });
  if (tag !== undefined) performance.mark('bench-select:' + tag); // the trace's thread time at both: main-thread CPU
  const t0 = performance.now();
  pane.scroller.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
  await null; // the assistant answers in a microtask after the store takes the selection; a worker's answer comes in a task
  const t1 = performance.now();
  const atOnce = answered !== null; // the model's answer before any task: no worker call
  const lit = document.querySelectorAll('.s[data-rank]').length;
  const t2 = await model;
  return {pre: t1 - t0, model: t2 === null ? null : t2 - t0, lit, atOnce};
}"""

# Resolves when the open record's texts have every embedding row's tokens run (the summary, and the source
# where the page runs a short one's when the record opens: assist.js WARM_SOURCE_ROWS), false after `ms`.
TOKENS_WARM_JS = """async (ms) => {
  const rec = pd.record(), t = performance.now();
  const views = rec.source.rows.length <= 300 ? [rec.summary, rec.source] : [rec.summary];
  while (performance.now() - t < ms) {
    if (views.every((v) => v.tokenRows && v.tokenRows.every(Boolean))) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}"""

# A selection of [start, end) in the `side` pane of the open record, followed until the answer from its
# tokens (`tokens`, given up 3 s after the model's first answer; else the model's answer): performance.now()
# of the mouse-up (t0), of the first answer with highlights drawn (first), of the first model answer (model)
# and of the first answer from the selection's tokens (refined, or at once with its rows run). `onFirst(t)`
# at the first highlight. The span as the page took it: a selection may snap to words.
WATCH_SELECT_JS = """(side, start, end, tokens, onFirst) => new Promise((resolve) => {
  const pane = pd.pane(side), view = pd.record()[side];
  const out = {t0: null, first: null, firstKind: null, model: null, tokens: null};
  const rowsRun = (q) => { const rows = view.rowsOf(view.sentencesIn(q.start, q.end));
    return rows.length > 0 && rows.every((r) => view.tokenRows[r]); };
  let timer = null;
  const un = pd.watch(() => {
    const a = pd.assist(), q = a.query;
    if (!q || q.side !== side || q.start >= end || q.end <= start) return; // as taken (snapped to words)
    const t = performance.now();
    if (out.first === null && a.results.length && document.querySelector('.s[data-rank]')) {
      out.first = t; out.firstKind = a.kind; if (onFirst) onFirst(t);
    }
    if (a.kind === 'model' && out.model === null) {
      out.model = t;
      if (tokens) { clearTimeout(timer); timer = setTimeout(finish, 3000); } // the tokens follow within ms, or never
    }
    if (a.kind === 'model' && out.tokens === null && (a.refined || rowsRun(q))) out.tokens = t;
    if ((tokens ? out.tokens : out.model) !== null) finish(); // drawn by now, if it draws at all
  });
  const finish = () => { un(); clearTimeout(timer); resolve(out); };
  timer = setTimeout(finish, 20000);
  const range = pane.rangeFor(start, end);
  range.startContainer.parentElement.dispatchEvent(new MouseEvent('mousedown', {bubbles: true}));
  const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
  out.t0 = performance.now();
  pane.scroller.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
})"""


def refresh_page(out: Path) -> None:
    """Put the current page (index.html + the packed app/) into a cached bundle, as `build` would."""
    import tempfile

    from mercury_static.bundle.page import SOURCES, pack, write_index
    from mercury_static.bundle.precompress import write_siblings

    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    shutil.rmtree(out / "app")
    with tempfile.TemporaryDirectory() as tmp:
        write_index(out, manifest, pack(SOURCES, Path(tmp)))
    write_siblings(out, MODEL_CACHE / "compressed")


def build_cached(name: str, inputs: list[Path], rebuild: bool = False, **options) -> Path:
    """Build a bundle once into .cache/bench/NAME (data reused; the page files refreshed every run)."""
    from mercury_static.pipeline.steps import BuildOptions, build

    out = CACHE / name
    if rebuild or not (out / "manifest.json").is_file():
        print(f"building {name} bundle from {len(inputs)} file(s)…", file=sys.stderr)
        if out.exists():
            shutil.rmtree(out)
        build(inputs, out, BuildOptions(cache_dir=MODEL_CACHE, **options))
    else:
        refresh_page(out)
    return out


def serve(directory: Path):
    from mercury_static.bundle.serve import BundleServer

    server = BundleServer(directory, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def open_page(browser, url: str):
    ctx = browser.new_context(viewport={"width": 1500, "height": 900})
    page = ctx.new_page()
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    page.keyboard.press("Escape")
    return ctx, page


def mark(page, name: str, timeout: float = 60.0) -> float | None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        t = page.evaluate("(n) => { const m = performance.getEntriesByName(n); return m.length ? m[0].startTime : null; }", name)
        if t is not None:
            return t
        if query(page, "() => pd.modelStatus()") == "failed":
            return None
        time.sleep(0.05)
    return None


def main_thread_cpu(trace: bytes, until_mark: str) -> float:
    """CPU ms of the page's main-thread tasks that ran between navigation start and a performance mark."""
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    end = next(e for e in events if e.get("name") == until_mark and "user_timing" in e.get("cat", ""))
    start = max((e["ts"] for e in events if e.get("name") == "navigationStart" and e["pid"] == end["pid"]
                 and e["ts"] <= end["ts"]), default=0)
    main = {e["tid"] for e in events if e.get("name") == "thread_name" and e["pid"] == end["pid"]
            and e["args"].get("name") == "CrRendererMain"}
    return sum(e.get("tdur", 0) for e in events
               if e.get("name") == "RunTask" and e.get("ph") == "X" and e["pid"] == end["pid"]
               and e["tid"] in main and start <= e["ts"] and e["ts"] + e.get("dur", 0) <= end["ts"]) / 1000


# A cold load is left alone for this long before the first Playwright call reads its marks: any
# page.evaluate / wait_for_* injects Playwright's utility script, 10-20 ms of main-thread work in the
# middle of the load being measured (a user's tab has none).
QUIET_S = 2.0


def open_cold(browser, target: str, trace: bool, init: str | None = None):
    """A fresh context (with the init script `init`) loading `target`, traced if asked, untouched until
    QUIET_S: (ctx, page)."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 900})
    if init:
        ctx.add_init_script(init)
    page = ctx.new_page()
    if trace:
        browser.start_tracing(page=page, categories=["devtools.timeline", "disabled-by-default-devtools.timeline",
                                                       "blink.user_timing"])
    page.goto(target, wait_until="commit")
    time.sleep(QUIET_S)
    return ctx, page


def cold_load(browser, target: str, trace: bool):
    """One load in a fresh context, untouched until QUIET_S: (ctx, page, first-paint ms, main-thread CPU ms)."""
    ctx, page = open_cold(browser, target, trace)
    first = mark(page, "mercury-first-paint")
    cpu = main_thread_cpu(browser.stop_tracing(), "mercury-first-paint") if trace else None
    return ctx, page, first, cpu


def cold_loads(browser, url: str, runs: int, record: str | None = None):
    """(first-paint wall ms, its main-thread CPU ms, model-ready ms) over `runs` pairs of fresh contexts:
    wall times from untraced loads (tracing slows the page), CPU from traced ones."""
    first, cpu, ready = [], [], []
    target = url + "?annotator=bench" + (f"#record={record}" if record else "")
    for _ in range(runs):
        ctx, page, wall, _ = cold_load(browser, target, trace=False)
        first.append(wall)
        r = mark(page, "mercury-model-ready")
        if r is not None:
            ready.append(r)
        ctx.close()
        ctx, _, _, traced = cold_load(browser, target, trace=True)
        cpu.append(traced)
        ctx.close()
    return first, cpu, ready


def selection_jobs(bundle, max_records: int, long_side: str | None = None, half: bool = False) -> list[tuple[str, str, int, int]]:
    """(record id, side, start, end) of the spans to select: prior-annotation summary spans of the first
    records, or (long_side) sentences of the summary of the record with the longest source — with `half`,
    each one's first half, cut at a space (a part of a sentence: the model's vector is not stored)."""
    jobs: list[tuple[str, str, int, int]] = []
    if long_side:
        rec = max(bundle.records, key=lambda r: len(r.source))
        spans = rec.summary_text.sentences[:40]
        if half:
            text = rec.summary
            spans = [(s, max(s + 1, text.rfind(" ", s, (s + e) // 2))) for s, e in spans]
        return [(rec.id, "summary", s, e) for (s, e) in spans]
    for rec in bundle.records:
        for a in rec.prior_annotations:
            jobs.append((rec.id, "summary", a["summary"]["start"], a["summary"]["end"]))
        if len({j[0] for j in jobs}) >= max_records:
            break
    return jobs


def selection_runs(page, bundle_dir: Path, max_records: int, long_side: str | None = None, half: bool = False,
                   part: tuple[int, int] = (0, 1), warmup: int = 3, tokens: bool = False,
                   cpu: bool = False) -> list[tuple]:
    """Select prior-annotation summary spans (or sentences of a long source); per counted selection, (the
    span's text, precomputed ms, model ms or None, main-thread CPU ms or None, answered at once). `part`
    (i, n): only every n-th selection from the i-th (page_ab.py alternates two pages by parts); the first
    `warmup` selections are not counted. `tokens`: each record's rows run first (TOKENS_WARM_JS), so its
    selections are answered from their tokens. `cpu`: the batch is traced (user timing marks only, cheap),
    and a selection's main-thread CPU is the thread time between its marks (mouse-up → model answer)."""
    from mercury_static.bundle.contents import load_bundle

    bundle = load_bundle(bundle_dir)
    jobs = selection_jobs(bundle, max_records, long_side, half)[part[0]::part[1]]
    wait_model_settled(page, timeout=60_000)
    runs, marks = [], None
    current = None
    if cpu:
        page.context.browser.start_tracing(page=page, categories=["blink.user_timing"])
    try:
        for i, (rid, side, s, e) in enumerate(jobs):
            if rid != current:
                query(page, """async (id) => { await pd.goTo(id);
                    const r = pd.record(); await r.source.vectorsReady; await r.summary.vectorsReady; }""", rid)
                current = rid
                if tokens and not query(page, TOKENS_WARM_JS, 60_000):
                    print(f"{bundle_dir.name}: record {rid}: its rows' tokens did not all arrive in 60 s", file=sys.stderr)
            # the page's unit: code points (a page whose TextView has slice()), else UTF-16 (earlier pages, for A/B)
            s, e = query(page, "([side, s, e]) => { const v = pd.pane(side).view;"
                                 " return v.slice ? [s, e] : [v.offsets.to16(s), v.offsets.to16(e)]; }", [side, s, e])
            clear(page)
            r = query(page, SELECT_JS, [side, s, e, i] if cpu else [side, s, e])
            if i >= warmup:  # else a warm-up (JIT, first worker calls); the text from the job's code points
                runs.append([span_text(bundle, rid, side, *jobs[i][2:]), r["pre"], r["model"], i, r.get("atOnce")])
    finally:
        if cpu:
            marks = thread_times(page.context.browser.stop_tracing())
    for r in runs:
        t = marks and marks.get(f"bench-select:{r[3]}"), marks and marks.get(f"bench-answer:{r[3]}")
        r[3] = t[1] - t[0] if t[0] is not None and t[1] is not None else None
    return [tuple(r) for r in runs]


def thread_times(trace: bytes) -> dict[str, float]:
    """Thread time (ms) of the main thread at each user timing mark of a trace, by name."""
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    return {e["name"]: e["tts"] / 1000 for e in events if "user_timing" in e.get("cat", "") and "tts" in e}


def selection_latencies(page, bundle_dir: Path, max_records: int, long_side: str | None = None, half: bool = False,
                        part: tuple[int, int] = (0, 1), warmup: int = 3) -> tuple[list[float], list[float]]:
    """`selection_runs` as (precomputed, model) ms lists (model: the selections the model answered)."""
    runs = selection_runs(page, bundle_dir, max_records, long_side, half, part, warmup)
    return [r[1] for r in runs], [r[2] for r in runs if r[2] is not None]


def column(runs: list[tuple], at: int) -> list[float]:
    return [r[at] for r in runs if r[at] is not None]


def at_once(runs: list[tuple]) -> str:
    """"k/n at once": the selections the model answered before any task ran after the mouse-up (from their
    tokens)."""
    return f"{sum(1 for r in runs if r[4])}/{len(runs)} at once"


def opening_jobs(bundle, n: int, after: int = 0, skip: str | None = None) -> list[tuple[str, str, int, int]]:
    """The first prior-annotation summary span of `n` records with one, from the (after+1)-th (the page
    restores the draft a record was left with, so the records of earlier selection runs are passed over),
    but `skip` (the open one)."""
    jobs, seen = [], set()
    for rid, side, s, e in selection_jobs(bundle, after + n + 1):
        if rid not in seen:
            seen.add(rid)
            if len(seen) > after and rid != skip:
                jobs.append((rid, side, s, e))
    return jobs[:n]


OPENING_JS = """async ([id, side, start, end, delay, tokens]) => {
  const shown = new Promise((resolve) => {
    const check = () => { if (document.body.dataset.record === id) { obs.disconnect(); resolve(performance.now()); } };
    const obs = new MutationObserver(check);
    obs.observe(document.body, {attributes: true, attributeFilter: ['data-record']});
    setTimeout(() => { obs.disconnect(); resolve(null); }, 20000);
  });
  location.hash = '#record=' + encodeURIComponent(id); // as a link or the browser's history opens a record
  const t = await shown;
  if (t === null) return null;
  await new Promise((r) => setTimeout(r, delay));
  const r = await (WATCH_SELECT)(side, start, end, tokens);
  const since = (x) => (x === null ? null : x - r.t0);
  return {first: since(r.first), firstKind: r.firstKind, model: since(r.model), tokens: since(r.tokens), shown: r.t0 - t};
}""".replace("WATCH_SELECT", WATCH_SELECT_JS)


def opening_runs(page, bundle_dir: Path, max_records: int, tokens: bool, after: int = 0,
                 delay: int = 300) -> list[dict]:
    """A selection made `delay` ms after a record's texts are shown (the record opened by a hash change,
    the model ready, the previous record's idle work cut short as an annotator's next record does): per
    record, ms from the selection to its first highlight, to the model's first answer and to the answer
    from its tokens. The record's first prior-annotation summary span, in records from the (after+1)-th
    (opening_jobs); the first record a warm-up."""
    from mercury_static.bundle.contents import load_bundle

    bundle = load_bundle(bundle_dir)
    wait_model_settled(page, timeout=60_000)
    clear(page)
    skip = query(page, "() => pd.record()?.id")
    out = []
    for i, (rid, side, s, e) in enumerate(opening_jobs(bundle, max_records + 1, after, skip)):
        r = query(page, OPENING_JS, [rid, side, s, e, delay, tokens])
        if r is None:
            print(f"{bundle_dir.name}: record {rid} was not shown in 20 s", file=sys.stderr)
        elif i:
            out.append(r)
        clear(page)
    return out


COLD_SELECT_INIT = """(() => {
  if (window.top !== window) return;
  const [side, start, end, tokens] = SPAN_ARGS;
  // at the first paint (cold_load's mark), as an annotator who starts reading at once
  new PerformanceObserver((list, obs) => {
    if (!list.getEntriesByName('mercury-first-paint').length) return;
    obs.disconnect();
    // timed at the event itself, made after the task that drew: `name`-end's trace time bounds the CPU sum
    const later = (name, t) => setTimeout(() => { performance.mark(name, {startTime: t}); performance.mark(name + '-end'); }, 0);
    (WATCH_SELECT)(side, start, end, tokens, (t) => later('bench-first-highlight', t)).then((r) => {
      if (r.model !== null) later('bench-model', r.model);
      if (r.tokens !== null) later('bench-tokens', r.tokens);
      setTimeout(() => performance.mark('bench-done'), 0);
    });
  }).observe({type: 'mark'});
})();"""


def cold_highlight_runs(browser, url: str, bundle_dir: Path, runs: int, tokens: bool) -> dict[str, list[float]]:
    """The cold first highlight: in a fresh context (cold cache), a summary span selected at the first
    paint; ms from navigation start to its first highlight ("first"), to the model's first answer
    ("model") and to the answer from its tokens ("tokens"), and the first highlight's main-thread CPU
    ("cpu"). Wall times from untraced loads, CPU from traced ones (as cold_loads); the selection is made
    by an init script, so Playwright stays out of the load."""
    from mercury_static.bundle.contents import load_bundle

    jobs = opening_jobs(load_bundle(bundle_dir), runs)
    out: dict[str, list[float]] = {"first": [], "model": [], "tokens": [], "cpu": []}
    for i in range(runs):
        rid, side, s, e = jobs[i % len(jobs)]
        target = url + f"?annotator=bench#record={rid}"
        for traced in (False, True):
            ctx, page = open_cold(browser, target, traced, init_script(COLD_SELECT_INIT.replace(
                "SPAN_ARGS", json.dumps([side, s, e, tokens])).replace("WATCH_SELECT", WATCH_SELECT_JS)))
            lit = mark(page, "bench-first-highlight", 30.0)
            if traced:
                trace = browser.stop_tracing()
                if lit is not None:
                    out["cpu"].append(main_thread_cpu(trace, "bench-first-highlight-end"))
            else:
                mark(page, "bench-done", 40.0)
                for name in ("model", "tokens"):
                    t = page.evaluate("(n) => performance.getEntriesByName(n)[0]?.startTime ?? null", f"bench-{name}")
                    if t is not None:
                        out[name].append(t)
                if lit is not None:
                    out["first"].append(lit)
            ctx.close()
    return out


def span_text(bundle, rid: str, side: str, start: int, end: int) -> str:
    rec = bundle.record(rid)
    return (rec.summary if side == "summary" else rec.source)[start:end]


def words(runs: list[tuple], several: bool, at: int = -1) -> list[float]:
    """Figure `at` of the runs whose span has two or more words (`several`), or a single one (a half of a
    sentence with no space before its middle, such as a citation marker: its first character)."""
    return [r[at] for r in runs if r[at] is not None and (len(r[0].split()) > 1) == several]


MERCURY_JS = """async ([text, against]) => {
  const t0 = performance.now();
  const r = await fetch('/search', {method: 'POST', headers: {'Content-Type': 'application/json'},
                              body: JSON.stringify({text, against, k: 5})});
  const answer = await r.json();
  if (!r.ok || !answer.matches.length) throw new Error('mercury server: ' + JSON.stringify(answer));
  return performance.now() - t0;
}"""


MERCURY_PAGE_JS = """async ([side, start, end, against]) => {
  const other = side === 'summary' ? 'source' : 'summary';
  const sel = getSelection(); sel.removeAllRanges(); sel.addRange(pd.pane(side).rangeFor(start, end));
  const t0 = performance.now();
  pd.selectSpan(side, start, end); // the draft takes the span, as the page's own handler does
  const r = await fetch('search', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                   body: JSON.stringify({text: pd.record()[side].slice(start, end),
                                                         against, k: pd.view().k})});
  const answer = await r.json();
  if (!r.ok || !answer.matches.length) throw new Error('mercury server: ' + JSON.stringify(answer));
  pd.showRelated({side: other, query: {side, start, end}, kind: 'model', citation: null, refined: false,
    results: answer.matches.map((m) => ({index: m.sentence, score: m.score})), best: answer.matches[0].score});
  return performance.now() - t0;
}"""


def mercury_page_runs(browser, bundle_dir: Path, model, record: str, half: bool = False,
                      tokens: bool = False) -> list[tuple[str, float]]:
    """Mercury's path from the annotator page itself: the loopback server also serves the bundle, and the
    page takes the span into the draft, POSTs it, and lights the server's matches through the store, as a
    Mercury-style client of this page would (the page's own assistant stopped, so it does no work of its own). The
    same clear, selection, draft and highlights as the page's model path; only the engine differs.
    (span text, ms from the draft to the answer in the store) per selection of the long source's
    summary; 3 warm-ups. `tokens`: the page's idle work on the record's rows (TOKENS_WARM_JS) is let finish
    first, as the page's own token rows are."""
    from mercury_server import MercuryServer, bundle_index

    from mercury_static.bundle.contents import load_bundle

    bundle = load_bundle(bundle_dir)
    server = MercuryServer(model, bundle_index(bundle_dir), directory=bundle_dir).start()
    ctx, page = open_page(browser, server.url + f"?annotator=bench-mercury#record={record}")
    try:
        wait_model_settled(page, timeout=60_000)
        query(page, """async () => { const r = pd.record();
            await r.source.vectorsReady; await r.summary.vectorsReady; }""")
        if tokens:
            query(page, TOKENS_WARM_JS, 60_000)
        query(page, "() => pd.stopAssistant()")  # the server answers, not the page's assistant too
        times = []
        for i, (rid, side, s, e) in enumerate(selection_jobs(bundle, 0, "source", half)):
            rec = bundle.record(rid)
            clear(page)
            t = query(page, MERCURY_PAGE_JS, [side, s, e, rec.source_text.id])
            if i >= 3:
                times.append((span_text(bundle, rid, side, s, e), t))
        return times
    finally:
        ctx.close()
        server.shutdown()
        server.server_close()


def mercury_latencies(page, bundle_dir: Path, model, max_records: int, long_side: str | None = None,
                      half: bool = False) -> list[float]:
    """`mercury_runs`' ms."""
    return [t for _, t in mercury_runs(page, bundle_dir, model, max_records, long_side, half)]


def mercury_runs(page, bundle_dir: Path, model, max_records: int, long_side: str | None = None,
                 half: bool = False) -> list[tuple[str, float]]:
    """The same selections answered the original Mercury's way (benchmarks/mercury_server.py): a page of
    the loopback server (in the same browser) POSTs the span (sentence-transformers embeds it, kNN over
    the other text's rows) and parses the JSON. (span text, ms from the request to the parsed answer)
    per selection; 3 warm-ups."""
    from mercury_server import MercuryServer, bundle_index

    from mercury_static.bundle.contents import load_bundle

    bundle = load_bundle(bundle_dir)
    server = MercuryServer(model, bundle_index(bundle_dir)).start()
    mercury_page = page.context.new_page()
    try:
        mercury_page.goto(server.url)
        times = []
        for i, (rid, side, s, e) in enumerate(selection_jobs(bundle, max_records, long_side, half)):
            rec = bundle.record(rid)
            text, other = (rec.summary, rec.source_text) if side == "summary" else (rec.source, rec.summary_text)
            t = mercury_page.evaluate(MERCURY_JS, [text[s:e], other.id])
            if i >= 3:
                times.append((text[s:e], t))
        return times
    finally:
        mercury_page.close()
        server.shutdown()
        server.server_close()


T0 = time.time()


def stage(what: str) -> None:
    """Progress on stderr, with the seconds since the start (the run's parts can be skipped: --help)."""
    print(f"[{time.time() - T0:5.0f} s] {what}", file=sys.stderr, flush=True)


def row(name: str, values: list[float], target: str) -> str:
    if not values:
        return f"| {name} | – | – | – | {target} |"
    return f"| {name} | {statistics.median(values):.1f} | {pct(values, 0.95):.1f} | {len(values)} | {target} |"


MERCURY_ROW = "{}: Mercury-style server path (POST → sentence-transformers → kNN → JSON)"
MERCURY_PAGE_ROW = "{}: Mercury-style path from the annotator page (draft → POST → kNN → highlights in the store)"


def ratio_row(name: str, page: list[float], mercury: list[float]) -> str:
    """p50 and p95 of the page's model path over the Mercury-style path, measured in the same run."""
    if not page or not mercury:
        return f"| {name}: page model path / Mercury path | – | – | – | – |"
    return (f"| {name}: page model path / Mercury path (ratio) | {statistics.median(page) / statistics.median(mercury):.2f}× "
            f"| {pct(page, 0.95) / pct(mercury, 0.95):.2f}× | {len(page)} / {len(mercury)} | – |")


def screenshot(browser, path: Path) -> None:
    demo = build_cached("demo", [REPO / "examples" / "demo.jsonl"], labels=REPO / "examples" / "labels.yaml",
                        guidelines=REPO / "examples" / "guidelines.md", title="Demo")
    server, url = serve(demo)
    ctx, page = open_page(browser, url + "?annotator=alice#record=harbor-lighthouse")
    wait_model(page, timeout=60_000)
    page.evaluate("() => { const m = document.getElementById('ctl-min'); m.value = '0.1';"
                  " m.dispatchEvent(new Event('input')); }")  # show the graded intensities
    for needle, key in (("Guided tours run every afternoon", "1"),):
        s = query(page, "(n) => pd.pane('summary').view.text.indexOf(n)", needle)
        query(page, SELECT_JS, ["summary", s, s + len(needle)])
        page.keyboard.press(key)
        page.keyboard.press("Enter")
    needle = "3.2 million euros"
    s = query(page, "(n) => pd.pane('summary').view.text.indexOf(n)", needle)
    query(page, SELECT_JS, ["summary", s, s + len(needle)])
    page.locator('.s[data-side="source"][data-rank="1"]').click()
    page.keyboard.press("3")
    page.fill("#draft-note", "The source says 2.3 million euros.")
    page.locator("#draft-note").blur()
    page.mouse.move(5, 5)
    time.sleep(0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    ctx.close()
    server.shutdown()
    print(f"wrote {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=60, help="FaithBench records to select spans in")
    ap.add_argument("--runs", type=int, default=5, help="cold page loads")
    ap.add_argument("--opening-records", type=int, default=20,
                    help="records opened for the selection made 300 ms after a record opens")
    ap.add_argument("--no-long", action="store_true", help="skip the SummHay long-source measurements")
    ap.add_argument("--no-span", action="store_true", help="skip the rows of the selection=span bundles (before)")
    ap.add_argument("--no-opening", action="store_true", help="skip the selections made as a record opens")
    ap.add_argument("--no-cold-highlight", action="store_true", help="skip the cold first highlight")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the cached bundles in .cache/bench")
    ap.add_argument("--screenshot", type=Path, help="only write a screenshot of the demo bundle to this path")
    ap.add_argument("--no-mercury", action="store_true", help="skip the Mercury-style server rows")
    args = ap.parse_args()
    if not args.no_mercury and not args.screenshot:
        from mercury_server import load_model

        mercury_model = load_model()

    from playwright.sync_api import sync_playwright

    span = {"ranker": {"selection": "span"}}  # the selection's vector before its tokens: the span embedded alone
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    headless=True, args=ARGS)
        if args.screenshot:
            screenshot(browser, args.screenshot)
            return
        if not (SHARED / "faithbench").is_dir():
            sys.exit("../shared/data/faithbench is absent: nothing to measure")
        lines = ["| measure (ms) | p50 | p95 | n | target |", "|---|---|---|---|---|"]

        fb_inputs = sorted(Path(x) for x in glob.glob(str(SHARED / "faithbench" / "batch_*.json")))
        fb = build_cached("faithbench", fb_inputs, rebuild=args.rebuild, title="FaithBench")
        server, url = serve(fb)
        stage("FaithBench: cold loads")
        first, cpu, ready = cold_loads(browser, url, args.runs)
        stage("FaithBench: selections from the tokens, Mercury's path, selections as a record opens")
        ctx, page = open_page(browser, url + "?annotator=bench")
        tok = selection_runs(page, fb, args.records, tokens=True, cpu=True)
        mercury = [] if args.no_mercury else mercury_latencies(page, fb, mercury_model, args.records)
        opening = [] if args.no_opening else opening_runs(page, fb, args.opening_records, tokens=True,
                                                                      after=args.records)
        ctx.close()
        stage("FaithBench: cold first highlights")
        cold = None if args.no_cold_highlight else cold_highlight_runs(browser, url, fb, args.runs, tokens=True)
        server.shutdown()
        old = old_opening = None
        old_cold = None
        if not args.no_span:
            fb_span = build_cached("faithbench-span", fb_inputs, rebuild=args.rebuild, title="FaithBench", **span)
            stage("FaithBench, selection=span: selections, selections as a record opens, cold first highlights")
            server, url = serve(fb_span)
            ctx, page = open_page(browser, url + "?annotator=bench")
            old = selection_runs(page, fb_span, args.records, cpu=True)
            old_opening = [] if args.no_opening else opening_runs(page, fb_span, args.opening_records,
                                                                               tokens=False, after=args.records)
            ctx.close()
            if not args.no_cold_highlight:
                old_cold = cold_highlight_runs(browser, url, fb_span, args.runs, tokens=False)
            server.shutdown()
        lines += [row("FaithBench: first readable record (cold)", first, "≤ 500"),
                  row("FaithBench: … of which main-thread CPU", cpu, "–"),
                  row("FaithBench: model ready (cold)", ready, "–")]
        if old is not None:
            lines += [row("FaithBench: selection → highlight, precomputed (selection=span)", column(old, 1), "≤ 5"),
                      row("FaithBench: selection → highlight, model (warm; selection=span: the span embedded)",
                          column(old, 2), "≤ 30"),
                      row("FaithBench: … of which main-thread CPU", column(old, 3), "–")]
        lines += [row(f"FaithBench: selection → highlight, model from the tokens (rows run; {at_once(tok)})",
                      column(tok, 2), "≤ 0.5× Mercury"),
                  row("FaithBench: … of which main-thread CPU", column(tok, 3), "–")]
        if mercury:
            lines += [row(MERCURY_ROW.format("FaithBench"), mercury, "–"),
                      ratio_row("FaithBench, from the tokens", column(tok, 2), mercury)]
            if old is not None:
                lines.append(ratio_row("FaithBench, selection=span", column(old, 2), mercury))
        if not args.no_opening:
            label = "FaithBench: selection 300 ms after a record's texts show"
            now = sum(1 for r in opening if r["tokens"] is not None and r["tokens"] == r["first"])
            lines += [row(f"{label} → first highlight", [r["first"] for r in opening if r["first"] is not None], "–"),
                      row(f"{label} → answer from the tokens ({now}/{len(opening)} at once, the others refined)",
                          [r["tokens"] for r in opening if r["tokens"] is not None], "–")]
            if old_opening is not None:
                lines += [row(f"{label} → first highlight (selection=span)",
                              [r["first"] for r in old_opening if r["first"] is not None], "–"),
                          row(f"{label} → model answer (selection=span)",
                              [r["model"] for r in old_opening if r["model"] is not None], "–")]
        if not args.no_cold_highlight:
            label = "FaithBench: cold, navigation start → first highlight of a selection made at first paint"
            for c, how, target in ((cold, "", "≤ 1000"), (old_cold, " (selection=span)", "–")):
                if c is None:
                    continue
                lines += [row(f"{label}{how}", c["first"], target),
                          row(f"FaithBench: … of which main-thread CPU{how}", c["cpu"], "–"),
                          row(f"FaithBench: cold, navigation start → that selection's first model answer{how}",
                              c["model"], "–")]
            if cold is not None:
                lines.append(row(f"FaithBench: cold, navigation start → that selection's answer from the tokens "
                                 f"(came in {len(cold['tokens'])}/{args.runs} runs)", cold["tokens"], "–"))

        if not args.no_long and (SHARED / "summhay" / "topic_news1.json").is_file():
            from mercury_static.bundle.contents import load_bundle

            sh_inputs = [SHARED / "summhay" / "topic_news1.json"]
            sh = build_cached("summhay1", sh_inputs, rebuild=args.rebuild, title="SummHay news1")
            longest = max(load_bundle(sh).records, key=lambda r: len(r.source))
            n_sent = len(longest.source_text.sentences)
            server, url = serve(sh)
            stage("SummHay: cold loads")
            first, cpu, ready = cold_loads(browser, url, args.runs, record=longest.id)
            stage("SummHay: selections from the tokens, Mercury's paths")
            ctx, page = open_page(browser, url + f"?annotator=bench#record={longest.id}")
            whole = selection_runs(page, sh, 0, long_side="source", tokens=True, cpu=True)
            half_runs = selection_runs(page, sh, 0, long_side="source", half=True, tokens=True, cpu=True)
            mercury = [] if args.no_mercury else mercury_latencies(page, sh, mercury_model, 0, long_side="source")
            mercury_half_runs = [] if args.no_mercury else mercury_runs(page, sh, mercury_model, 0, long_side="source",
                                                                         half=True)
            ctx.close()
            server.shutdown()
            in_page = [] if args.no_mercury else [t for _, t in mercury_page_runs(browser, sh, mercury_model, longest.id,
                                                                                  tokens=True)]
            in_page_half_runs = [] if args.no_mercury else mercury_page_runs(browser, sh, mercury_model, longest.id,
                                                                               half=True, tokens=True)
            old_whole = old_half = None
            if not args.no_span:
                sh_span = build_cached("summhay1-span", sh_inputs, rebuild=args.rebuild, title="SummHay news1", **span)
                stage("SummHay, selection=span: selections")
                server, url = serve(sh_span)
                ctx, page = open_page(browser, url + f"?annotator=bench#record={longest.id}")
                old_whole = selection_runs(page, sh_span, 0, long_side="source", cpu=True)
                old_half = selection_runs(page, sh_span, 0, long_side="source", half=True, cpu=True)
                ctx.close()
                server.shutdown()
            label = f"SummHay ({len(longest.source):,} chars, {n_sent:,} sentences)"
            lines += [row(f"{label}: first record painted (cold)", first, "≤ 300 (paint)"),
                      row(f"{label}: … of which main-thread CPU", cpu, "–")]
            if old_whole is not None:
                # the half of a citation-only sentence ("[7][36][85]") is its first character: the two kinds of
                # half are told apart, since the p50 of all of them falls between the two
                lines += [row(f"{label}: selection → highlight, precomputed (selection=span)", column(old_whole, 1), "≤ 50"),
                          row(f"{label}: selection → highlight, model (warm; selection=span)", column(old_whole, 2), "≤ 30"),
                          row(f"{label}: … half-sentence selections, model (warm; selection=span)",
                              column(old_half, 2), "–"),
                          row(f"{label}: … of which spans of two or more words (selection=span)",
                              words(old_half, True, 2), "–"),
                          row(f"{label}: … … of which main-thread CPU", words(old_half, True, 3), "–"),
                          row(f"{label}: … of which one-word spans (selection=span)", words(old_half, False, 2), "–")]
            lines += [row(f"{label}: selection → highlight, model from the tokens (summary rows run; {at_once(whole)})",
                          column(whole, 2), "≤ 30"),
                      row(f"{label}: … half-sentence selections, from the tokens ({at_once(half_runs)})",
                          column(half_runs, 2), "–"),
                      row(f"{label}: … of which spans of two or more words, from the tokens", words(half_runs, True, 2),
                          "≤ 0.5× Mercury"),
                      row(f"{label}: … … of which main-thread CPU", words(half_runs, True, 3), "–"),
                      row(f"{label}: … of which one-word spans (a citation marker's first character), from the tokens",
                          words(half_runs, False, 2), "–")]
            if mercury:
                two = words(half_runs, True, 2)
                lines += [row(MERCURY_ROW.format(label), mercury, "–"),
                          row(MERCURY_ROW.format(f"{label}, half-sentence selections"), [t for _, t in mercury_half_runs], "–"),
                          row(MERCURY_PAGE_ROW.format(label), in_page, "–"),
                          row(MERCURY_PAGE_ROW.format(f"{label}, half-sentence selections"),
                              [t for _, t in in_page_half_runs], "–"),
                          row(MERCURY_PAGE_ROW.format(f"{label}, half sentences of two or more words"),
                              words(in_page_half_runs, True), "–"),
                          ratio_row(f"{label}, whole sentences from the tokens against the server path", column(whole, 2),
                                    mercury),
                          ratio_row(f"{label}, half sentences of two or more words from the tokens against the server "
                                    "path (the same spans)", two, words(mercury_half_runs, True)),
                          ratio_row(f"{label}, half sentences of two or more words from the tokens against Mercury's "
                                    "path in the same page (the same spans)", two, words(in_page_half_runs, True))]
                if old_half is not None:
                    lines += [ratio_row(f"{label}, whole sentences, selection=span, against the server path",
                                        column(old_whole, 2), mercury),
                              ratio_row(f"{label}, half sentences of two or more words, selection=span, against Mercury's "
                                        "path in the same page (the same spans)", words(old_half, True, 2),
                                        words(in_page_half_runs, True))]
        browser.close()
    stage("done")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
