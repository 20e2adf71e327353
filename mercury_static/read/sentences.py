"""What sentence-level datasets share: a summary given as sentences, a cut checked against its text, and a
verdict read against the verdicts it may take.

A given cut keeps the promise `segment.split_sentences` makes (in order, disjoint, each span stripped and
not empty, every non-whitespace character inside one), so the page and merge treat both cuts alike.
"""

from __future__ import annotations

from mercury_static.core.records import InputError
from mercury_static.core.safeio import json_kind


def join_sentences(sentences: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """The summary text (the sentences, stripped, joined with one space) and each sentence's offsets."""
    parts: list[str] = []
    cut: list[tuple[int, int]] = []
    pos = 0
    for s in sentences:
        body = s.strip()
        if parts:
            pos += 1
        parts.append(body)
        cut.append((pos, pos + len(body)))
        pos += len(body)
    return " ".join(parts), cut


def check_cut(text: str, cut, file: str, where: str, field: str) -> list[tuple[int, int]]:
    """`cut` as (start, end) pairs when it is a sentence cut of `text`; else one InputError naming `field`."""
    if not isinstance(cut, list) or not cut:
        raise InputError(file, where, field, f"expected a non-empty list of [start, end] pairs, got {json_kind(cut)}")
    out: list[tuple[int, int]] = []
    prev = 0
    for i, pair in enumerate(cut):
        ok = isinstance(pair, (list, tuple)) and len(pair) == 2 \
            and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
        if not ok:
            raise InputError(file, where, f"{field}[{i}]", "expected [start, end], two integers")
        s, e = pair
        if not prev <= s < e <= len(text):
            raise InputError(file, where, f"{field}[{i}]", f"[{s}, {e}] is not a span after the previous one "
                             f"inside the text ({len(text)} characters)")
        if text[s:e] != text[s:e].strip():
            raise InputError(file, where, f"{field}[{i}]", "a sentence begins or ends with whitespace")
        if text[prev:s].strip():
            raise InputError(file, where, f"{field}[{i}]",
                             f"text before it is in no sentence: {text[prev:s].strip()[:40]!r}")
        out.append((s, e))
        prev = e
    if text[prev:].strip():
        raise InputError(file, where, field,
                         f"text after the last sentence is in no sentence: {text[prev:].strip()[:40]!r}")
    return out


def read_verdict(raw, allowed: tuple[str, ...], file: str, where: str, field: str) -> str:
    """The verdict `raw` names among `allowed`: compared with surrounding whitespace removed and case folded
    (a real file's "Yes " is "yes"), written as the allowed value; anything else one InputError."""
    if not isinstance(raw, str) or not raw.strip():
        raise InputError(file, where, field, "missing" if raw is None else
                         f"expected a verdict ({', '.join(allowed)}), got {json_kind(raw)}")
    key = raw.strip().casefold()
    found = [v for v in allowed if v.casefold() == key]
    if len(found) != 1:
        raise InputError(file, where, field, f"{raw!r} is not one of the verdicts ({', '.join(allowed)})")
    return found[0]
