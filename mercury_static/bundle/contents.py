"""The bundle folder: its data model and encodings, and reading a bundle back (writer.py writes it).

Layout and field meanings are specified in docs/DESIGN.md. Records and texts are split into shards so the
page loads only what the open record needs; each distinct text is stored (and embedded) once.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mercury_static.core import safeio
from mercury_static.formats import BUNDLE_FORMAT, BUNDLE_VERSION, Manifest
from mercury_static.core.records import InputError

if TYPE_CHECKING:
    from mercury_static.settings.model import Settings

FORMAT, VERSION = BUNDLE_FORMAT, BUNDLE_VERSION
VECTOR_ENCODING = "float16"
"""Stored row encoding (manifest ``vectors.encoding``). int8 with a per-row scale was measured against
float32 ranking and missed the 98% top-5 agreement on SummHay haystacks (benchmarks/RESULTS.md)."""


@dataclass(frozen=True)
class ShardLimits:
    """How big a shard may get (tests set small limits to get many shards)."""

    record_bytes: int = 256_000  # encoded JSON of the records in one record shard
    records: int = 500  # records per record shard
    text_chars: int = 100_000  # characters of text per text shard (a longer text gets a shard alone); its
    # vectors shard weighs about five times as much, and a first visit loads one of each
    index_records: int = 1000  # records per record-index shard (and ids per ids shard), record_index.py
    term_postings: int = 100_000  # postings per term shard of the record index
    term_split_bytes: int = 500_000  # a word prefix whose lists weigh more is sharded by one more character
    cell_records: int = 1000  # records per similar-records cell (record_cells.py); up to it, one cell: exact


def text_id(text: str) -> str:
    """Content id of a text: identical texts share one stored, embedded copy."""
    return "t" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def dumps(obj) -> str:
    """Canonical JSON: sorted keys, no whitespace, UTF-8 kept (byte-identical rebuilds)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def encode_rows(vectors: np.ndarray) -> bytes:
    """Bytes of a vector shard: float16 little-endian, row after row."""
    return np.asarray(vectors, dtype=np.float32).astype("<f2").tobytes()


def decode_rows(raw: bytes, dim: int) -> np.ndarray:
    """Float32 rows of a vector shard, exactly as the page decodes them."""
    return np.frombuffer(raw, dtype="<f2").reshape(-1, dim).astype(np.float32)


def stored_rows(vectors: np.ndarray) -> np.ndarray:
    """The float32 rows the page will see for `vectors` once stored in a bundle."""
    vectors = np.asarray(vectors, dtype=np.float32)
    return decode_rows(encode_rows(vectors), vectors.shape[-1]) if vectors.size else vectors


@dataclass
class StoredText:
    """A distinct text with its sentence spans and embedding rows (see DESIGN.md)."""

    id: str
    text: str
    sentences: list[tuple[int, int]]
    rows: list[tuple[int, int, int]]
    sections: list[tuple[int, int, str, str]] | None = None
    shard: int = -1
    row0: int = 0


@dataclass
class BundleRecord:
    """A record as stored in a bundle, with its texts resolved."""

    id: str
    title: str | None
    source: str
    summary: str
    metadata: dict
    prior_annotations: list[dict]
    gold: dict | None
    source_text: StoredText
    summary_text: StoredText
    fields: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    suggestions: list[dict] = field(default_factory=list)
    prior_sentences: list[dict] = field(default_factory=list)
    sentence_suggestions: list[dict] = field(default_factory=list)


@dataclass
class Bundle:
    """A bundle read back from disk (used by merge and eval)."""

    dir: Path
    manifest: dict
    records: list[BundleRecord] = field(default_factory=list)

    @cached_property
    def settings(self) -> Settings:
        """The bundle's settings: its questions, metadata, fields (a manifest without them: today's)."""
        from mercury_static.formats import default_manifest_settings
        from mercury_static.settings.manifest import from_manifest

        return from_manifest(self.manifest.get("settings") or default_manifest_settings())

    def record(self, record_id: str) -> BundleRecord | None:
        """The record with this id, or None."""
        return next((r for r in self.records if r.id == record_id), None)


ROW_TITLE_CHARS = 60  # a row of the record list shows about 30; the rest serves the filter
TAG_CHARS = 40  # metadata values up to this length are matched by the page's record filter


def row_title(summary: str) -> str:
    """Title of a record list row for a record without one: the start of its summary (FaithBench ids are
    "0" … "49", which tell an annotator nothing)."""
    words = " ".join(summary.split())
    return words if len(words) <= ROW_TITLE_CHARS else words[:ROW_TITLE_CHARS - 1].rstrip() + "…"


