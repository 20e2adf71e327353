"""A bundle's ranker options from a file and into a bundle: the file `tune -o` writes and `eval --options`
and `build --model` (a trained model's ranker.json) read, and a bundle's options rewritten in place without a
rebuild (``tune --apply``: manifest.json alone, under the bundle's lock; the options have their own id, so
stored work and exports still match the bundle: manifest.py).
"""

from __future__ import annotations

from pathlib import Path

from mercury_static.assist import ranker_options
from mercury_static.core import safeio
from mercury_static.bundle.manifest import manifest_bytes, ranker_id
from mercury_static.formats import RANKER_OPTIONS, Manifest
from mercury_static.core.records import InputError


def apply_options(bundle_dir: str | Path, options: dict, tuned: dict | None = None) -> dict:
    """Rewrite the bundle's ranker options, ``ranker_id`` and ``ranker_tuned`` (provenance, or None) in
    manifest.json, through a file beside it and a rename; every other file (data, page, model, the marker)
    is left as it is. The options are checked as build checks them, and against the bundle's own option
    table: the bundle's page must know every option this tool writes. Under the bundle's lock, so that an
    assign at the same time does not write back the manifest it read before. Returns the new manifest."""
    from mercury_static.bundle.folder import editing

    folder = Path(bundle_dir)
    with editing(folder, "tune --apply"):
        return _apply(folder, options, tuned)


def _apply(folder: Path, options: dict, tuned: dict | None) -> dict:
    from mercury_static.bundle.folder import MARKER, is_bundle

    if not is_bundle(folder):
        raise InputError(folder, None, None, f"not a bundle written by mercury-static build (needs manifest.json "
                         f"and {MARKER})")
    path = folder / "manifest.json"
    doc = safeio.read_checked(path, limit=safeio.INPUT_LIMIT)
    Manifest.from_json(doc, str(path))
    if doc.get("ranker_spec") != ranker_options.spec_json():
        raise InputError(path, None, "ranker_spec", "the bundle's page has another ranker option table (built "
                         f"by mercury-static {doc.get('tool_version')}); rebuild it with this version to change "
                         "its options")
    ranker = ranker_options.validate(options, "ranker options")
    doc.update(ranker=ranker, ranker_id=ranker_id(ranker), ranker_tuned=tuned)
    safeio.write_file(path, manifest_bytes(doc))
    return doc


def options_file(options: dict, tuned: dict | None) -> bytes:
    """The file `tune -o` writes (strict JSON):
    ``{"format", "version", "ranker": {options}, "tuned": {provenance}}``."""
    doc = {"format": RANKER_OPTIONS.name, "version": RANKER_OPTIONS.version, "ranker": options, "tuned": tuned}
    return (safeio.dumps(doc, sort_keys=True, indent=1) + "\n").encode("utf-8")


def read_options_file(path: str | Path) -> dict:
    """The ranker options of a file: `tune -o`'s, or a plain object of options (``{"neighbor": 0.3}``),
    checked as build checks ``--ranker-option`` (one InputError naming the file and the option)."""
    name = str(path)
    doc = safeio.read_checked(path, name)
    if isinstance(doc, dict) and "format" in doc:
        RANKER_OPTIONS.check(doc, name)
        doc = doc.get("ranker")
    return ranker_options.validate(doc, name)
