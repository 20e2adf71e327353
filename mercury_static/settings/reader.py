"""Read `--settings FILE`: this tool's settings file (YAML or JSON), an Argilla 2.x settings.json, or a Label
Studio labeling config (`.xml`, label_studio.py).

Both end in `settings.parse_settings`, so they are checked alike. An Argilla file is recognised by its
list-valued `fields` (ours is a mapping) and translated to our vocabulary first (argilla.py);
what it holds that this product does not support is one line naming it.
"""

from __future__ import annotations

from pathlib import Path


from mercury_static.core import safeio, yaml_strict
from mercury_static.core.records import InputError
from mercury_static.settings.model import Settings
from mercury_static.settings.parse import parse_settings


def read_document(path: Path):
    """The parsed YAML/JSON document (JSON is read strictly, YAML with pyyaml's line and column on errors)."""
    name = str(path)
    text = safeio.read_text(path, name, safeio.SMALL_LIMIT)
    if Path(path).suffix.lower() == ".json":
        return safeio.parse_checked(text, name)
    doc = yaml_strict.load(text, name, lambda key, where: InputError(name, where, str(key), "given twice"),
                           "invalid YAML: nested too deeply")
    _check_keys(doc, name)
    safeio.check(doc, name, None)
    return doc


def _check_keys(doc, name: str) -> None:
    """YAML allows any scalar as a key (`1:`, `true:`); a settings key is text."""
    stack = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, child in v.items():
                if not isinstance(k, str):
                    raise InputError(name, None, str(k), f"a key must be text, got {safeio.json_kind(k)}")
                stack.append(child)
        elif isinstance(v, list):
            stack.extend(v)


def read_settings(path: Path | None) -> Settings:
    """The settings of `--settings FILE` (None: today's behaviour)."""
    if path is None:
        return Settings()
    if Path(path).suffix.lower() == ".xml":
        from mercury_static.settings.label_studio import from_label_studio

        name = str(path)
        return parse_settings(from_label_studio(safeio.read_text(Path(path), name, safeio.SMALL_LIMIT), name), name)
    doc = read_document(Path(path))
    if isinstance(doc, dict) and isinstance(doc.get("fields"), list):
        from dataclasses import replace

        from mercury_static.settings.argilla import from_argilla

        return replace(parse_settings(from_argilla(doc, str(path)), str(path)), argilla=doc)
    return parse_settings(doc, str(path))
