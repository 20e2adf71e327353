"""``tune``: fit the ranker's weights to the pairs a team made in its own bundle, and say whether that helps.

Pairs: every merged annotation whose summary span is paired with a source span is one query (the span);
its gold is the source sentences overlapping the source span, as ``eval`` reads a Mercury dump, and the
same selection with the same evidence from two annotators is one pair. The queries are ranked as the page
ranks them: the bundle's own sentences and stored vectors, the span's vector as the ``selection`` option says
(its tokens in context, its text embedded with the bundle's model, or their mean), the context = the summary
sentence(s) the span overlaps.

Only the weights the current options use are fitted (fused-v5: span and context cosine, span and context
BM25, numbers), shrunk toward the current ones: a listwise softmax loss (the log of the softmax mass on
the gold sentences: what MRR rewards) plus ``strength * |w - w0|^2`` on the weights scaled to sum 1, the
strength picked from STRENGTHS by cross-validation inside the training pairs. The halves experiment in
benchmarks/RESULTS.md is why: fitted freely on a few hundred pairs, weights lost on the other half. The
confidence weights (c_*), min_score and grades are left alone, so the page's grades keep their meaning.

The gain is measured by k-fold cross-validation over records (crossval): the tuned options of fold f are
fitted without fold f, then both option sets rank fold f with the real ranker. Tuned options are
recommended only when the 95% interval of the paired per-fold MRR gain is above 0.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mercury_static.assist import ranker_options
from mercury_static.tune import crossval
from mercury_static.bundle.contents import Bundle, load_bundle, load_vectors, text_id
from mercury_static.tune.evaluate import EvalSet, IndexedText, Query, context_vector, overlapping, selection_vectors
from mercury_static.core.records import InputError, Record, Section

MIN_PAIRS = 20
STRENGTHS = (0.01, 0.1, 1.0, 10.0)
"""Shrinkage toward the current weights, weakest first (1.0 moves a weight by ~0.05 for a clear gain)."""
INNER_FOLDS = 3
FIT_CELLS = 1 << 13
"""Rows x fits of the arrays fit_toward steps through at once."""


@dataclass
class Pairs:
    """The bundle's pairs as an eval set, and what reading the annotations found wrong."""

    data: EvalSet
    records: int
    files: list[str]  # the annotation files, as given
    options: dict  # the bundle's current ranker options
    problems: list[InputError] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # annotations that are no pair: one line each, why


def _indexed(bundle: Bundle, stored, shards: dict[int, np.ndarray]) -> IndexedText:
    """A bundle text with the vectors the page decodes for it (its rows grouped by sentence)."""
    name = f"data/vectors-{stored.shard:04d}.bin"
    try:
        if stored.shard not in shards:
            shards[stored.shard] = load_vectors(bundle.dir, stored.shard, int(bundle.manifest["vectors"]["dim"]))
        rows = shards[stored.shard]
        per: list[list[np.ndarray]] = [[] for _ in stored.sentences]
        for j, (i, _, _) in enumerate(stored.rows):
            per[i].append(rows[stored.row0 + j])
    except (OSError, ValueError, IndexError) as e:
        raise InputError(bundle.dir, None, None, f"cannot read the bundle: {name}: {getattr(e, 'strerror', None) or e}"
                         ) from None
    dim = rows.shape[1]
    return IndexedText(stored.text, list(stored.sentences),
                       [np.array(v, np.float32).reshape(-1, dim) for v in per], [tuple(r) for r in stored.rows])


