"""Ranker benchmark (issue 6): quality of every ranker configuration tried, and JS ranking latency.

    /work/venv/bin/python benchmarks/bench_eval.py quality [--data ../shared/data] [--summhay news1]
    /work/venv/bin/python benchmarks/bench_eval.py latency [--sentences 3500] [--repeat 30]

quality: FaithBench (all batches) and one SummHay topic are indexed once (``evaluate.load_eval_set``: the
build's split, embedding rows and stored (float16) vectors; embeddings cached on disk), then every configuration in
CONFIGS is scored on the same queries. Prints a Markdown table (the one in benchmarks/RESULTS.md).

latency: headless Chromium loads ``site_template/app/rank.js`` from a loopback server and ranks the first
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

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
NO_DAMPING = {"span_idf_mass": 0.0, "dense_idf_mass": 0.0}
COSINE = {"w_dense": 1.0, "w_context": 0.0, "w_lexical": 0.0, "w_context_lexical": 0.0, "neighbor": 0.0, "prefix": 0,
          "position": 0.0, **NO_DAMPING}
V1 = {"position": 0.0, **NO_DAMPING}  # fused-v1 = today's default without the position prior and the damping
V2 = NO_DAMPING  # fused-v2 = today's default without the span damping
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
    ("fused-v2 + span lexical damped, span_idf_mass 10", {"dense_idf_mass": 0.0, "span_idf_mass": 10.0}),
    ("fused-v2 + span lexical damped, span_idf_mass 20", {"dense_idf_mass": 0.0}),
    ("fused-v2 + span lexical damped, span_idf_mass 30", {"dense_idf_mass": 0.0, "span_idf_mass": 30.0}),
    ("fused-v2 + both span terms damped, 10 / 4", {"span_idf_mass": 10.0}),
    ("fused-v2 + both span terms damped, 20 / 8", {"dense_idf_mass": 8.0}),
    ("**default** fused-v3 (fused-v2 + both span terms damped, 20 / 4)", {}),
]


def _mrr(groups: dict, batches: tuple[str, ...]) -> float:
    rows = [groups[f"{b} · span"] for b in batches if f"{b} · span" in groups]
    return sum(g.mrr * g.queries for g in rows) / max(1, sum(g.queries for g in rows))


def quality(args) -> None:
    from mercury_static.evaluate import load_eval_set, score_eval_set

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
  const { rankSentences, prepareSentences } = await import('./app/rank.js');
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

    from mercury_static.read import read_records
    from mercury_static.segment import split_sentences
    from mercury_static.serve import BundleServer

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
    parser.add_argument("what", choices=["quality", "latency"])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--summhay", default="news1")
    parser.add_argument("--sentences", type=int, default=3500)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    quality(args) if args.what == "quality" else latency(args)


if __name__ == "__main__":
    main()
