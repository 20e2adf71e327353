"""Cross-validation of ranker options over records: folds, intervals, and a learned combination of terms.

A configuration is judged by its mean over k folds with a 95% interval (Student t over the fold means),
and against a reference by the paired per-fold difference, so a gain that one data set's tuning produced
shows as what it is. Folds are over records (every query of a record is in one fold: annotations of one
summary share their evidence) and stratified by source length (short FaithBench articles, long SummHay
haystacks: each fold holds every length). The learned combination is fitted on the training folds only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mercury_static.tune.evaluate import EvalSet, query_position, query_rows
from mercury_static.bundle.contents import text_id
from mercury_static.assist.rank import DEFAULT_OPTIONS, TERMS, finish, prepare_sentences, term_values, normalise

# two-sided 95% Student t quantiles by degrees of freedom (numpy has no t distribution)
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
         11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093}


@dataclass(frozen=True)
class Interval:
    """Mean of per-fold values and its 95% interval."""

    mean: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.mean:.3f} [{self.low:.3f}, {self.high:.3f}]"


def interval(values: Sequence[float] | np.ndarray) -> Interval:
    """Mean ± t(0.975, k-1) · sd / sqrt(k) over the k fold values."""
    v = np.asarray(values, dtype=np.float64)
    mean = float(v.mean())
    if len(v) < 2:
        return Interval(mean, mean, mean)
    half = _T975.get(len(v) - 1, 1.96) * float(v.std(ddof=1)) / math.sqrt(len(v))
    return Interval(mean, mean - half, mean + half)


def assign_folds(records: Sequence[tuple[str, int]], k: int, seed: int = 0) -> dict[str, int]:
    """``(record id, source length)`` -> fold in 0..k-1, stratified by source length: records sorted by
    length (then id) are cut into consecutive blocks of k, and each block gets a random permutation of
    the folds. A record id given twice is one record (one fold)."""
    if k < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    length: dict[str, int] = {}
    for rid, n in records:
        length[rid] = max(n, length.get(rid, n))
    ordered = sorted(length, key=lambda r: (length[r], r))
    rng = np.random.default_rng(seed)
    folds: dict[str, int] = {}
    for start in range(0, len(ordered), k):
        block = ordered[start:start + k]
        for rid, f in zip(block, rng.permutation(k)[: len(block)]):
            folds[rid] = int(f)
    return folds


def eval_folds(sets: Sequence[EvalSet], k: int, seed: int = 0) -> list[np.ndarray]:
    """The fold of every query of every set (folds assigned jointly over the records of all sets)."""
    units = [(q.record_id, len(r.source)) for data in sets for q, r in data.queries]
    folds = assign_folds(units, k, seed)
    return [np.array([folds[q.record_id] for q, _ in data.queries]) for data in sets]


def subset(data: EvalSet, keep: np.ndarray) -> EvalSet:
    """The queries of ``data`` where ``keep`` is true (indexed texts and preparations shared)."""
    idx = np.flatnonzero(keep)
    return EvalSet(data.index, [data.queries[i] for i in idx], data.vectors[idx],
                   [data.contexts[i] for i in idx], data.prepared,
                   None if data.token_vectors is None else data.token_vectors[idx])


METRICS = {"span": ("rr", "r1"), "bullet": ("p", "rr", "r1"), "insight": ("p",)}


@dataclass
class CVResult:
    """Per kind of query and metric, the k fold means (fold order)."""

    name: str
    folds: dict[tuple[str, str], list[float]]

    def summary(self, kind: str, metric: str) -> Interval:
        return interval(self.folds[(kind, metric)])

    def versus(self, other: CVResult, kind: str, metric: str) -> Interval:
        """The paired per-fold difference self − other."""
        return interval(np.subtract(self.folds[(kind, metric)], other.folds[(kind, metric)]))


def _fold_means(rows_per_fold: list[list[dict]]) -> dict[tuple[str, str], list[float]]:
    out: dict[tuple[str, str], list[float]] = {}
    for kind, names in METRICS.items():
        for m in names:
            vals = [float(np.mean([r[m] for r in rows if r["kind"] == kind]))
                    for rows in rows_per_fold if any(r["kind"] == kind for r in rows)]
            if vals:
                out[(kind, m)] = vals
    return out


def cross_validate(name: str, sets: Sequence[EvalSet], folds: list[np.ndarray], k: int,
                   options_for: Callable[[int], dict] | dict) -> CVResult:
    """Score fold f of every set with ``options_for(f)`` (options fitted without fold f) or fixed options."""
    per_fold: list[list[dict]] = []
    for f in range(k):
        opts = options_for(f) if callable(options_for) else options_for
        rows: list[dict] = []
        for data, fold in zip(sets, folds):
            if (fold == f).any():
                rows += query_rows(subset(data, fold == f), 5, opts, controls=False)
        per_fold.append(rows)
    return CVResult(name, _fold_means(per_fold))


# ---------------------------------------------------------------- the learned combination

def query_features(data: EvalSet, i: int, options: dict) -> tuple[np.ndarray, np.ndarray]:
    """(features (n, len(TERMS)), relevant (n,) bool) of query i: each term per-query normalised as
    ``options["norm"]`` says, smoothed and position-weighted like the score, times its damping, so that
    a weight vector w ranks exactly as the options ``{w_<term>: w}`` do."""
    opts = {**DEFAULT_OPTIONS, **options, **{f"w_{t}": 1.0 for t in TERMS}}
    q, r = data.queries[i]
    sid = text_id(r.source)
    key = (sid, opts["prefix"])
    if key not in data.prepared:
        sents = data.index[sid].sentences()
        data.prepared[key] = (sents, prepare_sentences(sents, opts))
    _, prep = data.prepared[key]
    ctx_vec, ctx_text = data.contexts[i]
    pos = query_position(q, r)
    n = len(prep.indices)
    x = np.zeros((n, len(TERMS)))
    for name, (w,), values in term_values(data.query_vector(i, opts), q.text, prep, opts, ctx_vec, ctx_text):
        v = values if opts["norm"] == "none" else normalise(values, opts["norm"])
        x[:, TERMS.index(name)] = w * finish(v, prep, opts, pos)
    relevant = np.zeros(n, dtype=bool)
    relevant[[p for p, idx in enumerate(prep.indices) if int(idx) in q.relevant]] = True
    return x, relevant


def fit_weights(groups: Sequence[tuple[np.ndarray, np.ndarray, float]], loss: str = "logistic",
                l2: float = 1e-3, steps: int = 400) -> np.ndarray:
    """Non-negative term weights fitted to ``(features, relevant, query weight)`` groups, scaled to sum 1.

    ``logistic``: pointwise "sentence is evidence" (with an intercept); in each query the positives and
    the negatives each carry half its weight. ``softmax``: listwise, the log of the probability mass a
    softmax over the query's sentences puts on its evidence (what MRR rewards: the evidence above the
    other sentences of the same text, not above a threshold). Projected gradient descent (Adam)."""
    groups = [(x, rel, qw) for x, rel, qw in groups if rel.any() and not rel.all()]
    X = np.concatenate([x for x, _, _ in groups]).astype(np.float64)
    y = np.concatenate([rel for _, rel, _ in groups]).astype(np.float64)
    sizes = np.array([len(rel) for _, rel, _ in groups])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    qw = np.array([w for _, _, w in groups], dtype=np.float64)
    qw /= qw.sum()
    qid = np.repeat(np.arange(len(groups)), sizes)
    if loss == "logistic":
        npos = np.add.reduceat(y, starts)
        sw = np.where(y > 0, 0.5 * qw[qid] / npos[qid], 0.5 * qw[qid] / (sizes - npos)[qid])
    theta = np.zeros(X.shape[1] + 1)
    theta[:-1] = 1.0 / X.shape[1]
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for t in range(1, steps + 1):
        z = X @ theta[:-1] + theta[-1]
        g = np.zeros_like(theta)
        if loss == "logistic":
            p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
            g[:-1] = X.T @ (sw * (p - y))
            g[-1] = float(np.sum(sw * (p - y)))
        else:
            e = np.exp(z - np.maximum.reduceat(z, starts)[qid])
            total, mass = np.add.reduceat(e, starts), np.add.reduceat(e * y, starts)
            # d/dw of -(log mass - log total), per query, weighted
            r = qw[qid] * e * (1.0 / total[qid] - y / mass[qid])
            g[:-1] = X.T @ r
        g[:-1] += l2 * theta[:-1]
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        theta -= 0.05 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        theta[:-1] = np.maximum(theta[:-1], 0.0)
    w = theta[:-1]
    return w / w.sum() if w.sum() > 0 else np.full(len(w), 1.0 / len(w))


def learned_options(sets: Sequence[EvalSet], folds: list[np.ndarray], options: dict, loss: str = "logistic",
                    max_queries_per_kind: int = 400, seed: int = 0) -> Callable[[int], dict]:
    """``options_for(f)``: options whose term weights are fitted on every fold but f. Each kind of query
    (FaithBench spans, SummHay bullets) weighs the same in the fit. Only queries with a context (a
    selection in a sentence: the weights learned are those) are used, and a kind with more of them than
    ``max_queries_per_kind`` is subsampled once (a 4,000-sentence haystack per bullet is memory, not
    information)."""
    rng = np.random.default_rng(seed)
    by_kind: dict[str, list[tuple[int, int]]] = {}
    for s, data in enumerate(sets):
        for i, ((q, _), ctx) in enumerate(zip(data.queries, data.contexts)):
            if ctx[0] is not None:
                by_kind.setdefault(q.kind, []).append((s, i))
    sample: list[tuple[int, int]] = []
    for members in by_kind.values():
        if len(members) > max_queries_per_kind:
            members = [members[j] for j in sorted(rng.choice(len(members), max_queries_per_kind, replace=False))]
        sample += members
    feats = {}
    for s, i in sample:
        x, rel = query_features(sets[s], i, options)
        feats[(s, i)] = (x.astype(np.float32), rel)

    def options_for(f: int) -> dict:
        train = [(s, i) for s, i in sample if folds[s][i] != f]
        count: dict[str, int] = {}
        for s, i in train:
            count[sets[s].queries[i][0].kind] = count.get(sets[s].queries[i][0].kind, 0) + 1
        groups = [(*feats[(s, i)], 1.0 / count[sets[s].queries[i][0].kind]) for s, i in train]
        w = fit_weights(groups, loss)
        return {**options, **{f"w_{t}": round(float(x), 4) for t, x in zip(TERMS, w)}}

    return options_for


# ---------------------------------------------------------------- the grade calibration

# source sentence counts bounding the length bands of the grade calibration: a FaithBench article
# (median 7 sentences, at most 52), and beyond it the long sources (a SummHay haystack: 3,931)
BANDS = (10, 300, 1_000_000)


def band_of(n: int, bands: Sequence[int] = BANDS) -> int:
    """The band (position in ``bands``) of a source of ``n`` sentences: the first bound >= n, else the last."""
    return next((b for b, bound in enumerate(bands) if n <= bound), len(bands) - 1)


def lit_rows(rows: Sequence[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(query number, sentence count, features [score, score / best], evidence or not) of every top-k
    sentence of ``evaluate.query_rows``' rows (its ``lit``: what the page lights)."""
    q, n, x, y = [], [], [], []
    for j, row in enumerate(rows):
        best = row["top"]
        for score, _, _, hit in row["lit"]:
            q.append(j)
            n.append(row["n"])
            x.append((score, score / best if best > 0 else 0.0))
            y.append(hit)
    return np.array(q), np.array(n), np.array(x, dtype=np.float64).reshape(-1, 2), np.array(y, dtype=np.float64)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-4, steps: int = 50) -> np.ndarray:
    """[a_1 .. a_m, c] of P(y) = 1 / (1 + exp(-(x · a + c))) by Newton's method, L2 on the slopes."""
    X = np.hstack([x, np.ones((len(x), 1))])
    theta = np.zeros(X.shape[1])
    reg = np.full(X.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(X @ theta, -30, 30)))
        grad = X.T @ (p - y) / len(y) + reg * theta
        hess = (X * (p * (1 - p))[:, None]).T @ X / len(y) + np.diag(reg) + 1e-9 * np.eye(X.shape[1])
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return theta