def load_pairs(paths: Sequence[Path], bundle_dir: Path) -> Pairs:
    """Merge the annotation files against the bundle (merge's checks and one-line problems) and turn every
    summary span paired with a source span into a gold query."""
    from mercury_static.assist.embed import Embedder
    from mercury_static.merge.pipeline import merge_files

    bundle = load_bundle(bundle_dir)
    merged = merge_files(paths, bundle)
    by_id = {r.id: r for r in bundle.records}
    queries: list[tuple[Query, Record]] = []
    seen: set[tuple] = set()
    skipped: list[str] = []
    for rec in merged.records:
        b = by_id[rec["id"]]
        record = Record(id=b.id, source=b.source, summary=b.summary,
                        source_sections=[Section(*s) for s in b.source_text.sections]
                        if b.source_text.sections else None)
        for a in rec["annotations"]:
            src, summ = a.get("source"), a["summary"]
            relevant = frozenset(overlapping(b.source_text.sentences, src["start"], src["end"])) if src else None
            key = (b.id, summ["start"], summ["end"], relevant)
            why = ("no source span (a span without evidence is no pair)" if src is None
                   else "the source span overlaps no sentence" if not relevant
                   else "the summary span is blank" if not summ["text"].strip()
                   else "the same pair as another annotation" if key in seen else None)
            if why or relevant is None:
                skipped.append(f"record {b.id}, annotation {a['id']}: {why}")
                continue
            seen.add(key)
            queries.append((Query("pairs · span", "span", b.id, summ["text"].strip(), relevant,
                                  (summ["start"], summ["end"])), record))
    shards: dict[int, np.ndarray] = {}
    index: dict[str, IndexedText] = {}
    for _, r in queries:
        b = by_id[r.id]
        for stored in (b.source_text, b.summary_text):
            if stored.id not in index:
                index[stored.id] = _indexed(bundle, stored, shards)
    model = bundle.manifest["model"]
    vectors = np.zeros((0, int(model["dim"])), np.float32)
    tokens = None
    if queries:
        try:
            embedder = Embedder(bundle.dir / model["path"], meta=model)
        except Exception as e:  # a missing or damaged model folder (onnxruntime and tokenizers raise their own)
            raise InputError(bundle.dir / model["path"], None, None,
                             f"cannot load the bundle's model ({type(e).__name__}: {str(e)[:120]})") from None
        vectors = embedder.embed([q.text for q, _ in queries])
        tokens = selection_vectors(queries, index, embedder, None)
    contexts = [context_vector(index[text_id(r.summary)], q.selection) if q.selection else (None, "")
                for q, r in queries]
    return Pairs(EvalSet(index, queries, vectors, contexts, token_vectors=tokens),
                 len({q.record_id for q, _ in queries}), [str(p) for p in paths], bundle.manifest["ranker"],
                 merged.problems, skipped)


# ---------------------------------------------------------------- the shrunk listwise fit

def free_terms(options: dict) -> list[str]:
    """The terms the options use (weight above 0): the only weights tune changes."""
    return [t for t in crossval.TERMS if options[f"w_{t}"] > 0]


