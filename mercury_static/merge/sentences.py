"""The check of one annotator's sentence verdicts (export version 4, docs/sentence-verdicts.md) against the
bundle record, and their merged shape.

Each fault is one `Reject` naming the field (`sentences[2].verdict`) and drops that verdict only: the record
entry, its spans and its other verdicts stay, as a bad question answer drops only itself. A merged file read
back (its `sentences`) and a Mercury dump's flat `sentence_verdicts` are checked the same way, offsets and
texts against the bundle's cut, so a merge of merges keeps every verdict. A verdict accepted from the dataset's
suggestions names who suggested it (`suggested_by`): each name must have given that verdict to that sentence in
the bundle record (its `prior_sentences` or `sentence_suggestions`), and shown to the annotator.
"""

from __future__ import annotations

from mercury_static.bundle.contents import BundleRecord
from mercury_static.core import safeio
from mercury_static.merge.checks import Reject, parse_time, short
from mercury_static.merge.timeontask import milliseconds
from mercury_static.settings.model import SentenceVerdicts


def _index(value, count: int, name: str, what: str) -> int:
    """A 0-based sentence index of a text cut into `count` sentences."""
    if type(value) is not int:
        raise Reject(name, f"expected a sentence index (a whole number), got {short(repr(value))}")
    if not 0 <= value < count:
        raise Reject(name, f"sentence {value} is not a sentence of the {what} (it has {count}, 0 to {count - 1})"
                     if count else f"sentence {value}: the {what} has no sentences")
    return value


def _part(text: str, cut: tuple[int, int]) -> dict:
    return {"start": cut[0], "end": cut[1], "text": text[cut[0]:cut[1]]}


def _same_cut(value, part: dict, name: str) -> None:
    """A merged file's offsets and text of a sentence must be the bundle's cut of it."""
    if not isinstance(value, dict) or any(value.get(k) != part[k] for k in ("start", "end", "text")):
        raise Reject(name, f"expected the bundle's sentence {{start: {part['start']}, end: {part['end']}, "
                           f"text: {short(part['text'])!r}}}, got {short(repr(value))}")


def suggested_by(value, record: BundleRecord, sentence: int, verdict_value: str, name: str,
                 shown: bool | None = None) -> list[str] | None:
    """A verdict's `suggested_by` (absent: None), checked: a non-empty list of distinct names, each of which gave
    `verdict_value` to summary sentence `sentence` of the record, on an entry whose suggestions were shown."""
    if value is None:
        return None
    if shown is False:
        raise Reject(name, "accepted a suggestion that was not shown (suggestions.shown is false)")
    if not isinstance(value, list) or not value or not all(isinstance(n, str) and n for n in value) \
            or len(set(value)) != len(value):
        raise Reject(name, f"expected a list of distinct names, got {short(repr(value))}")
    gave = {p.get("annotator") for p in record.prior_sentences
            if p.get("sentence") == sentence and p.get("verdict") == verdict_value}
    gave |= {s.get("agent") for s in record.sentence_suggestions
             if s.get("sentence") == sentence and s.get("verdict") == verdict_value}
    for n in value:
        if n not in gave:
            raise Reject(name, f"{short(repr(n))} suggested no {verdict_value!r} for sentence {sentence} of this "
                               "record")
    return list(value)


def verdict(entry, where: str, record: BundleRecord, settings: SentenceVerdicts, annotator: str,
            merged: bool = False, shown: bool | None = None) -> dict:
    """One exported verdict (`{index, verdict, evidence, updated_at, elapsed_ms, suggested_by}`) or, `merged`, one
    entry of a merged record's `sentences`, checked, in the merged shape (`shown`: whether the entry's
    suggestions were shown, None when it does not say)."""
    if not isinstance(entry, dict):
        raise Reject(where, "expected an object {index, verdict, evidence, updated_at}")
    bad = safeio.find_invalid(entry)
    if bad is not None:
        raise Reject(f"{where}.{bad[0]}" if bad[0] else where, bad[1])
    summary_cut = record.summary_text.sentences
    index = _index(entry.get("sentence" if merged else "index"), len(summary_cut),
                   f"{where}.{'sentence' if merged else 'index'}", "summary")
    summary = _part(record.summary, summary_cut[index])
    if merged:
        _same_cut(entry.get("summary"), summary, f"{where}.summary")
    value = entry.get("verdict")
    if not isinstance(value, str) or value not in settings.values:
        raise Reject(f"{where}.verdict", f"{short(repr(value))} is not one of {', '.join(settings.values)}")
    evidence = entry.get("evidence")
    source_cut = record.source_text.sentences
    parts = []
    if evidence is not None:
        if not isinstance(evidence, list):
            raise Reject(f"{where}.evidence", "expected a list of source sentence indices")
        if evidence and value not in settings.evidence:
            raise Reject(f"{where}.evidence", f"the verdict {value!r} carries no evidence (only "
                                              f"{', '.join(settings.evidence)})")
        seen: set[int] = set()
        for k, item in enumerate(evidence):
            name = f"{where}.evidence[{k}]"
            at = _index(item.get("sentence") if merged and isinstance(item, dict) else item, len(source_cut),
                        f"{name}.sentence" if merged else name, "source")
            if at in seen:
                raise Reject(name, f"source sentence {at} is listed twice")
            seen.add(at)
            part = {"sentence": at, **_part(record.source, source_cut[at])}
            if merged:
                _same_cut(item, part, name)
            parts.append(part)
    updated_at = entry.get("updated_at")
    if parse_time(updated_at, f"{where}.updated_at") is None and not (merged and updated_at is None):
        raise Reject(f"{where}.updated_at", "missing")  # merged: null is a dataset's verdict (QAGS), time unknown
    elapsed = milliseconds(entry.get("elapsed_ms"), f"{where}.elapsed_ms")
    by = suggested_by(entry.get("suggested_by"), record, index, value, f"{where}.suggested_by", shown)
    out = {"annotator": annotator, "sentence": index, "summary": summary, "verdict": value}
    if value in settings.evidence:
        out["evidence"] = parts
    out["updated_at"] = updated_at
    if elapsed is not None:
        out["elapsed_ms"] = elapsed
    if by is not None:
        out["suggested_by"] = by
    return out


