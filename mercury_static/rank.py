"""The related-sentence ranker: Python twin of ``site_template/app/rank.js`` (same options, same numbers).

``fused-v4`` (the default; chosen by cross-validation, benchmarks/RESULTS.md). Raw terms of sentence i of
the ranked text for a selection, each in [0, 1]:

    dense_i        = max over the sentence's embedding rows of cos(query_vec, row)
    context_i      = max over rows of cos(context_vec, row)     context = the sentence(s) around the
                                                                selection (mean of their vectors)
    lexical_i      = idf-weighted share of the query's tokens found in sentence i:
                     sum(idf(t) for t in Q if t in S_i) / sum(idf(t) for t in Q),
                     idf(t) = ln(1 + (N - df_t + 0.5) / (df_t + 0.5)) over the N sentences of the text
    bm25_i         = BM25(k1 = bm25_k1, b = bm25_b) of the query's distinct tokens, divided by its bound
                     sum(idf(t) * (k1 + 1)); sentence lengths in tokens, average over the text
    context_*_i    = lexical / BM25 of the context text's tokens
    entity_i       = lexical share of the span's key tokens (numbers and the two words after each: units,
                     scales, a date's month; whole tokens; citation markers "[7]" left out)

Weights: w_<term>; without a context the context weights go to the span's terms; without a query vector
only the lexical terms count. The span's own weights are damped when the selection carries little
information: with m = sum(idf(t) for t in Q) (the span's idf mass), d = min(1, m / span_idf_mass) scales
w_lexical and w_bm25, min(1, m / dense_idf_mass) scales w_dense (0 turns a damping off), and the entity
term gets w_entity * (1 - d): a short span ("Widnes") leans on its sentence, unless it holds numbers
("3.2 million euros"), which then speak for it. Terms with weight 0 are left out.

    base_i   = sum_j (w_j / sum w) * term_j,i
    finish: smooth_i = (1 - neighbor) * base_i + neighbor * (base_{i-1} + base_{i+1}) / 2
              (a missing neighbour counts as base_i), then * (1 - position + position * (1 - |p - mid_i|))
              only when the caller passes ``query_position`` p (the selection's midpoint as a share of its
              text's length; mid_i = the sentence's midpoint as a share of the ranked text, from cumulative
              code-point lengths). The page and ``eval`` pass it only when neither text is sectioned.
    absolute_i = finish(base_i)                         (``norm`` "none": the score; fused-v3 is this)
    fused_i    = finish(sum_j (w_j / sum w) * normalise(term_j))    normalise = per query over the text's
                 sentences: min-max to [0, 1] ("minmax") or z-score ("zscore"); a constant term is 0
    score_i    = max_k(absolute_k) * (fused_i - min fused) / (max fused - min fused)

So the order is the per-query normalised fusion's and the best score is the best absolute score: it
is the confidence that something in the text is related, and the grades and "nothing related" keep
their meaning (an unrelated text stays low, however it is normalised).

Display options (not used in the score): ``min_score``, below which a sentence is not highlighted and a
selection whose best sentence is below it shows "nothing related"; ``grades`` = [medium, strong] score
thresholds of the highlight levels. Calibrated on ../shared/data (benchmarks/RESULTS.md).

Tokens: lower-cased runs of letters/digits, digit groups joined ("1,025" -> "1025"), cut to their first
``prefix`` code points (a crude stemmer; 0 keeps them whole). Both implementations compute in float64
from the float32 vectors; order = score desc, then sentence index asc.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

DEFAULT_OPTIONS: dict = {
    "algorithm": "fused-v4",
    "norm": "minmax",
    "w_dense": 0.25,
    "w_context": 0.25,
    "w_lexical": 0.0,
    "w_context_lexical": 0.0,
    "w_bm25": 0.25,
    "w_context_bm25": 0.25,
    "w_entity": 1.0,
    "bm25_k1": 1.2,
    "bm25_b": 0.75,
    "span_idf_mass": 20.0,
    "dense_idf_mass": 4.0,
    "neighbor": 0.4,
    "position": 0.2,
    "prefix": 5,
    "min_score": 0.2,
    "grades": [0.3, 0.45],
}

# the terms of the score, in this order everywhere (rank.js, the learned combination of crossval.py)
TERMS = ("dense", "context", "lexical", "context_lexical", "bm25", "context_bm25", "entity")

_DIGIT_SEP = re.compile(r"(?<=\d)[,.](?=\d)")
_TOKEN = re.compile(r"[^\W_]+")
_DIGIT = re.compile(r"\d")
_CITATION = re.compile(r"\[[0-9][0-9,\s\u2013-]*\]")  # "[7][36]", "[2, 5]", "[3–4]": references, not claims


def tokenize(text: str, prefix: int = 0) -> list[str]:
    """Lower-cased letter/digit runs, digit groups joined, cut to ``prefix`` code points (0: whole)."""
    tokens = _TOKEN.findall(_DIGIT_SEP.sub("", text.lower()))
    return [t[:prefix] for t in tokens] if prefix > 0 else tokens


def key_tokens(text: str) -> list[str]:
    """The tokens a hallucination hides in: numbers and the two words after each (units, scales, the
    month of a date: "3.2 million euros", "14 June"), as whole lower-cased tokens; citation markers
    ("[7][36]") are not numbers of the text. Capitalised names were tried too and lost in
    cross-validation (they recur all over a source: benchmarks/RESULTS.md)."""
    out: list[str] = []
    after_number = 0
    for raw in _TOKEN.findall(_DIGIT_SEP.sub("", _CITATION.sub(" ", text))):
        has_digit = _DIGIT.search(raw) is not None
        if has_digit or after_number > 0:
            out.extend(tokenize(raw))
        after_number = 2 if has_digit else after_number - 1
    return list(dict.fromkeys(out))


@dataclass
class Sentence:
    """One sentence of the ranked text: its index, text and embedding rows (float32, shape (m, dim))."""

    index: int
    text: str
    vectors: np.ndarray


@dataclass
class Postings:
    """token -> (positions of the sentences containing it, its count in each), and sentence lengths."""

    positions: dict[str, np.ndarray]
    counts: dict[str, np.ndarray]
    lengths: np.ndarray  # tokens per sentence (float64)


def _postings(texts: list[str], prefix: int) -> Postings:
    positions: dict[str, list[int]] = {}
    counts: dict[str, list[int]] = {}
    lengths = np.zeros(len(texts))
    for p, text in enumerate(texts):
        toks = tokenize(text, prefix)
        lengths[p] = len(toks)
        tf: dict[str, int] = {}
        for tok in toks:
            tf[tok] = tf.get(tok, 0) + 1
        for tok, c in tf.items():
            positions.setdefault(tok, []).append(p)
            counts.setdefault(tok, []).append(c)
    return Postings({t: np.array(v, dtype=np.int64) for t, v in positions.items()},
                    {t: np.array(v, dtype=np.float64) for t, v in counts.items()}, lengths)


@dataclass
class PreparedText:
    """Per-text precomputation reused across queries (rows matrix, token postings, neighbours)."""

    indices: np.ndarray  # sentence index per position
    rows: np.ndarray  # float64 (n_rows, dim)
    row_pos: np.ndarray  # position of the sentence owning each row
    prefix: int
    tokens: Postings  # tokens cut to ``prefix`` (lexical and BM25 terms)
    whole: Postings  # whole tokens (the exact-match entity term)
    prev_pos: np.ndarray  # position of sentence index-1, or the sentence itself
    next_pos: np.ndarray  # position of sentence index+1, or the sentence itself
    mid: np.ndarray  # midpoint of each sentence as a share of the text (cumulative code-point lengths)


def prepare_sentences(sentences: list[Sentence], options: dict | None = None) -> PreparedText:
    """Precompute what ranking needs from the sentences of one text."""
    prefix = int({**DEFAULT_OPTIONS, **(options or {})}["prefix"])
    indices = np.array([s.index for s in sentences], dtype=np.int64)
    mats = [np.asarray(s.vectors, dtype=np.float32) for s in sentences]
    mats = [np.atleast_2d(m) if m.size else np.zeros((0, 0), np.float32) for m in mats]
    with_rows = [m for m in mats if len(m)]
    rows = np.concatenate(with_rows).astype(np.float64) if with_rows else np.zeros((0, 0))
    row_pos = np.repeat(np.arange(len(mats), dtype=np.int64), [len(m) for m in mats])
    texts = [s.text for s in sentences]
    where = {int(i): p for p, i in enumerate(indices)}
    prev_pos = np.array([where.get(int(i) - 1, p) for p, i in enumerate(indices)], dtype=np.int64)
    next_pos = np.array([where.get(int(i) + 1, p) for p, i in enumerate(indices)], dtype=np.int64)
    lengths = np.array([len(t) for t in texts], dtype=np.float64)
    total = float(lengths.sum())
    mid = (np.cumsum(lengths) - lengths / 2.0) / total if total > 0 else np.full(len(sentences), 0.5)
    return PreparedText(indices, rows, row_pos, prefix, _postings(texts, prefix),
                        _postings(texts, 0) if prefix > 0 else None, prev_pos, next_pos, mid)


def _max_cos(prep: PreparedText, vec, n: int) -> np.ndarray:
    out = np.full(n, -np.inf)
    if len(prep.rows):
        # einsum, not BLAS: a matrix-vector product this small is slower with BLAS threads on a busy machine
        dots = np.einsum("ij,j->i", prep.rows, np.asarray(vec, dtype=np.float32).astype(np.float64))
        np.maximum.at(out, prep.row_pos, dots)
    out[np.isneginf(out)] = 0.0
    return out


def _idf(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _coverage(post: Postings, toks: list[str], n: int) -> tuple[np.ndarray, float]:
    """(idf-weighted share of the distinct ``toks`` found in each sentence, their idf mass)."""
    out = np.zeros(n)
    total = 0.0
    for tok in dict.fromkeys(toks):
        hits = post.positions.get(tok)
        idf = _idf(n, 0 if hits is None else len(hits))
        total += idf
        if hits is not None:
            out[hits] += idf
    return (out / total if total > 0 else out), total


def _bm25(post: Postings, toks: list[str], n: int, k1: float, b: float) -> np.ndarray:
    """BM25 of the distinct ``toks`` per sentence, divided by its bound sum(idf * (k1 + 1)): in [0, 1)."""
    out = np.zeros(n)
    total = 0.0
    avg = float(post.lengths.mean()) if n else 0.0
    norm = k1 * (1.0 - b + b * post.lengths / avg) if avg > 0 else np.full(n, k1)
    for tok in dict.fromkeys(toks):
        hits = post.positions.get(tok)
        idf = _idf(n, 0 if hits is None else len(hits))
        total += idf * (k1 + 1.0)
        if hits is not None:
            tf = post.counts[tok]
            out[hits] += idf * tf * (k1 + 1.0) / (tf + norm[hits])
    return out / total if total > 0 else out


def _damping(mass: float, scale: float) -> float:
    return min(1.0, mass / scale) if scale > 0 else 1.0


def term_values(query_vec, query_text: str, prep: PreparedText, options: dict | None = None,
                context_vec=None, context_text: str | None = None) -> list[tuple[str, float, np.ndarray]]:
    """The raw terms used for this query as ``(name, weight, values)``, every value in [0, 1]; weights of
    absent inputs fall back as the module docstring says; terms with weight 0 are left out."""
    opt = {**DEFAULT_OPTIONS, **(options or {})}
    n = len(prep.indices)
    has_ctx_vec = context_vec is not None
    has_ctx_text = bool(context_text)
    qtoks = tokenize(query_text, prep.prefix)
    lexical, mass = _coverage(prep.tokens, qtoks, n)
    d_span = _damping(mass, opt["span_idf_mass"])
    out: list[tuple[str, float, object]] = []
    if query_vec is not None:
        w = opt["w_dense"] * _damping(mass, opt["dense_idf_mass"]) + (0.0 if has_ctx_vec else opt["w_context"])
        out.append(("dense", w, lambda: _max_cos(prep, query_vec, n)))
        if has_ctx_vec:
            out.append(("context", opt["w_context"], lambda: _max_cos(prep, context_vec, n)))
    k1, b = float(opt["bm25_k1"]), float(opt["bm25_b"])
    out.append(("lexical", opt["w_lexical"] * d_span + (0.0 if has_ctx_text else opt["w_context_lexical"]),
                lambda: lexical))
    out.append(("bm25", opt["w_bm25"] * d_span + (0.0 if has_ctx_text else opt["w_context_bm25"]),
                lambda: _bm25(prep.tokens, qtoks, n, k1, b)))
    if has_ctx_text:
        ctoks = tokenize(context_text, prep.prefix)
        out.append(("context_lexical", opt["w_context_lexical"], lambda: _coverage(prep.tokens, ctoks, n)[0]))
        out.append(("context_bm25", opt["w_context_bm25"], lambda: _bm25(prep.tokens, ctoks, n, k1, b)))
    keys = key_tokens(query_text)
    if keys:
        # the weight damping took from a short span's lexical terms: exact numbers speak for it instead
        out.append(("entity", opt["w_entity"] * (1.0 - d_span if opt["span_idf_mass"] > 0 else 1.0),
                    lambda: _coverage(prep.whole or prep.tokens, keys, n)[0]))
    return [(name, w, f()) for name, w, f in out if w > 0]


def _normalise(values: np.ndarray, norm: str) -> np.ndarray:
    """Per-query normalisation of one term over the text's sentences (a constant term becomes 0)."""
    if norm == "minmax":
        lo, hi = float(values.min()), float(values.max())
        return (values - lo) / (hi - lo) if hi > lo else np.zeros_like(values)
    sd = float(values.std())
    return (values - float(values.mean())) / sd if sd > 0 else np.zeros_like(values)


