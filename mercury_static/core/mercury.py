"""Mercury dumps: the one place that says what a dump's record id, annotation id, annotator and label are.

`build` (prior annotations, read.py) and `merge` (dump annotations, merge.py) both ask this module, so one
dump gives the same ids, annotators and labels to both. Layouts: the FaithBench / Mercury v0.1 flat dump
``{"samples": [{sample_id, source, summary, annotations: [{annot_id, annotator_name, label, summary_span,
summary_start, …}]}]}``, the original Mercury's nested list, and a previous merged.json.
"""

from __future__ import annotations

import hashlib
import json

from mercury_static.core.names import normalize_name
from mercury_static.core.records import InputError
from mercury_static.core.safeio import json_kind

ID_KEYS = ("id", "sample_id")
"""A record's id field when none is named (``--id-field``), in this order; else its position."""
ANNOTATION_ID_KEYS = ("id", "annot_id")
ANNOTATOR_KEYS = ("annotator_name", "annotator", "annotator_id")
"""The annotator is the first non-empty of these: a name before an opaque id."""


def samples(doc) -> list | None:
    """The records of a dump: ``doc["samples"]`` or the list itself; None when `doc` is not a dump."""
    if isinstance(doc, dict) and "samples" in doc:
        return doc["samples"] if isinstance(doc["samples"], list) else None
    return doc if isinstance(doc, list) else None


def id_text(value, file: str, where: str | None, key: str) -> str:
    """A record id as text: a string or an integer, surrounding spaces removed."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(file, where, key, f"expected a string or an integer id, got {json_kind(value)}")
    text = str(value).strip()
    if not text:
        raise InputError(file, where, key, "empty id")
    return text


def record_id_key(fields: dict, id_field: str | None) -> str | None:
    """The field holding a record's id (looked up in `fields`; `id_field` also in its ``metadata``)."""
    if id_field is not None:
        return id_field
    for key in ID_KEYS:
        if key in fields:
            return key
    return None


def record_id(fields: dict, position: int, id_field: str | None, file: str, where: str | None) -> str:
    """A record's own id (before any file-name prefix): `id_field` (in the record, then in its nested
    ``metadata``), else ``id``, else ``sample_id``, else the 0-based position."""
    key = record_id_key(fields, id_field)
    if key is None:
        return str(position)
    if key in fields:
        return id_text(fields[key], file, where, key)
    nested = fields.get("metadata")
    if isinstance(nested, dict) and key in nested:
        return id_text(nested[key], file, where, key)
    names = ", ".join(fields) or "none"
    raise InputError(file, where, key, f"missing (fields: {names})")


def annotator(a: dict) -> str | None:
    """The annotator of a dump annotation (see ANNOTATOR_KEYS), normalised; None when it names none."""
    for key in ANNOTATOR_KEYS:
        value = a.get(key)
        if isinstance(value, str) and normalize_name(value):
            return normalize_name(value)
    return None


def annotation_id(a: dict) -> str | None:
    """The annotation's own id (``id``, else ``annot_id``, as text); None for the original Mercury."""
    for key in ANNOTATION_ID_KEYS:
        value = a.get(key)
        if value is not None and not isinstance(value, (dict, list)):
            return str(value)
    return None


def derived_id(record: str, who: str, a: dict, summary: dict, source: dict | None) -> str:
    """A content id for an annotation without one: the same dump merged twice gives duplicates, not doubles."""
    content = json.dumps([record, who, a.get("label"), a.get("note"), summary, source],
                         sort_keys=True, ensure_ascii=False)
    return "m" + hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def checked_label(raw) -> list[str]:
    """An annotation's label path (`label_path`) held to the one rule build, eval, merge and tune apply: a
    non-empty list of label texts; ValueError saying what is wrong otherwise (the annotation is dropped:
    FaithBench has annotations whose label list is empty)."""
    label = label_path(raw)
    if not label:
        raise ValueError("expected a non-empty list of labels")
    bad = next((x for x in label if not isinstance(x, str) or not x), None)
    if bad is not None:
        raise ValueError(f"expected label texts, got {json_kind(bad) if bad != '' else 'empty text'} in the list")
    return label


def label_path(raw) -> list | None:
    """An annotation's label as the list of its path prefixes: ``"Unwanted.Intrinsic"`` →
    ``["Unwanted", "Unwanted.Intrinsic"]``; a list is kept as given; None for anything else."""
    if isinstance(raw, str):
        parts = raw.split(".")
        return [".".join(parts[:i]) for i in range(1, len(parts) + 1)] if raw else []
    if isinstance(raw, list):
        return list(raw)
    return None