def check_sentences(entries, record: BundleRecord, settings: SentenceVerdicts | None, annotator: str,
                    field_name: str = "sentences", shown: bool | None = None) -> tuple[list[dict], list[Reject]]:
    """The valid verdicts of one export record entry (merged shape, in sentence order), and one `Reject` per
    verdict dropped: a bad one, a sentence judged twice (the first kept), or any verdict on a bundle that asks
    none; `shown`: whether the entry's suggestions were shown (None: it does not say)."""
    if entries is None or entries == []:
        return [], []
    if not isinstance(entries, list):
        return [], [Reject(field_name, "expected a list of sentence verdicts")]
    return _checked(list(enumerate(entries)), record, settings, annotator, False, field_name, shown)


def _checked(numbered: list[tuple[int, object]], record: BundleRecord, settings: SentenceVerdicts | None,
             annotator: str, merged: bool, field_name: str, shown: bool | None = None
             ) -> tuple[list[dict], list[Reject]]:
    if settings is None:
        return [], [Reject(field_name, f"{len(numbered)} sentence verdict(s), but this bundle asks none (its "
                                       "settings have no sentence_verdicts)")]
    kept: dict[int, dict] = {}
    first: dict[int, int] = {}
    dropped = []
    for j, entry in numbered:
        where = f"{field_name}[{j}]"
        try:
            out = verdict(entry, where, record, settings, annotator, merged, shown)
            if out["sentence"] in kept:
                raise Reject(f"{where}.{'sentence' if merged else 'index'}",
                             f"sentence {out['sentence']} is judged twice (also {field_name}[{first[out['sentence']]}],"
                             " which is kept)")
        except Reject as e:
            dropped.append(e)
            continue
        kept[out["sentence"]] = out
        first[out["sentence"]] = j
    return [kept[i] for i in sorted(kept)], dropped


def flat_entry(entry) -> object:
    """A flat `sentence_verdicts` entry of a Mercury dump (merge's `mercury` output) in the merged shape."""
    if not isinstance(entry, dict):
        return entry
    out = {k: v for k, v in entry.items() if k not in ("summary_start", "summary_end", "summary_span")}
    out["summary"] = {"start": entry.get("summary_start"), "end": entry.get("summary_end"),
                      "text": entry.get("summary_span")}
    return out


def check_merged(entries, record: BundleRecord, settings: SentenceVerdicts | None, name, field_name: str
                 ) -> tuple[dict[str, list[dict]], list[Reject]]:
    """A merged file's `sentences` (or, flat, a dump's `sentence_verdicts`) by annotator (`name` turns a raw
    annotator into the compared one), and one `Reject` per verdict dropped."""
    if entries is None or entries == []:
        return {}, []
    if not isinstance(entries, list):
        return {}, [Reject(field_name, "expected a list of sentence verdicts")]
    flat = field_name == "sentence_verdicts"
    groups: dict[str, list[tuple[int, object]]] = {}
    dropped = []
    for j, entry in enumerate(entries):
        raw = entry.get("annotator") if isinstance(entry, dict) else None
        if not isinstance(raw, str) or not raw.strip():
            dropped.append(Reject(f"{field_name}[{j}].annotator", "missing or empty"))
            continue
        groups.setdefault(name(raw), []).append((j, flat_entry(entry) if flat else entry))
    out = {}
    for annotator, numbered in groups.items():
        kept, bad = _checked(numbered, record, settings, annotator, True, field_name)
        out[annotator] = kept
        dropped += bad
    return out, dropped
