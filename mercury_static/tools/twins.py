"""The page's copies of Python constants, written from the Python definitions by cog.

Why: the page (plain ES modules, no build step when it loads) needs some of the values Python defines (file
format versions, default hotkeys, ranker options, citation patterns, limits). Copied by hand, they drift
apart; so each sits in its JS module inside a cog block (``// [[[cog`` … ``// ]]]`` … ``// [[[end]]]``)
whose generator imports the Python definition and prints it with `const` below. ``make generate`` rewrites
every block (``cog -r``); tests/test_twins.py runs ``cog --check`` on every file holding one, so a Python
change that was not regenerated fails the quick tests.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "site_template" / "app"
WIDTH = 120
"""ESLint's `max-len`: a longer constant is written one entry a line."""
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_SAFE = 2**53 - 1
_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


class Regex(str):
    """A pattern written as a JS regular-expression literal with `flags` (the pattern must mean the same
    in both languages: its author's business, as for the settings' citation patterns)."""

    flags: str

    def __new__(cls, pattern: str, flags: str = "") -> Regex:
        out = super().__new__(cls, pattern)
        out.flags = flags
        return out


def generated_files() -> list[Path]:
    """Every page module holding a cog block, in path order."""
    return sorted(p for p in APP.rglob("*.js") if "[[[cog" in p.read_text(encoding="utf-8"))


def literal(value, freeze: bool = False, indent: str = "", lead: int = 0) -> str:
    """`value` (None, bool, int, float, str, Regex, list/tuple, dict with str keys) as a JS literal; `freeze`:
    every array and object inside Object.freeze. A list or dict wider than its line (`lead`: the characters
    before it, after `indent`) is written one entry a line."""
    if not isinstance(value, (list, tuple, dict)):
        return _scalar(value)
    inline = _container(value, freeze, indent, None)
    return inline if len(indent) + lead + len(inline) + 1 <= WIDTH else _container(value, freeze, indent,
                                                                                    indent + "  ")


def const(name: str, value, freeze: bool = False, export: bool = True) -> str:
    """One JS declaration, ``export const NAME = value;``."""
    head = f"{'export ' if export else ''}const {name} = "
    return head + literal(value, freeze, "", len(head)) + ";"


def _container(value, freeze: bool, indent: str, inner: str | None) -> str:
    """`value` inline (`inner` None), else one entry a line indented by `inner`."""
    where = indent if inner is None else inner
    if isinstance(value, dict):
        items = [f"{_key(k)}: {literal(v, freeze, where, len(_key(k)) + 2)}" for k, v in value.items()]
        opening, closing = ("{ ", " }") if inner is None and items else ("{", "}")
    else:
        items = [literal(v, freeze, where) for v in value]
        opening, closing = "[", "]"
    if inner is None:
        body = opening + ", ".join(items) + closing
    else:
        body = opening + "\n" + "".join(f"{inner}{item},\n" for item in items) + indent + closing
    return f"Object.freeze({body})" if freeze else body


def _key(key) -> str:
    if not isinstance(key, str):
        raise TypeError(f"a JS object key must be a string, not {key!r}")
    return key if _NAME.fullmatch(key) else _string(key)


def _scalar(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) > _SAFE:
            raise ValueError(f"{value} is past the integers a JS number holds exactly")
        return f"{value:_}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} has no JSON form: the page could not read it from a file either")
        return _scalar(int(value)) if value.is_integer() and abs(value) <= _SAFE else repr(value)
    if isinstance(value, Regex):
        return "/" + re.sub(r"(?<!\\)/", r"\/", str(value)) + "/" + value.flags
    if isinstance(value, str):
        return _string(value)
    raise TypeError(f"no JS literal for {type(value).__name__}")


def _string(text: str) -> str:
    def escape(c: str) -> str:
        if c in _ESCAPES:
            return _ESCAPES[c]
        if ord(c) < 0x20 or ord(c) == 0x7F:
            return f"\\x{ord(c):02x}"
        return f"\\u{ord(c):04x}" if c in "\u2028\u2029" else c

    return "'" + "".join(map(escape, text)) + "'"
