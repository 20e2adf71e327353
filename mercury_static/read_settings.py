"""Read `--settings FILE`: this tool's settings file (YAML or JSON), or an Argilla 2.x settings.json.

Both end in `settings.parse_settings`, so they are checked alike. An Argilla file is recognised by its
list-valued `fields` (ours is a mapping) and translated to our vocabulary first (argilla_settings.py);
what it holds that this product does not support is one line naming it.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from . import safeio
from .records import InputError
from .settings import Settings, parse_settings


class _StrictLoader(yaml.SafeLoader):
    """pyyaml's SafeLoader refusing a key given twice in one mapping (pyyaml keeps the last silently)."""

    def construct_mapping(self, node, deep=False):
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                if key in seen:
                    raise _Duplicate(key, key_node.start_mark)
                seen.add(key)
            except TypeError:  # an unhashable key: the checks after loading say what is wrong
                pass
        return super().construct_mapping(node, deep)


class _Duplicate(Exception):
    def __init__(self, key, mark):
        super().__init__(key)
        self.key, self.mark = key, mark


def _place(mark) -> str | None:
    return f"line {mark.line + 1} column {mark.column + 1}" if mark is not None else None


def read_document(path: Path):
    """The parsed YAML/JSON document (JSON is read strictly, YAML with pyyaml's line and column on errors)."""
    name = str(path)
    text = safeio.read_text(path, name, safeio.SMALL_LIMIT)
    if Path(path).suffix.lower() == ".json":
        import json

        try:
            doc = safeio.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(name, f"line {e.lineno} column {e.colno}", None, f"invalid JSON: {e.msg}") from None
        except RecursionError:
            raise InputError(name, None, None, "invalid JSON: nested too deeply") from None
        safeio.check(doc, name, None)
        return doc
    try:
        doc = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except _Duplicate as e:
        raise InputError(name, _place(e.mark), str(e.key), "given twice") from None
    except yaml.MarkedYAMLError as e:
        what = " ".join(x for x in (e.context, e.problem) if x)
        raise InputError(name, _place(e.problem_mark or e.context_mark), None, f"invalid YAML: {what}") from None
    except yaml.YAMLError as e:
        raise InputError(name, None, None, f"invalid YAML: {e}".splitlines()[0]) from None
    except RecursionError:
        raise InputError(name, None, None, "invalid YAML: nested too deeply") from None
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
    doc = read_document(Path(path))
    if isinstance(doc, dict) and isinstance(doc.get("fields"), list):
        from .argilla_settings import from_argilla

        doc = from_argilla(doc, str(path))
    return parse_settings(doc, str(path))
