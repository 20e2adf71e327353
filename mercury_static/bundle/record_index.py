"""The sharded record index: what the page needs to list, find and filter records without downloading
every record's row (tens of bytes a record, what the one-file index of older bundles, data/records.json,
weighed).

Written from the per-record columns in bundle order, one row at a time; layout, hashing and filter
semantics in docs/DESIGN.md ("The sharded record index"). The page's reader is `app/data/recordindex.js`.
"""

from __future__ import annotations

import base64
import json
import math
import re
import sqlite3
import tempfile
import unicodedata
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import groupby
from operator import itemgetter
from pathlib import Path

import numpy as np

from mercury_static.bundle.contents import ShardLimits, dumps
from mercury_static.formats import RECORD_INDEX

PREFIX = 2  # a word's term shard is the hash of its first PREFIX code points (more under a split prefix: `word_key`)
META_SEP = "\x1f"  # between a property name and a value in a meta term: never in a name ([a-z0-9_]+)
UNION_MARK = "\x1e"  # after a split prefix in the spool: the union of its words' postings (never in a word)
SPOOL_CACHE_KB = 32 * 1024  # the spool database's page cache: its memory whatever the record count
_IN = 500  # keys per `IN (…)` query
_BATCH = 10_000  # rows held before they are spooled in one `executemany`


@dataclass(frozen=True)
class IndexRow:
    """One record's row of the index (shard numbers, never its status)."""

    id: str
    title: str
    tags: list[str]
    shard: int
    text_shards: list[int]
    meta: dict = field(default_factory=dict)
    text_words: Sequence[str] = ()  # the distinct words of its two texts (`text_words`): the filter finds them too


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


def fold(text: str) -> str:
    """A text as the filter compares it, the page's `fold` (recordindex.js): NFKC (composed and decomposed
    "café" alike, full-width letters as ASCII), lower case, the dot of a lower-cased "İ" dropped (so
    "İstanbul" and "istanbul" are one word) and the final sigma as σ."""
    return unicodedata.normalize("NFKC", text).lower().replace("i\u0307", "i").replace("ς", "σ")


MARK_PLANES = ((0x0000, 0x20000), (0xE0000, 0xF0000))
"""The planes that hold combining marks: the basic and supplementary multilingual planes and plane 14 (the
variation selectors); Unicode's roadmap keeps planes 2-3 for ideographs, 15-16 for private use. Scanning only
these builds the class in a fraction of the time (once per process: every CLI command pays it)."""


@lru_cache(maxsize=1)
def _word_pattern() -> re.Pattern:
    """Maximal runs of letters, digits and combining marks, as the page's /[\\p{L}\\p{N}\\p{M}]+/gu (on a text
    without "_"): the marks keep "हिन्दी" and "สวัสดี" one word each. re has no \\p{M}: \\w (letters, digits, "_")
    plus the marks, a class built once from unicodedata (`MARK_PLANES`: where Unicode assigns marks)."""
    marks: list[tuple[int, int]] = []
    for code in (c for start, end in MARK_PLANES for c in range(start, end)):
        if unicodedata.category(chr(code))[0] == "M":
            if marks and marks[-1][1] == code - 1:
                marks[-1] = (marks[-1][0], code)
            else:
                marks.append((code, code))
    return re.compile("[\\w" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in marks) + "]+")


_ASCII_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """The words of a text, folded (`fold`), in order (repeats kept); an ASCII text, the common case of a
    build, by a plain class (the one with every combining mark is much slower)."""
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    return _word_pattern().findall(fold(text).replace("_", " "))


@lru_cache(maxsize=16)
def text_words(text: str) -> tuple[str, ...]:
    """The distinct words of a text (`words`), sorted; kept for the next records: the records of a SummHay
    topic share one haystack, read once rather than once a record."""
    return tuple(sorted(set(words(text))))


