"""`train` on FaithBench halves: the model fine-tuned on the gold pairs of half the batches, scored on the other.

    .venv/bin/python benchmarks/bench_train.py [--data ../shared/data] [--folds 5] [--epochs 2] [--only halves|all]
    .venv/bin/python benchmarks/bench_train.py --only heldout [--direction 0|1] [--epochs 2] [--lr 2e-5]
    .venv/bin/python benchmarks/bench_train.py --only time [--pairs 1000]

A bundle of all eight FaithBench batches is built once into benchmarks/out/tune-faithbench (shared with
bench_tune.py). For each direction, ``tune.load_pairs`` reads the Mercury dumps of one half against it (the
pairs a team would have made in the bundle) and ``train.train`` runs as `mercury-static train` does: the
cross-validation over sources, then the model trained on every pair, exported, and the ranker re-fitted.
The other half is then scored by ``eval``'s path (``evaluate.load_eval_set`` + ``query_rows``) with the
default model and today's ranker, the trained model and today's ranker, and the trained model with the
re-fitted ranker. Δ = paired per-query difference to the default model, mean [95% interval over queries].
Wall and CPU time of each `train` run and the process's peak memory are printed beside it. A last row trains
on all eight batches (what `train` would do with everything here) for the time and the cross-validated gain.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
HALVES = (("batch_1", "batch_3", "batch_5", "batch_7"), ("batch_9", "batch_11", "batch_14", "batch_16"))


def main() -> None:
    from mercury_static.assist.model_export import default_model_path
    from mercury_static.pipeline.steps import BuildOptions, build
    from mercury_static.train.finetune import TrainSettings
    from mercury_static.train.train import train
    from mercury_static.tune import crossval, tune
    from mercury_static.tune.evaluate import load_eval_set, query_rows

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--only", choices=["halves", "all", "time", "heldout"], default=None)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--direction", type=int, choices=[0, 1], default=1,
                        help="heldout: 0 trains on batches 1-7, 1 on batches 9-16")
    parser.add_argument("--pairs", type=int, default=1000, help="time: pairs of the timed training")
    args = parser.parse_args()
    fb = Path(args.data) / "faithbench"
    out = ROOT / "benchmarks" / "out"
    bundle = out / "tune-faithbench"
    if not (bundle / "manifest.json").is_file():
        build(sorted(fb.glob("batch_*.json")), bundle, BuildOptions())
    settings = TrainSettings(epochs=args.epochs, lr=args.lr)
    if args.only == "heldout":
        return heldout(bundle, fb, out, args.direction, settings)
    if args.only == "time":
        return time_training(bundle, sorted(fb.glob("batch_*.json")), args.pairs, settings)
    print("| trained on (pairs) → scored on (queries) | train's CV gain (MRR, over sources) | wall / CPU min "
          "| default model MRR / R@1 | trained MRR / R@1 | Δ MRR | Δ R@1 | trained + re-fitted ranker MRR / R@1 "
          "| Δ MRR | peak RSS GB |")
    print("|---" * 10 + "|")
    directions = [] if args.only == "all" else [HALVES, HALVES[::-1]]
    for fit_half, test_half in directions:
        names = "-".join(b.removeprefix("batch_") for b in fit_half)
        pairs = tune.load_pairs([fb / f"{b}.json" for b in fit_half], bundle)
        wall, cpu = time.monotonic(), time.process_time()
        result = train(pairs, default_model_path(), out / f"train-fb-{names}", settings, args.folds)
        wall, cpu = (time.monotonic() - wall) / 60, (time.process_time() - cpu) / 60
        test_files = [fb / f"{b}.json" for b in test_half]
        base = load_eval_set(test_files, embed_cache=out / "embeddings")
        rows = {"default": query_rows(base, 5, pairs.options, controls=False)}
        if result.model is not None:
            tuned = load_eval_set(test_files, model_path=result.model, embed_cache=out / f"embeddings-{names}")
            rows["trained"] = query_rows(tuned, 5, pairs.options, controls=False)
            rows["refit"] = query_rows(tuned, 5, result.ranker or pairs.options, controls=False)

        def cell(name: str) -> str:
            if name not in rows:
                return "(not written)"
            return f"{np.mean([r['rr'] for r in rows[name]]):.3f} / {np.mean([r['r1'] for r in rows[name]]):.3f}"

        def delta(name: str, metric: str) -> str:
            if name not in rows:
                return "–"
            return str(crossval.interval([a[metric] - b[metric] for a, b in zip(rows[name], rows["default"])]))

        tests = ", ".join(b.removeprefix("batch_") for b in test_half)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"| {names.replace('-', ', ')} ({result.pairs}) → {tests} ({len(base.queries)}) "
              f"| {result.scores['mrr']['gain']} | {wall:.1f} / {cpu:.1f} | {cell('default')} | {cell('trained')} "
              f"| {delta('trained', 'rr')} | {delta('trained', 'r1')} | {cell('refit')} | {delta('refit', 'rr')} "
              f"| {rss:.2f} |", flush=True)
    if args.only != "halves":
        pairs = tune.load_pairs(sorted(fb.glob("batch_*.json")), bundle)
        wall, cpu = time.monotonic(), time.process_time()
        result = train(pairs, default_model_path(), out / "train-fb-all", settings, args.folds)
        wall, cpu = (time.monotonic() - wall) / 60, (time.process_time() - cpu) / 60
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"| all eight ({result.pairs}) → CV only | {result.scores['mrr']['gain']} | {wall:.1f} / {cpu:.1f} "
              f"| {result.scores['mrr']['current']} | {result.scores['mrr']['trained']} | | | | | {rss:.2f} |",
              flush=True)


RANKINGS = {"fused-v5 (today's ranker)": {}, "without the context cosine": {"w_context": 0.0},
            "dense and context only": {"w_bm25": 0.0, "w_context_bm25": 0.0, "w_entity": 0.0},
            "plain cosine, selection tokens": {"selection": "tokens", "w_context": 0.0, "w_bm25": 0.0,
                                               "w_context_bm25": 0.0, "w_entity": 0.0, "neighbor": 0.0,
                                               "position": 0.0},
            "plain cosine, selection span": {"selection": "span", "w_context": 0.0, "w_bm25": 0.0,
                                             "w_context_bm25": 0.0, "w_entity": 0.0, "neighbor": 0.0,
                                             "position": 0.0}}
"""heldout: where the trained model's gain goes (the whole ranker, then its parts)."""


