"""The sharded record index (issue 15 §1): what the page needs to list, find and filter records without
downloading every record's row (records.json is ~80 bytes a record: 80 MB for a million).

Written from the per-record columns in bundle order, one row at a time; layout, hashing and filter
semantics in docs/DESIGN.md ("The sharded record index"). The page's reader is `app/recordindex.js`.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

INDEX_VERSION = 1
PREFIX = 2  # a word's term shard is the hash of its first PREFIX code points: a filter word reads one shard
META_SEP = "\x1f"  # between a property name and a value in a meta term: never in a name ([a-z0-9_]+)
_WORD = re.compile(r"[^\W_]+")  # maximal runs of letters and digits, as the page's /[\p{L}\p{N}]+/gu


@dataclass(frozen=True)
class IndexRow:
    """One record's row of the index: the columns of records.json (shard numbers, never its status)."""

    id: str
    title: str
    tags: list[str]
    shard: int
    text_shards: list[int]
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class IndexCounts:
    """What `write_index` wrote: records and the number of shards of each kind."""

    records: int
    index_shards: int
    id_shards: int
    term_shards: int


def fnv1a(key: str) -> int:
    """FNV-1a 32-bit of the key's UTF-8 bytes: the page computes the same (a sort order of ids would
    differ between Python's code points and JS's UTF-16 units; a hash of the bytes does not)."""
    h = 0x811C9DC5
    for b in key.encode("utf-8"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def words(text: str) -> list[str]:
    """The words of a text, lower-cased, in order (repeats kept)."""
    return _WORD.findall(text.lower())


def word_key(word: str) -> str:
    """What a word is sharded by: its first PREFIX code points, so all words a filter word prefixes share
    one shard."""
    return word[:PREFIX]


def meta_terms(meta: dict) -> list[str]:
    """The meta terms of a record: one per string value (or string in a list) of a visible property;
    numbers are range-filtered over the index shards instead."""
    out = []
    for name, value in sorted(meta.items()):
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str):
                out.append(name + META_SEP + v)
    return out


def shard_of(key: str, shards: int) -> int:
    return fnv1a(key) % shards


def _delta(positions: array) -> list[int]:
    return [positions[0]] + [b - a for a, b in zip(positions, positions[1:])] if positions else []


def write_index(data: Path, rows: Iterable[IndexRow], index_records: int, term_postings: int,
                visible_meta: Sequence[str] = ()) -> IndexCounts:
    """Write data/index.json and its index, ids and term shards from `rows` (bundle order).

    Index shards are written as the rows arrive; ids and postings are kept (an int per posting) until
    the end, when their shard counts are known.
    """
    from .bundle import dumps  # bundle imports this module: the canonical JSON of every data file

    if index_records < 1 or term_postings < 1:
        raise ValueError("index shard limits must be at least 1")
    ids: dict[str, int] = {}
    word_postings: dict[str, array] = {}
    meta_postings: dict[str, array] = {}
    columns: dict[str, list] = {}
    n_index = 0

    def flush(first: int):
        nonlocal columns, n_index
        (data / f"index-{n_index:04d}.json").write_text(dumps({"first": first, **columns}), encoding="utf-8")
        columns, n_index = {}, n_index + 1

    def post(table: dict[str, array], term: str, pos: int):
        p = table.setdefault(term, array("l"))
        if not p or p[-1] != pos:  # a word twice in a record: one posting
            p.append(pos)

    pos = -1
    for pos, row in enumerate(rows):
        if pos and pos % index_records == 0:
            flush(pos - index_records)
        if row.id in ids:
            raise ValueError(f"duplicate record id {row.id!r} in the index")
        ids[row.id] = pos
        for name, value in (("ids", row.id), ("titles", row.title), ("tags", row.tags),
                            ("shard", row.shard), ("text_shards", row.text_shards)):
            columns.setdefault(name, []).append(value)
        if visible_meta:
            columns.setdefault("meta", []).append({k: row.meta[k] for k in visible_meta if k in row.meta})
        for w in words(" ".join([row.id, row.title or "", *row.tags])):
            post(word_postings, w, pos)
        for t in meta_terms({k: row.meta[k] for k in visible_meta if k in row.meta}):
            post(meta_postings, t, pos)
    count = pos + 1
    if columns:
        flush(count - 1 - (count - 1) % index_records)

    n_ids = max(1, math.ceil(count / index_records))
    id_shards: list[dict[str, int]] = [{} for _ in range(n_ids)]
    for record_id, p in ids.items():
        id_shards[shard_of(record_id, n_ids)][record_id] = p
    for i, shard in enumerate(id_shards):
        (data / f"ids-{i:04d}.json").write_text(dumps({"ids": shard}), encoding="utf-8")
    del ids, id_shards

    total = sum(map(len, word_postings.values())) + sum(map(len, meta_postings.values()))
    n_terms = max(1, math.ceil(total / term_postings))
    term_shards = [{"words": {}, "meta": {}} for _ in range(n_terms)]
    for w, p in word_postings.items():
        term_shards[shard_of(word_key(w), n_terms)]["words"][w] = _delta(p)
    for t, p in meta_postings.items():
        term_shards[shard_of(t, n_terms)]["meta"][t] = _delta(p)
    for i, shard in enumerate(term_shards):
        (data / f"terms-{i:04d}.json").write_text(dumps(shard), encoding="utf-8")

    counts = IndexCounts(records=count, index_shards=n_index, id_shards=n_ids, term_shards=n_terms)
    top = {"version": INDEX_VERSION, "count": count, "index_size": index_records, "prefix": PREFIX,
           "index_shards": n_index, "id_shards": n_ids, "term_shards": n_terms, "meta": list(visible_meta)}
    (data / "index.json").write_text(dumps(top), encoding="utf-8")
    return counts
