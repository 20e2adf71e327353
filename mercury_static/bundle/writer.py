"""data/ written as the build streams: text and vector shards, record shards, the record index.

Texts arrive in first-use order and are packed into shards of about `ShardLimits.text_chars` characters
(`TextPlacer`, the shard known as soon as the text is first seen, so a record's JSON can name its texts'
shards); a shard is written when the next one starts. Records arrive in input order and a record shard is
written when full; the sharded record index is written as the records arrive (`record_index.IndexWriter`),
in bounded memory. Layout and field meanings: docs/DESIGN.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mercury_static.bundle.contents import ShardLimits, StoredText, dumps, encode_rows, row_tags, row_title
from mercury_static.bundle.record_index import IndexRow, IndexWriter, text_words


class TextPlacer:
    """Assigns each new text, in first-use order, to a text shard of about `max_chars` characters."""

    def __init__(self, max_chars: int):
        self.max_chars = max_chars
        self.shard, self._chars, self.count = 0, 0, 0

    def place(self, t: StoredText) -> None:
        if self._chars and self._chars + len(t.text) > self.max_chars:
            self.shard, self._chars = self.shard + 1, 0
        t.shard = self.shard
        self._chars += len(t.text)
        self.count += 1

    @property
    def shards(self) -> int:
        return self.shard + 1 if self.count else 0


class DataWriter:
    """Writes data/ incrementally: `add_text` (in placement order, with its rows' vectors), `add_record`
    (in input order), then `close()` for the shard counts."""

    def __init__(self, out: Path, spool: Path, limits: ShardLimits, visible_meta: list[str],
                 untagged: frozenset[str] = frozenset()):
        self.data = Path(out) / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.limits, self.visible_meta, self.untagged = limits, list(visible_meta), untagged
        self.open_texts: dict[str, StoredText] = {}
        """The texts of the text shard being filled (not written yet)."""
        self._vectors: list[np.ndarray]
        self._batch: list[dict]
        self._text_shard, self._rows, self._vectors = 0, 0, []
        self._record_shard, self._batch, self._size = 0, [], 0
        self._index = IndexWriter(self.data, spool, limits.index_records, limits.term_postings, visible_meta,
                                  limits.term_split_bytes)

    def add_text(self, t: StoredText, vectors: np.ndarray) -> None:
        """A new text (already placed: `t.shard`) and the float16 vectors of its rows."""
        if t.shard != self._text_shard:
            self._flush_texts()
            self._text_shard = t.shard
        t.row0 = self._rows
        self._rows += len(t.rows)
        self.open_texts[t.id] = t
        self._vectors.append(vectors)

    def _flush_texts(self) -> None:
        if not self.open_texts:
            return
        items = [{"id": t.id, "text": t.text, "sentences": [list(s) for s in t.sentences],
                  "sections": [list(s) for s in t.sections] if t.sections else None,
                  "row0": t.row0, "rows": [list(r) for r in t.rows]} for t in self.open_texts.values()]
        (self.data / f"texts-{self._text_shard:04d}.json").write_text(dumps({"texts": items}), encoding="utf-8")
        with open(self.data / f"vectors-{self._text_shard:04d}.bin", "wb") as f:
            for v in self._vectors:
                f.write(encode_rows(v))
        self.open_texts, self._rows, self._vectors = {}, 0, []

    def add_record(self, rec: dict, source_shard: int, summary_shard: int, summary: str, source: str = "") -> None:
        """A JSON-ready record (texts by id) with its texts' shards; `summary` titles a record without one; the
        words of both texts go into the index (the record filter finds any of them)."""
        rec = dict(rec, source_shard=source_shard, summary_shard=summary_shard)
        encoded = len(dumps(rec))
        if self._batch and (self._size + encoded > self.limits.record_bytes or len(self._batch) >= self.limits.records):
            self._flush_records()
        self._batch.append(rec)
        self._size += encoded
        self._index.add(IndexRow(rec["id"], rec.get("title") or row_title(summary),
                                 row_tags(rec.get("metadata"), self.untagged), self._record_shard,
                                 [source_shard, summary_shard], rec.get("meta") or {},
                                 text_words(source) + text_words(summary)))

    def _flush_records(self) -> None:
        (self.data / f"records-{self._record_shard:04d}.json").write_text(dumps({"records": self._batch}),
                                                                          encoding="utf-8")
        self._record_shard, self._batch, self._size = self._record_shard + 1, [], 0

    def close(self, text_shards: int) -> dict:
        """Write what is still open and the record index; the counts."""
        self._flush_texts()
        if self._batch:
            self._flush_records()
        self._index.close()
        return {"records": self._record_shard, "texts": text_shards}
