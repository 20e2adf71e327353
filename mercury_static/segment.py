"""Sentence segmentation with exact code-point offsets, and embedding windows.

A line break always ends a sentence (bullets, lists, headings); inside a line pysbd decides. pysbd is
only asked *where* sentences start: each returned sentence is searched forward from the previous one
in the original line (never re-joined, so offsets cannot drift, and repeated sentences map to the right
occurrence), and a sentence runs from its start to the next start, minus surrounding whitespace. So
every non-whitespace character lands in exactly one span even if pysbd alters or drops text.

pysbd is quadratic in the number of sentences per call, so a long line is read in windows of
``_WINDOW`` characters: the sentences of a window are kept except the last (possibly cut) one, where the
next window starts. 500,000 characters of news text take about 3 s on one core.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import pysbd

_LINE = re.compile(r"[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+")
_WORD_END = re.compile(r"\S+")
_WINDOW = 2000
_segmenter: pysbd.Segmenter | None = None


def _pysbd(text: str) -> list[str]:
    global _segmenter
    if _segmenter is None:
        _segmenter = pysbd.Segmenter(language="en", clean=False)
    try:
        return _segmenter.segment(text)
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
        starts = _line_starts(body)
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

    ``count_tokens`` counts tokens *without* special tokens (the Embedder's tokenizer); a row must fit in
    ``max_tokens - 2`` so that [CLS] and [SEP] fit too (a counter that includes them only makes windows
    2 tokens shorter). A longer sentence becomes overlapping windows (~25% overlap) cut at word ends,
    or inside a word when one word alone is too long (e.g. CJK text without spaces).
    """
    budget = max(1, max_tokens - 2)
    counts = count_tokens([text[s:e] for s, e in spans]) if spans else []
    rows: list[tuple[int, int, int]] = []
    for i, ((s, e), n) in enumerate(zip(spans, counts)):
        if n <= budget:
            rows.append((i, s, e))
        else:
            rows.extend((i, ws, we) for ws, we in _windows(text, s, e, count_tokens, budget))
    return rows


def _windows(text, start, end, count_tokens, budget) -> list[tuple[int, int]]:
    def fits(a: int, b: int) -> bool:
        return count_tokens([text[a:b]])[0] <= budget

    word_ends = [start + m.end() for m in _WORD_END.finditer(text[start:end])]
    word_starts = [start + m.start() for m in _WORD_END.finditer(text[start:end])]
    out: list[tuple[int, int]] = []
    s = start
    while True:
        cands = [w for w in word_ends if w > s]
        if not fits(s, cands[0]):  # one word alone is too long: cut inside it
            cands = list(range(s + 1, cands[0] + 1))
        lo, hi = 0, len(cands) - 1  # largest candidate end that fits (cands[0] ends a fit unless 1 char)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(s, cands[mid]):
                lo = mid
            else:
                hi = mid - 1
        e = cands[lo]
        out.append((s, e))
        if e >= end:
            return out
        target = e - (e - s) // 4
        # overlap: restart at the last word start within the window's last quarter, else mid-word
        s = max((w for w in word_starts if s < w <= target), default=target)
        while text[s].isspace():
            s += 1
