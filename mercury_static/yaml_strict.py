"""YAML as this tool reads it (the label tree, the settings file): pyyaml's SafeLoader refusing a key given
twice in one mapping (pyyaml keeps the last silently), and every error one InputError with pyyaml's line
and column."""

from __future__ import annotations

from collections.abc import Callable

import yaml

from .records import InputError


class _StrictLoader(yaml.SafeLoader):
    def construct_mapping(self, node, deep=False):
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                if key in seen:
                    raise _Duplicate(key, key_node.start_mark)
                seen.add(key)
            except TypeError:  # an unhashable key: the caller's checks after loading say what is wrong
                pass
        return super().construct_mapping(node, deep)


class _Duplicate(Exception):
    def __init__(self, key, mark):
        super().__init__(key)
        self.key, self.mark = key, mark


def place(mark) -> str | None:
    return f"line {mark.line + 1} column {mark.column + 1}" if mark is not None else None


def load(text: str, name: str, duplicate: Callable[[object, str | None], InputError], nested: str):
    """The document; `duplicate(key, place)` is the error for a key given twice, `nested` the message for a
    document nested too deeply to read."""
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except _Duplicate as e:
        raise duplicate(e.key, place(e.mark)) from None
    except yaml.MarkedYAMLError as e:
        what = " ".join(x for x in (e.context, e.problem) if x)
        raise InputError(name, place(e.problem_mark or e.context_mark), None, f"invalid YAML: {what}") from None
    except yaml.YAMLError as e:
        raise InputError(name, None, None, f"invalid YAML: {e}".splitlines()[0]) from None
    except RecursionError:
        raise InputError(name, None, None, nested) from None
