"""Merge benchmark: 50 export files × 1,000 annotations, validated and merged (target ≤ 2 s).

Scenario `reexports` (default): 10 annotators × 5 re-exports (days) over a 500-record bundle; every file
holds 400 records with 1,000 annotations; each day 20% of an annotator's records change (one annotation
deleted, one added, newer `updated_at`). Scenario `distinct`: 50 annotators × 1 export (all 50,000
annotations distinct, agreement over 1,225 pairs).

Timed: `merge_files` (read + validate every span against the texts + resolve versions + agreement report +
serialise), the bundle load, and for scale the naive scripts a user would write without the tool (keep the
last annotation per id: no validation, no versions, no agreement; pandas only when importable).

    python benchmarks/bench_merge.py [--repeat 5]
    PYTHONPATH=/path/to/pandas python benchmarks/bench_merge.py   # adds the pandas row when importable

CPU time (of this process) is printed beside wall time: on a shared machine wall time mostly measures the
neighbours.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from mercury_static.pipeline.steps import BuildOptions, build
from mercury_static.bundle.contents import load_bundle
from mercury_static.merge.pipeline import merge_files

OUT = Path(__file__).resolve().parent / "out" / "merge"
WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu 1889 Paris Rome 🎉").split()
LABELS = [["Questionable"], ["Benign"], ["Unwanted", "Unwanted.Intrinsic"], ["Unwanted", "Unwanted.Extrinsic"]]
N_RECORDS, RECORDS_PER_FILE = 500, 400
SCENARIOS = {"reexports": (10, 5), "distinct": (50, 1)}  # (annotators, exports per annotator): 50 files


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."


def make_bundle(rng: random.Random) -> Path:
    """Build (once, cached under benchmarks/out) a bundle of synthetic records."""
    bundle_dir = OUT / "bundle"
    if (bundle_dir / "manifest.json").is_file():
        return bundle_dir
    OUT.mkdir(parents=True, exist_ok=True)
    data = OUT / "records.jsonl"
    with data.open("w", encoding="utf-8") as f:
        for i in range(N_RECORDS):
            f.write(json.dumps({"id": f"r{i}", "source": " ".join(sentence(rng) for _ in range(8)),
                                "summary": " ".join(sentence(rng) for _ in range(3))}, ensure_ascii=False) + "\n")
    build([data], bundle_dir, BuildOptions(id_field="id", title="bench-merge"))
    return bundle_dir


def random_span(rng: random.Random, text: str) -> dict:
    words = [(i, i + len(w)) for i, w in _word_spans(text)]
    a = rng.randrange(len(words))
    b = min(len(words) - 1, a + rng.randint(0, 3))
    start, end = words[a][0], words[b][1]
    return {"start": start, "end": end, "text": text[start:end]}


def _word_spans(text: str):
    pos = 0
    for w in text.split(" "):
        yield pos, w
        pos += len(w) + 1


def make_exports(bundle, rng: random.Random, n_annotators: int, n_days: int) -> list[Path]:
    records = {r.id: r for r in bundle.records}
    ids = list(records)
    paths = []
    counter = 0

    def annotation(record_id: str, day: int) -> dict:
        nonlocal counter
        counter += 1
        r = records[record_id]
        stamp = f"2026-11-{20 + day:02d}T10:00:00.000Z"
        return {"id": f"ann-{counter}", "label": rng.choice(LABELS), "note": "",
                "summary": random_span(rng, r.summary),
                "source": random_span(rng, r.source) if rng.random() < 0.5 else None,
                "created_at": stamp, "updated_at": stamp}

    for k in range(n_annotators):
        mine = rng.sample(ids, RECORDS_PER_FILE)
        state = {rid: {"updated_at": "2026-11-20T10:00:00.000Z",
                       "annotations": [annotation(rid, 0) for _ in range(3 if j < 200 else 2)]}
                 for j, rid in enumerate(mine)}
        for day in range(n_days):
            if day:
                for rid in rng.sample(mine, RECORDS_PER_FILE // 5):
                    anns = state[rid]["annotations"]
                    anns.pop(rng.randrange(len(anns)))
                    state[rid] = {"updated_at": f"2026-11-{20 + day:02d}T10:00:00.000Z",
                                  "annotations": anns + [annotation(rid, day)]}
            doc = {"format": "mercury-static/annotations", "version": 1, "bundle_id": bundle.manifest["bundle_id"],
                   "title": "bench", "annotator": f"annotator-{k}", "client_id": f"client-{k}",
                   "exported_at": f"2026-11-{20 + day:02d}T18:00:00.000Z", "tool_version": "0.1.0",
                   "records": [{"record_id": rid, "status": "submitted", **state[rid]} for rid in mine]}
            path = OUT / f"exports-{n_annotators}x{n_days}" / f"annotator-{k}-day-{day}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
            paths.append(path)
    return paths


def naive(paths: list[Path]) -> int:
    """What a user might write: load every file, keep the last copy of each annotation id."""
    kept = {}
    for path in paths:
        for record in json.loads(path.read_text(encoding="utf-8"))["records"]:
            for a in record["annotations"]:
                kept[a["id"]] = dict(a, record_id=record["record_id"])
    return len(kept)


def naive_pandas(paths: list[Path]) -> int:
    """The pandas version: concat every file's annotations, drop duplicate ids (keep the last)."""
    import pandas as pd

    frames = [pd.json_normalize(json.loads(p.read_text(encoding="utf-8"))["records"], record_path="annotations",
                                meta=["record_id"]) for p in paths]
    return len(pd.concat(frames).drop_duplicates("id", keep="last"))


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """Median wall time, median CPU time of this process, and the last value."""
    walls, cpus, value = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        value = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="reexports",
                        help="reexports: 10 annotators x 5 exports; distinct: 50 annotators x 1 export")
    args = parser.parse_args()
    rng = random.Random(7)
    bundle_dir = make_bundle(rng)
    bundle = load_bundle(bundle_dir)
    paths = make_exports(bundle, rng, *SCENARIOS[args.scenario])
    n_annotations = sum(len(r["annotations"]) for p in paths for r in json.loads(p.read_text())["records"])
    size_mb = sum(p.stat().st_size for p in paths) / 1e6

    load = timed(lambda: load_bundle(bundle_dir), args.repeat)
    merged = timed(lambda: merge_files(paths, bundle), args.repeat)
    result = merged[2]
    assert result.exit_code == 0, result.problems[:3]
    c = result.counts
    assert c.read == n_annotations == c.merged + c.duplicate + c.superseded
    rows = [("load_bundle", load, "manifest + records + texts"),
            ("merge_files", merged, f"read {c.read:,}, merged {c.merged:,}, duplicate {c.duplicate:,}, "
                                    f"superseded {c.superseded:,}; agreement over "
                                    f"{result.agreement['overall']['pairs']} pairs")]
    naive_runs = [("naive: json + dict by id", naive)]
    try:
        import pandas  # noqa: F401  (optional: not a dependency of the project)
        naive_runs.append(("naive: pandas concat + drop_duplicates", naive_pandas))
    except ImportError:
        pass
    for name, fn in naive_runs:
        run = timed(lambda: fn(paths), args.repeat)
        rows.append((name, run, f"{run[2]:,} kept (deleted ones resurrected: {run[2] - c.merged:,}); "
                                f"merge_files is {merged[1] / run[1]:.1f}× its CPU time"))

    table = Table(title=f"merge ({args.scenario}): {len(paths)} files, {n_annotations:,} annotations "
                        f"({size_mb:.1f} MB), {len(bundle.records)}-record bundle; medians of {args.repeat}")
    for col in ("step", "wall s", "CPU s", "note"):
        table.add_column(col, justify="left" if col in ("step", "note") else "right")
    for name, (wall, cpu, _), note in rows:
        table.add_row(name, f"{wall:.3f}", f"{cpu:.3f}", note)
    Console().print(table)


if __name__ == "__main__":
    main()