def heldout(bundle: Path, fb: Path, out: Path, direction: int, settings) -> None:
    """One model trained on every pair of one half (no check), the other half ranked under RANKINGS with the
    default and the trained model: Δ = paired per-query MRR difference, mean [95% interval over queries]."""
    from mercury_static.assist import ranker_options
    from mercury_static.assist.model_export import default_model_path
    from mercury_static.train.examples import make_examples
    from mercury_static.train.finetune import fine_tune
    from mercury_static.tune import crossval, tune
    from mercury_static.tune.evaluate import load_eval_set, query_rows

    fit, test = HALVES[direction], HALVES[1 - direction]
    pairs = tune.load_pairs([fb / f"{b}.json" for b in fit], bundle)
    examples = make_examples(pairs.data, range(len(pairs.data.queries)), settings.seed)
    model = out / f"heldout-{direction}-{settings.epochs}-{settings.lr:g}"
    wall, cpu = time.monotonic(), time.process_time()
    if not (model / "model.safetensors").is_file():
        fine_tune(default_model_path(), examples, model, settings)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    files = [fb / f"{b}.json" for b in test]
    base = load_eval_set(files, embed_cache=out / "embeddings")
    trained = load_eval_set(files, model_path=model, embed_cache=out / f"embeddings-{model.name}")
    print(f"trained on {', '.join(fit)} ({len(pairs.data.queries)} pairs, {len(examples)} examples; "
          f"{settings.epochs} epochs, lr {settings.lr:g}; {wall / 60:.1f} min wall, {cpu / 60:.1f} min CPU), "
          f"scored on {', '.join(test)} ({len(base.queries)} queries)")
    print("| ranking | default model MRR | trained MRR | Δ MRR |")
    print("|---|---|---|---|")
    for name, change in RANKINGS.items():
        options = ranker_options.validate({**pairs.options, **change}, name)
        a, b = (query_rows(d, 5, options, controls=False) for d in (base, trained))
        print(f"| {name} | {np.mean([r['rr'] for r in a]):.3f} | {np.mean([r['rr'] for r in b]):.3f} "
              f"| {crossval.interval([y['rr'] - x['rr'] for x, y in zip(a, b)])} |", flush=True)


def time_training(bundle: Path, files: list[Path], n: int, settings) -> None:
    """One training of ``n`` pairs (FaithBench's, cycled) and its export: the final step of `train`, which
    also trains ``--folds`` models of (folds-1)/folds of the pairs for its check."""
    import tempfile

    from mercury_static.assist.model_export import default_model_path, ensure_model
    from mercury_static.train.examples import make_examples
    from mercury_static.train.finetune import fine_tune
    from mercury_static.tune import tune

    pairs = tune.load_pairs(files, bundle)
    examples = make_examples(pairs.data, range(len(pairs.data.queries)), settings.seed)
    examples = [examples[i % len(examples)] for i in range(n)]
    with tempfile.TemporaryDirectory() as scratch:
        wall, cpu = time.monotonic(), time.process_time()
        model = fine_tune(default_model_path(), examples, Path(scratch) / "m", settings)
        trained = time.monotonic() - wall, time.process_time() - cpu
        ensure_model(model, cache_dir=Path(scratch) / "cache")
        total = time.monotonic() - wall, time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print("| pairs | epochs | training wall / CPU min | with the export wall / CPU min | peak RSS GB |")
    print("|---|---|---|---|---|")
    print(f"| {n} | {settings.epochs} | {trained[0] / 60:.1f} / {trained[1] / 60:.1f} "
          f"| {total[0] / 60:.1f} / {total[1] / 60:.1f} | {rss:.2f} |")


if __name__ == "__main__":
    main()
