"""Sentence segmentation with exact code-point offsets, and embedding windows.

A line break always ends a sentence (bullets, lists, headings); inside a line pysbd decides. pysbd is
only asked *where* sentences start: each returned sentence is searched forward from the previous one
in the original line (never re-joined, so offsets cannot drift, and repeated sentences map to the right
occurrence), and a sentence runs from its start to the next start, minus surrounding whitespace. So
every non-whitespace character lands in exactly one span even if pysbd alters or drops text.

pysbd is quadratic in the number of sentences per call, so a long line is read in windows of
``_WINDOW`` characters: the sentences of a window are kept except the last (possibly cut) one, where the
next window starts. 500,000 characters of news text take about 3 s on one core. Emoji that pysbd puts
at the start of the next sentence ("Done. 🚀 Next") are given back to the sentence they follow.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Sequence

import pysbd

_LINE = re.compile(r"[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+")
_WORD_END = re.compile(r"\S+")
_WINDOW = 2000
_COUNT_CHUNK = 2048
"""Sentences counted per tokenizer call: the tokenizer's per-token records of a whole long text at once
took gigabytes on a long source; a chunk's are freed before the next."""
_segmenter: pysbd.Segmenter | None = None


def _pysbd(text: str) -> list[str]:
    global _segmenter
    if _segmenter is None:
        _segmenter = pysbd.Segmenter(language="en", clean=False)
    try:
        # The processor's sentences only: Segmenter.segment would also locate each one with a freshly
        # compiled regex (half the time, and we locate them ourselves in _starts).
        return _segmenter.processor(text).process()
    except Exception:  # pysbd bug on odd input: keep the text as one sentence
        return [text]


def _starts(text: str) -> list[int]:
    """Offsets in ``text`` where pysbd starts a sentence, ascending, always including 0."""
    starts = [0]
    cursor = 0
    for sentence in _pysbd(text):
        body = sentence.strip()
        if not body:
            continue
        pos = text.find(body, cursor)
        if pos < 0:
            continue
        if pos > starts[-1]:
            starts.append(pos)
        cursor = pos + len(body)
    return starts


def _line_starts(line: str) -> list[int]:
    """Sentence starts of one line, segmented window by window (linear time)."""
    starts: list[int] = []
    pos = 0
    width = _WINDOW
    while pos < len(line):
        end = pos + width
        if end >= len(line):
            starts.extend(pos + s for s in _starts(line[pos:]))
            break
        found = _starts(line[pos:end])
        if len(found) < 2:
            width *= 2  # a sentence longer than the window: widen, do not cut it
            continue
        starts.extend(pos + s for s in found[:-1])
        pos += found[-1]
        width = _WINDOW
    return starts


def _is_symbol(ch: str) -> bool:
    """Emoji and pictographs (not ©, $, +), with their joiners and modifiers (ZWJ, selectors)."""
    cat = unicodedata.category(ch)
    return (cat in ("So", "Sk") and ord(ch) >= 0x2190) or cat in ("Mn", "Cf")


