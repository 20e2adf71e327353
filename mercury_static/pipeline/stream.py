"""The build's split, embed and write steps, streamed a chunk of records at a time from the read step's spool.

Memory holds one chunk (`CHUNK_RECORDS` records, fewer when their new texts pass `CHUNK_CHARS`
characters: both are properties of the data, so the bundle never depends on the machine), the text shard
and record shard being filled, and the scratch database's page cache (scratch.py): never all records,
texts or vectors. Texts are deduplicated across the whole input by content id and rows by text (a row seen
in an earlier chunk reuses its vector), through the scratch tables.

The chunks do not show in the bundle: the same bytes with any chunk size (tested), engine or workers.
Even the vectors: a chunk's new rows are batched among themselves (`Embedder.plan`), yet a row's vector
does not depend on its batch, as onnxruntime gives padded positions exact zeros (masked softmax) and its
matrix products compute each row on its own. Were a kernel to change that, only the vectors' last bits
would move (the parity tests hold them to cosine ≥ 0.99999 with the page's).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mercury_static.bundle.contents import ShardLimits, StoredText, dumps, text_id
from mercury_static.bundle.writer import DataWriter, TextPlacer
from mercury_static.bundle.record_cells import Cells, write_cells
from mercury_static.bundle.record_vectors import RECORD_VECTORS_PATH, text_vector
from mercury_static.core.records import Record
from mercury_static.pipeline.scratch import Scratch, row_key, text_key

CHUNK_RECORDS = 4096
CHUNK_CHARS = 20_000_000


@dataclass
class StreamResult:
    """What the manifest needs once every record is written."""

    counts: dict
    shards: dict
    spool: Path
    """The records' canonical JSON, one per line, for the bundle id (`manifest.bundle_id`)."""
    text_ids: Path
    """The distinct texts' ids in first-use order, one per line (the bundle id)."""
    record_ids: list[str] = field(default_factory=list)
    """Every record id in order, only when queues are asked for (`keep_ids`)."""
    cells: Cells | None = None
    """The similar-records cells, written from the record vectors once they are complete."""


def chunks(records: Iterable[Record], max_records: int = CHUNK_RECORDS,
           max_chars: int = CHUNK_CHARS) -> Iterator[list[Record]]:
    """Records in input order, grouped: at most `max_records`, and closed once they hold `max_chars`
    characters of text (a record of long texts still travels alone)."""
    chunk, chars = [], 0
    for r in records:
        chunk.append(r)
        chars += len(r.source) + len(r.summary)
        if len(chunk) >= max_records or chars >= max_chars:
            yield chunk
            chunk, chars = [], 0
    if chunk:
        yield chunk


