"""The related-sentence ranker: Python twin of ``site_template/app/assist/rank.js`` (same options, same numbers).

``fused-v5`` (the default; chosen by cross-validation, benchmarks/RESULTS.md): ``fused-v4``'s terms with the
context cosine at 0.1 and, as the selection's vector, the mean of its tokens in context and its text embedded
alone (option ``selection``: "span", "tokens" or "blend"; tokens.py). Raw terms of sentence i of the ranked
text for a selection, each in [0, 1]:

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
    confidence = max_k of finish(the weighted mean of the raw terms under the weights c_<term>)
    score_i    = confidence * (fused_i - min fused) / (max fused - min fused)

So the order is the per-query normalised fusion's and the best score is an absolute confidence that
something in the text is related: by default (c_*) fused-v3's score of its best sentence, so the grades
and "nothing related" keep the meaning they were calibrated for (an unrelated text stays low, however it
is normalised). About half of the fusion's own weight is on cosines, and a 4,000-sentence haystack on a
neighbouring topic always has a sentence at cosine 0.45: as a confidence it showed 20% of SummHay
queries something "related" in another topic's haystack (benchmarks/RESULTS.md).

Display options (not used in the score): ``min_score``, below which a sentence is not highlighted and a
selection whose best sentence is below it shows "nothing related"; ``grades`` = [medium, strong]
thresholds of the highlight levels on the sentence's *grade probability*; ``calibration`` = rows
``[max sentences, a, b, c]`` (the first row whose max sentences >= the ranked text's sentence count n,
else the last):

    p_i = 1 / (1 + exp(-(a * score_i + b * score_i / best + c)))     best = the query's best score

the probability that a lit sentence is evidence, fitted per source length band on ../shared/data
(``crossval.fit_calibration``, cross-validated; benchmarks/RESULTS.md). ``calibration`` [] makes p_i the
score itself (the grades of fused-v3 and before).

Tokens: lower-cased runs of letters/digits, digit groups joined ("1,025" -> "1025"), cut to their first
``prefix`` code points (a crude stemmer; 0 keeps them whole). Both implementations compute in float64
from the float32 vectors; order = score desc, then sentence index asc.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from mercury_static.assist.ranker_options import DEFAULT_OPTIONS  # the options' defaults, types and ranges
from mercury_static.core.citations import MARKER


# the terms of the score, in this order everywhere (rank.js, the learned combination of crossval.py)
TERMS = ("dense", "context", "lexical", "context_lexical", "bm25", "context_bm25", "entity")

_DIGIT_SEP = re.compile(r"(?<=\d)[,.](?=\d)")
_TOKEN = re.compile(r"[^\W_]+")
_DIGIT = re.compile(r"\d")
_CITATION = re.compile(MARKER)


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
    whole: Postings | None  # whole tokens (the exact-match entity term); None: `tokens` are whole (prefix 0)
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


def _term_weights(opt: dict, p: str, mass: float, has_vec: bool, has_ctx_vec: bool, has_ctx_text: bool,
                  has_keys: bool) -> dict[str, float]:
    """The weight of each available term from the options ``<p><term>`` (fallbacks and damping applied)."""
    d_span = _damping(mass, opt["span_idf_mass"])
    w: dict[str, float] = {}
    if has_vec:
        w["dense"] = (opt[p + "dense"] * _damping(mass, opt["dense_idf_mass"])
                      + (0.0 if has_ctx_vec else opt[p + "context"]))
        if has_ctx_vec:
            w["context"] = opt[p + "context"]
    w["lexical"] = opt[p + "lexical"] * d_span + (0.0 if has_ctx_text else opt[p + "context_lexical"])
    w["bm25"] = opt[p + "bm25"] * d_span + (0.0 if has_ctx_text else opt[p + "context_bm25"])
    if has_ctx_text:
        w["context_lexical"] = opt[p + "context_lexical"]
        w["context_bm25"] = opt[p + "context_bm25"]
    if has_keys:
        # the weight damping took from a short span's lexical terms: exact numbers speak for it instead
        w["entity"] = opt[p + "entity"] * (1.0 - d_span if opt["span_idf_mass"] > 0 else 1.0)
    return w


def term_values(query_vec, query_text: str, prep: PreparedText, options: dict | None = None,
                context_vec=None, context_text: str | None = None,
                prefixes: tuple[str, ...] = ("w_",)) -> list[tuple[str, tuple[float, ...], np.ndarray]]:
    """The raw terms of this query as ``(name, (weight per option prefix), values)``, every value in
    [0, 1], in TERMS order; weights of absent inputs fall back as the module docstring says; a term
    whose weights are all 0 is left out (not computed)."""
    opt = {**DEFAULT_OPTIONS, **(options or {})}
    n = len(prep.indices)
    qtoks = tokenize(query_text, prep.prefix)
    lexical, mass = _coverage(prep.tokens, qtoks, n)
    keys = key_tokens(query_text)
    k1, b = float(opt["bm25_k1"]), float(opt["bm25_b"])
    ctoks = tokenize(context_text, prep.prefix) if context_text else []
    compute = {"dense": lambda: _max_cos(prep, query_vec, n), "context": lambda: _max_cos(prep, context_vec, n),
               "lexical": lambda: lexical, "context_lexical": lambda: _coverage(prep.tokens, ctoks, n)[0],
               "bm25": lambda: _bm25(prep.tokens, qtoks, n, k1, b),
               "context_bm25": lambda: _bm25(prep.tokens, ctoks, n, k1, b),
               "entity": lambda: _coverage(prep.whole or prep.tokens, keys, n)[0]}
    weights = [_term_weights(opt, p, mass, query_vec is not None, context_vec is not None, bool(context_text),
                             bool(keys)) for p in prefixes]
    out = []
    for name in TERMS:
        ws = tuple(w.get(name, 0.0) for w in weights)
        if any(x > 0 for x in ws):
            out.append((name, ws, compute[name]()))
    return out


def normalise(values: np.ndarray, norm: str) -> np.ndarray:
    """Per-query normalisation of one term over the text's sentences (a constant term becomes 0)."""
    if norm == "minmax":
        lo, hi = float(values.min()), float(values.max())
        return (values - lo) / (hi - lo) if hi > lo else np.zeros_like(values)
    if norm != "zscore":
        raise ValueError(f"ranker option 'norm': {norm!r} is not one of none, minmax, zscore")
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


