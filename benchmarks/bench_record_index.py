"""The sharded record index at 1,000,000 records (issue 15 §1): write it, then time the page's lookups.

    /work/main/.venv/bin/python benchmarks/bench_record_index.py [--records 1000000] [--no-write]

Generates FaithBench-like index rows (no texts, no embedding: the build's side is bench_scale.py's),
writes the index with the default limits in a child process (wall time, peak RSS), measures file sizes
against the records.json of the same rows, and times the lookups of site_template/app/data/recordindex.js in
Node (benchmarks/record_index_lookups.mjs: JSON read and parsed from disk, as a page's fetch + parse
without the network). Output under benchmarks/out/ (gitignored); the table goes into RESULTS.md,
section "Sharded record index (bench_record_index.py)".
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from results import update_results  # noqa: E402

OUT = ROOT / "benchmarks" / "out" / "record-index"
SECTION = "## Sharded record index (bench_record_index.py)"
COMMAND = "/work/main/.venv/bin/python benchmarks/bench_record_index.py"
MODELS = [f"model-{c}" for c in "abcdefghijklmnopqrstuvwxy"]


TEXT_VOCAB = 60_000  # distinct words of the texts, Zipf-distributed (s = 1)
TEXT_TOKENS = (120, 520)  # words of a record's two texts: ~160 distinct, the 400 FaithBench records' mean (167)


def faithbench_vocab():
    """The words of the FaithBench records in ../shared/data (their texts), each with the share of records
    that hold it: a record's words drawn by those shares have FaithBench's word count and prefixes."""
    import glob

    import numpy as np

    from mercury_static.read.inputs import read_records
    from mercury_static.bundle.record_index import text_words

    recs = read_records(sorted(glob.glob(str(ROOT.parent / "shared" / "data" / "faithbench" / "batch_*.json"))))
    df: dict[str, int] = {}
    for r in recs:
        for w in set(text_words(r.source)) | set(text_words(r.summary)):
            df[w] = df.get(w, 0) + 1
    vocab = sorted(df)
    return np.array(vocab), np.array([df[w] / len(recs) for w in vocab])


def rows(n: int, texts: bool | str = True):
    """Rows like a FaithBench-scale bundle's: batch-prefixed ids, summary-start titles, model tags, and (unless
    `texts` is false: the index before issue 28 §4) the distinct words of the record's two texts: Zipf over
    generated words with 676 evenly used prefixes, or with `texts="faithbench"` FaithBench's own words."""
    import numpy as np

    from mercury_static.bundle.record_index import IndexRow

    rng = random.Random(0)
    vocab = [f"{rng.choice('bcdfghklmnprst')}{rng.choice('aeiou')}{rng.choice('lmnrst')}{rng.choice('aeiou')}"
             f"{rng.choice('bcdfgkmnprst')}{i}" for i in range(20_000)]
    abc = "abcdefghijklmnopqrstuvwxyz"  # text word i starts with 2 letters of i (676 prefixes), then i
    text_vocab = np.array([f"{abc[i % 26]}{abc[i // 26 % 26]}{i}" for i in range(TEXT_VOCAB)])
    cdf = np.cumsum(1 / np.arange(1, TEXT_VOCAB + 1))
    cdf /= cdf[-1]
    nrng = np.random.default_rng(0)
    fb = faithbench_vocab() if texts == "faithbench" else None
    for i in range(n):
        title = " ".join(rng.choice(vocab) for _ in range(8))[:59] + "…"
        model = MODELS[i % len(MODELS)]
        text_words = ()
        if fb is not None:
            text_words = tuple(fb[0][nrng.random(len(fb[1])) < fb[1]].tolist())
        elif texts:
            ranks = np.unique(np.searchsorted(cdf, nrng.random(nrng.integers(*TEXT_TOKENS))))
            text_words = tuple(text_vocab[ranks].tolist())
        yield IndexRow(id=f"b{i // 5000}:{i % 5000}", title=title, tags=[model, "cnn" if i % 3 else "xsum"],
                       shard=i // 500, text_shards=[i // 900, i // 40], meta={"model": model, "score": i % 5},
                       text_words=text_words)


