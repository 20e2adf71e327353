"""A value checked against the settings: an answer or a suggestion against its question (build's suggestions,
merge's responses), a record's metadata against its property, a distribution's annotators and overlap (shared
with `assign`). A fault is the problem's text, or one InputError naming the file, the place and the field.
"""

from __future__ import annotations

from mercury_static.core.names import distinct_names
from mercury_static.core.records import InputError
from mercury_static.core.safeio import json_kind
from mercury_static.settings.model import Distribution, MetadataProperty, MetadataRanges, Question


def check_distribution(names, overlap: int, file: str, where: str | None,
                       keys: tuple[str, str] = ("annotators", "overlap")) -> Distribution:
    """Annotator names (non-empty, distinct once normalised: names.distinct_names) and 1 <= overlap <= their
    number (shared with `assign`, whose `keys` are its flags)."""
    clean = distinct_names(names, file, where, keys[0])
    if not clean:
        raise InputError(file, where, keys[0], "no annotator names")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 1 <= overlap <= len(clean):
        raise InputError(file, where, keys[1], f"{overlap!r} must be an integer from 1 to the number of "
                         f"annotators ({len(clean)})")
    return Distribution(clean, overlap)


def check_meta_value(prop: MetadataProperty, value, file: str, where: str, ranges: MetadataRanges):
    """`value` of one record checked against its property (InputError naming record and column); returns it
    as stored in the shard (a terms value: a string or a list of strings)."""
    def bad(message: str):
        raise InputError(file, where, prop.column, f"metadata {prop.name!r} ({prop.type}): {message}")

    if prop.type == "terms":
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(v, str) for v in items):
            bad(f"expected a string or a list of strings, got {json_kind(value)}")
        for v in items:
            if prop.values is not None and v not in prop.values:
                bad(f"{v!r} is not one of {', '.join(prop.values)}")
            ranges.terms.setdefault(prop.name, set()).add(v)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            prop.type == "integer" and not isinstance(value, int)):
        bad(f"expected {'an integer' if prop.type == 'integer' else 'a number'}, got {json_kind(value)} {value!r}")
    if prop.min is not None and value < prop.min or prop.max is not None and value > prop.max:
        bad(f"{value} is outside [{prop.min}, {prop.max}]")
    ranges.low[prop.name] = min(value, ranges.low.get(prop.name, value))
    ranges.high[prop.name] = max(value, ranges.high.get(prop.name, value))
    return value


def value_problem(q: Question, value, label_choices: list[str] | None = None,
                  lengths: tuple[int, int] | None = None) -> str | None:
    """What is wrong with `value` as an answer to (or suggestion for) question `q`, or None if it fits.

    Shared by build (suggestions) and merge (responses). A span value is a list of
    `{"label": leaf, "summary": [s, e], "source": [s, e] | null}` checked against the label choices and
    the (summary, source) lengths in code points."""
    options = [o.value for o in q.options]
    if q.type == "label":
        return None if isinstance(value, str) and value in options else f"{value!r} is not one of {', '.join(options)}"
    if q.type == "multi_label":
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            return f"expected a non-empty list of options, got {json_kind(value)}"
        bad = next((v for v in value if v not in options), None)
        if bad is not None:
            return f"{bad!r} is not one of {', '.join(options)}"
        return "an option is given twice" if len(set(value)) != len(value) else None
    if q.type == "rating":
        ok = isinstance(value, int) and not isinstance(value, bool) and value in q.values
        return None if ok else f"{value!r} is not one of {', '.join(map(str, q.values))}"
    if q.type == "ranking":
        if not isinstance(value, list) or sorted(map(str, value)) != sorted(options) or len(value) != len(options) \
                or not all(isinstance(v, str) for v in value):
            return f"expected an ordering of all of {', '.join(options)} (each once)"
        return None
    if q.type == "text":
        return None if isinstance(value, str) and value.strip() else "expected a non-empty text"
    return _span_problem(value, label_choices or [], lengths)


def _span_problem(value, choices: list[str], lengths: tuple[int, int] | None) -> str | None:
    if not isinstance(value, list) or not value:
        return f"expected a non-empty list of spans, got {json_kind(value)}"
    for k, span in enumerate(value):
        if not isinstance(span, dict) or set(span) - {"label", "summary", "source"} or "summary" not in span:
            return f"span {k}: expected {{label, summary: [start, end], source: [start, end] | null}}"
        if span.get("label") not in choices:
            return f"span {k}: label {span.get('label')!r} is not one of {', '.join(choices)}"
        for side, limit in (("summary", lengths[0] if lengths else None), ("source", lengths[1] if lengths else None)):
            pair = span.get(side)
            if pair is None and side == "source":
                continue
            if not (isinstance(pair, list) and len(pair) == 2 and all(
                    isinstance(x, int) and not isinstance(x, bool) for x in pair)):
                return f"span {k}: {side}: expected [start, end] integers"
            if not 0 <= pair[0] < pair[1] or limit is not None and pair[1] > limit:
                return f"span {k}: {side}: offsets {pair[0]}..{pair[1]} out of range (text has {limit} characters)"
    return None
