"""A selection's vector from its tokens in context ("late chunking"): rank.js's ``selectionVector`` twin.

The model mean-pools the contextual vectors of a text's tokens. Each embedding row (a sentence, or a window
of a long one, as ``build`` cuts them) is run once and the vectors of its tokens kept; a selection's vector is
then the L2-normalised sum of the vectors of the tokens it overlaps in every row of the sentences it touches,
with no model call per selection. A token counts with its whole word (its pre-tokenizer word: a run of
letters and digits, or one punctuation mark): a selection that cuts a word takes the word, so the page,
which has no token offsets, finds the same tokens by tokenizing word by word.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TokenRow:
    """The tokens of one embedding row: word spans as code-point offsets in the whole text, and vectors."""

    start: int  # the row's span in the text
    end: int
    spans: np.ndarray  # int64 (n, 2): the span of each token's word
    vectors: np.ndarray  # float32 (n, dim): each token's last hidden state ([CLS]/[SEP] left out)


def _dropped(ch: str) -> bool:
    """A character the tokenizer's normaliser removes (accents and other non-spacing marks, format
    characters): it has no token offset, but it belongs to the word it is written in."""
    return unicodedata.category(ch) in ("Mn", "Cf")


def word_spans(text: str, offsets: Sequence[tuple[int, int]], word_ids: Sequence[int | None],
               shift: int) -> np.ndarray:
    """Each token's word span in ``text`` (the union of its word's token offsets, widened over the dropped
    characters written next to it), shifted by ``shift``; special tokens (word id None) are left out."""
    bounds: dict[int, list[int]] = {}
    for (s, e), w in zip(offsets, word_ids):
        if w is not None:
            b = bounds.setdefault(w, [s, e])
            b[0], b[1] = min(b[0], s), max(b[1], e)
    for b in bounds.values():
        while b[0] > 0 and _dropped(text[b[0] - 1]):
            b[0] -= 1
        while b[1] < len(text) and _dropped(text[b[1]]):
            b[1] += 1
    rows = [bounds[w] for w in word_ids if w is not None]
    return np.array(rows, dtype=np.int64).reshape(-1, 2) + shift


def selection_vector(rows: Sequence[TokenRow], start: int, end: int) -> np.ndarray | None:
    """Unit-length sum (float32) of the vectors of the tokens whose word overlaps [start, end) in the rows
    overlapping it (a zero-width selection touches the word around it); None when it overlaps no token.
    Summed in float64 from the float32 vectors, as rank.js does."""
    end = max(end, start + 1)
    total: np.ndarray | None = None
    for row in rows:
        if row.start >= end or start >= row.end or not len(row.spans):
            continue
        keep = (row.spans[:, 0] < end) & (start < row.spans[:, 1])
        if keep.any():
            part = row.vectors[keep].astype(np.float64).sum(axis=0)
            total = part if total is None else total + part
    return None if total is None else _unit(total)


def blend(token_vec: np.ndarray | None, span_vec: np.ndarray | None) -> np.ndarray | None:
    """The normalised mean of the two unit vectors (either alone when the other is missing)."""
    if token_vec is None or span_vec is None:
        return token_vec if span_vec is None else span_vec
    return _unit(token_vec.astype(np.float64) + span_vec.astype(np.float64))


def _unit(total: np.ndarray) -> np.ndarray | None:
    norm = float(np.sqrt(np.dot(total, total)))
    return (total / norm).astype(np.float32) if norm > 0 else None