def word_key(word: str, split: frozenset[str] | set[str] = frozenset()) -> str:
    """What a word is sharded by: its first PREFIX code points, one more for each `split` prefix it extends
    (a heavy prefix, index.json's "split"), so all words a filter word prefixes share one shard. A word
    that is itself a split prefix is its own key (the shard of that prefix's union)."""
    n = PREFIX
    while n < len(word) and word[:n] in split:
        n += 1
    return word[:n]


def list_bytes(count: int, records: int) -> int:
    """The JSON length of a posting list of `count` of `records` positions, estimated from the count alone
    (evenly spaced): its deltas or its bitmap, whichever is shorter, as `encode_postings` chooses. The
    weight by which heavy prefixes are split, decided before any list is read back."""
    gap = records // max(1, count)
    return min(count * (len(str(max(1, gap))) + 1) + 1, _bitmap_chars(_ceil(records, 8)))


def split_prefixes(terms: Iterable[tuple[str, int]], records: int, limit: int) -> list[str]:
    """The prefixes (≥ PREFIX code points) to shard by one more code point: those whose words' lists
    weigh more than `limit` (`list_bytes`) and that begin a longer word. `terms`: (word, postings) in
    code-point order, so a prefix's words are consecutive: one pass, a stack of the open prefixes."""
    out: list[str] = []
    stack: list[list] = []  # [prefix, weight, begins a longer word], prefixes of the last word, shortest first
    last = ""
    for word, count in terms:
        common = 0
        while common < min(len(word), len(last)) and word[common] == last[common]:
            common += 1
        while stack and len(stack[-1][0]) > common:
            prefix, weight, longer = stack.pop()
            if weight > limit and longer:
                out.append(prefix)
        stack += [[word[:n], 0, False] for n in range(max(PREFIX, len(stack) + PREFIX), len(word) + 1)]
        weight = list_bytes(count, records)
        for level in stack:
            level[1] += weight
            level[2] = level[2] or len(level[0]) < len(word)
        last = word
    out += [prefix for prefix, weight, longer in stack if weight > limit and longer]
    return sorted(out)


def encode_postings(positions: np.ndarray) -> list[int] | str:
    """A posting list (ascending positions) as JSON: its deltas `[p0, p1 - p0, …]`, or when shorter the
    base64 of its bitmap (bit p % 8 of byte p // 8 set for each position p): a word in most records is
    1 bit a record instead of ~2 bytes."""
    if not len(positions):
        return []
    short = len(positions) <= _SHORT_LIST  # most terms: numpy's cost per call would be most of the work
    if short:
        p = positions.tolist()
        deltas = [p[0], *(b - a for a, b in zip(p, p[1:]))]
        delta_chars = len(deltas) + 1 + sum(len(str(d)) for d in deltas)
    else:
        diffs = np.diff(positions.astype(np.int64), prepend=0)
        delta_chars = 2 * len(diffs) + 1 + int(np.searchsorted(_POWERS_OF_TEN, diffs, side="right").sum())
    nbytes = int(positions[-1]) // 8 + 1
    if _bitmap_chars(nbytes) < delta_chars:
        bits = np.zeros(nbytes * 8, dtype=bool)
        bits[positions] = True
        return base64.b64encode(np.packbits(bits, bitorder="little").tobytes()).decode("ascii")
    return deltas if short else diffs.tolist()


_POWERS_OF_TEN = np.array([10 ** k for k in range(1, 19)], dtype=np.int64)
_SHORT_LIST = 32
"""Posting lists up to this length are encoded in plain Python."""


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _bitmap_chars(nbytes: int) -> int:
    """The JSON length of the base64 string of `nbytes` bytes."""
    return 4 * _ceil(nbytes, 3) + 2


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


