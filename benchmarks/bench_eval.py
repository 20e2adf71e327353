"""Ranker benchmark (issue 6): quality of every ranker configuration tried, and JS ranking latency.

    /work/venv/bin/python benchmarks/bench_eval.py quality [--data ../shared/data] [--summhay news1]
    /work/venv/bin/python benchmarks/bench_eval.py latency [--sentences 3500] [--repeat 30]
    /work/venv/bin/python benchmarks/bench_eval.py cv [--folds 10] [--summhay news1 news2 news3] [--only NAME...]
    /work/venv/bin/python benchmarks/bench_eval.py halves
    /work/venv/bin/python benchmarks/bench_eval.py citations [--summhay news1 news2 news3] [--folds 10]

quality: FaithBench (all batches) and one SummHay topic are indexed once (``evaluate.load_eval_set``: the
build's split, embedding rows and stored (float16) vectors; embeddings cached on disk), then every configuration in
CONFIGS is scored on the same queries. Prints a Markdown table (the one in benchmarks/RESULTS.md).

cv (issue 12): FaithBench and the SummHay topics, folds over records of both together (stratified by source
length, ``crossval.assign_folds``); every configuration in CV_CONFIGS is scored per fold; "learned" rows fit
their term weights on the other folds (``crossval.learned_options``). Prints mean [95% interval] over the
folds and the paired difference to fused-v3. Embeddings are cached in benchmarks/out/embeddings.

halves: term weights fitted (logistic / listwise softmax) on one half of the FaithBench batches and scored on
the other half, and the reverse, against the same options untuned.

citations (issue 26): FaithBench and the SummHay topics ranked once with the default options. Per topic, the
bullets that cite documents: P@5 / MRR without and with citations (the cited documents' sentences first),
evidence found inside the cited documents, how often the best match lies outside them and how well that tells
a wrong citation. Then the grade reliability (hit rate of the lit top 5 per grade and source length band):
today's grades (thresholds on the score) against grades of the calibrated probability, fitted per band on the
other folds (the cv folds), the score alone or score and share of the best; and the table fitted on all.

latency: headless Chromium loads ``site_template/app/assist/rank.js`` from a loopback server and ranks the first
N sentences of the SummHay news1 haystack (real texts; random unit vectors, dim 384, which cost the same)
with the default options (query vector, context vector and text, lexical terms, neighbours, position
prior) and plain cosine. A selection is ranked twice, as in the page: the instant answer (the stored vector
of the selection's sentence as query and context vector), then the model's answer (a new span vector, the
same context vector). Reports ``prepareSentences`` (per text, done by the page in idle time), the first
ranking, and the median / p95 of each pass.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import threading
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
NO_DAMPING = {"span_idf_mass": 0.0, "dense_idf_mass": 0.0}
V3 = {"algorithm": "fused-v3", "selection": "span", "norm": "none", "w_dense": 0.25, "w_context": 0.1, "w_lexical": 0.25,
      "w_context_lexical": 0.4, "w_bm25": 0.0, "w_context_bm25": 0.0, "w_entity": 0.0, "span_idf_mass": 20.0,
      "dense_idf_mass": 4.0, "neighbor": 0.4, "position": 0.2, "prefix": 5}
COSINE = {**V3, "w_dense": 1.0, "w_context": 0.0, "w_lexical": 0.0, "w_context_lexical": 0.0, "neighbor": 0.0, "prefix": 0,
          "position": 0.0, **NO_DAMPING}
V1 = {**V3, "position": 0.0, **NO_DAMPING}  # fused-v1 = fused-v3 without the position prior and the damping
V2 = {**V3, **NO_DAMPING}  # fused-v2 = fused-v3 without the span damping
# FaithBench halves (tune / held out) used since the second round: a gain counts if the held-out half shows it
TUNE, HELD_OUT = ("batch_1", "batch_3", "batch_5", "batch_7"), ("batch_9", "batch_11", "batch_14", "batch_16")

CONFIGS: list[tuple[str, dict]] = [
    ("plain cosine (baseline)", COSINE),
    ("lexical only (idf coverage)", {**COSINE, "w_dense": 0.0, "w_lexical": 1.0}),
    ("0.7 cosine + 0.3 lexical", {**COSINE, "w_dense": 0.7, "w_lexical": 0.3}),
    ("0.7 cosine + 0.3 lexical, prefix 5", {**COSINE, "w_dense": 0.7, "w_lexical": 0.3, "prefix": 5}),
    ("context vector only", {**COSINE, "w_dense": 0.0, "w_context": 1.0}),
    ("0.5 cosine + 0.5 context", {**COSINE, "w_dense": 0.5, "w_context": 0.5}),
    ("0.4 cos + 0.3 ctx + 0.3 lex", {**COSINE, "w_dense": 0.4, "w_context": 0.3, "w_lexical": 0.3}),
    ("0.3 cos + 0.3 ctx + 0.2 lex + 0.2 ctx-lex", {**COSINE, "w_dense": 0.3, "w_context": 0.3, "w_lexical": 0.2,
                                                  "w_context_lexical": 0.2}),
    ("same, prefix 5", {**COSINE, "w_dense": 0.3, "w_context": 0.3, "w_lexical": 0.2, "w_context_lexical": 0.2,
                        "prefix": 5}),
    ("same, prefix 5, neighbour 0.4", {**COSINE, "w_dense": 0.3, "w_context": 0.3, "w_lexical": 0.2,
                                       "w_context_lexical": 0.2, "prefix": 5, "neighbor": 0.4}),
    ("fused-v1 without context (page passes none)", {**V1, "w_dense": 0.35, "w_context": 0.0, "w_lexical": 0.65,
                                                     "w_context_lexical": 0.0}),
    ("fused-v1, neighbour 0", {**V1, "neighbor": 0.0}),
    ("fused-v1, neighbour 0.2", {**V1, "neighbor": 0.2}),
    ("fused-v1, prefix 0", {**V1, "prefix": 0}),
    ("fused-v1, prefix 6", {**V1, "prefix": 6}),
    ("fused-v1 (0.25 cos + 0.1 ctx + 0.25 lex + 0.4 ctx-lex, nb 0.4, prefix 5)", V1),
    ("fused-v1 × position prior 0.1", {**V2, "position": 0.1}),
    ("fused-v1 × position prior 0.15", {**V2, "position": 0.15}),
    ("fused-v1 × position prior 0.3", {**V2, "position": 0.3}),
    ("fused-v1 × position prior 0.4", {**V2, "position": 0.4}),
    ("fused-v2, neighbour 0.3", {**V2, "neighbor": 0.3}),
    ("fused-v2 (fused-v1 × position prior 0.2)", V2),
    ("fused-v2 + span lexical damped, span_idf_mass 10", {**V3, "dense_idf_mass": 0.0, "span_idf_mass": 10.0}),
    ("fused-v2 + span lexical damped, span_idf_mass 20", {**V3, "dense_idf_mass": 0.0}),
    ("fused-v2 + span lexical damped, span_idf_mass 30", {**V3, "dense_idf_mass": 0.0, "span_idf_mass": 30.0}),
    ("fused-v2 + both span terms damped, 10 / 4", {**V3, "span_idf_mass": 10.0}),
    ("fused-v2 + both span terms damped, 20 / 8", {**V3, "dense_idf_mass": 8.0}),
    ("fused-v3 (fused-v2 + both span terms damped, 20 / 4)", V3),
    ("fused-v4 (the default before the selection's tokens)", {**V3, "norm": "minmax", "w_dense": 0.25,
                                                           "w_context": 0.25, "w_lexical": 0.0, "w_context_lexical": 0.0,
                                                           "w_bm25": 0.25, "w_context_bm25": 0.25, "w_entity": 1.0}),
    ("**default** fused-v5 (see the cv table)", {}),
]


BLEND = {**V3, "norm": "minmax", "w_dense": 0.25, "w_context": 0.25, "w_lexical": 0.0, "w_context_lexical": 0.0,
         "w_bm25": 0.25, "w_context_bm25": 0.25}
LEARN = "learned"  # marks a configuration whose term weights are fitted per fold (options: the rest)
CV_CONFIGS: list[tuple[str, dict]] = [
    ("plain cosine", {**V3, **COSINE}),
    ("fused-v3", V3),
    ("fused-v3 + numbers 0.15", {**V3, "w_entity": 0.15}),
    ("fused-v3 + numbers 0.3", {**V3, "w_entity": 0.3}),
    ("fused-v3, idf coverage -> BM25 (1.2, 0.75)", {**V3, "w_lexical": 0.0, "w_context_lexical": 0.0,
                                                 "w_bm25": 0.25, "w_context_bm25": 0.4}),
    ("fused-v3 terms, min-max", {**V3, "norm": "minmax"}),
    ("fused-v3 terms, z-score", {**V3, "norm": "zscore"}),
    ("blend: min-max, equal weights, span+ctx cosine + BM25 span+ctx; nb 0, no prior, no damping (issue's)",
     {**BLEND, "neighbor": 0.0, "position": 0.0, **NO_DAMPING}),
    ("blend + fused-v3's nb 0.4, prior 0.2, damping 20 / 4", BLEND),
    ("same, z-score", {**BLEND, "norm": "zscore"}),
    ("same, BM25 (0.9, 0.4)", {**BLEND, "bm25_k1": 0.9, "bm25_b": 0.4}),
    ("same, BM25 (1.5, 0.9)", {**BLEND, "bm25_k1": 1.5, "bm25_b": 0.9}),
    ("same + numbers 0.25", {**BLEND, "w_entity": 0.25}),
    ("same + numbers 0.5", {**BLEND, "w_entity": 0.5}),
    ("**same + numbers 1.0** (fused-v4)", {**BLEND, "w_entity": 1.0}),
    ("same + numbers 1.0, no damping (numbers at full weight)", {**BLEND, "w_entity": 1.0, **NO_DAMPING}),
    ("fused-v4, the selection's tokens in context", {**BLEND, "w_entity": 1.0, "selection": "tokens"}),
    ("same, context cosine 0.1", {**BLEND, "w_entity": 1.0, "selection": "tokens", "w_context": 0.1}),
    ("same, context cosine 0", {**BLEND, "w_entity": 1.0, "selection": "tokens", "w_context": 0.0}),
    ("fused-v4, the mean of the tokens' and the span's vectors", {**BLEND, "w_entity": 1.0, "selection": "blend"}),
    ("same, context cosine 0", {**BLEND, "w_entity": 1.0, "selection": "blend", "w_context": 0.0}),
    ("**same, context cosine 0.1** (fused-v5)", {**BLEND, "w_entity": 1.0, "selection": "blend", "w_context": 0.1}),
    ("learned (logistic, 7 terms), min-max", {**V3, LEARN: True, "norm": "minmax"}),
    ("learned (logistic, 7 terms), z-score", {**V3, LEARN: True, "norm": "zscore"}),
    ("learned (logistic, 7 terms), raw", {**V3, LEARN: True}),
    ("learned (listwise softmax, 7 terms), min-max", {**V3, LEARN: "softmax", "norm": "minmax"}),
]


def cross_validation(args) -> None:
    from mercury_static.tune import crossval
    from mercury_static.tune.evaluate import load_eval_set

    data_dir, cache = Path(args.data), ROOT / "benchmarks" / "out" / "embeddings"
    sets = [load_eval_set(sorted((data_dir / "faithbench").glob("batch_*.json")), embed_cache=cache),
            load_eval_set([data_dir / "summhay" / f"topic_{t}.json" for t in args.summhay], embed_cache=cache)]
    folds = crossval.eval_folds(sets, args.folds)
    cols = [("span", "rr", "FB MRR"), ("span", "r1", "FB R@1"), ("bullet", "p", "bullets P@5"),
            ("bullet", "rr", "bullets MRR"), ("insight", "p", "insights P@5")]
    print(f"{args.folds} folds; queries: FaithBench {len(sets[0].queries)}, SummHay "
          f"{'+'.join(args.summhay)} {len(sets[1].queries)}")
    print("| configuration | " + " | ".join(c for _, _, c in cols) + " | Δ FB MRR | Δ FB R@1 | Δ bullets P@5 |")
    print("|---" * (len(cols) + 4) + "|")
    reference = None
    configs = [c for c in CV_CONFIGS if not args.only or c[0] == "fused-v3" or any(o in c[0] for o in args.only)]
    for name, options in configs:
        if options.get(LEARN):
            base = {k: v for k, v in options.items() if k != LEARN}
            loss = "softmax" if options[LEARN] == "softmax" else "logistic"
            result = crossval.cross_validate(name, sets, folds, args.folds,
                                             crossval.learned_options(sets, folds, base, loss))
            whole = crossval.learned_options(sets, [np.full(len(f), -1) for f in folds], base, loss)(0)
            name += " → on all: " + ", ".join(f"{t} {whole['w_' + t]:.2f}" for t in crossval.TERMS)
        else:
            result = crossval.cross_validate(name, sets, folds, args.folds, options)
        reference = reference or (result if name == "fused-v3" else None)
        deltas = ["–"] * 3 if reference is None else [
            str(result.versus(reference, kind, m)) for kind, m in (("span", "rr"), ("span", "r1"), ("bullet", "p"))]
        print(f"| {name} | " + " | ".join(str(result.summary(k, m)) for k, m, _ in cols) + " | "
              + " | ".join(deltas) + " |", flush=True)


def halves(args) -> None:
    """Term weights fitted on the FaithBench queries of one half of the batches, scored on the other half
    (and the reverse), against the same options untuned: what tuning on a team's own pairs would give."""
    from mercury_static.tune import crossval
    from mercury_static.tune.evaluate import _group_name, load_eval_set, query_rows

    cache = ROOT / "benchmarks" / "out" / "embeddings"
    fb = load_eval_set(sorted((Path(args.data) / "faithbench").glob("batch_*.json")), embed_cache=cache)
    half = np.array([0 if _group_name(r) in TUNE else 1 for _, r in fb.queries])
    print("| base | loss | fitted on → scored on | untuned MRR / R@1 | tuned MRR / R@1 | fitted weights |")
    print("|---|---|---|---|---|---|")
    for base_name, base in (("fused-v4", {}), ("fused-v3", V3)):
        for loss in ("logistic", "softmax"):
            fit = crossval.learned_options([fb], [half], base, loss, max_queries_per_kind=10**6)
            for test, names in ((1, "1, 3, 5, 7 → 9, 11, 14, 16"), (0, "9, 11, 14, 16 → 1, 3, 5, 7")):
                tuned, sub = fit(test), crossval.subset(fb, half == test)
                got = [query_rows(sub, 5, o, controls=False) for o in (base, tuned)]
                cells = [f"{np.mean([r['rr'] for r in rows]):.3f} / {np.mean([r['r1'] for r in rows]):.3f}"
                         for rows in got]
                weights = ", ".join(f"{t} {tuned['w_' + t]:.2f}" for t in crossval.TERMS)
                print(f"| {base_name} | {loss} | {names} | {cells[0]} | {cells[1]} | {weights} |", flush=True)


