"""Time on task as the page counts it (site_template/app/state/timeontask.js: a record's active time, an
annotation's creation-to-save time) read from exports, and summed per annotator for merge's JSON report.

A time is a whole number of milliseconds; absent means unknown (exports before version 3, work of earlier
pages), never zero, so unknown times add nothing to any sum, count or median.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import median

from mercury_static.merge.checks import Reject
from mercury_static.report.model import AnnotatorTime, TimeOnTask

IDLE_S = 60
"""The idle threshold: a gap between two activity events longer than this counts nothing (the page's
timeontask.js IDLE_MS is generated from it). Said in the report, so a figure is read with its rule."""


MAX_MS = 24 * 3600 * 1000
"""No time field exceeds a day: the page counts active time, at most a minute per gap between two events,
and a record worked for more than a day's active time is a corrupted file, not work to add up."""


def milliseconds(value, name: str) -> int | None:
    """An exported time: None when absent, else a whole number of ms from 0 to a day (Reject naming the field)."""
    if value is None:
        return None
    if type(value) is not int or not 0 <= value <= MAX_MS:
        shown = repr(value) if len(repr(value)) <= 24 else f"{repr(value)[:20]}…"
        raise Reject(name, f"expected a whole number of milliseconds from 0 to {MAX_MS} (a day), got {shown}")
    return value


def _seconds(ms: int) -> float:
    return ms / 1000


def time_on_task(records: list[dict]) -> TimeOnTask:
    """The figures of merged records (their responses' `active_ms`, their annotations' `elapsed_ms`)."""
    out = TimeOnTask(IDLE_S)
    per_annotator: dict[str, list[float]] = defaultdict(list)
    elapsed: dict[str, list[float]] = defaultdict(list)
    for record in records:
        times = {r["annotator"]: _seconds(r["active_ms"]) for r in record["responses"] if "active_ms" in r}
        if times:
            out.records[record["id"]] = dict(sorted(times.items()))
        for annotator, s in times.items():
            per_annotator[annotator].append(s)
        for a in record["annotations"]:
            if "elapsed_ms" in a:
                elapsed[a["annotator"]].append(_seconds(a["elapsed_ms"]))
    for annotator in sorted(per_annotator):
        times = per_annotator[annotator]
        out.annotators[annotator] = AnnotatorTime(active_s=_seconds(round(sum(times) * 1000)), records=len(times),
                                                  median_record_s=median(times))
    out.annotations_elapsed_s = {a: elapsed[a] for a in sorted(elapsed)}
    return out
