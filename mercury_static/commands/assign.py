"""`assign`: each annotator's deterministic queue, stored in the bundle."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mercury_static.bundle.assign import assign_bundle, bare_checks, parse_annotators
from mercury_static.merge.check_answers import read_known


@dataclass
class Assigned:
    """The queues written: how many records, annotators and views of each record, and where."""

    records: int
    annotators: int
    overlap: int
    queues: Path


def assign(bundle: Path, annotators: str, overlap: int, checks: Path | None, check_rate: float,
           seed: str | None) -> Assigned:
    """Queue every record `overlap` times over `annotators` (comma-separated), the records of the known
    answers at `checks` mixed into every queue at `check_rate`."""
    manifest = assign_bundle(bundle, parse_annotators(annotators), overlap,
                             _check_records(checks) if checks else None, check_rate, seed)
    queues = manifest["queues"]
    return Assigned(manifest["counts"]["records"], len(queues["annotators"]), queues["overlap"],
                    bundle / queues["path"])


def _check_records(path: Path):
    """The check records of a bundle, read from the known answers at `path` (under the bundle's lock)."""
    return lambda loaded: bare_checks(loaded, list(read_known(path, loaded)), str(path))
