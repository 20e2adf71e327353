"""JSON and JSON Lines input: strict parsing (safeio), a list of records or one object per line, and the
content sniffing of ``--format auto`` (a dump, a SummHay topic or plain records)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from . import safeio
from .read_record import Item, Options, make_item
from .records import InputError


def parse_json(text: str, name: str, allow_jsonl: bool):
    """The document, or None when `allow_jsonl` and the text is JSON Lines (one object per line)."""
    try:
        return safeio.loads(text)
    except json.JSONDecodeError as e:
        if allow_jsonl and e.msg == "Extra data" and _first_line_is_object(text):
            return None
        raise InputError(name, f"line {e.lineno}", None,
                         f"invalid JSON ({e.msg} at column {e.colno})") from None
    except RecursionError:
        raise InputError(name, None, None, "invalid JSON (nested too deeply)") from None


def _first_line_is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text.lstrip().split("\n", 1)[0]), dict)
    except ValueError:
        return False


def detect(data) -> str:
    if isinstance(data, dict):
        if "samples" in data:
            return "mercury"
        if "documents" in data and "subtopics" in data:
            return "summhay"
        return "unknown"
    first = next((x for x in data if isinstance(x, dict)), None) if isinstance(data, list) else None
    if first is not None and "sample_id" in first and "annotations" in first:
        return "mercury"
    return "json"


def read_jsonl(text: str, name: str, opts: Options) -> Iterator[Item]:
    position = 0
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        try:
            obj = safeio.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(name, where, None, f"invalid JSON ({e.msg} at column {e.colno})") from None
        except RecursionError:
            raise InputError(name, where, None, "invalid JSON (nested too deeply)") from None
        if not isinstance(obj, dict):
            raise InputError(name, where, None, f"expected a JSON object, got {safeio.json_kind(obj)}")
        yield make_item(obj, position, where, name, opts, is_dump=False)
        position += 1


def read_list(items: list, name: str, opts: Options, is_dump: bool) -> Iterator[Item]:
    if not items:
        raise InputError(name, None, None, "no records (empty list)")
    for i, obj in enumerate(items):
        where = f"record {i}"
        if not isinstance(obj, dict):
            raise InputError(name, where, None, f"expected a JSON object, got {safeio.json_kind(obj)}")
        yield make_item(obj, i, where, name, opts, is_dump=is_dump)
