"""Validation of one merge input value: times, spans and annotations (each fault one `Reject`).

Kept apart from reading (inputs.py) so exports and Mercury dumps are held to the same checks.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from functools import lru_cache

from mercury_static.core import mercury, safeio

STATUSES = ("submitted", "discarded", "in_progress")


class Reject(Exception):
    """A field of one annotation/record is invalid (caught and turned into an InputError)."""

    def __init__(self, field_name: str | None, message: str):
        super().__init__(message)
        self.field, self.message = field_name, message


def short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def differ(a: str, b: str, before: int = 12, limit: int = 40) -> tuple[str, str]:
    """Two texts that differ, each cut to the same window around their first difference (… where cut), so
    that a line quoting both shows what differs rather than their common start."""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, at - before)

    def window(text: str) -> str:
        part = text[start:start + limit]
        return ("…" if start else "") + part + ("…" if start + limit < len(text) else "")
    return window(a), window(b)


TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?"
                  r"(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?", re.ASCII)
"""The ISO-8601 times merge reads, and the page too (site_template/app/state/times.js, the same cases in
tests/time_cases.json): YYYY-MM-DD, optionally T (or a space) HH:MM[:SS[.fraction]] and Z or ±HH:MM / ±HHMM.
Spelled out rather than `datetime.fromisoformat`, whose forms differ between Python versions."""


def parse_time(value, field_name: str) -> float | None:
    """ISO-8601 text -> POSIX seconds (naive times are UTC); None stays None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise Reject(field_name, "expected an ISO-8601 time string")
    seconds = _seconds(value)
    if seconds is None:
        raise Reject(field_name, f"{short(value)!r} is not an ISO-8601 time")
    return seconds


@lru_cache(maxsize=65536)
def _seconds(value: str) -> float | None:
    m = TIME.fullmatch(value)
    if m is None:
        return None
    y, mo, d, h, mi, s = (int(x or 0) for x in m.groups()[:6])
    micro = int((m[7] or "")[:6].ljust(6, "0"))
    if int(m[11] or 0) > 59:
        return None
    off = timedelta(hours=int(m[10] or 0), minutes=int(m[11] or 0)) * (-1 if m[9] == "-" else 1)
    try:
        moment = datetime(y, mo, d, h, mi, s, micro, tzinfo=timezone(off))
    except ValueError:  # 2026-02-30, 24:00, an offset of 24 hours or more
        return None
    return moment.timestamp()


def check_status(status) -> str:
    if status not in STATUSES:
        raise Reject("status", f"{short(str(status))!r} is not one of {', '.join(STATUSES)}")
    return status


def check_json(value) -> None:
    bad = safeio.find_invalid(value)
    if bad is not None:
        raise Reject(bad[0] or None, bad[1])


def span(value, text: str, name: str) -> dict:
    """A `{start, end, text}` span whose integer offsets slice `text` back to the quoted text."""
    if not isinstance(value, dict):
        raise Reject(name, "expected an object {start, end, text}")
    start, end, quoted = value.get("start"), value.get("end"), value.get("text")
    if type(start) is not int or type(end) is not int:
        raise Reject(name, f"start/end must be integers (got {start!r}, {end!r})")
    if not 0 <= start < end <= len(text):
        raise Reject(name, f"offsets {start}..{end} out of range (text has {len(text)} characters)")
    if not isinstance(quoted, str):
        raise Reject(name, "quoted text missing")
    if text[start:end] != quoted:
        mine, theirs = differ(quoted, text[start:end])
        raise Reject(name, f"quoted text {mine!r} != text[{start}:{end}] {theirs!r}")
    return {"text": quoted, "start": start, "end": end}


def annotation(labels: list[str], known: set[str], *, id: str, annotator: str, label, note, summary: dict,
               source: dict | None, created_at, updated_at) -> tuple[float | None, dict]:
    """(updated_at as seconds, the annotation in the merged shape), once its label, note and times hold."""
    try:
        label = mercury.checked_label(label)
    except ValueError as e:
        raise Reject("label", str(e)) from None
    if not known.issuperset(label):
        bad = next(x for x in label if x not in known)
        raise Reject("label", f"unknown label {short(bad)!r} (bundle labels: {', '.join(labels)})")
    if note is not None and not isinstance(note, str):
        raise Reject("note", "expected a string")
    if created_at is not None and not isinstance(created_at, str):
        raise Reject("created_at", "expected an ISO-8601 time string")
    time = parse_time(updated_at, "updated_at")
    return time, {"source": source, "summary": summary, "label": label, "annotator": annotator,
                  "note": note or "", "id": id, "created_at": created_at, "updated_at": updated_at}
