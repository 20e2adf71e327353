"""Write a generated record index into the folder argv[1]/data (tiny shard limits) and print what a full scan
of its rows answers: the record index test of recordindex.js checks the page's lookups against it.

Run by the Node test itself (with this checkout on PYTHONPATH), so the fixture follows record_index.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mercury_static.bundle.record_index import PREFIX, IndexRow, text_words, words, write_index

N, K = 5_000, 40
SPLIT = 3_000  # bytes: "co" (the texts' words cont0…cont4999, council, could, consider) is split, "con" and
# "cont" too, then "cont1"…"cont4" (1,111 words each); "the" (9 records in 10) is a bitmap
TOPICS = ["model-a", "Model-B", "cnn", "xsum", "Ünïcode", "日本語"]
QUERIES = ["model", "mo", "ünï", "日本", "𝔯é", "summary", "7", "rec", "part", "model b", "cnn 3", "zzz", "rec-42",
           "the", "council", "co", "con", "cont", "cont1", "cont12", "cont4999", "cons", "could", "the council",
           "council cont3", "the cont12", "conz", "c"]
META = [("topic", ["Model-B"]), ("topic", ["cnn", "xsum"]), ("many", ["y2"]), ("topic", ["none"])]


def texts(i: int) -> str:
    """Record i's two texts, as words: a dense word, a heavy prefix's words, one word of its own."""
    return " ".join(["the" if i % 10 else "a", "council" if i % 3 == 0 else "", "could" if i % 2 else "",
                     "consider" if i % 4 == 0 else "", f"cont{i}"])


def rows() -> list[IndexRow]:
    return [IndexRow(id=f"rec-{i}" if i % 97 else f"𝔯é-{i}",
                     title=f"Summary {i} of topic {TOPICS[i % len(TOPICS)]} · part {i % 13}",
                     tags=[TOPICS[i % 5], str(i % 7)], shard=i // 500, text_shards=[i // 300, i // 300 + 1],
                     meta={"topic": TOPICS[i % 4], "score": i % 11, "many": ["x", f"y{i % 3}"]},
                     text_words=text_words(texts(i))) for i in range(N)]


def scan(row_words: list[set[str]], text: str) -> list[int]:
    """The rows having, for every word of `text`, a word it prefixes (a one-character word: that word)."""
    def has(ws: set[str], q: str) -> bool:
        return any(w.startswith(q) for w in ws) if len(q) >= PREFIX else q in ws
    return [i for i, ws in enumerate(row_words) if all(has(ws, q) for q in words(text))]


def main() -> None:
    all_rows = rows()
    data = Path(sys.argv[1]) / "data"
    data.mkdir()
    write_index(data, all_rows, K, 2_000, visible_meta=["topic", "score", "many"], split_bytes=SPLIT)
    lists = {}  # word -> its list's encoding, from the files
    for shard in sorted(data.glob("terms-*.json")):
        terms = json.loads(shard.read_text(encoding="utf-8"))
        for part in ("words", "prefixes"):
            for word, postings in terms[part].items():
                lists[part[0] + ":" + word] = "bitmap" if isinstance(postings, str) else "deltas"
    row_words = [{*words(" ".join([r.id, r.title, *r.tags])), *r.text_words} for r in all_rows]
    meta = [[i for i, r in enumerate(all_rows)
             if set(values) & set(r.meta[name] if isinstance(r.meta[name], list) else [r.meta[name]])]
            for name, values in META]
    print(json.dumps({"count": N, "size": K, "ids": [r.id for r in all_rows], "titles": [r.title for r in all_rows],
                      "queries": {q: scan(row_words, q) for q in QUERIES}, "meta": META, "meta_hits": meta,
                      "split": json.loads((data / "index.json").read_text(encoding="utf-8"))["split"],
                      "lists": {k: lists[k] for k in ("w:the", "w:council", "p:co", "p:con", "p:cont3", "w:cont12")}},
                     ensure_ascii=False))


if __name__ == "__main__":
    main()
