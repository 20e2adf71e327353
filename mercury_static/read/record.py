"""One input record: the fields every format shares (id, source, summary, metadata) -> a `Record`.

Kept in one place so CSV rows, JSON objects and Mercury samples follow the same rules (read.py's docstring).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from mercury_static.core import mercury, safeio
from mercury_static.read.mercury_dump import prior_annotation
from mercury_static.core.records import InputError, Record, Section


@dataclass(frozen=True)
class Options:
    """The field options of `read_records`, and whether ids get the file stem as a prefix."""

    source_field: str
    summary_field: str
    id_field: str | None
    qualify_ids: bool
    verdicts: tuple[str, ...] | None = None
    """The settings' sentence verdicts (None: none named; a dataset's verdicts are read against its own)."""


@dataclass
class Item:
    """One record before the duplicate-id check, with the place it came from."""

    record: Record
    where: str
    id_key: str | None  # the field the id came from (None: position)


def identity(obj: dict, position: int, where: str, name: str,
             opts: Options) -> tuple[str, str | None, dict, dict]:
    """A record's id as every reader names it (`--id-field`, else `id`, else `sample_id`, else the position;
    prefixed with the file's stem when several files are read), and its fields and nested `metadata`, copies
    without the id; the key the id was read from (None: the position)."""
    fields = dict(obj)
    id_key = mercury.record_id_key(fields, opts.id_field)
    rec_id = mercury.record_id(fields, position, opts.id_field, name, where)
    nested = fields.pop("metadata", None) if isinstance(fields.get("metadata"), dict) else None
    nested = dict(nested) if nested else {}
    if id_key is not None:
        (fields if id_key in fields else nested).pop(id_key)
    if opts.qualify_ids and opts.id_field is None:
        rec_id = f"{_file_stem(name)}:{rec_id}"
    return rec_id, id_key, fields, nested


def make_item(fields: dict, position: int, where: str, name: str, opts: Options,
              is_dump: bool) -> Item:
    """The record of one CSV row, JSON object or dump sample (`is_dump`: its annotations become priors)."""
    safeio.check(fields, name, where)
    names = ", ".join(fields) or "none"
    rec_id, id_key, fields, nested = identity(fields, position, where, name, opts)

    sections = None
    for key in (opts.source_field, opts.summary_field):
        if key not in fields:
            raise InputError(name, where, key, f"missing (fields: {names})")
    raw_source = fields.pop(opts.source_field)
    if isinstance(raw_source, list):
        source, sections = join_documents(documents(raw_source, name, where, opts.source_field))
    elif isinstance(raw_source, str):
        source = text_field(raw_source, name, where, opts.source_field)
    else:
        raise InputError(name, where, opts.source_field,
                         f"expected a string or a list of documents, got {safeio.json_kind(raw_source)}")
    summary = text_field(fields.pop(opts.summary_field), name, where, opts.summary_field)

    prior: list[dict] = []
    if is_dump and "annotations" in fields:
        anns = fields.pop("annotations")
        if anns is not None and not isinstance(anns, list):
            raise InputError(name, where, "annotations", f"expected a list, got {safeio.json_kind(anns)}")
        label = f"{name}: {where}"
        prior = [p for k, a in enumerate(anns or []) if (p := prior_annotation(a, k, rec_id, source, summary, label))]

    metadata = {**nested, **fields}
    origin = f"{_file_name(name)}:{where.split()[-1]}" if where.startswith("line") \
        else f"{_file_name(name)}[{where.split()[-1]}]"
    record = Record(id=rec_id, source=source, summary=summary, metadata=metadata,
                    prior_annotations=prior, source_sections=sections, origin=origin)
    return Item(record, where, id_key)


@functools.cache
def _file_name(name: str) -> str:
    """The file's name without its folders (asked once per record, so kept per file)."""
    return Path(name).name


@functools.cache
def _file_stem(name: str) -> str:
    return Path(name).stem


def text_field(value, name: str, where: str, key: str) -> str:
    if not isinstance(value, str):
        raise InputError(name, where, key, f"expected a string, got {safeio.json_kind(value)}")
    if not value.strip():
        raise InputError(name, where, key, "empty text")
    return value


def documents(items: list, name: str, where: str, key: str) -> list[tuple[str, str, str]]:
    """(title, doc_id, text) of each document of a list-valued source."""
    if not items:
        raise InputError(name, where, key, "empty list of documents")
    docs = []
    for i, doc in enumerate(items):
        label = f"document {i}"
        if isinstance(doc, str):
            title, doc_id, text = None, None, doc
        elif isinstance(doc, dict):
            if "text" not in doc:
                raise InputError(name, where, key, f"{label}: missing 'text'")
            title, doc_id, text = doc.get("title"), doc.get("id"), doc["text"]
        else:
            raise InputError(name, where, key,
                             f"{label}: expected a string or an object with 'text', got {safeio.json_kind(doc)}")
        if not isinstance(text, str) or not text.strip():
            raise InputError(name, where, key, f"{label}: empty text" if isinstance(text, str)
                             else f"{label}: expected a string text, got {safeio.json_kind(text)}")
        title = " ".join(str(title).split()) if title not in (None, "") else f"Document {i + 1}"
        docs.append((title, str(doc_id) if doc_id is not None else str(i + 1), text))
    return docs


def join_documents(docs: list[tuple[str, str, str]]) -> tuple[str, list[Section]]:
    """Join (title, doc_id, text) documents into one source text with one section per document.

    Each document is its title on one line, then its text (stripped); documents are separated by a blank
    line. A section's [start, end) covers the document's text only (the title line sits just before it).
    """
    parts: list[str] = []
    sections: list[Section] = []
    pos = 0
    for title, doc_id, text in docs:
        body = text.strip()
        if parts:
            parts.append("\n\n")
            pos += 2
        parts.append(f"{title}\n{body}")
        start = pos + len(title) + 1
        sections.append(Section(start, start + len(body), title, doc_id))
        pos = start + len(body)
    return "".join(parts), sections
