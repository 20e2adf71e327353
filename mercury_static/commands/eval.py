"""`eval`: the page's related-sentence ranking scored against gold evidence."""

from __future__ import annotations

from pathlib import Path

from mercury_static.bundle.ranker_file import read_options_file
from mercury_static.bundle.trained_model import read_training
from mercury_static.core.safeio import check_writable, write_json
from mercury_static.pipeline.steps import Step
from mercury_static.tune.evaluate import EvalReport, evaluate as score


def evaluate(inputs: list[Path], fmt: str, k: int, options: dict, options_path: Path | None, model: Path | None,
             report: Path | None, step: Step) -> EvalReport:
    """Score the ranking on `inputs` with `options` over those of `options_path` (else, as the page of a bundle
    built with it, over a trained model's own) and write the scores to `report` (checked before any work)."""
    if options_path is not None:
        options = {**read_options_file(options_path), **options}
    else:
        options = {**(read_training(model)[1] or {}), **options}
    if report:
        check_writable(report, list(inputs))
    result = score(inputs, fmt, k, options, model_path=model, step=step)
    if report:
        write_json(report, result.to_dict(), list(inputs))
    return result
