"""Where a `--report` goes: a `.html` path is the report page with its JSON beside it (same name, `.json`);
any other path is the JSON alone, as before. Also the report of a round in flight (`progress --report`)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from mercury_static.core.records import InputError
from mercury_static.core.safeio import check_writable, dumps

HTML_SUFFIXES = (".html", ".htm")


def report_paths(report: Path) -> tuple[Path, Path | None]:
    """(the JSON report, the HTML page or None)."""
    if report.suffix.lower() in HTML_SUFFIXES:
        return report.with_suffix(".json"), report
    return report, None


def check_report(report: Path, protected: list[Path]) -> None:
    """Before the work: both files writable, and the chart renderer installed for a page."""
    from mercury_static.report.html import check_available

    json_path, html_path = report_paths(report)
    for path in (json_path, html_path):
        if path is not None:
            check_writable(path, protected)
    if html_path is not None:
        check_available(html_path)


def report_files(report: dict, path: Path, review_url: str) -> list[tuple[Path, bytes]]:
    """The files of `--report path`: the JSON, and the page when `path` is an HTML file."""
    json_path, html_path = report_paths(path)
    files = [(json_path, (dumps(report, indent=1) + "\n").encode("utf-8"))]
    if html_path is not None:
        from mercury_static.report.html import render_html

        files.append((html_path, render_html(report, review_url).encode("utf-8")))
    return files


def round_report(source: str, bundle: Path) -> dict:
    """Merge's report of the exports found so far in `source` (a storage URL, a folder or a file), for a
    round in flight: what `merge` would report now, without writing a dataset."""
    from mercury_static.merge.collect import is_remote, local_inputs
    from mercury_static.merge.pipeline import merge_files

    if is_remote(source):
        inputs: list = [source]
    else:
        base = Path(os.path.abspath(source))
        inputs = sorted(base.rglob("*.json")) if base.is_dir() else [base]
        if not inputs:
            raise InputError(base, None, None, "holds no .json export")
    with contextlib.ExitStack() as stack:
        local = local_inputs(inputs, stack)
        result = merge_files(local.paths, bundle, "jsonl")
        result.problems[:0] = local.problems
        local.rename(result.problems)
    return result.report()
