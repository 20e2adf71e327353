"""Write a generated record index into the folder argv[1]/data (tiny shard limits) and print what a full scan
of its rows answers: the record index test of recordindex.js checks the page's lookups against it.

Run by the Node test itself (with this checkout on PYTHONPATH), so the fixture follows record_index.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mercury_static.bundle.record_index import PREFIX, IndexRow, words, write_index

N, K = 5_000, 40
TOPICS = ["model-a", "Model-B", "cnn", "xsum", "Ünïcode", "日本語"]
QUERIES = ["model", "mo", "ünï", "日本", "𝔯é", "summary", "7", "rec", "part", "model b", "cnn 3", "zzz", "rec-42"]
META = [("topic", ["Model-B"]), ("topic", ["cnn", "xsum"]), ("many", ["y2"]), ("topic", ["none"])]


def rows() -> list[IndexRow]:
    return [IndexRow(id=f"rec-{i}" if i % 97 else f"𝔯é-{i}",
                     title=f"Summary {i} of topic {TOPICS[i % len(TOPICS)]} · part {i % 13}",
                     tags=[TOPICS[i % 5], str(i % 7)], shard=i // 500, text_shards=[i // 300, i // 300 + 1],
                     meta={"topic": TOPICS[i % 4], "score": i % 11, "many": ["x", f"y{i % 3}"]}) for i in range(N)]


def scan(all_rows: list[IndexRow], text: str) -> list[int]:
    def has(r: IndexRow, q: str) -> bool:
        ws = words(" ".join([r.id, r.title, *r.tags]))
        return any(w.startswith(q) if len(q) >= PREFIX else w == q for w in ws)
    return [i for i, r in enumerate(all_rows) if all(has(r, q) for q in words(text))]


def main() -> None:
    all_rows = rows()
    data = Path(sys.argv[1]) / "data"
    data.mkdir()
    write_index(data, all_rows, K, 2_000, visible_meta=["topic", "score", "many"])
    meta = [[i for i, r in enumerate(all_rows)
             if set(values) & set(r.meta[name] if isinstance(r.meta[name], list) else [r.meta[name]])]
            for name, values in META]
    print(json.dumps({"count": N, "size": K, "ids": [r.id for r in all_rows], "titles": [r.title for r in all_rows],
                      "queries": {q: scan(all_rows, q) for q in QUERIES}, "meta": META, "meta_hits": meta},
                     ensure_ascii=False))


if __name__ == "__main__":
    main()
