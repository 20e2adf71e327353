"""`tune`: the ranker's weights fitted to the bundle's own pairs, kept only if held-out records gain."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mercury_static.bundle.ranker_file import apply_options, options_file
from mercury_static.core.records import InputError
from mercury_static.core.safeio import check_writable, resolved, write_file, write_json
from mercury_static.tune.tune import Pairs, TuneResult, load_pairs, tune as fit


@dataclass
class Tuned:
    """The figures, how many inputs were skipped, and the bundle's ids after `--apply` (None: not applied)."""

    result: TuneResult
    skipped: int
    ranker_id: str | None = None
    bundle_id: str | None = None

    @property
    def exit_code(self) -> int:
        """0 when every input was read, 1 when something was skipped."""
        return 1 if self.skipped else 0


def tune(inputs: list[Path], bundle: Path, out: Path | None, report: Path | None, apply: bool, folds: int,
         read: Callable[[Pairs], None]) -> Tuned:
    """Read the pairs of `inputs` (handed to `read` before the fit), cross-validate and fit the weights, write
    the `report`; when recommended, write the options file `out` and, with `apply`, set them in the bundle."""
    protected = [*inputs, bundle]
    if out is not None and report is not None and resolved(report) == resolved(out):
        raise InputError(report, None, None, "--report and -o are the same file")
    for path in (out, report):
        if path is not None:
            check_writable(path, protected)
    pairs = load_pairs(inputs, bundle)
    read(pairs)
    result = fit(pairs, folds)
    if report:
        write_json(report, result.to_dict(), protected)
    tuned = Tuned(result, len(pairs.problems))
    if result.recommended:
        provenance = result.provenance()
        if out:
            write_file(out, options_file(result.tuned, provenance), protected)
        if apply:
            manifest = apply_options(bundle, result.tuned, provenance)
            tuned.ranker_id, tuned.bundle_id = manifest["ranker_id"], manifest["bundle_id"]
    return tuned
