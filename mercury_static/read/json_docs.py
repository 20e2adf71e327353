"""JSON and JSON Lines input: strict parsing (safeio), a list of records or one object per line, and the
content sniffing of ``--format auto`` (a dump, a SummHay topic or plain records)."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from mercury_static.core import safeio
from mercury_static.read.label_studio import is_label_studio
from mercury_static.read.qags import is_qags
from mercury_static.read.record import Item, Options, make_item
from mercury_static.core.records import InputError


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
    if is_label_studio(first):
        return "label-studio"
    return "qags" if is_qags(first) else "json"


def file_lines(path: Path, name: str, limit: int = safeio.INPUT_LIMIT) -> Iterator[tuple[int, str]]:
    """(line number, text) of a UTF-8 file, a line at a time: a JSON Lines input is never whole in memory.
    The checks of `safeio.read_text` (a regular file, the size cap, UTF-8 named by line and byte offset,
    a BOM dropped, "empty file"); lines split at "\n" only, as `str.split("\n")`."""
    fd = safeio.open_file(path, name, limit)
    offset, blank = 0, True
    with os.fdopen(fd, "rb", buffering=1 << 20) as f:
        for lineno, raw in enumerate(f, 1):
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw, offset = raw[3:], 3
            try:
                line = raw.decode("utf-8").removesuffix("\n")
            except UnicodeDecodeError as e:
                at = offset + e.start
                raise InputError(name, f"line {lineno}", None,
                                 f"not UTF-8 (byte 0x{raw[e.start]:02x} at byte offset {at})") from None
            offset += len(raw)
            if offset > limit:  # the file grew while being read
                raise InputError(name, None, None, f"too large (more than {limit // safeio.MB} MB)")
            blank = blank and not line.strip()
            yield lineno, line
    if blank:
        raise InputError(name, None, None, "empty file")


def read_jsonl(lines: Iterable[tuple[int, str]], name: str, opts: Options) -> Iterator[Item]:
    """Records of (line number, text) pairs: `file_lines`, or a text's `enumerate(text.split("\n"), 1)`."""
    position = 0
    for lineno, line in lines:
        if not line.strip():
            continue
        where = f"line {lineno}"
        obj = safeio.json_line(line, name, where)
        if not isinstance(obj, dict):
            raise InputError(name, where, None, f"expected a JSON object, got {safeio.json_kind(obj)}")
        yield make_item(obj, position, where, name, opts, is_dump=False)
        position += 1


def peek_object(lines: Iterable[tuple[int, str]]) -> tuple[object, Iterator[tuple[int, str]]]:
    """The first non-blank line's JSON value (None when it is not JSON: the reader then names the line), and
    the lines again, that one included (`--format auto` tells QAGS's layout from plain records by it)."""
    lines = iter(lines)
    seen = []
    first = None
    for number, line in lines:
        seen.append((number, line))
        if line.strip():
            try:
                first = json.loads(line)
            except (ValueError, RecursionError):
                first = None
            break
    return first, itertools.chain(seen, lines)


def json_objects(lines: Iterable[tuple[int, str]], name: str) -> Iterator[tuple[str, object]]:
    """(``line N``, value) of each non-blank JSON line, strictly parsed."""
    for lineno, line in lines:
        if line.strip():
            where = f"line {lineno}"
            yield where, safeio.json_line(line, name, where)


def read_list(items: list, name: str, opts: Options, is_dump: bool) -> Iterator[Item]:
    if not items:
        raise InputError(name, None, None, "no records (empty list)")
    for i, obj in enumerate(items):
        where = f"record {i}"
        if not isinstance(obj, dict):
            raise InputError(name, where, None, f"expected a JSON object, got {safeio.json_kind(obj)}")
        yield make_item(obj, i, where, name, opts, is_dump=is_dump)
