"""The related-sentence ranker: Python twin of ``site_template/app/rank.js`` (same options, same numbers).

Score of sentence i for a query (all terms in [0, 1]-ish, so scores are absolute and comparable):

    base_i  = w_dense * dense_i + w_context * context_i + w_lexical * lexical_i   (weights renormalised
              over the terms that are available: no context -> its weight goes to dense; no query
              vector -> lexical only)
    dense_i   = max over the sentence's embedding rows of cos(query_vec, row)
    context_i = max over rows of cos(context_vec, row)  (context = the sentence around the selection)
    lexical_i = sum of idf(t) over query tokens t found in sentence i / sum of idf(t) over all query
                tokens, idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)) over the N sentences of the text
    score_i = base_i + neighbor * max(0, max(base_{i-1}, base_{i+1}) - base_i)

Tokens: lower-cased runs of letters/digits, digit groups joined ("1,025" -> "1025"). The computation is
float64 on float32 inputs in both implementations; order = score desc, then index asc.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

DEFAULT_OPTIONS: dict = {
    "algorithm": "fused-v1",
    "w_dense": 0.7,
    "w_context": 0.0,
    "w_lexical": 0.3,
    "neighbor": 0.0,
    "min_score": 0.3,
}

_DIGIT_SEP = re.compile(r"(?<=\d)[,.](?=\d)")
_TOKEN = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased letter/digit runs, digit groups joined; same rule as ``tokenize`` in rank.js."""
    return _TOKEN.findall(_DIGIT_SEP.sub("", text.lower()))


@dataclass
class Sentence:
    """One sentence of the ranked text: its index, text and embedding rows (float32, shape (m, dim))."""

    index: int
    text: str
    vectors: np.ndarray


@dataclass
class PreparedText:
    """Per-text precomputation reused across queries (rows matrix, token postings, document counts)."""

    indices: np.ndarray  # sentence index per position
    rows: np.ndarray  # float64 (n_rows, dim)
    row_pos: np.ndarray  # position of the sentence owning each row
    postings: dict[str, np.ndarray]  # token -> positions of the sentences containing it
    prev_pos: np.ndarray  # position of sentence index-1 (or -1)
    next_pos: np.ndarray  # position of sentence index+1 (or -1)


def prepare_sentences(sentences: list[Sentence]) -> PreparedText:
    """Precompute what ranking needs from the sentences of one text."""
    indices = np.array([s.index for s in sentences], dtype=np.int64)
    mats = [np.asarray(s.vectors, dtype=np.float32).reshape(-1, np.asarray(s.vectors).shape[-1])
            for s in sentences if len(s.vectors)]
    rows = np.concatenate(mats).astype(np.float64) if mats else np.zeros((0, 0))
    row_pos = np.concatenate([np.full(len(s.vectors), p, dtype=np.int64)
                              for p, s in enumerate(sentences) if len(s.vectors)]) if mats else np.zeros(0, np.int64)
    postings: dict[str, list[int]] = {}
    for p, s in enumerate(sentences):
        for tok in set(tokenize(s.text)):
            postings.setdefault(tok, []).append(p)
    where = {int(i): p for p, i in enumerate(indices)}
    prev_pos = np.array([where.get(int(i) - 1, -1) for i in indices], dtype=np.int64)
    next_pos = np.array([where.get(int(i) + 1, -1) for i in indices], dtype=np.int64)
    return PreparedText(indices, rows, row_pos, {t: np.array(v, dtype=np.int64) for t, v in postings.items()},
                        prev_pos, next_pos)


def _max_cos(prep: PreparedText, vec: np.ndarray, n: int) -> np.ndarray:
    out = np.full(n, -np.inf)
    if len(prep.rows):
        np.maximum.at(out, prep.row_pos, prep.rows @ np.asarray(vec, dtype=np.float32).astype(np.float64))
    out[np.isneginf(out)] = 0.0
    return out


def _lexical(prep: PreparedText, text: str, n: int) -> np.ndarray:
    out = np.zeros(n)
    total = 0.0
    for tok in dict.fromkeys(tokenize(text)):
        hits = prep.postings.get(tok)
        df = 0 if hits is None else len(hits)
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        total += idf
        if hits is not None:
            out[hits] += idf
    return out / total if total > 0 else out


def score_sentences(query_vec, query_text: str, prep: PreparedText, options: dict | None = None,
                    context_vec=None) -> np.ndarray:
    """Scores (float64, one per prepared sentence, in the prepared order)."""
    opt = {**DEFAULT_OPTIONS, **(options or {})}
    n = len(prep.indices)
    terms: list[tuple[float, np.ndarray]] = []
    if query_vec is not None:
        w_dense = opt["w_dense"] + (opt["w_context"] if context_vec is None else 0.0)
        terms.append((w_dense, _max_cos(prep, query_vec, n)))
        if context_vec is not None and opt["w_context"] > 0:
            terms.append((opt["w_context"], _max_cos(prep, context_vec, n)))
    if opt["w_lexical"] > 0 or query_vec is None:
        terms.append((opt["w_lexical"] if query_vec is not None else 1.0, _lexical(prep, query_text, n)))
    weight = sum(w for w, _ in terms)
    base = np.zeros(n)
    for w, values in terms:
        if w > 0:
            base += (w / weight) * values
    if opt["neighbor"] > 0 and n:
        padded = np.append(base, -np.inf)
        best = np.maximum(padded[prep.prev_pos], padded[prep.next_pos])
        base = base + opt["neighbor"] * np.maximum(0.0, best - base)
    return base


def rank_sentences(query_vec, query_text: str, sentences: list[Sentence], options: dict | None = None,
                   k: int | None = None, *, context_vec=None, prepared: PreparedText | None = None
                   ) -> list[tuple[int, float]]:
    """``[(index, score)]`` sorted by score desc then index asc, top k (all when k is None)."""
    prep = prepared if prepared is not None else prepare_sentences(sentences)
    scores = score_sentences(query_vec, query_text, prep, options, context_vec)
    order = np.lexsort((prep.indices, -scores))
    if k is not None:
        order = order[:k]
    return [(int(prep.indices[p]), float(scores[p])) for p in order]
