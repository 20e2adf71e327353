"""Each judge's status of a record in the review (docs/review.md, "Each judge's status"): the reviewer sees who
found nothing (consistent), who flagged something, who discarded the record and who never opened it, so that
a record with one span and two silent judges reads as "one of three flagged", not as one opinion.

A judge "never opened" a record their queue held (the bundle's queues; without queues every annotator of the
round works every record) and on which they left no work at all.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

STATUSES = ("flagged", "consistent", "in_progress", "discarded", "not_opened")


def judge_statuses(record: dict, judges: Iterable[str], expected: Iterable[str],
                   flagged: Collection[str] = ()) -> dict[str, str]:
    """`{annotator: status}` over everyone with work on `record`, its `judges` (a Mercury dump's annotators
    have no status: judged) and the `expected` annotators (whose queue held it). `flagged`: annotators who
    flagged something besides spans (a sentence verdict)."""
    status = {r["annotator"]: r["status"] for r in record["responses"]}
    marked = {a["annotator"] for a in record["annotations"]} | set(flagged)
    out: dict[str, str] = {}
    for name in sorted({*expected, *judges, *status, *marked}):
        given = status.get(name)
        if given in ("discarded", "in_progress"):
            out[name] = given
        elif given == "submitted" or name in marked or name in judges:
            out[name] = "flagged" if name in marked else "consistent"
        else:
            out[name] = "not_opened"
    return out