def _weighted(terms, which: int, n: int, norm: str | None = None) -> np.ndarray:
    """Weighted mean of the terms under weight set ``which`` (each normalised per query if ``norm``)."""
    weight = sum(ws[which] for _, ws, _ in terms if ws[which] > 0)
    out = np.zeros(n)
    for _, ws, values in terms:
        if ws[which] > 0:
            out += (ws[which] / weight) * (values if norm is None else normalise(values, norm))
    return out


def score_sentences(query_vec, query_text: str, prep: PreparedText, options: dict | None = None,
                    context_vec=None, context_text: str | None = None,
                    query_position: float | None = None) -> np.ndarray:
    """Scores (float64) of the prepared sentences, in their prepared order."""
    opt = {**DEFAULT_OPTIONS, **(options or {})}
    n = len(prep.indices)
    if opt["norm"] == "none" or not n:
        terms = term_values(query_vec, query_text, prep, opt, context_vec, context_text)
        return finish(_weighted(terms, 0, n), prep, opt, query_position)
    terms = term_values(query_vec, query_text, prep, opt, context_vec, context_text, ("w_", "c_"))
    confidence = finish(_weighted(terms, 1, n), prep, opt, query_position)
    fused = finish(_weighted(terms, 0, n, opt["norm"]), prep, opt, query_position)
    lo, hi = float(fused.min()), float(fused.max())
    share = (fused - lo) / (hi - lo) if hi > lo else np.ones(n)
    return float(confidence.max()) * share


def grade_probability(score: float, best: float, n_sentences: int, options: dict | None = None) -> float:
    """The grade probability of a sentence scoring ``score`` in a ranking of ``n_sentences`` sentences whose
    best score is ``best`` (module docstring); rank.js gradeProbability is its twin."""
    table = {**DEFAULT_OPTIONS, **(options or {})}["calibration"]
    if not table:
        return float(score)
    row = next((r for r in table if n_sentences <= r[0]), table[-1])
    share = float(score) / float(best) if best > 0 else 0.0
    z = float(row[1]) * float(score) + float(row[2]) * share + float(row[3])
    return 1.0 / (1.0 + math.exp(-z))


def grade(probability: float, options: dict | None = None) -> int:
    """3 strong, 2 medium, 1 weak: the grade probability against ``grades`` = [medium, strong]."""
    medium, strong = {**DEFAULT_OPTIONS, **(options or {})}["grades"]
    return 3 if probability >= strong else 2 if probability >= medium else 1


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
