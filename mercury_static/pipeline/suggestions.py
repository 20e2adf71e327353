"""Machine suggestions per record: from input columns (settings `suggestions.columns`) and from a JSONL
file (`--suggestions FILE`). Prior Mercury annotations stay the record's `prior_annotations` (today's
shape, agent `mercury:<annotator>` in the page), so no suggestion is stored twice.

A suggestion is `{question, value, score, agent}` (score in [0, 1] or null), its value checked against
its question (`settings.value_problem`); every fault is one InputError naming the file, record and field.
"""

from __future__ import annotations

import math
from pathlib import Path

from mercury_static.core import safeio
from mercury_static.core.records import InputError, Record
from mercury_static.settings.checks import value_problem
from mercury_static.settings.model import ColumnSuggestion, Settings


def _score(value, file: str, where: str, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 <= value <= 1:
        raise InputError(file, where, key, f"a suggestion score is a number from 0 to 1, got {value!r}")
    return float(value)


def from_columns(record: Record, rule: ColumnSuggestion, settings: Settings) -> dict | None:
    """The suggestion `rule` reads from one record's columns, or None when the record lacks the column.

    With a threshold (FaithBench's detector scores, e.g. HHEM's probability that the summary is consistent):
    value = `at_or_above` if score >= threshold else `below`, score = the confidence in that value."""
    file, where = record.origin, f"record {record.id}"
    meta = record.metadata
    key = rule.value_from or rule.score_from
    if key not in meta or meta[key] is None:
        return None
    score = _score(meta.get(rule.score_from), file, where, rule.score_from) if rule.score_from else None
    if rule.threshold is not None:
        assert score is not None  # parse_settings requires score_from with a threshold
        above = score >= rule.threshold
        value, score = (rule.at_or_above, score) if above else (rule.below, 1.0 - score)
    else:
        value = meta[key]
    question = settings.question(rule.question)
    assert question is not None  # parse_settings checked that the rule's question exists
    problem = value_problem(question, value)
    if problem:
        raise InputError(file, where, key, f"suggestion for question {rule.question!r}: {problem}")
    return {"question": rule.question, "value": value, "score": None if score is None else round(score, 6),
            "agent": rule.agent}


def read_suggestion_file(path: Path, lengths: dict[str, tuple[int, int]], settings: Settings,
                         label_choices: list[str]) -> dict[str, list[dict]]:
    """`--suggestions FILE`: one `{record_id, question, value, score, agent}` per line → suggestions by
    record id (`lengths`: each record id's summary and source length in characters). An unknown record or
    question, a value that does not fit, or the same (record, question, agent) twice is one line naming the
    file's line and field."""
    name = str(path)
    out: dict[str, list[dict]] = {}
    seen: set[tuple[str, str, str]] = set()
    for n, line in enumerate(safeio.read_text(path, name).splitlines(), 1):
        if not line.strip():
            continue
        where = f"line {n}"
        item = safeio.json_line(line, name, where)
        safeio.check(item, name, where)
        if not isinstance(item, dict):
            raise InputError(name, where, None, "expected an object {record_id, question, value, score, agent}")
        extra = set(item) - {"record_id", "question", "value", "score", "agent"}
        if extra:
            raise InputError(name, where, sorted(extra)[0], "unknown key (expected record_id, question, value, "
                             "score, agent)")
        for key in ("record_id", "question", "agent"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise InputError(name, where, key, "missing" if key not in item else "expected a non-empty string")
        record_id = item["record_id"]
        if record_id not in lengths:
            raise InputError(name, where, "record_id", f"unknown record id {item['record_id']!r}")
        q = settings.question(item["question"])
        if q is None:
            raise InputError(name, where, "question", f"unknown question {item['question']!r} (questions: "
                             f"{', '.join(x.name for x in settings.questions)})")
        if "value" not in item:
            raise InputError(name, where, "value", "missing")
        problem = value_problem(q, item["value"], label_choices, lengths[record_id])
        if problem:
            raise InputError(name, where, "value", problem)
        key = (record_id, q.name, item["agent"])
        if key in seen:
            raise InputError(name, where, "agent", f"a second suggestion of agent {item['agent']!r} for question "
                             f"{q.name!r} of record {record_id!r}")
        seen.add(key)
        out.setdefault(record_id, []).append({"question": q.name, "value": item["value"],
                                              "score": _score(item.get("score"), name, where, "score"),
                                              "agent": item["agent"]})
    return out


def span_suggestions(record: Record, settings: Settings, label_choices: list[str]) -> list[dict]:
    """The record's own span suggestions (`Record.suggestions`) as suggestions of the span question, each value
    checked against the bundle's labels (a label the labeling config lacks is one line)."""
    out = []
    for s in record.suggestions:
        problem = value_problem(settings.span, s["value"], label_choices, (len(record.summary), len(record.source)))
        if problem:
            raise InputError(record.origin, s["where"], "result", f"suggestion: {problem}")
        out.append({"question": settings.span.name, "value": s["value"],
                    "score": _score(s["score"], record.origin, s["where"], "score"), "agent": s["agent"]})
    return out


def record_suggestions(record: Record, settings: Settings, from_file: dict[str, list[dict]],
                       label_choices: list[str] | None = None) -> list[dict]:
    """Every suggestion of one record: the column rules in settings order, then the record's own span
    suggestions (with `label_choices`: read_once, before the labels are known, leaves them out), then the file's
    in line order; one agent suggests one value per question (a second one is an error, not a silent choice)."""
    found = [s for rule in settings.suggestions if (s := from_columns(record, rule, settings))]
    if label_choices is not None:
        found += span_suggestions(record, settings, label_choices)
    seen: set[tuple[str, str]] = set()
    for s in found + from_file.get(record.id, []):
        if (s["question"], s["agent"]) in seen:
            raise InputError(settings.file, f"record {record.id}", "agent", f"agent {s['agent']!r} suggests "
                             f"question {s['question']!r} twice (settings columns, the dataset's predictions and "
                             "the suggestions file)")
        seen.add((s["question"], s["agent"]))
    return found + from_file.get(record.id, [])