class IndexWriter:
    """Writes data/index.json and its shards from rows in bundle order, in bounded memory.

    Index shards are fixed-size runs of positions: each is written as soon as its rows have arrived. The
    ids and term shards group by a hash modulo a shard count known only at the end (it follows the record
    and posting counts), so ids and postings are spooled to a sqlite file in `spool` (one row per id, one
    per term and index shard) and read back at `close()` sorted by shard: one shard in memory at a time.
    """

    def __init__(self, data: Path, spool: Path, index_records: int, term_postings: int,
                 visible_meta: Sequence[str] = (), split_bytes: int = ShardLimits.term_split_bytes):
        if index_records < 1 or term_postings < 1 or split_bytes < 1:
            raise ValueError("index shard limits must be at least 1")
        self.data, self.size, self.term_postings = Path(data), index_records, term_postings
        self.split_bytes = split_bytes
        self.visible_meta = list(visible_meta)
        self._db = sqlite3.connect(Path(spool) / "index-spool.sqlite", isolation_level=None)
        for pragma in ("journal_mode=OFF", "synchronous=OFF", f"cache_size=-{SPOOL_CACHE_KB}", "temp_store=FILE"):
            self._db.execute(f"PRAGMA {pragma}")
        self._db.execute("CREATE TABLE ids (id BLOB PRIMARY KEY, hash INTEGER NOT NULL, pos INTEGER NOT NULL)"
                         " WITHOUT ROWID")
        self._db.execute("CREATE TABLE terms (term BLOB PRIMARY KEY, tid INTEGER NOT NULL, hash INTEGER NOT NULL)"
                         " WITHOUT ROWID")
        self._db.execute("CREATE TABLE postings (tid INTEGER NOT NULL, first INTEGER NOT NULL, n INTEGER NOT NULL,"
                         " positions BLOB NOT NULL)")
        # written at close: the new hash of a word under a split prefix; each split prefix's union
        self._db.execute("CREATE TABLE rekeys (tid INTEGER PRIMARY KEY, hash INTEGER NOT NULL)")
        self._db.execute("CREATE TABLE unions (tid INTEGER NOT NULL, term BLOB NOT NULL, hash INTEGER NOT NULL,"
                         " positions BLOB NOT NULL)")
        self._db.execute("BEGIN")  # spool data: one transaction, never committed to survive a crash
        self._columns: dict[str, list] = {}
        self._ids: list[tuple[bytes, int, int]] = []
        self._terms: dict[str, array] = {}  # term -> positions of the index shard being filled
        self.count, self._postings, self._tids, self._index_shards = 0, 0, 0, 0

    def add(self, row: IndexRow) -> None:
        pos = self.count
        self._ids.append((_blob(row.id), fnv1a(row.id), pos))
        for name, value in (("ids", row.id), ("titles", row.title), ("tags", row.tags),
                            ("shard", row.shard), ("text_shards", row.text_shards)):
            self._columns.setdefault(name, []).append(value)
        meta = {k: row.meta[k] for k in self.visible_meta if k in row.meta}
        if self.visible_meta:
            self._columns.setdefault("meta", []).append(meta)
        terms = dict.fromkeys(words(" ".join([row.id, row.title or "", *row.tags])))
        terms.update(dict.fromkeys(row.text_words))
        for term in [*terms, *meta_terms(meta)]:
            p = self._terms.setdefault(term, array("i"))
            if not p or p[-1] != pos:  # a word twice in a record: one posting
                p.append(pos)
        self.count += 1
        if self.count % self.size == 0:
            self._flush()

    def _flush(self) -> None:
        """Write the index shard being filled; spool its ids and postings."""
        if not self._ids:
            return
        first = self._ids[0][2]
        (self.data / f"index-{self._index_shards:04d}.json").write_text(dumps({"first": first, **self._columns}),
                                                                        encoding="utf-8")
        self._index_shards += 1
        try:
            self._db.executemany("INSERT INTO ids VALUES (?, ?, ?)", self._ids)
        except sqlite3.IntegrityError:
            raise ValueError(f"duplicate record id {self._duplicate()!r} in the index") from None
        keys = {_blob(t): t for t in self._terms}
        known: dict[bytes, int] = {}
        blobs = list(keys)
        for i in range(0, len(blobs), _IN):
            part = blobs[i:i + _IN]
            known.update(self._db.execute(f"SELECT term, tid FROM terms WHERE term IN ({','.join('?' * len(part))})",
                                          part))
        new = []
        for blob, term in keys.items():
            if blob not in known:
                known[blob] = self._tids
                new.append((blob, self._tids, fnv1a(term if META_SEP in term else word_key(term))))
                self._tids += 1
        self._db.executemany("INSERT INTO terms VALUES (?, ?, ?)", new)
        self._db.executemany("INSERT INTO postings VALUES (?, ?, ?, ?)",
                             [(known[b], first, len(self._terms[t]), self._terms[t].tobytes())
                              for b, t in keys.items()])
        self._postings += sum(map(len, self._terms.values()))
        self._columns, self._ids, self._terms = {}, [], {}

    def _duplicate(self) -> str:
        """The first id of the refused batch seen before: earlier in it, or spooled at another position."""
        seen = set()
        for blob, _, pos in self._ids:
            found = self._db.execute("SELECT pos FROM ids WHERE id = ?", (blob,)).fetchone()
            if blob in seen or (found is not None and found[0] != pos):
                return _text(blob)
            seen.add(blob)
        raise AssertionError("sqlite refused a batch of distinct ids")

    def close(self) -> IndexCounts:
        """Write the last index shard, the ids and term shards and index.json; the counts."""
        try:
            self._flush()
            n_ids = max(1, math.ceil(self.count / self.size))
            for n, rows in self._by_shard("SELECT hash % ?, id, pos FROM ids ORDER BY 1", n_ids):
                self._write(f"ids-{n:04d}.json", {"ids": {_text(key): pos for _, key, pos in rows}})
            split = self._split()
            n_terms = max(1, math.ceil(self._postings / self.term_postings))
            sql = ("SELECT s, tid, term, positions FROM ("
                   " SELECT coalesce(r.hash, t.hash) % ? AS s, t.tid AS tid, t.term AS term, p.first AS first,"
                   " p.positions AS positions FROM postings p JOIN terms t ON t.tid = p.tid"
                   " LEFT JOIN rekeys r ON r.tid = t.tid"
                   " UNION ALL SELECT hash % ?, tid, term, 0, positions FROM unions) ORDER BY s, tid, first")
            for n, rows in self._by_shard(sql, n_terms, 2):
                shard: dict[str, dict] = {"words": {}, "meta": {}, "prefixes": {}}
                for _, runs in groupby(rows, key=itemgetter(1)):
                    positions, key = array("i"), b""
                    for _, _, key, run in runs:  # noqa: B007  the term's runs, one per index shard, in order
                        positions.frombytes(run)
                    term = _text(key)
                    kind = "meta" if META_SEP in term else "prefixes" if UNION_MARK in term else "words"
                    shard[kind][term.rstrip(UNION_MARK)] = encode_postings(np.frombuffer(positions, dtype=np.int32))
                self._write(f"terms-{n:04d}.json", shard)
        finally:
            self._db.close()
        top = {"format": RECORD_INDEX.name, "version": RECORD_INDEX.version, "count": self.count,
               "index_size": self.size, "prefix": PREFIX, "split": split,
               "index_shards": self._index_shards, "id_shards": n_ids, "term_shards": n_terms,
               "meta": self.visible_meta}
        self._write("index.json", top)
        return IndexCounts(records=self.count, index_shards=self._index_shards, id_shards=n_ids, term_shards=n_terms)

    def _split(self) -> list[str]:
        """Choose the split prefixes (`split_prefixes`, over every word's posting count), spool the new hash
        of each word under one (`rekeys`) and each one's union (`unions`); the prefixes, sorted."""
        db = self._db
        db.execute("CREATE INDEX postings_tid ON postings (tid, n)")
        counts = db.execute("SELECT t.term, sum(p.n) FROM terms t JOIN postings p ON p.tid = t.tid "
                            "GROUP BY t.term ORDER BY t.term")
        split = split_prefixes(((term, n) for key, n in counts if _is_word(term := _text(key))),
                               self.count, self.split_bytes)
        chosen = frozenset(split)
        for top in (p for p in split if len(p) == PREFIX):  # each split prefix extends one of these
            lo = _blob(top)
            rows = db.execute("SELECT t.term, t.tid, p.positions FROM terms t JOIN postings p ON p.tid = t.tid "
                              "WHERE t.term >= ? AND t.term < ? ORDER BY t.term", (lo, lo + b"\xff"))
            open_: list[tuple[str, np.ndarray]] = []  # the split prefixes of the current word, their unions
            rekeys: list[tuple[int, int]] = []
            last = None
            for key, tid, run in rows:
                if key != last:
                    last, word = key, _text(key)
                    if not _is_word(word):
                        continue
                    while open_ and not word.startswith(open_[-1][0]):
                        self._close_union(open_)
                    key_ = word_key(word, chosen)
                    open_ += [(word[:n], np.zeros(self.count, dtype=bool))
                              for n in range(len(open_[-1][0]) + 1 if open_ else PREFIX, len(key_) + 1)
                              if word[:n] in chosen]
                    rekeys.append((tid, fnv1a(key_)))
                    if len(rekeys) == _BATCH:
                        db.executemany("INSERT INTO rekeys VALUES (?, ?)", rekeys)
                        rekeys.clear()
                if _is_word(word):
                    open_[-1][1][np.frombuffer(run, dtype=np.int32)] = True
            while open_:
                self._close_union(open_)
            db.executemany("INSERT INTO rekeys VALUES (?, ?)", rekeys)
        return split

    def _close_union(self, open_: list[tuple[str, np.ndarray]]) -> None:
        """Spool the union of the innermost open split prefix; it goes into its parent's."""
        prefix, mask = open_.pop()
        if open_:
            np.logical_or(open_[-1][1], mask, out=open_[-1][1])
        union = np.flatnonzero(mask).astype(np.int32).tobytes()
        self._db.execute("INSERT INTO unions VALUES (?, ?, ?, ?)", (self._tids, _blob(prefix + UNION_MARK),
                                                                     fnv1a(prefix), union))
        self._tids += 1

    def _write(self, name: str, obj) -> None:
        (self.data / name).write_text(dumps(obj), encoding="utf-8")

    def _by_shard(self, sql: str, shards: int, params: int = 1) -> Iterator[tuple[int, Iterator[tuple]]]:
        """(n, the rows of shard n) for every n < shards, from `sql`'s rows (shard number first, sorted; the
        shard count is its `params` parameters)."""
        groups = groupby(self._db.execute(sql, (shards,) * params), key=itemgetter(0))
        group = next(groups, None)
        for n in range(shards):
            if group is not None and group[0] == n:
                yield n, group[1]
                group = next(groups, None)
            else:
                yield n, iter(())


