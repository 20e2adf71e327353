"""A record as a bundle stores it: its JSON (texts by id), with what the settings add to it (extra text
`fields`, typed `meta` and `suggestions`) and the prior annotations the page may offer.

Values come from the record's input columns / metadata keys (`Record.metadata`); each is checked here, so
a bad value stops the build with one line naming the file, the record and the column.
"""

from __future__ import annotations

import logging

from mercury_static.bundle.contents import text_id
from mercury_static.core.records import InputError, Record
from mercury_static.core.safeio import json_kind
from mercury_static.settings.checks import check_meta_value
from mercury_static.settings.model import MetadataRanges, Settings
from mercury_static.pipeline.suggestions import record_suggestions

log = logging.getLogger("mercury_static")


def extra_fields(record: Record, settings: Settings) -> dict:
    """The extra read-only text fields' values of one record (a required one must be there)."""
    out = {}
    for f in settings.fields.extra:
        value = record.metadata.get(f.column)
        if value is None:
            if f.required:
                raise InputError(record.origin, f"record {record.id}", f.column,
                                 f"missing (the text field {f.name!r} of the settings)")
            continue
        if not isinstance(value, str):
            raise InputError(record.origin, f"record {record.id}", f.column,
                             f"text field {f.name!r}: expected a string, got {json_kind(value)}")
        out[f.name] = value
    return out


def record_meta(record: Record, settings: Settings, ranges: MetadataRanges) -> dict:
    """The record's values of the settings' metadata properties, type-checked (absent: no value)."""
    out = {}
    for p in settings.metadata:
        value = record.metadata.get(p.column)
        if value is not None:
            out[p.name] = check_meta_value(p, value, record.origin, f"record {record.id}", ranges)
    return out


def record_extras(records: list[Record], settings: Settings, from_file: dict[str, list[dict]],
                  ranges: MetadataRanges | None = None,
                  label_choices: list[str] | None = None) -> tuple[list[dict], MetadataRanges]:
    """Per record `{fields?, meta?, suggestions?}` (only the non-empty keys: absent means none), and the
    metadata ranges the data holds (for the manifest), added to `ranges` (a streamed build's, chunk by chunk);
    `label_choices`: the bundle's, for the records' own span suggestions (None: not yet known, left out)."""
    ranges = MetadataRanges() if ranges is None else ranges
    extras = []
    for r in records:
        parts = {"fields": extra_fields(r, settings), "meta": record_meta(r, settings, ranges),
                 "suggestions": record_suggestions(r, settings, from_file, label_choices)}
        extras.append({k: v for k, v in parts.items() if v})
    return extras, ranges


def settings_columns(settings: Settings) -> list[tuple[str, str, str]]:
    """(settings entry, key, input column) of every column the settings read metadata or suggestions from."""
    named = [(f"metadata[{i}]", "column", p.column) for i, p in enumerate(settings.metadata)]
    named += [(f"suggestions.columns[{i}]", key, getattr(rule, key))
              for i, rule in enumerate(settings.suggestions) for key in ("value_from", "score_from")
              if getattr(rule, key)]
    return named


def check_columns_used(settings: Settings, seen: set[str], records: int) -> None:
    """After every record was read: a column of the settings that no record has (`seen`: the columns some
    record has a value in) is a misspelt name (an empty filter, no suggestion at all), not data: one error
    naming the settings entry. Absent from some records only is fine."""
    for where, key, column in settings_columns(settings):
        if records and column not in seen:
            raise InputError(settings.file, where, key, f"column {column!r} is in none of the {records} records")


def untagged_columns(settings: Settings) -> frozenset[str]:
    """Input columns the record list's filter must not match: hidden metadata, and the columns suggestions
    are read from (a blind annotator could otherwise find records by a detector's score)."""
    hidden = {p.column for p in settings.metadata if not p.visible}
    return frozenset(hidden | {c for s in settings.suggestions for c in (s.value_from, s.score_from) if c})


def known_label_priors(record: Record, labels: list[str]) -> list[dict]:
    """The record's prior annotations whose labels are all in the bundle's label set; each other one is
    a warning and is kept out of the page's suggestions (accepting it would export a label merge rejects)."""
    known = set(labels)
    kept = []
    for a in record.prior_annotations:
        bad = [x for x in a["label"] if x not in known]
        if bad:
            log.warning("%s: record %s, annotation %s: label %r is not in the bundle's labels (%s); not offered "
                        "as a suggestion", record.origin, record.id, a["id"], bad[-1], ", ".join(labels))
        else:
            kept.append(a)
    return kept


def record_json(r: Record, extras: dict | None = None) -> dict:
    """A record as stored in a record shard (texts by id), with the settings' `fields`/`meta`/`suggestions`
    and a sentence-level dataset's given cut (`summary_sentences`: in the bundle id, as the sentences
    judgments point at), `prior_sentences` and `sentence_suggestions`, each only when it has any."""
    meta = r.metadata or {}
    title = meta.get("title") if isinstance(meta.get("title"), str) else None
    sentences = {"summary_sentences": [list(c) for c in r.summary_sentences] if r.summary_sentences else None,
                 "prior_sentences": r.prior_sentences, "sentence_suggestions": r.sentence_suggestions}
    return {"id": r.id, "title": title, "source": text_id(r.source), "summary": text_id(r.summary),
            "metadata": meta, "prior_annotations": r.prior_annotations, "gold": r.gold,
            **{k: v for k, v in sentences.items() if v}, **(extras or {})}


def stored_record(r: Record, settings: Settings, labels: tuple[list[str], list[str]],
                  from_file: dict[str, list[dict]], ranges: MetadataRanges) -> dict:
    """The record's JSON as the bundle stores it: its priors with known labels only, its extras (the
    metadata ranges they hold added to `ranges`, for the manifest). `labels`: the bundle's (paths, choices)."""
    r.prior_annotations = known_label_priors(r, labels[0])
    return record_json(r, record_extras([r], settings, from_file, ranges, labels[1])[0][0])
