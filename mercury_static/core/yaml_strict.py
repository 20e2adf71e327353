"""YAML as this tool reads it (the label tree, the settings file): pyyaml's SafeLoader refusing a key given
twice in one mapping (pyyaml keeps the last silently), and every error one InputError with pyyaml's line
and column.

What the reader walks is bounded, not only the bytes: aliases repeat whole nodes, so a file of a few lines
can expand to 2^40 values (an "alias bomb") that every later walk would visit; an alias inside the node it
names makes a structure that contains itself (a walk never ends). Both are refused while composing, with
the nesting depth, before anything walks the document. A value pyyaml's constructors refuse (an integer
int() will not convert, a date that does not exist) is an error at its place, not a ValueError.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml

from mercury_static.core import safeio
from mercury_static.core.records import InputError

MAX_VALUES = 100_000
"""Most values a document may expand to, each alias counting the values it repeats (a settings file or
label tree has a few hundred; pyyaml reads 100,000 in 2 to 6 s on a 2-core machine, so that is also the
longest any YAML input keeps a command reading)."""
MAX_DEPTH = 100
"""Deepest nesting of mappings and lists."""


class _StrictLoader(yaml.SafeLoader):
    def __init__(self, stream):
        super().__init__(stream)
        self._sizes: dict[int, int] = {}  # id(node) -> the values it expands to
        self._open: set[str] = set()  # anchors of the nodes being composed
        self._values = 0
        self._depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            if event.anchor in self._open:
                raise _Refused(event.start_mark, f"alias *{event.anchor} is inside the node it names (an alias "
                                                 "cycle: the document would contain itself)")
            node = super().compose_node(parent, index)
            self._count(self._sizes[id(node)], event.start_mark)
            return node
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _TooDeep(event.start_mark)
        self._count(1, event.start_mark)
        if event.anchor is not None:
            self._open.add(event.anchor)
        node = super().compose_node(parent, index)
        self._open.discard(event.anchor)
        self._depth -= 1
        if isinstance(node, yaml.SequenceNode):
            size = 1 + sum(self._sizes[id(x)] for x in node.value)
        elif isinstance(node, yaml.MappingNode):
            size = 1 + sum(self._sizes[id(k)] + self._sizes[id(v)] for k, v in node.value)
        else:
            size = 1
        self._sizes[id(node)] = size
        return node

    def _count(self, values: int, mark) -> None:
        self._values += values
        if self._values > MAX_VALUES:
            raise _Refused(mark, f"more than {MAX_VALUES:,} values (each alias counts the values it repeats)")

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as e:
            if node.tag == "tag:yaml.org,2002:int":
                digits = len(node.value.lstrip("+-").replace("_", ""))
                raise _Refused(node.start_mark, safeio.long_int(digits)) from None
            raise _Refused(node.start_mark, f"{node.value!r}: {e}") from None

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


class _Refused(Exception):
    def __init__(self, mark, message: str):
        super().__init__(message)
        self.mark, self.message = mark, message


class _TooDeep(Exception):
    def __init__(self, mark):
        super().__init__(mark)
        self.mark = mark


def place(mark) -> str | None:
    return f"line {mark.line + 1} column {mark.column + 1}" if mark is not None else None


def load(text: str, name: str, duplicate: Callable[[object, str | None], InputError], nested: str):
    """The document; `duplicate(key, place)` is the error for a key given twice, `nested` the message for a
    document nested too deeply to read."""
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except _Duplicate as e:
        raise duplicate(e.key, place(e.mark)) from None
    except _Refused as e:
        raise InputError(name, place(e.mark), None, f"invalid YAML: {e.message}") from None
    except _TooDeep as e:
        raise InputError(name, place(e.mark), None, f"{nested} (more than {MAX_DEPTH} levels)") from None
    except yaml.MarkedYAMLError as e:
        what = " ".join(x for x in (e.context, e.problem) if x)
        raise InputError(name, place(e.problem_mark or e.context_mark), None, f"invalid YAML: {what}") from None
    except yaml.YAMLError as e:
        raise InputError(name, None, None, f"invalid YAML: {e}".splitlines()[0]) from None
