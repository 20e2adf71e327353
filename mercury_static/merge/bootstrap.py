"""95% confidence intervals of the agreement figures: a percentile bootstrap over the round's records
(docs/merge.md, "Agreement", confidence intervals).

Every figure is a function of sums over records (coincidences, contingency counts, overlapping characters),
so a resample is a vector of record weights (how often each record was drawn) and all resamples' sums are one
matrix product with the records' contributions. The draws are seeded and the same for every figure of a
report: the same exports give the same intervals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

RESAMPLES = 1000
SEED = 0
LEVEL = 0.95
CHUNK = 2_000_000
"""Record weights held at once (resamples × records) as float64: a bounded block whatever the round's size."""
METHOD = {"resamples": RESAMPLES, "seed": SEED, "level": LEVEL, "interval": "percentile", "over": "records"}
"""How the intervals were drawn, as the JSON report states it."""

Statistic = Callable[[np.ndarray], np.ndarray]


@dataclass
class Figure:
    """One figure to bootstrap: the positions of the records it reads, their contributions (one row per
    record, one column per sum) and the figure from the column sums (resamples × columns -> resamples; NaN
    where the figure is undefined)."""

    rows: np.ndarray
    columns: np.ndarray
    statistic: Statistic


def figure(rows: Sequence[int] | np.ndarray, columns: Sequence[Sequence[float]] | np.ndarray,
           statistic: Statistic) -> Figure:
    """A Figure from lists or arrays (no records: an empty one, never read)."""
    values = np.asarray(columns, dtype=np.float64).reshape(len(rows), -1) if len(rows) else np.zeros((0, 0))
    return Figure(np.asarray(rows, dtype=np.int64), values, statistic)


def intervals(n_records: int, figures: Sequence[Figure], resamples: int = RESAMPLES,
              seed: int = SEED) -> list[list[float] | None]:
    """Each figure's [low, high] over `resamples` draws of `n_records` records with replacement (None when
    it is undefined in every resample): the 2.5th and 97.5th percentiles, undefined resamples left out.

    A figure that reads a quarter of the records or more shares one records × columns matrix with the others
    (one matrix product a chunk); a sparser one (a pair of annotators among many) reads its records' weights
    alone."""
    if not figures:
        return []
    place: dict[int, slice] = {}  # figure index -> its columns in `shared`
    width = 0
    for i, f in enumerate(figures):
        if len(f.rows) and 4 * len(f.rows) >= n_records:
            place[i] = slice(width, width + f.columns.shape[1])
            width += f.columns.shape[1]
    shared = np.zeros((n_records, width))
    for i, columns in place.items():
        np.add.at(shared, (figures[i].rows[:, None], np.arange(width)[columns][None, :]), figures[i].columns)
    values = np.full((len(figures), resamples), np.nan)
    rng = np.random.default_rng(seed)
    step = max(1, CHUNK // max(n_records, 1))
    for first in range(0, resamples, step):
        k = min(step, resamples - first)
        drawn = rng.integers(0, n_records, (k, n_records)) + (np.arange(k) * n_records)[:, None]
        weights = np.bincount(drawn.ravel(), minlength=k * n_records).reshape(k, n_records).astype(np.float64)
        sums = weights @ shared
        for i, f in enumerate(figures):
            if not len(f.rows):
                continue
            these = sums[:, place[i]] if i in place else weights[:, f.rows] @ f.columns
            with np.errstate(divide="ignore", invalid="ignore"):
                values[i, first:first + k] = f.statistic(these)
    tail = 100 * (1 - LEVEL) / 2
    out: list[list[float] | None] = []
    for v in values:
        v = v[np.isfinite(v)]
        out.append([round(float(x), 4) for x in np.percentile(v, [tail, 100 - tail])] if len(v) else None)
    return out


def f1(sums: np.ndarray) -> np.ndarray:
    """Columns (common, |A| + |B|) -> 2·common / (|A| + |B|)."""
    return np.where(sums[:, 1] > 0, 2 * sums[:, 0] / sums[:, 1], np.nan)


def kappa(sums: np.ndarray) -> np.ndarray:
    """Columns (records, both positive, A positive, B positive) of a pair -> Cohen's kappa of the 2×2 table."""
    n, both, a, b = sums.T
    observed = (n - a - b + 2 * both) / n
    expected = ((n - a) * (n - b) + a * b) / (n * n)
    return np.where((n > 0) & (expected < 1), (observed - expected) / (1 - expected), np.nan)


def alpha(observed: np.ndarray, counts: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha per resample from its observed disagreement Σ o_ck δ_ck, its value counts n_c
    (resamples × values) and the distances (values × values, or resamples × values × values)."""
    n = counts.sum(axis=1)
    if delta.ndim == 2:
        expected = np.einsum("bc,bc->b", counts @ delta, counts)
    else:
        expected = np.einsum("bc,bck,bk->b", counts, delta, counts)
    return np.where((n > 1) & (expected > 0), 1 - (n - 1) * observed / expected, np.nan)


def kappa_table(sums: np.ndarray) -> np.ndarray:
    """Columns (a k×k contingency table, row-major: rater A's category × rater B's) -> Cohen's kappa,
    (p_o - p_e) / (1 - p_e) with p_o = trace / n, p_e = Σ_c row_c · column_c / n²."""
    k = int(round(np.sqrt(sums.shape[1])))
    table = sums.reshape(len(sums), k, k)
    n = table.sum(axis=(1, 2))
    observed = np.trace(table, axis1=1, axis2=2) / n
    expected = np.einsum("bc,bc->b", table.sum(axis=2), table.sum(axis=1)) / (n * n)
    return np.where((n > 0) & (expected < 1), (observed - expected) / (1 - expected), np.nan)


def mean(sums: np.ndarray) -> np.ndarray:
    """Columns (sum, count) -> sum / count."""
    return np.where(sums[:, 1] > 0, sums[:, 0] / sums[:, 1], np.nan)