def citations_and_grades(args) -> None:
    from mercury_static.tune import crossval
    from mercury_static.tune.evaluate import cited_figures, load_eval_set, query_rows
    from mercury_static.assist.rank import DEFAULT_OPTIONS, grade

    data_dir, cache = Path(args.data), ROOT / "benchmarks" / "out" / "embeddings"
    sets = [load_eval_set(sorted((data_dir / "faithbench").glob("batch_*.json")), embed_cache=cache),
            load_eval_set([data_dir / "summhay" / f"topic_{t}.json" for t in args.summhay], embed_cache=cache)]
    folds = crossval.eval_folds(sets, args.folds)
    rows = [query_rows(data, 5, {}, controls=False) for data in sets]
    print("| SummHay bullets citing documents | bullets | P@5 without / with citations | MRR without / with "
          "| evidence in cited | best elsewhere | citation right | check → wrong | wrong → check |")
    print("|---|---|---|---|---|---|---|---|---|")

    def pct(v):
        return "–" if v is None else f"{v:.1%}"

    for topic in [*args.summhay, "all"]:
        group = [r for r in rows[1] if r["kind"] == "bullet" and (topic == "all" or r["group"].startswith(f"topic_{topic}"))]
        c = cited_figures(group)
        print(f"| {topic} | {c['queries']} of {len(group)} | {c['p']:.3f} / {c['cited_p']:.3f} | {c['rr']:.3f} / "
              f"{c['cited_rr']:.3f} | {pct(c['cited_found'])} | {pct(c['best_outside'])} | {pct(c['cited_right'])} "
              f"| {pct(c['signal_precision'])} | {pct(c['signal_recall'])} |", flush=True)
    # the signal with a margin: the best match elsewhere above the best cited one by more than `gap`
    print("\n| best elsewhere by more than | " + " | ".join(f"{t}: flagged, → wrong, wrong →" for t in args.summhay)
          + " |\n|---|" + "---|" * len(args.summhay))
    for gap in (0.0, 0.02, 0.05, 0.1, 0.15):
        cells = []
        for topic in args.summhay:
            group = [r for r in rows[1] if "cited_p" in r and r["group"].startswith(f"topic_{topic}")]
            flagged = [r for r in group if r["cited_gap"] > gap]
            wrong = [r for r in group if not r["cited_right"]]
            cells.append(f"{len(flagged) / len(group):.1%}, {pct(np.mean([not r['cited_right'] for r in flagged]) if flagged else None)}, "
                         f"{pct(np.mean([r['cited_gap'] > gap for r in wrong]) if wrong else None)}")
        print(f"| {gap} | " + " | ".join(cells) + " |", flush=True)
    # grades: the lit top 5 of the page's selections (FaithBench spans, SummHay bullets)
    keep = [[r["kind"] in ("span", "bullet") for r in rs] for rs in rows]
    sel = [r for rs, ks in zip(rows, keep) for r, k in zip(rs, ks) if k]
    fold_of = np.concatenate([f[np.array(ks)] for f, ks in zip(folds, keep)])
    q, n, x, y = crossval.lit_rows(sel)
    fold = fold_of[q]
    band = np.array([crossval.band_of(int(m)) for m in n])
    old = np.array([grade(s, {"calibration": [], "grades": [0.3, 0.45]}) for s in x[:, 0]])
    fits = {f: crossval.calibrated_out_of_fold(n, x, y, fold, args.folds, f) for f in (1, 2)}
    for f, p in fits.items():
        brier = [float(np.mean((p[band == b] - y[band == b]) ** 2)) for b in range(len(crossval.BANDS))]
        loss = [float(-np.mean(y[band == b] * np.log(p[band == b] + 1e-12) + (1 - y[band == b])
                               * np.log(1 - p[band == b] + 1e-12))) for b in range(len(crossval.BANDS))]
        print(f"features {f}: out-of-fold Brier per band " + ", ".join(f"{v:.4f}" for v in brier)
              + "; log loss " + ", ".join(f"{v:.4f}" for v in loss))
    labels = ["≤ 10 sentences", "11–300", "> 300"]
    for name, grades in (("before: score ≥ 0.30 / 0.45 (today)", old),
                         *((f"after: calibrated P(evidence) ≥ {DEFAULT_OPTIONS['grades'][0]} / "
                            f"{DEFAULT_OPTIONS['grades'][1]}, {f} feature{'s' if f > 1 else ''}, out of fold",
                            np.array([grade(v) for v in p])) for f, p in fits.items())):
        print(f"\n{name}\n\n| band | sentences lit | weak: n, hit rate | medium | strong |\n|---|---|---|---|---|")
        for b, label in enumerate(labels):
            cells = []
            for g in (1, 2, 3):
                m = (band == b) & (grades == g)
                cells.append(f"{m.sum()}, {y[m].mean():.1%}" if m.any() else "0, –")
            print(f"| {label} | {(band == b).sum()} | " + " | ".join(cells) + " |")
    for f in (1, 2):
        print(f"fitted on all ({f} feature{'s' if f > 1 else ''}):", crossval.fit_calibration(n, x, y, f))