def read_columns(data: Path) -> dict[str, list]:
    """Every row of a bundle's index as columns (`ids`, `titles`, `tags`, `shard`, `text_shards`, `meta` with
    visible metadata), in bundle order: the index shards joined, as the page reads them one by one."""
    top = json.loads((Path(data) / "index.json").read_text(encoding="utf-8"))
    columns: dict[str, list] = {}
    for n in range(top["index_shards"]):
        shard = json.loads((Path(data) / f"index-{n:04d}.json").read_text(encoding="utf-8"))
        for name, values in shard.items():
            if name != "first":
                columns.setdefault(name, []).extend(values)
    return columns


def write_index(data: Path, rows: Iterable[IndexRow], index_records: int, term_postings: int,
                visible_meta: Sequence[str] = (), split_bytes: int = ShardLimits.term_split_bytes) -> IndexCounts:
    """`IndexWriter` over `rows`, spooling in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="index-spool-") as spool:
        writer = IndexWriter(data, Path(spool), index_records, term_postings, visible_meta, split_bytes)
        for row in rows:
            writer.add(row)
        return writer.close()


def _blob(text: str) -> bytes:
    """A str as sqlite bytes and back (`_text`), lone surrogates included (ids from file names)."""
    return text.encode("utf-8", "surrogatepass")


def _text(blob: bytes) -> str:
    return blob.decode("utf-8", "surrogatepass")


def _is_word(term: str) -> bool:
    """A word term: not a meta term (NAME\x1fVALUE), not a spooled union."""
    return META_SEP not in term and UNION_MARK not in term
