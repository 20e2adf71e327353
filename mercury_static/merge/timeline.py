"""How far a round is (docs/merge.md, "The report"): each annotator's records by status, what is left of
their queue and of the round, and their submissions over time, binned so that a chart of them stays small
whatever the round's length.

A record is done when `overlap` annotators judged it (agreement.judges: submitted it, or annotated it in a
Mercury dump, which records no status; the queues' overlap, 1 without queues). Times are the submitted
responses' `updated_at` (a dump has none).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime, timezone

from mercury_static.merge.agreement import judges
from mercury_static.merge.checks import parse_time

BIN_WIDTHS = (60, 300, 900, 3600, 6 * 3600, 86400, 7 * 86400, 30 * 86400)
"""Seconds per bin, the narrowest that keeps a round within MAX_BINS bins is taken."""
MAX_BINS = 60
STATUSES = ("submitted", "in_progress", "discarded")


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def timeline(times: dict[str, list[float]]) -> dict:
    """`{bin_s, bins: [ISO start], submitted: {annotator: [count per bin]}}` of POSIX times per annotator."""
    every = [t for ts in times.values() for t in ts]
    if not every:
        return {"bin_s": None, "bins": [], "submitted": {}}
    first, last = min(every), max(every)
    width = next((w for w in BIN_WIDTHS if (last - first) // w < MAX_BINS), BIN_WIDTHS[-1])
    start = first - first % width
    n = int((last - start) // width) + 1
    counts = {}
    for name, ts in sorted(times.items()):
        row = [0] * n
        for t in ts:
            row[int((t - start) // width)] += 1
        counts[name] = row
    return {"bin_s": width, "bins": [_iso(start + i * width) for i in range(n)], "submitted": counts}


def work_progress(records: Sequence[dict], queues: dict[str, list[str]] | None, overlap: int) -> dict:
    """`{overlap, records_done, records_left, annotators: {name: {submitted, in_progress, discarded, queue,
    queue_left, queue_todo}}, timeline}` of merged records; a record judged or discarded is off its annotator's
    queue, one in progress is left but not to do (`queues`: the bundle's, by name; None without queues)."""
    need = overlap if queues is not None else 1
    status: dict[str, Counter] = defaultdict(Counter)
    finished: dict[str, set[str]] = defaultdict(set)
    touched: dict[str, set[str]] = defaultdict(set)
    times: dict[str, list[float]] = defaultdict(list)
    done = 0
    for record in records:
        for r in record.get("responses", []):
            name = r["annotator"]
            status[name][r["status"]] += 1
            touched[name].add(record["id"])
            if r["status"] in ("submitted", "discarded"):
                finished[name].add(record["id"])
            if r["status"] == "submitted":
                when = parse_time(r.get("updated_at"), "updated_at")
                if when is not None:
                    times[name].append(when)
        judged = judges(record)
        for name in judged:
            finished[name].add(record["id"])
            touched[name].add(record["id"])
        done += len(judged) >= need
    annotators = {}
    for name in sorted(set(status) | set(queues or {})):
        queue = None if queues is None else queues.get(name)
        annotators[name] = {**{s: status[name][s] for s in STATUSES},
                            "queue": None if queue is None else len(queue),
                            "queue_left": None if queue is None else sum(i not in finished[name] for i in queue),
                            "queue_todo": None if queue is None else sum(i not in touched[name] for i in queue)}
    return {"overlap": need, "records_done": done, "records_left": len(records) - done,
            "annotators": annotators, "timeline": timeline(times)}
