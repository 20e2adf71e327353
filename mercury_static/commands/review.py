"""`review`: the review bundle, the bundle with every annotator's work, most contested records first."""

from __future__ import annotations

from pathlib import Path

from mercury_static.merge.collect import read_local
from mercury_static.review.write_bundle import ReviewResult, review_bundle


def review(inputs: list, bundle: Path, out: Path, strict: bool) -> ReviewResult:
    """Write the review bundle `out` from `inputs` (paths, or storage addresses fetched for the call)."""
    result, _ = read_local(inputs, lambda paths: review_bundle(paths, bundle, out, strict), strict)
    return result