def _attach_trailing_symbols(line: str, starts: list[int]) -> list[int]:
    """Emoji/symbols that pysbd put at the start of a sentence belong to the end of the previous one."""
    out = starts[:1]
    for i, s in enumerate(starts[1:], 1):
        end = starts[i + 1] if i + 1 < len(starts) else len(line)
        p = s
        while p < end and _is_symbol(line[p]):
            p += 1
        if p == s or (p < end and not line[p].isspace()):
            out.append(s)
            continue
        while p < end and line[p].isspace():
            p += 1
        if p < end:
            out.append(p)
    return out


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` in code points: ``text[start:end]`` is the sentence, stripped.

    Spans are in order and disjoint, and every non-whitespace character is inside one of them.
    """
    spans: list[tuple[int, int]] = []
    for match in _LINE.finditer(text):
        line = match.group()
        lead = len(line) - len(line.lstrip())
        body = line.strip()
        if not body:
            continue
        base = match.start() + lead
        starts = _attach_trailing_symbols(body, _line_starts(body))
        for i, s in enumerate(starts):
            e = starts[i + 1] if i + 1 < len(starts) else len(body)
            chunk = body[s:e]
            spans.append((base + s, base + s + len(chunk.rstrip())))
    return spans


def embedding_windows(
    text: str,
    spans: Sequence[tuple[int, int]],
    count_tokens: Callable[[list[str]], list[int]],
    max_tokens: int,
) -> list[tuple[int, int, int]]:
    """Rows ``(sentence_index, start, end)`` to embed: one per sentence, or several for a long one.

    A row's text must count at most ``max_tokens - 2`` tokens by ``count_tokens``: exact for a counter
    without special tokens ([CLS]/[SEP] still fit), 2 tokens conservative for one that includes them
    (``Embedder.count_tokens`` does). A longer sentence becomes overlapping windows (~25% overlap) cut
    at word ends, or inside a word when one word alone is too long (e.g. CJK text without spaces).
    """
    budget = max(1, max_tokens - 2)
    rows: list[tuple[int, int, int]] = []
    for first in range(0, len(spans), _COUNT_CHUNK):
        chunk = spans[first:first + _COUNT_CHUNK]
        counts = count_tokens([text[s:e] for s, e in chunk])
        for i, ((s, e), n) in enumerate(zip(chunk, counts), first):
            if n <= budget:
                rows.append((i, s, e))
            else:
                rows.extend((i, ws, we) for ws, we in _windows(text, s, e, count_tokens, budget))
    return rows


def _windows(text: str, start: int, end: int, count_tokens, budget: int) -> list[tuple[int, int]]:
    """Overlapping windows over text[start:end], each as long as fits (galloping search: each probe
    is at most about twice the window, so a huge sentence costs linear time; it starts from the previous
    window's length in words, which the next window is usually close to)."""

    def last_fit(points, lo: int, hi: int, guess: int = 0) -> int:
        """Largest i in [lo, hi) with text[s:points[i]] fitting (lo if none does), probing lo + guess
        first (0: no guess): up from there when it fits, down when not."""
        base, good, bad, step = lo, lo, hi, 1
        if 0 < guess < hi - lo:
            if fits(points[lo + guess]):
                base = good = lo + guess
            else:
                bad = lo + guess
                while (probe := bad - step) > lo and not fits(points[probe]):
                    bad, step = probe, step * 2
                good = max(probe, lo)
        while bad == hi:
            probe = min(base + step, hi - 1)
            if probe <= good:
                return good
            if fits(points[probe]):
                good, step = probe, step * 2
            else:
                bad = probe
        while bad - good > 1:
            mid = (good + bad) // 2
            if fits(points[mid]):
                good = mid
            else:
                bad = mid
        return good

    def fits(b: int) -> bool:
        return count_tokens([text[s:b]])[0] <= budget

    words = list(_WORD_END.finditer(text, start, end))
    word_starts = [m.start() for m in words]
    word_ends = [m.end() for m in words]
    out: list[tuple[int, int]] = []
    s, guess = start, 0
    while True:
        first = bisect.bisect_right(word_ends, s)
        if word_ends[first] - s <= 64 * budget and fits(word_ends[first]):
            last = last_fit(word_ends, first, len(word_ends), guess)
            e, guess = word_ends[last], last - first
        else:  # one word alone is too long (e.g. CJK without spaces): cut inside it
            chars = range(s + 1, min(word_ends[first], s + 64 * budget) + 1)
            e = chars[last_fit(chars, 0, len(chars))]
        out.append((s, e))
        if e >= end:
            return out
        # overlap: restart at the last word start within the window's last quarter, else mid-word
        target = e - (e - s) // 4
        k = bisect.bisect_right(word_starts, target) - 1
        s = word_starts[k] if k >= 0 and word_starts[k] > s else target
        while text[s].isspace():
            s += 1
