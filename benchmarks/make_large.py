"""Generate a large benchmark dataset from the shared data (issue 5).

    python benchmarks/make_large.py OUT_DIR [--records 10000] [--shared ../shared/data]

Writes into OUT_DIR (never into the repo's tracked files):
- ``faithbench-variants.json``: a Mercury dump of FaithBench samples repeated with new ids and varied
  summaries (each variant appends a sentence of another sample's summary, so every summary is a
  distinct text made of real sentences), sources shared as in FaithBench;
- ``summhay-small.json``: one subtopic and two summary methods of the first SummHay topic (same
  haystack as the full topic: used to check that bundle size follows distinct text, not records).
The large dataset is ``faithbench-variants.json`` plus the SummHay topic files as they are; the
variants make up the record count to ``--records``. Prints the input paths, one per line.

``--pool`` instead writes ``pool-NNN.jsonl`` files (at most 100,000 records each) for the streaming build's
scale runs (issue 15): FaithBench-like records whose texts come from a limited pool of FaithBench sentences
(``POOL_SENTENCES``), so that embedding stays cheap (rows repeat, and a repeated row is embedded once) while
reading, segmenting, deduplicating and writing still handle every record: each record's summary is a
distinct combination of three pool sentences, its source one of ``POOL_SOURCES`` sources of eight.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mercury_static.read.inputs import read_records

DEFAULT_SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def summhay_files(shared: Path) -> list[Path]:
    return sorted((shared / "summhay").glob("topic_*.json"))


def variant_samples(shared: Path, count: int) -> list[dict]:
    """`count` FaithBench samples: the originals, then variants with a borrowed summary sentence."""
    samples = [s for f in sorted((shared / "faithbench").glob("batch_*.json"))
               for s in json.loads(f.read_text(encoding="utf-8"))["samples"]]
    out = []
    for k in range(count):
        base = samples[k % len(samples)]
        round_ = k // len(samples)
        summary = base["summary"]
        if round_:
            donor = samples[(k * 7919 + round_) % len(samples)]["summary"].strip()
            sentences = [x.strip() for x in donor.replace("\n", " ").split(". ") if x.strip()]
            summary = summary + " " + sentences[round_ % len(sentences)].rstrip(".") + "."
        out.append({**base, "sample_id": k, "summary": summary,
                    "metadata": {**base.get("metadata", {}), "variant": round_, "base_id": base["sample_id"]}})
    return out


POOL_SENTENCES = 3000
POOL_SOURCES = 2000
POOL_FILE_RECORDS = 100_000


def pool_sentences(shared: Path, n: int = POOL_SENTENCES) -> list[str]:
    """The first `n` distinct sentences (cut at ". ") of FaithBench's summaries and sources."""
    seen: dict[str, None] = {}
    for f in sorted((shared / "faithbench").glob("batch_*.json")):
        for s in json.loads(f.read_text(encoding="utf-8"))["samples"]:
            for text in (s["summary"], s["source"]):
                for x in text.replace("\n", " ").split(". "):
                    x = " ".join(x.split()).rstrip(".")
                    if 20 <= len(x) <= 300:
                        seen.setdefault(x + ".", None)
    return list(seen)[:n]


def pool_record(k: int, pool: list[str]) -> dict:
    """Record `k`: distinct summary (three pool sentences chosen by k's digits), a pooled source."""
    n = len(pool)
    src = k % POOL_SOURCES
    summary = " ".join(pool[(k // n**j + 7 * j) % n] for j in range(3)) if k < n**3 else f"{k}. {pool[k % n]}"
    return {"id": f"r{k:07d}", "source": " ".join(pool[(src * 8 + j * 131) % n] for j in range(8)),
            "summary": summary, "summarizer": f"model-{k % 7}", "hhem": round((k * 37 % 1000) / 1000, 3)}


def make_pool(out: Path, records: int, shared: Path = DEFAULT_SHARED) -> list[Path]:
    """Write `records` pool records as JSON Lines files; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    pool = pool_sentences(shared)
    paths = []
    for first in range(0, records, POOL_FILE_RECORDS):
        path = out / f"pool-{first // POOL_FILE_RECORDS:03d}.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for k in range(first, min(records, first + POOL_FILE_RECORDS)):
                f.write(json.dumps(pool_record(k, pool), ensure_ascii=False) + "\n")
        paths.append(path)
    return paths


def make_small_summhay(shared: Path, out: Path) -> Path:
    topic = json.loads(summhay_files(shared)[0].read_text(encoding="utf-8"))
    st = topic["subtopics"][0]
    methods = sorted(st["summaries"])[:2]
    st = {**st, "summaries": {m: st["summaries"][m] for m in methods},
          "eval_summaries": {m: st.get("eval_summaries", {}).get(m, []) for m in methods}}
    path = out / "summhay-small.json"
    path.write_text(json.dumps({**topic, "subtopics": [st]}, ensure_ascii=False), encoding="utf-8")
    return path


def make_large(out: Path, records: int = 10_000, shared: Path = DEFAULT_SHARED) -> list[Path]:
    """Write the generated files into `out`; return the inputs of the large dataset."""
    out.mkdir(parents=True, exist_ok=True)
    topics = summhay_files(shared)
    summhay_count = len(read_records(topics))
    path = out / "faithbench-variants.json"
    samples = variant_samples(shared, max(0, records - summhay_count))
    path.write_text(json.dumps({"samples": samples}, ensure_ascii=False), encoding="utf-8")
    make_small_summhay(shared, out)
    return [path, *topics]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    ap.add_argument("--pool", action="store_true", help="pooled-sentence JSON Lines files (issue 15)")
    args = ap.parse_args()
    for p in (make_pool if args.pool else make_large)(args.out, args.records, args.shared):
        print(p)


if __name__ == "__main__":
    main()