def finish(base: np.ndarray, prep: PreparedText, options: dict, query_position: float | None) -> np.ndarray:
    """Neighbour smoothing, then the position factor (linear in ``base``)."""
    n = len(base)
    nb = options["neighbor"]
    if nb > 0 and n:
        base = (1.0 - nb) * base + nb * ((base[prep.prev_pos] + base[prep.next_pos]) / 2.0)
    a = options["position"]
    if query_position is not None and a > 0 and n:
        base = base * ((1.0 - a) + a * (1.0 - np.abs(float(query_position) - prep.mid)))
    return base


def score_sentences(query_vec, query_text: str, prep: PreparedText, options: dict | None = None,
                    context_vec=None, context_text: str | None = None,
                    query_position: float | None = None) -> np.ndarray:
    """Scores (float64) of the prepared sentences, in their prepared order."""
    opt = {**DEFAULT_OPTIONS, **(options or {})}
    n = len(prep.indices)
    terms = term_values(query_vec, query_text, prep, opt, context_vec, context_text)
    weight = sum(w for _, w, _ in terms)
    absolute = np.zeros(n)
    for _, w, values in terms:
        absolute += (w / weight) * values
    absolute = finish(absolute, prep, opt, query_position)
    if opt["norm"] == "none" or not n:
        return absolute
    fused = np.zeros(n)
    for _, w, values in terms:
        fused += (w / weight) * _normalise(values, opt["norm"])
    fused = finish(fused, prep, opt, query_position)
    lo, hi = float(fused.min()), float(fused.max())
    share = (fused - lo) / (hi - lo) if hi > lo else np.ones(n)
    return float(absolute.max()) * share


def rank_sentences(query_vec, query_text: str, sentences: list[Sentence], options: dict | None = None,
                   k: int | None = None, *, context_vec=None, context_text: str | None = None,
                   query_position: float | None = None,
                   prepared: PreparedText | None = None) -> list[tuple[int, float]]:
    """``[(index, score)]`` sorted by score desc then index asc, top k (all when k is None)."""
    prep = prepared if prepared is not None else prepare_sentences(sentences, options)
    scores = score_sentences(query_vec, query_text or "", prep, options, context_vec, context_text, query_position)
    order = np.lexsort((prep.indices, -scores))
    if k is not None:
        order = order[:k]
    return list(zip(prep.indices[order].tolist(), scores[order].tolist()))