def child(out: Path, n: int, texts: bool) -> None:
    from mercury_static.bundle.contents import ShardLimits
    from mercury_static.bundle.record_index import write_index

    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    limits = ShardLimits()
    counts = write_index(out, rows(n, texts), limits.index_records, limits.term_postings, visible_meta=["model", "score"],
                         split_bytes=limits.term_split_bytes)
    wall = time.perf_counter() - t0
    use = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"wall_s": round(wall, 1), "cpu_s": round(use.ru_utime + use.ru_stime, 1),
                      "peak_rss_mb": round(use.ru_maxrss / 1024),
                      **counts.__dict__}))


def predicted_layout(n: int, sample: int, texts: bool | str, split_bytes: int, term_postings: int,
                     lookups: Sequence[str]) -> dict:
    """The term shards the writer would write for `n` rows, predicted from the first `sample` rows (the rows
    are drawn independently, so a term's count is `n / sample` times its sample count; the id words are
    counted exactly): the split prefixes (`split_prefixes`), each key's shard, and each shard's JSON length
    from `list_bytes` (the writer's own estimate of a list) plus the keys. For a size too slow to write on a
    loaded machine; checked against a real write at `sample` records (`--predict` with `--records` = `sample`)."""
    from mercury_static.bundle.record_index import (META_SEP, fnv1a, list_bytes, meta_terms, split_prefixes, word_key,
                                                    words)

    scale = n / sample
    counts: dict[str, float] = {}
    all_rows = list(rows(sample, texts))
    for r in all_rows:
        terms = dict.fromkeys(words(" ".join([r.title, *r.tags])))
        terms.update(dict.fromkeys(r.text_words))
        for t in [*terms, *meta_terms({k: r.meta[k] for k in ("model", "score")})]:
            counts[t] = counts.get(t, 0) + scale
    for i in range(0, n, 5000):  # the id words, exact: b{i // 5000} and i % 5000
        counts[f"b{i // 5000}"] = counts.get(f"b{i // 5000}", 0) + min(5000, n - i)
    for j in range(min(n, 5000)):
        counts[str(j)] = counts.get(str(j), 0) + len(range(j, n, 5000))
    wordlist = sorted((t, round(c)) for t, c in counts.items() if META_SEP not in t)
    split = split_prefixes(((t, c) for t, c in sorted(wordlist, key=lambda tc: tc[0].encode())), n, split_bytes)
    chosen = frozenset(split)
    shards = max(1, -(-round(sum(counts.values())) // term_postings))
    size = [0] * shards
    for t, c in counts.items():
        key = t if META_SEP in t else word_key(t, chosen)
        size[fnv1a(key) % shards] += list_bytes(round(c), n) + len(t.encode()) + 4
    unions = dict.fromkeys(split, 0.0)
    for r in all_rows:
        ws = set(words(r.id)) | set(words(" ".join([r.title, *r.tags]))) | set(r.text_words)
        for p in {w[:k] for w in ws for k in range(2, len(w) + 1)} & chosen:
            unions[p] += scale
    for p, c in unions.items():
        size[fnv1a(p) % shards] += list_bytes(round(c), n) + len(p.encode()) + 4
    return {"shards": shards, "split": len(split), "split_json_bytes": len(json.dumps(split, ensure_ascii=False)),
            "max_kb": round(max(size) / 1024, 1),
            "mean_kb": round(sum(size) / shards / 1024, 1), "total_mb": round(sum(size) / 2**20, 1),
            "lookups": {w: round(size[fnv1a(word_key(w, chosen)) % shards] / 1024) for w in lookups},
            "deepest": max(split, key=len) if split else ""}


def records_json_bytes(n: int) -> int:
    """Size of today's data/records.json for the same rows (bundle.write_data's columns)."""
    from mercury_static.bundle.contents import dumps

    cols = {"ids": [], "shard": [], "titles": [], "tags": [], "text_shards": [], "meta": []}
    for r in rows(n, texts=False):
        for k, v in (("ids", r.id), ("shard", r.shard), ("titles", r.title), ("tags", r.tags),
                     ("text_shards", r.text_shards), ("meta", r.meta)):
            cols[k].append(v)
    return len(dumps(cols).encode())


def sizes(data: Path) -> dict:
    def kind(prefix):
        s = [p.stat().st_size for p in data.glob(f"{prefix}-*.json")]
        return {"files": len(s), "mean_kb": round(sum(s) / len(s) / 1024, 1), "max_kb": round(max(s) / 1024, 1)}
    split = len(json.loads((data / "index.json").read_text(encoding="utf-8")).get("split", []))
    return {"top_bytes": (data / "index.json").stat().st_size, "split": split, "index": kind("index"), "ids": kind("ids"),
            "terms": kind("terms"), "total_mb": round(sum(p.stat().st_size for p in data.iterdir()) / 2**20, 1)}


def report(n: int, write: dict, size: dict, before: int, lookups: dict, flags: str = "") -> str:
    first = lookups["first_row"]
    lines = [SECTION, "", f"`{COMMAND} --records {n}{flags}` (generated FaithBench-like rows; default limits: "
             "1,000 records an index shard, 100,000 postings a term shard).", "",
             f"- Write: {write['wall_s']} s (CPU {write.get('cpu_s', '?')} s, rows generated included), peak RSS "
             f"{write['peak_rss_mb']} MB; {write['index_shards']} index, "
             f"{write['id_shards']} ids, {write['term_shards']} term shards, {size['total_mb']} MB in all.",
             f"- Before the first record (records.json): {before / 2**20:.1f} MB in one file. After: "
             f"{first['bytes'] / 1024:.0f} kB in {first['requests']} files (index.json {size['top_bytes']} B + "
             "index shard 0).",
             f"- Shards: index {size['index']['mean_kb']} kB mean ({size['index']['max_kb']} max), ids "
             f"{size['ids']['mean_kb']} kB ({size['ids']['max_kb']}), terms {size['terms']['mean_kb']} kB "
             f"({size['terms']['max_kb']}); {size['split']} split prefixes.", "",
             "| lookup (Node, cold, from disk) | ms | files | kB | of which term shards, kB | answer |",
             "|---|---|---|---|---|---|"]
    for name, r in lookups.items():
        lines.append(f"| {name} | {r['ms']} | {r['requests']} | {r['bytes'] / 1024:.0f} | "
                     f"{r.get('termBytes', 0) / 1024:.0f} | {r['value']} |")
    return "\n".join(lines + [""])


def main() -> None:
    if len(sys.argv) > 4 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), int(sys.argv[3]), {"texts": True, "titles": False}.get(sys.argv[4], sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    ap.add_argument("--titles-only", action="store_true",
                    help="the index before issue 28 §4: ids, titles and tags, not the texts' words")
    ap.add_argument("--faithbench-words", action="store_true",
                    help="the texts' words drawn from FaithBench's (../shared/data): English prefixes")
    ap.add_argument("--predict", type=int, metavar="SAMPLE",
                    help="print the term shards' layout at --records predicted from SAMPLE rows: write nothing")
    args = ap.parse_args()
    kind = "titles" if args.titles_only else "faithbench" if args.faithbench_words else "texts"
    if args.predict:
        from mercury_static.bundle.contents import ShardLimits

        limits = ShardLimits()
        print(json.dumps(predicted_layout(args.records, args.predict, {"texts": True, "titles": False}.get(kind, kind),
                                          limits.term_split_bytes, limits.term_postings,
                                          ["the", "council", "th", "co", "cnn", "model", "con", "re"])))
        return
    data = OUT / f"{args.records}{'' if kind == 'texts' else '-' + kind}" / "data"
    if data.exists():
        for p in data.iterdir():
            p.unlink()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    write = json.loads(subprocess.run([sys.executable, __file__, "--child", str(data), str(args.records),
                                       kind],
                                      check=True, capture_output=True, text=True, env=env).stdout)
    word = "cnn"
    look = subprocess.run(["node", str(ROOT / "benchmarks" / "record_index_lookups.mjs"), str(data.parent),
                           f"b{(args.records - 1) // 5000}:{(args.records - 1) % 5000}", word, "model", "model-c",
                           *(["the", "council"] if kind == "faithbench" else ["aa0", "ik5000"])],
                          check=True, capture_output=True, text=True)
    flags = {"titles": " --titles-only", "faithbench": " --faithbench-words", "texts": ""}[kind]
    markdown = report(args.records, write, sizes(data), records_json_bytes(args.records), json.loads(look.stdout), flags)
    print(markdown)
    if not args.no_write:
        update_results(SECTION, markdown)


if __name__ == "__main__":
    main()