class StreamBuild:
    """One streaming build into `out` (the temporary bundle folder) with scratch files in `work`."""

    def __init__(self, out: Path, work: Path, embedder, engine, limits: ShardLimits, visible_meta: list[str],
                 similar_records: bool, keep_ids: bool, untagged: frozenset[str] = frozenset(),
                 chunk_records: int = CHUNK_RECORDS, chunk_chars: int = CHUNK_CHARS):
        self.out, self.work, self.embedder, self.engine = Path(out), Path(work), embedder, engine
        self.scratch = Scratch(self.work)
        self.placer = TextPlacer(limits.text_chars)
        self.writer = DataWriter(self.out, self.work, limits, visible_meta, untagged)
        self.similar, self.keep_ids = similar_records, keep_ids
        self.chunk_records, self.chunk_chars = chunk_records, chunk_chars
        self.counts = {"records": 0, "texts": 0, "sentences": 0, "rows": 0}

    def run(self, records: Iterable[Record], stored: Callable[[Record], dict],
            progress: Callable[[int], None]) -> StreamResult:
        """Build from `records`; `stored(record)` is its JSON-ready form (texts by id)."""
        result = StreamResult(counts=self.counts, shards={}, spool=self.work / "records.spool",
                              text_ids=self.work / "text-ids.spool")
        vectors = open(self.out / RECORD_VECTORS_PATH, "wb") if self.similar else None
        try:
            with open(result.spool, "w", encoding="utf-8") as spool, \
                    open(result.text_ids, "w", encoding="utf-8") as text_ids:
                for chunk in chunks(records, self.chunk_records, self.chunk_chars):
                    self._chunk(chunk, stored, spool, text_ids, vectors, result)
                    progress(len(chunk))
        finally:
            if vectors is not None:
                vectors.close()
            self.scratch.close()
        result.shards = self.writer.close(self.placer.shards)
        if self.similar:
            result.cells = write_cells(self.out, self.out / RECORD_VECTORS_PATH, self.counts["records"],
                                       self.embedder.dim, self.writer.limits.cell_records)
        return result

    def _chunk(self, chunk: list[Record], stored, spool, text_ids, vectors, result: StreamResult) -> None:
        known = self.scratch.texts(text_key(text_id(t)) for r in chunk for t in (r.source, r.summary))
        new: dict[str, StoredText] = {}
        shards: list[tuple[StoredText | int, ...]] = []  # (source, summary): a text or its shard
        for r in chunk:
            pair: list[StoredText | int] = []
            for kind, text in (("source", r.source), ("summary", r.summary)):
                tid = text_id(text)
                t = new.get(tid) or self.writer.open_texts.get(tid)
                if t is None and text_key(tid) in known:
                    pair.append(known[text_key(tid)][0])
                    continue
                if t is None:  # a summary's given cut is its sentences; the others are split below
                    cut = r.summary_sentences if kind == "summary" and r.summary_sentences else []
                    t = new[tid] = StoredText(id=tid, text=text, sentences=list(cut), rows=[])
                    self.placer.place(t)
                    text_ids.write(tid + "\n")
                if kind == "source" and r.source_sections and t.sections is None and t.shard == self.placer.shard:
                    t.sections = [(s.start, s.end, s.title, s.doc_id) for s in r.source_sections]
                pair.append(t)
            shards.append(tuple(pair))
        rvecs = self._segment_embed_write(list(new.values()))
        for r, (src, summ) in zip(chunk, shards):
            rec = stored(r)
            spool.write(dumps(rec) + "\n")
            src_shard = src.shard if isinstance(src, StoredText) else src
            summ_shard = summ.shard if isinstance(summ, StoredText) else summ
            self.writer.add_record(rec, src_shard, summ_shard, r.summary, r.source)
            if vectors is not None:
                tid = text_id(r.summary)
                vectors.write(rvecs[tid] if tid in rvecs else known[text_key(tid)][1])
            if self.keep_ids:
                result.record_ids.append(r.id)
        self.counts["records"] += len(chunk)

    def _segment_embed_write(self, texts: list[StoredText]) -> dict[str, bytes]:
        """Split and embed the chunk's new texts, hand them to the writer, record them in the scratch
        table; the record vector of each (when asked for)."""
        from mercury_static.core.segment import embedding_windows, split_sentences

        limit = self.embedder.max_seq_length
        for t in texts:
            t.sentences = t.sentences or split_sentences(t.text)
            t.rows = embedding_windows(t.text, t.sentences, self.embedder.count_tokens, limit)
        rows = [t.text[s:e] for t in texts for _, s, e in t.rows]
        keys = [row_key(x) for x in rows]
        cached = self.scratch.rows(keys)
        todo: dict[bytes, str] = {}
        for k, x in zip(keys, rows):
            if k not in cached:
                todo.setdefault(k, x)
        if todo:
            unique, slot = self.embedder.embed_unique(list(todo.values()), dtype=np.float16, engine=self.engine)
            fresh = {k: unique[i].astype("<f2").tobytes() for k, i in zip(todo, slot)}
            self.scratch.add_rows(fresh.items())
            cached.update(fresh)
        dim = self.embedder.dim
        rvecs, stored, first = {}, [], 0
        for t in texts:
            n = len(t.rows)
            block = np.frombuffer(b"".join(cached[k] for k in keys[first:first + n]), dtype="<f2").reshape(n, dim)
            first += n
            self.writer.add_text(t, block)
            rvec = text_vector(block) if self.similar else None
            if rvec is not None:
                rvecs[t.id] = rvec
            stored.append((text_key(t.id), t.shard, rvec))
            self.counts["sentences"] += len(t.sentences)
            self.counts["rows"] += n
        self.scratch.add_texts(stored)
        self.counts["texts"] += len(texts)
        return rvecs