def _mrr(groups: dict, batches: tuple[str, ...]) -> float:
    rows = [groups[f"{b} · span"] for b in batches if f"{b} · span" in groups]
    return sum(g.mrr * g.queries for g in rows) / max(1, sum(g.queries for g in rows))


def quality(args) -> None:
    from mercury_static.tune.evaluate import load_eval_set, score_eval_set

    data_dir = Path(args.data)
    fb = load_eval_set(sorted((data_dir / "faithbench").glob("batch_*.json")))
    sh = load_eval_set([data_dir / "summhay" / f"topic_{args.summhay}.json"])
    print("| configuration | FB MRR | FB tune / held-out MRR | FB R@1 | FB R@3 | FB nDCG@5 | FB ext. MRR "
          f"| {args.summhay} bullets P@5 | bullets MRR | bullets nDCG@5 | insights P@5 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, options in CONFIGS:
        groups = {g.group: g for g in score_eval_set(fb, 5, options).groups}
        f = groups["ALL · span"]
        s = {g.group.split(" · ")[-1]: g for g in score_eval_set(sh, 5, options).groups}
        b, i = s["bullet"], s["insight"]
        print(f"| {name} | {f.mrr:.3f} | {_mrr(groups, TUNE):.3f} / {_mrr(groups, HELD_OUT):.3f} | {f.recall[1]:.3f} | {f.recall[3]:.3f} | {f.ndcg:.3f} | {f.ext_mrr:.3f} "
              f"| {b.precision:.3f} | {b.mrr:.3f} | {b.ndcg:.3f} | {i.precision:.3f} |", flush=True)


PAGE = """<!doctype html><meta charset="utf-8"><title>rank bench</title>"""

BENCH = """async ({texts, query, repeat, options}) => {
  const { rankSentences, prepareSentences } = await import('./app/assist/rank.js');
  let seed = 1;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  const unit = () => { const v = new Float32Array(384); let n = 0;
    for (let j = 0; j < 384; j++) { v[j] = rnd(); n += v[j] * v[j]; }
    n = Math.sqrt(n); for (let j = 0; j < 384; j++) v[j] /= n; return v; };
  const sentences = texts.map((text, index) => ({ index, text, vectors: [unit()] }));
  const base = { queryText: query, contextText: query, queryPosition: 0.4, sentences, options, k: 10 };
  const tp = performance.now();
  prepareSentences(sentences, options);  // the page does this in idle time when a record opens
  const prepare = performance.now() - tp;
  const instant = [], model = [];
  for (let i = 0; i <= repeat; i++) {  // a selection = two rankings, as in the page:
    const ctx = unit(), span = unit();
    let t0 = performance.now();
    rankSentences({ ...base, queryVec: ctx, contextVec: ctx });  // instant: stored vectors stand for the span
    instant.push(performance.now() - t0);
    t0 = performance.now();
    rankSentences({ ...base, queryVec: span, contextVec: ctx });  // then the model's vector of the span
    model.push(performance.now() - t0);
  }
  return { prepare, instant, model };
}"""


def latency(args) -> None:
    from playwright.sync_api import sync_playwright

    from mercury_static.read.inputs import read_records
    from mercury_static.core.segment import split_sentences
    from mercury_static.bundle.serve import BundleServer

    rec = read_records([Path(args.data) / "summhay" / "topic_news1.json"])[0]
    texts = [rec.source[s:e] for s, e in split_sentences(rec.source)][: args.sentences]
    query = next(b["text"] for b in rec.gold["bullets"] if b["covered_insights"])
    root = Path(tempfile.mkdtemp(prefix="rank-bench-"))
    shutil.copytree(ROOT / "site_template" / "app", root / "app")
    (root / "index.html").write_text(PAGE, encoding="utf-8")
    server = BundleServer(root, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--no-first-run"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_port}/index.html")
            for name, options in (("default", {}), ("plain cosine", COSINE)):
                t = page.evaluate(BENCH, {"texts": texts, "query": query, "repeat": args.repeat,
                                          "options": options})
                inst, model = sorted(t["instant"][1:]), sorted(t["model"][1:])
                print(f"{name}: {len(texts)} sentences: prepareSentences {t['prepare']:.1f} ms, first ranking "
                      f"{t['instant'][0]:.1f} ms, then instant answer median {statistics.median(inst):.1f} ms "
                      f"(p95 {inst[int(0.95 * (len(inst) - 1))]:.1f}), model answer median "
                      f"{statistics.median(model):.1f} ms (p95 {model[int(0.95 * (len(model) - 1))]:.1f})")
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["quality", "latency", "cv", "halves", "citations"])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--summhay", nargs="+", default=None, help="SummHay topics (quality: news1; cv: all three)")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--only", nargs="*", default=[], help="cv: only configurations whose name contains one")
    parser.add_argument("--sentences", type=int, default=3500)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    if args.what == "halves":
        halves(args)
    elif args.what == "citations":
        args.summhay = args.summhay or ["news1", "news2", "news3"]
        citations_and_grades(args)
    elif args.what == "cv":
        args.summhay = args.summhay or ["news1", "news2", "news3"]
        cross_validation(args)
    else:
        args.summhay = (args.summhay or ["news1"])[0]
        quality(args) if args.what == "quality" else latency(args)


if __name__ == "__main__":
    main()
