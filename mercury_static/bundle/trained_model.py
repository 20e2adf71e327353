"""What a trained model folder says about itself, read by ``build --model``: its training.json (checked, then
copied into the manifest's ``model.trained``) and the ranker options fitted for it (ranker.json)."""

from __future__ import annotations

from pathlib import Path

from mercury_static.core import safeio
from mercury_static.core.records import InputError
from mercury_static.formats import TRAINING

TRAINING_FILE = "training.json"
"""Beside the trained model's files: what it was trained from and how it did."""
RANKER_FILE = "ranker.json"
"""Beside the trained model's files: the ranker options fitted for it (tune -o's format)."""


def read_training(model_dir: Path | None) -> tuple[dict | None, dict | None]:
    """(training.json, the ranker options of ranker.json) of a model folder; (None, None) for a folder train
    did not write."""
    from mercury_static.bundle.ranker_file import read_options_file

    if model_dir is None or not (Path(model_dir) / TRAINING_FILE).is_file():
        return None, None
    path = Path(model_dir) / TRAINING_FILE
    doc = safeio.read_checked(path)
    if not isinstance(doc, dict):
        raise InputError(path, None, None, "not a JSON object")
    TRAINING.check(doc, str(path))
    ranker = Path(model_dir) / RANKER_FILE
    return doc, read_options_file(ranker) if ranker.is_file() else None