def row_tags(metadata: dict | None, untagged: frozenset[str] = frozenset()) -> list[str]:
    """The short metadata values of a record (`model-a`, `cnn`, `3`) the page's filter matches, in order,
    once each: long texts and nested values would make the index as large as the shards. Keys in `untagged`
    (hidden metadata, a suggestion's value or score column) stay out: the filter would reveal them."""
    tags: list[str] = []
    for key, value in (metadata or {}).items():
        if key == "title" or key in untagged or isinstance(value, (dict, list)) or value is None:
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if 0 < len(text) <= TAG_CHARS and text not in tags:
            tags.append(text)
    return tags


BUNDLE_FILE_LIMIT = 4096 * safeio.MB


def _read_json(path: Path, root: Path):
    name = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    try:
        return safeio.loads(safeio.read_text(path, name, BUNDLE_FILE_LIMIT))
    except json.JSONDecodeError as e:
        raise InputError(name, f"line {e.lineno}", None, f"invalid JSON ({e.msg} at column {e.colno})") from None
    except RecursionError:
        raise InputError(name, None, None, "invalid JSON (nested too deeply)") from None


def load_bundle(directory: str | Path) -> Bundle:
    """Read a bundle's manifest, records and texts (not the vectors). Any fault is one InputError:
    ``BUNDLE: cannot read the bundle: FILE: …``."""
    directory = Path(directory)
    reading = ["manifest.json"]  # the file being read when a wrong structure surfaces as a KeyError
    try:
        return _load_bundle(directory, reading)
    except InputError as e:
        raise InputError(directory, None, None, f"cannot read the bundle: {e}") from None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
        raise InputError(directory, None, None, f"cannot read the bundle: {reading[0]}: unexpected content "
                         f"({type(e).__name__}: {str(e)[:80]})") from None


def _load_bundle(directory: Path, reading: list[str]) -> Bundle:
    manifest_path = directory / "manifest.json"
    if not directory.is_dir():
        raise InputError(directory, None, None, "not a folder")
    if not manifest_path.exists():
        raise InputError("manifest.json", None, None, "missing (not a mercury-static bundle)")
    manifest = _read_json(manifest_path, directory)
    safeio.check(manifest, "manifest.json", None)
    info = Manifest.from_json(manifest, "manifest.json")
    data = directory / "data"
    texts: dict[str, StoredText] = {}
    for i in range(info.shards["texts"]):
        reading[0] = f"data/texts-{i:04d}.json"
        for t in _read_json(data / f"texts-{i:04d}.json", directory)["texts"]:
            if not isinstance(t["text"], str) or not isinstance(t["id"], str):
                raise TypeError("a text's id and text must be strings")
            texts[t["id"]] = StoredText(
                id=t["id"], text=t["text"], sentences=[tuple(s) for s in t["sentences"]],
                rows=[tuple(r) for r in t["rows"]],
                sections=[tuple(s) for s in t["sections"]] if t["sections"] else None, shard=i, row0=t["row0"])
    bundle = Bundle(dir=directory, manifest=manifest)
    for i in range(info.shards["records"]):
        reading[0] = f"data/records-{i:04d}.json"
        for r in _read_json(data / f"records-{i:04d}.json", directory)["records"]:
            if not isinstance(r["id"], str):
                raise TypeError("a record id must be a string")
            src, summ = texts.get(r["source"]), texts.get(r["summary"])
            if src is None or summ is None:
                raise KeyError(f"record {r['id']!r} names a text that no text shard holds")
            bundle.records.append(BundleRecord(
                id=r["id"], title=r.get("title"), source=src.text, summary=summ.text,
                metadata=r.get("metadata") or {}, prior_annotations=r.get("prior_annotations") or [],
                gold=r.get("gold"), source_text=src, summary_text=summ, fields=r.get("fields") or {},
                meta=r.get("meta") or {}, suggestions=r.get("suggestions") or [],
                prior_sentences=r.get("prior_sentences") or [],
                sentence_suggestions=r.get("sentence_suggestions") or []))
    return bundle


def load_vectors(directory: str | Path, shard: int, dim: int) -> np.ndarray:
    """Float32 rows of one text shard, as the page decodes them."""
    return decode_rows((Path(directory) / "data" / f"vectors-{shard:04d}.bin").read_bytes(), dim)