def fit_calibration(n: np.ndarray, x: np.ndarray, y: np.ndarray, features: int = 2,
                    bands: Sequence[int] = BANDS) -> list[list]:
    """The ``calibration`` option: per band ``[bound, a, b, c]`` fitted on the rows of that band (``features``
    1: the score alone, b = 0); a band without rows of both kinds takes its neighbour's row."""
    table: list[list | None] = []
    for b, bound in enumerate(bands):
        keep = np.array([band_of(int(m), bands) == b for m in n], dtype=bool)
        if keep.sum() < 20 or y[keep].min() == y[keep].max():
            table.append(None)
            continue
        theta = fit_logistic(x[keep][:, :features], y[keep])
        slopes = list(theta[:-1]) + [0.0] * (2 - features)
        table.append([int(bound), *(round(float(v), 4) for v in slopes), round(float(theta[-1]), 4)])
    filled = [r for r in table if r is not None]
    if not filled:
        return []
    out = []
    for b, row in enumerate(table):
        near = row or min(((abs(j - b), r) for j, r in enumerate(table) if r is not None), key=lambda t: t[0])[1]
        out.append([int(bands[b]), *near[1:]])
    return out


def calibrated_out_of_fold(n: np.ndarray, x: np.ndarray, y: np.ndarray, fold: np.ndarray, k: int,
                           features: int = 2) -> np.ndarray:
    """The grade probability of every row from a calibration fitted without its fold."""
    from mercury_static.assist.rank import grade_probability

    p = np.zeros(len(y))
    for f in range(k):
        test = fold == f
        if not test.any():
            continue
        table = fit_calibration(n[~test], x[~test], y[~test], features)
        for i in np.flatnonzero(test):
            best = x[i, 0] / x[i, 1] if x[i, 1] > 0 else 0.0
            p[i] = grade_probability(x[i, 0], best, int(n[i]), {"calibration": table})
    return p
