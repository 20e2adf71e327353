"""The streaming build's disk-backed state: what spans the whole input but must not sit in memory.

Four sqlite tables in a scratch folder beside the output (deleted with it): the shard (and record vector)
of every distinct text, so texts are deduplicated by their 64-bit content id across the whole input; the
float16 vector of every distinct embedding row, so a row repeated anywhere is embedded once; the place
of every record id, for the duplicate-id error; and the sentence cut of every text the read step saw, so a
text given two cuts is an error, not the first cut silently. sqlite is in the standard library, keeps memory at its page
cache (`CACHE_KB`) whatever the number of keys, and answers a lookup from a B-tree in microseconds; a
sorted array of hashes would need merges of our own and a second structure for the values.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from pathlib import Path

CACHE_KB = 64 * 1024
_IN = 500
"""Keys per `IN (…)` query (sqlite's default limit of host parameters is far above)."""


def text_key(text_id: str) -> int:
    """The 64 bits of a text id (`bundle.text_id`: "t" + 16 hex digits) as sqlite's signed integer."""
    v = int(text_id[1:], 16)
    return v - (1 << 64) if v >= 1 << 63 else v


def row_key(row: str) -> bytes:
    """128-bit digest of a row's text (two rows share a vector only if their text is the same)."""
    return hashlib.blake2b(row.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class Scratch:
    """The tables (`texts`, `rows`, `ids`, `cuts`) in one database file; `close()` releases it."""

    def __init__(self, folder: Path):
        self._db = sqlite3.connect(Path(folder) / "scratch.sqlite", isolation_level=None)
        for pragma in ("journal_mode=OFF", "synchronous=OFF", f"cache_size=-{CACHE_KB}", "temp_store=FILE"):
            self._db.execute(f"PRAGMA {pragma}")
        self._db.execute("CREATE TABLE texts (key INTEGER PRIMARY KEY, shard INTEGER NOT NULL, rvec BLOB)")
        self._db.execute("CREATE TABLE rows (key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID")
        self._db.execute("CREATE TABLE ids (id BLOB PRIMARY KEY, place BLOB NOT NULL) WITHOUT ROWID")
        self._db.execute("CREATE TABLE cuts (key INTEGER PRIMARY KEY, cut BLOB NOT NULL, place BLOB NOT NULL)")
        self._db.execute("BEGIN")  # scratch data: one transaction, never committed to survive a crash

    def close(self) -> None:
        self._db.close()

    def _get(self, sql: str, keys: list) -> list[tuple]:
        out: list[tuple] = []
        for i in range(0, len(keys), _IN):
            part = keys[i:i + _IN]
            out.extend(self._db.execute(sql.format(",".join("?" * len(part))), part))
        return out

    def texts(self, keys: Iterable[int]) -> dict[int, tuple[int, bytes | None]]:
        """key → (shard, record vector bytes or None) of the texts already stored."""
        found = self._get("SELECT key, shard, rvec FROM texts WHERE key IN ({})", list(set(keys)))
        return {k: (shard, rvec) for k, shard, rvec in found}

    def add_texts(self, items: Iterable[tuple[int, int, bytes | None]]) -> None:
        self._db.executemany("INSERT INTO texts VALUES (?, ?, ?)", items)

    def rows(self, keys: Iterable[bytes]) -> dict[bytes, bytes]:
        """key → float16 vector bytes of the rows already embedded."""
        return dict(self._get("SELECT key, vec FROM rows WHERE key IN ({})", list(set(keys))))

    def add_rows(self, items: Iterable[tuple[bytes, bytes]]) -> None:
        self._db.executemany("INSERT INTO rows VALUES (?, ?)", items)

    def other_cut(self, key: int, cut: bytes, place: str) -> str | None:
        """Where the text `key` was first read, when that use cut it into sentences otherwise than `cut`
        (a digest; empty: the segmenter's); else None, the first use recorded."""
        row = self._db.execute("SELECT cut, place FROM cuts WHERE key = ?", (key,)).fetchone()
        if row is None:
            self._db.execute("INSERT INTO cuts VALUES (?, ?, ?)", (key, cut, _blob(place)))
            return None
        return None if row[0] == cut else _text(row[1])

    def id_places(self) -> IdPlaces:
        return IdPlaces(self._db)


def _blob(text: str) -> bytes:
    """Any str as bytes and back (`_text`): a place names a file as the OS gave it (lone surrogates too)."""
    return text.encode("utf-8", "surrogatepass")


def _text(blob: bytes) -> str:
    return blob.decode("utf-8", "surrogatepass")


class IdPlaces:
    """Record id → where it was first read: the `seen` mapping of `read.iter_records`, on disk."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def first_place(self, record_id: str, place: str) -> str | None:
        """None when `record_id` is new (then kept with `place`), else the place it was first read: one
        statement for a new id, the common case."""
        key = _blob(record_id)
        if self._db.execute("INSERT INTO ids VALUES (?, ?) ON CONFLICT DO NOTHING", (key, _blob(place))).rowcount:
            return None
        return _text(self._db.execute("SELECT place FROM ids WHERE id = ?", (key,)).fetchone()[0])
