"""Annotator names as this tool compares them, one function wherever a name enters: `assign --annotators`,
the settings' distribution annotators and suggestions.blind list, the `annotator` of exports and dumps
read by merge and tune. The page normalises the names of its dialog, link and queue lookup with the same
rule (site_template/app/state/names.js); tests/names_cases.json holds the cases both are tested against.

The rule: every whitespace character is a space, control and format characters (zero-width spaces and
joiners, bidi marks, the BOM, soft hyphens) are removed, the rest is NFC, runs of spaces are one, ends are
trimmed. So composed and decomposed "José" are one name, as are "alice" and "alice\\u200b".
"""

from __future__ import annotations

import re
import unicodedata

from mercury_static.core.records import InputError

_SPACES = frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
"""Whitespace as both Python's str.isspace and JavaScript's \\s know it (Zs and the control spaces)."""
_RUNS = re.compile(" {2,}")


def normalize_name(name: str) -> str:
    """A name as compared (see the module docstring)."""
    kept = "".join(" " if c in _SPACES else "" if unicodedata.category(c) in ("Cc", "Cf") else c for c in name)
    return _RUNS.sub(" ", unicodedata.normalize("NFC", kept)).strip(" ")


def distinct_names(names, file, where: str | None, key: str) -> tuple[str, ...]:
    """The names normalised, in order; an empty one, or two that are one name once normalised, is an
    InputError naming both spellings (two queues, or a blind list, for one person would be wrong)."""
    seen: dict[str, str] = {}
    for raw in names:
        name = normalize_name(raw) if isinstance(raw, str) else ""
        if not name:
            raise InputError(file, where, key, f"empty annotator name ({raw!r})")
        if name in seen:
            first = seen[name]
            alike = unicodedata.normalize("NFC", repr(first)) == unicodedata.normalize("NFC", repr(raw))
            show = ascii if alike else repr  # "José" composed and decomposed look alike: show the code points
            same = "given twice" if first == raw else f"{show(first)} and {show(raw)} are one name (compared in " \
                   "Unicode NFC, without invisible characters)"
            raise InputError(file, where, key, f"duplicate annotator {name!r}: {same}")
        seen[name] = raw
    return tuple(seen)
