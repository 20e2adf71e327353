"""`progress`: how far each annotator is, from the exports uploaded so far."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable

from mercury_static.bundle.assign import read_queues
from mercury_static.bundle.contents import load_bundle
from mercury_static.core.safeio import write_files
from mercury_static.merge.collect import is_remote, progress as read_progress
from mercury_static.merge.in_flight import round_report
from mercury_static.report.files import check_report, report_files
from mercury_static.report.html import check_review_url


@dataclass
class AnnotatorProgress:
    """One annotator's counts; `to_do` counts their queue when the bundle has queues, else every record."""

    annotator: str
    browsers: int
    to_do: int
    in_progress: int
    submitted: int
    discarded: int
    last_upload: datetime | None


@dataclass
class RoundProgress:
    """Every annotator's progress on the bundle's records (`queued`: to do counts each one's queue)."""

    records: int
    queued: bool
    annotators: list[AnnotatorProgress]


def progress(source: str, bundle: Path, report: Path | None, review_url: str,
             counted: Callable[[RoundProgress], None]) -> dict | None:
    """Count each annotator's work in `source` (a storage address or a local folder of exports) and hand it to
    `counted`; then write merge's report of the work so far to `report` (checked before any work) and return
    it."""
    where = source if is_remote(source) else os.path.abspath(source)
    local = None if is_remote(source) else Path(where)
    protected = [bundle, *([local] if local else [])]
    if report is not None:
        check_review_url(review_url)
        check_report(report, protected)
    manifest = load_bundle(bundle).manifest
    queues = read_queues(bundle, manifest)
    total = manifest["counts"]["records"]
    rows = []
    for p in read_progress(where, manifest["bundle_id"]):
        queue = None if queues is None else queues.get(p.annotator)
        to_do = total - len(p.records) if queue is None else sum(1 for i in queue if i not in p.records)
        rows.append(AnnotatorProgress(p.annotator, len(p.browsers), to_do, p.count("in_progress"),
                                      p.count("submitted"), p.count("discarded"), p.last_upload))
    counted(RoundProgress(total, queues is not None, rows))
    if report is None:
        return None
    summary = round_report(source, bundle)
    with write_files(report_files(summary, report, review_url), protected):
        pass
    return summary
