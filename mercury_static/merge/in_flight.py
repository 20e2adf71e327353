"""The report of a round in flight (`progress --report`): what `merge` would report now from the exports
found so far, without writing a dataset."""

from __future__ import annotations

import os
from pathlib import Path

from mercury_static.core.records import InputError
from mercury_static.merge.collect import is_remote, read_local
from mercury_static.merge.pipeline import merge_files


def round_report(source: str, bundle: Path) -> dict:
    """Merge's report of the exports found so far in `source` (a storage URL, a folder or a file), for a
    round in flight: what `merge` would report now, without writing a dataset."""
    if is_remote(source):
        inputs: list = [source]
    else:
        base = Path(os.path.abspath(source))
        inputs = sorted(base.rglob("*.json")) if base.is_dir() else [base]
        if not inputs:
            raise InputError(base, None, None, "holds no .json export")
    result, _ = read_local(inputs, lambda paths: merge_files(paths, bundle, "jsonl"))
    return result.report()
