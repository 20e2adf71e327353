"""Dataclasses to JSON and back, and the JSON Schema they describe: one description of a JSON file (the
report's model.py) that writes it, reads it and documents it, so the three cannot say different things.

A field's JSON key is its name. A field marked
`OPTIONAL` is left out of the JSON when it is None (a section a run did not have); any other field is always
written, and its default is what a file written before the field existed reads as (`OLDER`: a None that only
stands for that, never written).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

OPTIONAL = {"optional": True}
"""A field's metadata: the key is absent, rather than null, when the value is None."""
OLDER = {"older": True}
"""A field's metadata: never null when written; None only stands for the key missing from an older file."""


def to_json(value: Any) -> Any:
    """A dataclass (and what it holds) as plain JSON values, keys in field order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(v) for f in dataclasses.fields(value)
                if not ((v := getattr(value, f.name)) is None and f.metadata.get("optional"))}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


def _args(hint: Any) -> tuple[Any, tuple]:
    origin = typing.get_origin(hint)
    if origin is types.UnionType:
        origin = typing.Union
    return origin, typing.get_args(hint)


def from_json(hint: Any, value: Any) -> Any:
    """`value` (plain JSON) read as `hint`: a dataclass, `X | None`, list[X], dict[str, X] or a plain value
    (kept as it is: an integer where a float is expected stays an integer, so writing it back is unchanged)."""
    origin, args = _args(hint)
    if origin is typing.Union:
        if value is None:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return from_json(inner, value)
    if origin is list:
        return [from_json(args[0], v) for v in value]
    if origin is dict:
        return {k: from_json(args[1], v) for k, v in value.items()}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        hints = typing.get_type_hints(hint)
        given = {}
        for f in dataclasses.fields(hint):
            if f.name in value:
                given[f.name] = from_json(hints[f.name], value[f.name])
        return hint(**given)
    return value


def _present(hint: Any) -> Any:
    """`X | None` as X: an OPTIONAL or OLDER field is never written null."""
    origin, args = _args(hint)
    (inner,) = [a for a in args if a is not type(None)] if origin is typing.Union else [hint]
    return inner


PLAIN = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null"}


def _schema(hint: Any, defs: dict) -> dict:
    origin, args = _args(hint)
    if origin is typing.Union:
        return {"anyOf": [_schema(a, defs) for a in args]}
    if origin is list:
        return {"type": "array", "items": _schema(args[0], defs)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema(args[1], defs)}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        if hint.__name__ not in defs:
            hints = typing.get_type_hints(hint)
            fields = dataclasses.fields(hint)
            never_null = {f.name for f in fields if f.metadata.get("optional") or f.metadata.get("older")}
            doc = hint.__doc__ or ""  # a dataclass without a docstring is given its signature: not a description
            defs[hint.__name__] = {
                **({} if doc.startswith(hint.__name__ + "(") else {"description": " ".join(doc.split())}),
                "type": "object",
                "properties": {f.name: _schema(_present(hints[f.name]) if f.name in never_null else hints[f.name],
                                               defs) for f in fields},
                "required": [f.name for f in fields if not f.metadata.get("optional")],
                "additionalProperties": False}
        return {"$ref": f"#/$defs/{hint.__name__}"}
    if hint is Any:
        return {}
    return {"type": PLAIN[hint]}


def json_schema(title: str, *roots: type) -> dict:
    """The JSON Schema (draft 2020-12) of a file that is one of `roots`."""
    defs: dict = {}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title,
            "anyOf": [_schema(r, defs) for r in roots], "$defs": dict(sorted(defs.items()))}