def fit_toward(groups: Sequence[tuple[np.ndarray, np.ndarray]], prior: np.ndarray,
               fits: Sequence[tuple[np.ndarray | None, float]], steps: int = 300) -> np.ndarray:
    """One row of weights per fit ``(the groups it uses: a boolean mask, or None for all; strength)``: the
    non-negative weights minimising the mean over its queries of -log(softmax mass on the gold sentences of
    tau * x @ w) + strength * |w - prior|^2, with a free temperature tau (so the loss sees only the
    weights' proportions, and a term the pairs never exercise keeps its prior weight instead of drifting
    with the others' sum); ``prior`` sums to 1. Projected Adam from the prior, the fits side by side (a
    row of the arrays each): the fits of a cross-validation share every step's numpy calls."""
    prior = prior.astype(np.float64)
    out = np.tile(prior, (len(fits), 1))
    informative = np.array([rel.any() and not rel.all() for _, rel in groups], dtype=bool)
    used = np.array([informative if mask is None else informative & mask for mask, _ in fits], dtype=bool)
    live = [f for f in range(len(fits)) if used[f].any()]
    # as many fits side by side as keep the arrays small: many on a few pairs, where numpy's per-call cost
    # is the time, one at a time on many, where the work is (a fit computes only the rows of its chunk)
    width = max(1, FIT_CELLS // max(1, sum(len(groups[i][1]) for i in np.flatnonzero(informative).tolist())))
    for at in range(0, len(live), width):
        cols = live[at:at + width]
        rows = np.flatnonzero(used[cols].any(axis=0)).tolist()
        X = np.concatenate([groups[i][0] for i in rows]).astype(np.float64)
        y = np.concatenate([groups[i][1] for i in rows]).astype(np.float64)
        sizes = np.array([len(groups[i][1]) for i in rows])
        share = used[cols][:, rows] / used[cols][:, rows].sum(axis=1, keepdims=True)  # 1 / queries of the fit, or 0
        strength = np.array([fits[c][1] for c in cols])
        w = _adam(X, y, sizes, share, strength, prior, steps)
        for c, weights in zip(cols, w):
            if weights.sum() > 0:
                out[c] = weights
    return out


def _adam(X, y, sizes, share, strength, prior, steps) -> np.ndarray:
    """fit_toward's projected Adam on a chunk of fits (a row each, as ``share``, fits x queries): weights
    (fits x terms)."""
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    theta = np.hstack([np.tile(prior, (len(share), 1)), np.full((len(share), 1), np.log(10.0))])  # weights, log tau
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    idle = share == 0  # a query the fit does not use: its gold mass may be 0 there, so 1 is added
    spread = np.repeat(share, sizes, axis=1) if idle.any() else share[:, :1]
    strength = strength[:, None]
    for t in range(1, steps + 1):
        w, tau = theta[:, :-1], np.exp(theta[:, -1:])
        z = tau * (w @ X.T)
        e = np.exp(z - np.repeat(np.maximum.reduceat(z, starts, axis=1), sizes, axis=1))
        total, mass = np.add.reduceat(e, starts, axis=1), np.add.reduceat(e * y, starts, axis=1)
        mass += idle
        r = (e / np.repeat(total, sizes, axis=1) - y * e / np.repeat(mass, sizes, axis=1)) * spread  # d loss / d z
        grad = r @ X  # d loss / d (tau * w); the log temperature's is then tau * grad . w
        g = np.hstack([tau * grad + 2.0 * strength * (w - prior), tau * (grad * w).sum(axis=1, keepdims=True)])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        theta -= 0.05 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        theta[:, :-1] = np.maximum(theta[:, :-1], 0.0)
    return theta[:, :-1]


def _mrr(groups, w: np.ndarray) -> float:
    """MRR of ranking each group's sentences by x @ w (ties: the earlier sentence first, as rank.py)."""
    out = []
    for x, rel in groups:
        order = np.lexsort((np.arange(len(rel)), -(x @ w)))
        hits = np.flatnonzero(rel[order])
        out.append(1.0 / (hits[0] + 1) if len(hits) else 0.0)
    return float(np.mean(out)) if out else 0.0


def choose_strengths(groups, records: Sequence[str], prior: np.ndarray, subsets: Sequence[np.ndarray],
                     strengths: Sequence[float] = STRENGTHS, seed: int = 0) -> list[float]:
    """For each subset of the groups (a boolean mask): the ``strengths`` value with the best inner
    cross-validated MRR on it (folds over its records; a tie goes to the stronger shrinkage). Every inner fit
    of every subset is one fit_toward call."""
    order = sorted(strengths, reverse=True)
    fits: list[tuple[np.ndarray, float]] = []
    plans: list[tuple[np.ndarray, int, int] | None] = []  # (fold of each group, k, first fit) per subset
    for keep in subsets:
        idx = np.flatnonzero(keep).tolist()
        k = min(INNER_FOLDS, len({records[j] for j in idx}))
        if k < 2 or len(strengths) == 1:
            plans.append(None)
            continue
        fold_of = crossval.assign_folds([(records[j], 0) for j in idx], k, seed)
        folds = np.full(len(groups), -1)
        folds[idx] = [fold_of[records[j]] for j in idx]
        plans.append((folds, k, len(fits)))
        fits += [(keep & (folds != i), strength) for strength in order for i in range(k)]
    weights = fit_toward(groups, prior, fits)
    chosen = []
    for plan in plans:
        best = max(strengths)
        if plan is not None:
            folds, k, at = plan
            best_mrr = -1.0
            for n, strength in enumerate(order):
                mrr = np.mean([_mrr([g for g, f in zip(groups, folds) if f == i], weights[at + n * k + i])
                               for i in range(k)])
                if mrr > best_mrr + 1e-9:
                    best, best_mrr = strength, mrr
        chosen.append(best)
    return chosen


@dataclass
class Fitter:
    """The features of every pair with a context (what the fitted weights rank exactly as the options
    would: crossval.query_features), and the fit of the weights on any subset of the pairs."""

    data: EvalSet
    current: dict
    strengths: Sequence[float] = STRENGTHS
    terms: list[str] = field(init=False)
    prior: np.ndarray = field(init=False)
    rows: list[int] = field(init=False)
    groups: list[tuple[np.ndarray, np.ndarray]] = field(init=False)

    def __post_init__(self):
        self.terms = free_terms(self.current)
        w0 = np.array([self.current[f"w_{t}"] for t in self.terms])
        self.prior = w0 / w0.sum()
        cols = [crossval.TERMS.index(t) for t in self.terms]
        self.rows = [i for i, ctx in enumerate(self.data.contexts) if ctx[0] is not None]
        self.groups = []
        for i in self.rows:
            x, rel = crossval.query_features(self.data, i, self.current)
            self.groups.append((x[:, cols], rel))

    def options(self, keep: np.ndarray | None = None) -> tuple[dict, float]:
        """(options with the weights fitted on the pairs where ``keep`` is true, the strength chosen)."""
        return self.options_each([keep])[0]

    def options_each(self, keeps: Sequence[np.ndarray | None]) -> list[tuple[dict, float]]:
        """options() of each ``keep``, their fits side by side (the strengths' inner fits, then the final ones)."""
        subsets = [np.array([keep is None or bool(keep[i]) for i in self.rows], dtype=bool) for keep in keeps]
        records = [self.data.queries[i][0].record_id for i in self.rows]
        strengths = choose_strengths(self.groups, records, self.prior, subsets, self.strengths)
        weights = fit_toward(self.groups, self.prior, list(zip(subsets, strengths)))
        scale = sum(self.current[f"w_{t}"] for t in self.terms)
        out = []
        for w, strength in zip(weights, strengths):
            tuned = {**self.current, **{f"w_{t}": round(float(x) * scale, 4) for t, x in zip(self.terms, w)}}
            out.append((ranker_options.validate(tuned, "tuned options"), strength))
        return out


@dataclass
class TuneResult:
    """Held-out figures of the current and the tuned options, and the options fitted on every pair."""

    pairs: int
    records: int
    folds: int
    files: list[str]
    current: dict
    tuned: dict
    strength: float
    scores: dict[str, dict[str, crossval.Interval]]  # "mrr" / "r1" -> "current" / "tuned" / "gain"

    @property
    def recommended(self) -> bool:
        return self.scores["mrr"]["gain"].low > 0

    def weights(self) -> list[tuple[str, float, float]]:
        """(option, current, tuned) of each fitted weight."""
        return [(f"w_{t}", self.current[f"w_{t}"], self.tuned[f"w_{t}"]) for t in free_terms(self.current)]

    def provenance(self, today: datetime.date | None = None) -> dict:
        """The manifest's ``ranker_tuned`` of these options."""
        today = today or datetime.datetime.now(datetime.timezone.utc).date()
        return {"pairs": self.pairs, "records": self.records, "date": today.isoformat(),
                "from": [Path(f).name for f in self.files]}

    def to_dict(self) -> dict:
        return {"pairs": self.pairs, "records": self.records, "folds": self.folds, "files": self.files,
                "recommended": self.recommended, "strength": self.strength,
                "held_out": {metric: {k: vars(v) for k, v in by.items()} for metric, by in self.scores.items()},
                "weights": [{"option": o, "current": c, "tuned": t} for o, c, t in self.weights()],
                "current": self.current, "tuned": self.tuned}


def check_pairs(pairs: Pairs, command: str) -> str:
    """Refuse too few pairs before any work is announced, naming every input the count was made over (the
    total spans them all); returns that name for the command's other refusals."""
    where = ", ".join(map(str, pairs.files)) or command
    if len(pairs.data.queries) < MIN_PAIRS:
        raise InputError(where, None, None, f"{len(pairs.data.queries)} pairs (a summary span paired with a source "
                         f"span) in {len(pairs.files)} file(s); {command} needs at least {MIN_PAIRS}")
    return where


def tune(pairs: Pairs, folds: int = 10, seed: int = 0) -> TuneResult:
    """Cross-validate tuned against the bundle's options on the pairs, then fit the tuned options on them all."""
    data = pairs.data
    where = check_pairs(pairs, "tune")
    if pairs.records < 2:
        raise InputError(where, None, None, "every pair is on one record; cross-validation over records needs "
                         "pairs on 2 or more")
    current = ranker_options.validate(pairs.options, "the bundle's ranker options")
    if not free_terms(current):
        raise InputError(where, None, None, "the bundle's ranker options use no term weight to tune")
    k = min(folds, pairs.records)
    fold = crossval.eval_folds([data], k, seed)[0]
    fitter = Fitter(data, current)
    *held_out, (tuned, strength) = fitter.options_each([fold != f for f in range(k)] + [None])
    per_fold = {f: options for f, (options, _) in enumerate(held_out)}
    base = crossval.cross_validate("current", [data], [fold], k, current)
    fitted = crossval.cross_validate("tuned", [data], [fold], k, per_fold.__getitem__)
    scores = {metric: {"current": base.summary("span", metric), "tuned": fitted.summary("span", metric),
                       "gain": fitted.versus(base, "span", metric)} for metric in ("rr", "r1")}
    return TuneResult(len(data.queries), pairs.records, k, pairs.files, current, tuned, strength,
                      {"mrr": scores["rr"], "r1": scores["r1"]})
