"""The report of a round in flight (`progress --report`): what `merge` would report now from the exports
found so far, without writing a dataset."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from mercury_static.core.records import InputError
from mercury_static.merge.collect import is_remote, local_inputs
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
    with contextlib.ExitStack() as stack:
        local = local_inputs(inputs, stack)
        result = merge_files(local.paths, bundle, "jsonl")
        result.problems[:0] = local.problems
        local.rename(result.problems)
    return result.report()
