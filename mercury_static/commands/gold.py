"""`gold`: the adjudicated records as the gold dataset, with annotators and agents scored against it."""

from __future__ import annotations

from pathlib import Path

from mercury_static.merge.output import check_dataset_output, write_dataset
from mercury_static.report.html import check_review_url
from mercury_static.review.gold import GoldResult, make_gold


def gold(reviews: list[Path], bundle: Path, out: Path, fmt: str, report: Path | None, review_url: str) -> GoldResult:
    """Write the gold dataset `out` and the `report` (both checked before any work) from the review exports;
    every bad review input is one of the `GoldProblems` raised."""
    protected = [*reviews, bundle]
    check_review_url(review_url)
    check_dataset_output(out, fmt, report, protected)
    result = make_gold(reviews, bundle, fmt)
    write_dataset(result, out, fmt, report, protected, "gold", review_url)
    return result
