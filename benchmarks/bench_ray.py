"""`build --engine ray` against `--engine local` (issue 15 §3): throughput with 1 and 2 workers, Ray's
overhead on a small input.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_ray.py [--rounds 2] [--no-write]

Inputs: the demo (examples/demo.jsonl, 172 sentences: Ray's fixed cost) and every FaithBench batch of
../shared/data/faithbench. Each build runs in a child process that adopts its orphans (Ray's workers), so
the CPU column is the whole process tree's. Engines alternate round by round (the machine is shared); the
best round of each is kept. The table is printed and written into benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from results import adopt_orphans, cpu_seconds, reap_all, update_results  # benchmarks/results.py

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Build on Ray (issue 15 §3, bench_ray.py)"
COMMAND = "HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_ray.py"
CONFIGS = [("local", 1), ("local", 2), ("ray", 1), ("ray", 2)]


def child(out: Path, engine: str, workers: int, inputs: list[Path]) -> None:
    """One build here; prints {wall, cpu, sentences} as JSON (the streamed build embeds chunk by chunk, so
    the embedding has no wall time of its own: the build's is reported)."""
    from mercury_static.pipeline.steps import BuildOptions, build

    adopt_orphans()
    t0 = time.perf_counter()
    manifest = build(inputs, out, BuildOptions(engine=engine, workers=workers))
    wall = time.perf_counter() - t0
    reap_all()
    print(json.dumps({"wall": wall, "cpu": cpu_seconds(), "sentences": manifest["counts"]["rows"]}))


def run(engine: str, workers: int, inputs: list[Path]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([sys.executable, __file__, "--child", engine, str(workers), str(Path(tmp) / "b"),
                               *map(str, inputs)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(results: dict, rounds: int) -> str:
    lines = [SECTION, "", f"Command: `{COMMAND} --rounds {rounds}` (best of {rounds} alternating rounds per row; "
             "CPU = the whole process tree, Ray's workers included).", "",
             "| input | engine | workers | build wall | build CPU | sentences/s (build) | wall vs local, same workers |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for name, rows in results.items():
        for (engine, workers), r in rows.items():
            base = rows[("local", workers)]["wall"]
            lines.append(f"| {name} ({r['sentences']:,} sentences) | {engine} | {workers} | {r['wall']:.1f} s | "
                         f"{r['cpu']:.1f} s | {r['sentences'] / r['wall']:,.0f} | "
                         f"{r['wall'] / base:.2f}× |")
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(Path(sys.argv[4]), sys.argv[2], int(sys.argv[3]), [Path(p) for p in sys.argv[5:]])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    args = ap.parse_args()
    faithbench = sorted((ROOT.parent / "shared" / "data" / "faithbench").glob("batch_*.json"))
    inputs = {"demo": [ROOT / "examples" / "demo.jsonl"]}
    if faithbench:
        inputs["FaithBench"] = faithbench
    results: dict = {name: {} for name in inputs}
    for _ in range(args.rounds):
        for name, files in inputs.items():
            for config in CONFIGS:
                r = run(*config, files)
                best = results[name].get(config)
                if best is None or r["wall"] < best["wall"]:
                    results[name][config] = r
                print(name, config, f"{r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU", flush=True)
    md = table(results, args.rounds)
    print(md)
    if not args.no_write:
        update_results(SECTION, md)


if __name__ == "__main__":
    main()
