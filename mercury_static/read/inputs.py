"""Input files -> records: CSV, JSON, JSONL, Mercury dumps, SummHay topic files, QAGS's layout, Parquet and
🤗 datasets folders, Label Studio tasks.

This module picks the format and checks ids across files; one module per format reads it (csv_rows.py,
json_docs.py, mercury_dump.py, summhay.py, qags.py, parquet.py, label_studio.py) and record.py turns each
record's fields into a `Record`.

Rules shared by every format:

- Bad input raises ``InputError`` (one line: file, ``line N`` or ``record N``, field, message).
  ``line N`` is a 1-based physical line (for CSV the line where the record starts); ``record N`` is the
  0-based index in a JSON list (jq's ``.[N]``). A UTF-8 BOM and CRLF line ends are accepted.
- Record ids come from ``id_field`` (looked up in the record, then in its nested ``metadata``), else an
  ``id`` field, else ``sample_id``, else the 0-based position. When several files are read, ids not
  chosen with ``id_field`` are prefixed with the file's stem (``batch_1:0``), because ``sample_id`` and
  positions restart in every file (FaithBench batches). Any remaining duplicate is an error naming both
  places. SummHay records are ``<subtopic_id>:<method>`` (see ``read_summhay``; field options unused).
- Every field other than id, source, summary (and a Mercury dump's ``annotations``) is metadata; a nested
  ``metadata`` object is merged into it (top-level fields win on a name clash).
- A source may be a list of documents (strings or ``{"title"?, "id"?, "text"}``): they are joined as
  titled sections, see ``record.join_documents``.
- Mercury annotations become ``prior_annotations`` in the export annotation shape plus ``annotator``.
  Offsets must slice back to the span text; otherwise the span is looked up in the text and the offsets
  are fixed when it occurs exactly once, else the annotation is dropped (a bad *source* span only drops
  the source part). Each fix or drop is logged as a warning on the ``mercury_static`` logger.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol
from pathlib import Path

from mercury_static.core import safeio
from mercury_static.read.csv_rows import read_csv
from mercury_static.read.json_docs import detect, file_lines, json_objects, parse_json, peek_object, read_jsonl, \
    read_list
from mercury_static.read.label_studio import read_tasks
from mercury_static.read.mercury_dump import dump_samples
from mercury_static.read.input_formats import FORMATS
from mercury_static.read.parquet import is_datasets_folder, read_folder, read_parquet
from mercury_static.read.qags import is_qags, read_qags
from mercury_static.read.record import Item, Options, join_documents
from mercury_static.read.summhay import read_summhay
from mercury_static.core.records import InputError, Record

__all__ = ["FORMATS", "iter_records", "join_documents", "read_records"]



def read_records(
    paths: Iterable[str | Path] | str | Path,
    fmt: str = "auto",
    source_field: str = "source",
    summary_field: str = "summary",
    id_field: str | None = None,
    verdicts: tuple[str, ...] | None = None,
) -> list[Record]:
    """Read every input file into records (see the module docstring for the rules); `verdicts`: the
    settings' sentence verdicts, which a dataset's sentence judgments must name."""
    return list(iter_records(paths, fmt, source_field, summary_field, id_field, verdicts=verdicts))


class Seen(Protocol):
    """Record id → the place it was first read (`Places`, or a disk-backed table: `scratch.IdPlaces`)."""

    def first_place(self, record_id: str, place: str) -> str | None:
        """None when `record_id` is new (then kept with `place`), else the place it was first read."""


class Places(dict[str, str]):
    """`Seen` in memory."""

    def first_place(self, record_id: str, place: str) -> str | None:
        first = self.get(record_id)
        if first is None:
            self[record_id] = place
        return first


def iter_records(
    paths: Iterable[str | Path] | str | Path,
    fmt: str = "auto",
    source_field: str = "source",
    summary_field: str = "summary",
    id_field: str | None = None,
    seen: Seen | None = None,
    verdicts: tuple[str, ...] | None = None,
) -> Iterator[Record]:
    """`read_records` one record at a time (the streaming build); `seen` maps each id read to its place
    (a disk-backed mapping keeps memory flat over millions of ids: `scratch.IdPlaces`)."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if fmt not in FORMATS:
        raise InputError(str(paths[0]) if paths else "-", None, None,
                         f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    opts = Options(source_field, summary_field, id_field, qualify_ids=len(paths) > 1, verdicts=verdicts)
    seen = Places() if seen is None else seen
    for path in paths:
        for item in _read_file(Path(path), str(path), fmt, opts):
            rec = item.record
            safeio.check(rec.id, str(path), item.where, item.id_key or "id")  # e.g. a file stem not in UTF-8
            first = seen.first_place(rec.id, f"{path}: {item.where}")
            if first is not None:
                raise InputError(str(path), item.where, item.id_key, f"duplicate id {rec.id!r} (first seen at {first})")
            yield rec


# ---------------------------------------------------------------- files and formats

def _read_text(path: Path, name: str) -> str:
    text = safeio.read_text(path, name, safeio.INPUT_LIMIT)
    if not text.strip():
        raise InputError(name, None, None, "empty file")
    return text


def _read_file(path: Path, name: str, fmt: str, opts: Options) -> Iterator[Item]:
    ext = path.suffix.lower()
    if path.is_dir() and (fmt == "parquet" or fmt == "auto" and (is_datasets_folder(path)
                                                                  or any(path.rglob("*.parquet")))):
        yield from read_folder(path, name, opts)
        return
    if fmt == "parquet" or (fmt == "auto" and ext == ".parquet"):
        yield from read_parquet(path, name, opts)
        return
    if fmt == "qags" and ext in (".jsonl", ".ndjson"):
        yield from read_qags(json_objects(file_lines(path, name), name), name, opts)
        return
    if fmt == "jsonl" or (fmt == "auto" and ext in (".jsonl", ".ndjson")):
        lines = file_lines(path, name)  # streamed: a line at a time
        first, lines = peek_object(lines)
        if fmt == "auto" and is_qags(first):
            yield from read_qags(json_objects(lines, name), name, opts)
        else:
            yield from read_jsonl(lines, name, opts)
        return
    text = _read_text(path, name)
    if fmt == "csv" or (fmt == "auto" and ext in (".csv", ".tsv")):
        yield from read_csv(text, name, opts, delimiter="\t" if ext == ".tsv" else ",")
        return
    if fmt == "auto" and ext != ".json" and text.lstrip()[:1] not in ("[", "{"):
        raise InputError(name, None, None,
                         "cannot tell the format (use .csv, .json or .jsonl, or pass --format)")
    data = parse_json(text, name, allow_jsonl=fmt in ("auto", "qags"))
    if data is None:  # JSON Lines in a file named .json
        first, lines = peek_object(enumerate(text.split("\n"), 1))
        if fmt == "qags" or fmt == "auto" and is_qags(first):
            yield from read_qags(json_objects(lines, name), name, opts)
        else:
            yield from read_jsonl(lines, name, opts)
        return
    kind = detect(data) if fmt == "auto" else fmt
    if kind == "qags":
        if not isinstance(data, list):
            raise InputError(name, None, None,
                             f"expected QAGS's JSON Lines or a JSON list, got {safeio.json_kind(data)}")
        yield from read_qags(((f"record {i}", x) for i, x in enumerate(data)), name, opts)
    elif kind == "summhay":
        safeio.check(data, name, None)
        yield from read_summhay(data, name, opts)
    elif kind == "label-studio":
        if not isinstance(data, list):
            raise InputError(name, None, None,
                             f"expected a JSON list of Label Studio tasks, got {safeio.json_kind(data)}")
        yield from read_tasks(data, path, name, opts)
    elif kind == "mercury":
        yield from read_list(dump_samples(data, name), name, opts, is_dump=True)
    elif isinstance(data, list):
        yield from read_list(data, name, opts, is_dump=False)
    else:
        found = f"an object with keys: {', '.join(list(data)[:12])}" if isinstance(data, dict) \
            else f"a {safeio.json_kind(data)}"
        raise InputError(name, None, None,
                         "expected a JSON list of records, a Mercury dump {\"samples\": [...]} or a "
                         f"SummHay topic (found {found})")
