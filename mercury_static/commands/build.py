"""`build`: dataset files to an annotation bundle."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mercury_static.pipeline.steps import BuildOptions, Step, build as build_bundle


@dataclass
class Built:
    """What the bundle holds, as the command reports it."""

    records: int
    texts: int
    sentences: int
    bundle_id: str


def build(inputs: list[Path], out: Path, options: BuildOptions, step: Step) -> Built:
    """Build the bundle `out` from `inputs`; `step(description, total)` is a long step's progress."""
    manifest = build_bundle(inputs, out, options, step=step)
    counts = manifest["counts"]
    return Built(counts["records"], counts["texts"], counts["sentences"], manifest["bundle_id"])
