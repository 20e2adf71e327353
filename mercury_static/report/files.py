"""Where a `--report` goes: a `.html` path is the report page with its JSON beside it (same name, `.json`);
a `.json` path (or a device such as /dev/null) is the JSON alone. Any other name is refused before the work: a
`report.pdf` holding JSON would look written as asked."""

from __future__ import annotations

from pathlib import Path

from mercury_static.core.records import InputError
from mercury_static.core.safeio import check_writable, dumps, special

HTML_SUFFIXES = (".html", ".htm")
JSON_SUFFIX = ".json"


def report_paths(report: Path) -> tuple[Path, Path | None]:
    """(the JSON report, the HTML page or None)."""
    suffix = report.suffix.lower()
    if suffix in HTML_SUFFIXES:
        return report.with_suffix(JSON_SUFFIX), report
    if suffix != JSON_SUFFIX and not special(report):
        raise InputError(report, None, None, f"--report writes a {JSON_SUFFIX} file or an .html page (with its "
                         f"JSON beside it), not {suffix or 'a name without an extension'}")
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
        from mercury_static.report.model import read_report

        files.append((html_path, render_html(read_report(report), review_url).encode("utf-8")))
    return files
