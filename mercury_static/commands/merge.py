"""`merge`: annotators' exports to one validated dataset and its agreement report."""

from __future__ import annotations

from pathlib import Path

from mercury_static.bundle.contents import load_bundle
from mercury_static.merge.check_answers import read_known
from mercury_static.merge.checks_score import Checks
from mercury_static.merge.collect import read_local
from mercury_static.merge.output import check_dataset_output, write_dataset
from mercury_static.merge.pipeline import MergeResult, merge_files
from mercury_static.report.html import check_review_url


def merge(exports: list, bundle: Path, out: Path, fmt: str, report: Path | None, review_url: str, strict: bool,
          checks: Path | None, check_threshold: float, keep_checks: bool) -> MergeResult:
    """Merge `exports` (paths, or storage addresses fetched for the merge) and write the dataset `out` and the
    `report`, both checked before any work; the check records' known answers at `checks` score each
    annotator."""
    protected = [*(e for e in exports if isinstance(e, Path)), bundle]
    check_review_url(review_url)
    check_dataset_output(out, fmt, report, protected)
    loaded = load_bundle(bundle)
    scored = Checks(read_known(checks, loaded), check_threshold, keep_checks) if checks else None
    result, _ = read_local(exports, lambda paths: merge_files(paths, loaded, fmt, strict, checks=scored), strict)
    write_dataset(result, out, fmt, report, protected, "merge", review_url)
    return result
