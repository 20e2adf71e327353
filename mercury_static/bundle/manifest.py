"""manifest.json: the bundle's identity and the build's step that writes it.

The bundle id (manifest `bundle_id`) hashes only what stored work depends on: the tool version, the
options that shape the records and texts, the records and their texts. The page keys its storage by it and
merge checks exports against it. Neither the model nor the ranker options are in it: they decide only
which sentences light up, so the ranker options have an id of their own (`ranker_id`, rewritten in place by
`tune --apply`, ranker_file.py) and a bundle rebuilt with a trained model keeps its id and the work stored
and exported under it. A bundle built before the ranker options had their own id keeps the id that also
hashed them, so its exports still merge against it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mercury_static import __version__
from mercury_static.assist import ranker_options
from mercury_static.assist.model_export import ExportedModel
from mercury_static.bundle.contents import VECTOR_ENCODING, dumps
from mercury_static.bundle.record_cells import Cells
from mercury_static.bundle.record_vectors import manifest_entry
from mercury_static.core import safeio
from mercury_static.formats import Manifest, ModelInfo, default_manifest_settings

MODEL_WEIGHTS = "onnx/model_quantized.weights"
"""The model's weights in a bundle's model folder (the page checks them against `model.sha256`)."""
PRESENTATION = ("title", "description", "text", "label_texts", "visible_options", "options_order", "argilla")
"""Keys of the manifest settings that only word or order what the page shows (titles, descriptions, an
option's or a span label's text, how many options show first, their order; the Argilla file read, whose
meaning is in the other keys): left out of the bundle id, as the guidelines are, so a coordinator who
rewords them keeps every export mergeable and every annotator's stored work in place."""


def identity_part(shown: dict) -> dict:
    """The manifest settings without their wording (`PRESENTATION`), for the bundle id."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in PRESENTATION}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(shown)


def shaping(*, fmt: str, source_field: str, summary_field: str, id_field: str | None, labels: list[str],
            settings: dict) -> dict:
    """The options the bundle id hashes: those that shape the records and texts, and the manifest settings
    without their wording; the default settings are left out, so a bundle built without a settings file kept
    the id it had before there were settings."""
    out: dict = {"fmt": fmt, "source_field": source_field, "summary_field": summary_field, "id_field": id_field,
                 "labels": labels}
    if settings != default_manifest_settings():
        out["settings"] = identity_part(settings)
    return out


def bundle_id(shaping: dict, records: Path, text_ids: Path) -> str:
    """Hash of the tool version, the shaping options, the records (their canonical JSON, a line each in
    `records`) and the texts' ids (a line each in `text_ids`, in first-use order), read from the spools."""
    h = hashlib.sha256()
    for part in (__version__, dumps(shaping)):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    h.update(b"[")
    with open(records, "rb") as f:
        for i, line in enumerate(f):
            h.update((b"," if i else b"") + line.rstrip(b"\n"))
    h.update(b"]\0")
    with open(text_ids, "rb") as f:
        for line in f:
            h.update(line.rstrip(b"\n"))
    return h.hexdigest()[:20]


def ranker_id(options: dict) -> str:
    """The options part of a bundle's identity: a hash of its (complete, checked) ranker options."""
    return hashlib.sha256(dumps(options).encode("utf-8")).hexdigest()[:12]


def manifest_bytes(manifest: dict) -> bytes:
    """manifest.json as build writes it (sorted keys, one space indent, strict JSON)."""
    return safeio.dumps(manifest, sort_keys=True, indent=1).encode("utf-8")


def write_manifest(folder: Path, *, the_id: str, title: str, model: ExportedModel, trained: dict | None,
                   counts: dict, shards: dict, labels: list[str], label_choices: list[str], guidelines: dict | None,
                   ranker: dict, id_field: str | None, settings: dict, queues: dict | None,
                   cells: Cells | None, download: int | None = None) -> dict:
    """The build's manifest step: `folder`/manifest.json from what the other steps found; returns it."""
    manifest = Manifest(
        bundle_id=the_id, tool_version=__version__, title=title,
        model=ModelInfo(name=model.name, path=f"models/{model.name}", dim=model.dim,
                        max_seq_length=model.max_seq_length, pooling=model.pooling, sha256=model.sha256,
                        weights=MODEL_WEIGHTS, trained=trained, download=download),
        vectors={"encoding": VECTOR_ENCODING, "dim": model.dim}, counts=counts, shards=shards, labels=labels,
        label_choices=label_choices, guidelines=guidelines, ranker=ranker, ranker_spec=ranker_options.spec_json(),
        id_field=id_field, settings=settings, queues=queues,
        record_vectors=manifest_entry(model.dim, cells) if cells is not None else None,
        ranker_id=ranker_id(ranker)).to_json()
    (folder / "manifest.json").write_bytes(manifest_bytes(manifest))
    return manifest
