"""Version resolution: per (annotator, record) the newest version wins whole (see docs/merge.md, "Versions").

Mercury dumps carry no time and count as older than any dated version; versions tied on time are united,
one copy per annotation id (the newest copy).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class Counts:
    """Annotation counts: read = merged + duplicate + superseded + rejected."""

    read: int = 0
    merged: int = 0
    duplicate: int = 0
    superseded: int = 0
    rejected: int = 0


@dataclass
class Version:
    """One annotator's state of one record, as one input file saw it."""

    annotator: str
    record_id: str
    status: str | None
    updated_at: str | None
    time: float | None
    annotations: list[tuple[float | None, dict]]
    client_id: str | None = None
    exported_at: str = ""
    values: dict | None = None
    """The question answers (export version 2; None: the input has no questions, e.g. version 1)."""
    suggestion_use: dict | None = None
    """`{shown, accepted}`: whether the annotator saw the bundle's suggestions and which were accepted."""
    active_ms: int | None = None
    """The annotator's time on task on the record (export version 3; None: unknown)."""
    sentences: list[dict] = field(default_factory=list)
    """The summary sentences' verdicts (export version 4), in the merged shape (merge/sentences.py), in sentence
    order."""


@dataclass
class Resolved:
    """The winning annotations, responses and sentence verdicts per record id, and a note per record two
    browsers edited."""

    annotations: dict[str, list[dict]]
    responses: dict[str, list[dict]]
    notes: list[str]
    sentences: dict[str, list[dict]] = field(default_factory=dict)


def resolve(versions: list[Version], counts: Counts) -> Resolved:
    """Pick the newest version per (annotator, record), counting duplicates, superseded and merged."""
    groups: dict[tuple[str, str], list[Version]] = defaultdict(list)
    for v in versions:
        groups[v.annotator, v.record_id].append(v)
    out = Resolved(defaultdict(list), defaultdict(list), [], defaultdict(list))
    for (annotator, record_id), group in sorted(groups.items()):
        newest = max(_version_time(v) for v in group)
        winners = [v for v in group if _version_time(v) == newest]
        kept: dict[str, tuple[float | None, dict]] = {}
        for v in winners:
            for time, ann in v.annotations:
                if ann["id"] in kept:
                    counts.duplicate += 1
                    if kept[ann["id"]] != (time, ann):
                        kept[ann["id"]] = max(kept[ann["id"]], (time, ann), key=_newest_copy)
                else:
                    kept[ann["id"]] = (time, ann)
        dropped: set[str] = set()
        for v in group:
            if _version_time(v) == newest:
                continue
            for _, ann in v.annotations:
                if ann["id"] in kept or ann["id"] in dropped:
                    counts.duplicate += 1
                else:
                    dropped.add(ann["id"])
        counts.superseded += len(dropped)
        counts.merged += len(kept)
        out.annotations[record_id].extend(ann for _, ann in kept.values())
        winner = max(winners, key=lambda v: (v.exported_at, v.client_id or "", v.status or ""))
        out.sentences[record_id].extend(winner.sentences)
        if winner.status is not None:
            response: dict = {"annotator": annotator, "status": winner.status, "updated_at": winner.updated_at}
            if winner.values is not None:
                response["values"] = winner.values
            if winner.suggestion_use is not None:
                response["suggestions"] = winner.suggestion_use
            if winner.active_ms is not None:
                response["active_ms"] = winner.active_ms
            out.responses[record_id].append(response)
        other_clients = {v.client_id for v in group if v.client_id and v.client_id != winner.client_id
                         and _version_time(v) != newest}
        if dropped and other_clients:
            out.notes.append(
                f"annotator {annotator!r}, record {record_id}: browsers {', '.join(sorted(other_clients))} "
                f"and {winner.client_id} edited it; kept the newest version ({winner.updated_at}, "
                f"{winner.client_id}); {len(dropped)} annotation(s) only in older versions dropped")
    return out


def _version_time(v: Version) -> tuple[bool, float]:
    return (v.time is not None, v.time or 0.0)


def _newest_copy(copy: tuple[float | None, dict]) -> tuple:
    """Order copies of one annotation: newest `updated_at`, then content (deterministic for ties)."""
    time, ann = copy
    return (time is not None, time or 0.0, json.dumps(ann, ensure_ascii=False, sort_keys=True))
