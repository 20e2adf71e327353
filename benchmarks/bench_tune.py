"""`tune` on FaithBench halves (issue 12 §2): tuned on the gold pairs of half the batches, scored on the other.

    /work/venv/bin/python benchmarks/bench_tune.py [--data ../shared/data]

A bundle of all eight FaithBench batches is built once into benchmarks/out/tune-faithbench (as `build`
does; reused when present). For each direction, ``tune.load_pairs`` reads the Mercury dumps of one half
against it (merge's checks: the pairs a team would have made in the bundle) and ``tune.tune`` fits and
cross-validates there, exactly as `mercury-static tune` does; then the other half is scored by ``eval``'s
path (``evaluate.load_eval_set`` + ``query_rows``) under the untuned options, the tuned ones (whether or
not tune recommended them), and the same fit without shrinkage (strength 0). Δ = paired per-query
difference to untuned, mean [95% interval over queries].
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
HALVES = (("batch_1", "batch_3", "batch_5", "batch_7"), ("batch_9", "batch_11", "batch_14", "batch_16"))


def main() -> None:
    from mercury_static.tune import crossval, tune
    from mercury_static.pipeline.steps import BuildOptions, build
    from mercury_static.tune.evaluate import load_eval_set, query_rows

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    args = parser.parse_args()
    fb = Path(args.data) / "faithbench"
    out = ROOT / "benchmarks" / "out"
    bundle = out / "tune-faithbench"
    if not (bundle / "manifest.json").is_file():
        build(sorted(fb.glob("batch_*.json")), bundle, BuildOptions())
    print("| tuned on (pairs, records) → scored on (queries) | tune's verdict: held-out MRR gain in CV | shrinkage "
          "| untuned MRR / R@1 | tuned MRR / R@1 | Δ MRR | Δ R@1 | unshrunk MRR / R@1 | Δ MRR unshrunk | tuned weights "
          "(dense, context, bm25, context_bm25, entity) |")
    print("|---" * 10 + "|")
    for fit_half, test_half in (HALVES, HALVES[::-1]):
        pairs = tune.load_pairs([fb / f"{b}.json" for b in fit_half], bundle)
        result = tune.tune(pairs)
        free = tune.Fitter(pairs.data, result.current, strengths=(0.0,)).options()[0]
        test = load_eval_set([fb / f"{b}.json" for b in test_half], embed_cache=out / "embeddings")
        rows = {name: query_rows(test, 5, o, controls=False)
                for name, o in (("untuned", result.current), ("tuned", result.tuned), ("free", free))}

        def cell(name: str) -> str:
            return (f"{np.mean([r['rr'] for r in rows[name]]):.3f} / "
                    f"{np.mean([r['r1'] for r in rows[name]]):.3f}")

        def delta(name: str, metric: str) -> str:
            return str(crossval.interval([a[metric] - b[metric] for a, b in zip(rows[name], rows["untuned"])]))

        verdict = ("recommended" if result.recommended else "not recommended") + f", {result.scores['mrr']['gain']}"
        weights = ", ".join(f"{t:.3f}" for _, _, t in result.weights())
        names = ", ".join(b.removeprefix("batch_") for b in fit_half)
        tests = ", ".join(b.removeprefix("batch_") for b in test_half)
        print(f"| {names} ({result.pairs}, {result.records}) → {tests} ({len(test.queries)}) | {verdict} "
              f"| {result.strength:g} | {cell('untuned')} | {cell('tuned')} | {delta('tuned', 'rr')} "
              f"| {delta('tuned', 'r1')} | {cell('free')} | {delta('free', 'rr')} | {weights} |", flush=True)


if __name__ == "__main__":
    main()
