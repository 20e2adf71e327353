"""Where a dataset goes: the `-o` (a file, or a folder for Argilla, Parquet and Label Studio) and `--report` of
`merge` and `gold`, checked before the work, so a bad path costs nothing, and written after it, each file whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from mercury_static.bundle.folder import check_folder_output, write_folder
from mercury_static.core.records import InputError
from mercury_static.core.safeio import check_writable, resolved, special, write_files
from mercury_static.merge import write_argilla, write_label_studio, write_parquet
from mercury_static.merge.write_argilla import MARKER
from mercury_static.report.files import check_report, report_files, report_paths


FOLDERS = {"argilla": write_argilla.FILES, "parquet": write_parquet.FILES, "label-studio": write_label_studio.FILES}
"""The formats written as a folder, and the files each may write there."""


class Dataset(Protocol):
    """What merge and gold hand over: one file's bytes, or a folder's files, and a report."""

    output: bytes
    directory: dict[str, bytes]

    def report(self) -> dict[str, Any]: ...


def check_dataset_output(out: Path, fmt: str, report: Path | None, protected: list[Path]) -> None:
    """Refuse an -o or --report that would overwrite an input, a user's folder or each other (a device such
    as /dev/null may be both)."""
    folder = fmt in FOLDERS
    if folder and out.exists() and not out.is_dir():
        raise InputError(out, None, None, f"is a file; --format {fmt} writes a folder")
    targets = [out / name for name in FOLDERS[fmt]] if folder else [out]
    for path in report_paths(report) if report is not None else ():
        if path is not None and not special(path) and resolved(path) in {resolved(t) for t in targets}:
            raise InputError(path, None, None, "--report is one of the files -o writes" if folder
                             else "--report and -o are the same file")
    for path in targets:
        check_writable(path, protected)
    if report is not None:
        check_report(report, protected)
    if folder:
        check_folder_output(out, MARKER, protected)


def write_dataset(result: Dataset, out: Path, fmt: str, report: Path | None, protected: list[Path],
                  command: str, review_url: str = "review-bundle/") -> None:
    """Write the dataset (a folder in one switch for Argilla, Parquet and Label Studio) and the report (its JSON, and
    its page for an HTML path), all or none: a report that cannot be written leaves no dataset behind, and the other way
    round."""
    files: list[tuple[Path, bytes]] = [] if fmt in FOLDERS else [(out, result.output)]
    if report:
        files += report_files(result.report(), report, review_url)
    with write_files(files, protected):
        if fmt in FOLDERS:
            write_folder(out, result.directory, MARKER, f"{command} --format {fmt}", protected)
