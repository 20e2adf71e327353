"""Agreement on the record-level questions, and of each suggestion agent with the annotators (docs/merge.md,
"Agreement").

Krippendorff's alpha with the distance that fits each question type: nominal for `label`, ordinal and
interval for `rating` (a Likert scale is ordinal; interval is reported beside it because it is the figure most
papers give), MASI (Passonneau 2006) for `multi_label`, the normalised Kendall tau distance (share of option
pairs ordered differently) for `ranking`; `text` answers are counted only. The units are the merged records;
the values are the answers of the annotators who *submitted* the record (a draft or a discarded record is not
a judgement).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from itertools import combinations
from typing import Any, cast

import numpy as np

from mercury_static.merge import bootstrap
from mercury_static.settings.model import Question

METRICS = {"label": ("nominal",), "rating": ("ordinal", "interval"), "multi_label": ("masi",),
           "ranking": ("kendall_tau",), "text": ()}
"""The alpha metrics reported per question type; the first one also scores the agents."""


def masi_distance(a: frozenset, b: frozenset) -> float:
    """1 - Jaccard · monotonicity, monotonicity 1 (equal), 2/3 (one contains the other), 1/3 (they overlap),
    0 (disjoint): Passonneau (2006), "Measuring agreement on set-valued items (MASI)"."""
    if a == b:
        return 0.0
    common = len(a & b)
    if not common:
        return 1.0
    monotonicity = 2 / 3 if a <= b or b <= a else 1 / 3
    return 1.0 - common / len(a | b) * monotonicity


def kendall_tau_distance(a: tuple, b: tuple) -> float:
    """Share of option pairs that the two rankings order differently (0 equal, 1 reversed)."""
    position = {x: i for i, x in enumerate(b)}
    pairs = list(combinations(a, 2))
    return sum(position[x] > position[y] for x, y in pairs) / len(pairs) if pairs else 0.0


def _coincidences(units: Sequence[Sequence[Hashable]]) -> dict[tuple, float]:
    """o_ck = Σ_u (ordered pairs of values (c, k) in unit u) / (m_u - 1), over units with 2+ values."""
    out: defaultdict[tuple, float] = defaultdict(float)
    for values in units:
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        for c, nc in counts.items():
            for k, nk in counts.items():
                pairs = nc * (nc - 1) if c == k else nc * nk
                if pairs:
                    out[c, k] += pairs / (m - 1)
    return out


def alpha(units: Sequence[Sequence[Hashable]], metric: str) -> float | None:
    """Krippendorff's alpha = 1 - (n-1) Σ o_ck δ_ck / Σ n_c n_k δ_ck (Krippendorff 2011, "Computing
    Krippendorff's alpha-reliability"): units are the values given to each item; None when undefined
    (nothing pairable, or no expected disagreement). Metrics: nominal, interval, ordinal (values must
    sort), masi (frozensets), kendall_tau (tuples)."""
    o = _coincidences(units)
    n_c: defaultdict[Hashable, float] = defaultdict(float)
    for (c, _), v in o.items():
        n_c[c] += v
    n = sum(n_c.values())
    if n <= 1:
        return None
    delta = _distance(metric, n_c)
    values = list(n_c)
    observed = sum(v * delta(c, k) for (c, k), v in o.items() if c != k)
    expected = sum(n_c[c] * n_c[k] * delta(c, k) for c in values for k in values if c != k)
    if expected == 0:
        return None
    return 1.0 - (n - 1) * observed / expected


def _distance(metric: str, n_c: dict) -> Callable[[Any, Any], float]:  # values: numbers, sets or tuples
    if metric == "nominal":
        return lambda c, k: float(c != k)
    if metric == "interval":
        return lambda c, k: float((c - k) ** 2)
    if metric == "ordinal":  # δ_ck = (Σ_{g from c to k} n_g - (n_c + n_k) / 2)²
        ranks = sorted(n_c)
        cumulative, total = {}, 0.0
        for g in ranks:
            total += n_c[g]
            cumulative[g] = total

        def ordinal(c, k):
            lo, hi = min(c, k), max(c, k)
            between = cumulative[hi] - cumulative[lo] + n_c[lo]
            return (between - (n_c[c] + n_c[k]) / 2) ** 2
        return ordinal
    if metric == "masi":
        return masi_distance
    if metric == "kendall_tau":
        return kendall_tau_distance
    raise ValueError(f"unknown metric {metric!r}")


def alpha_figure(units: Sequence[Sequence[Hashable]], metric: str) -> bootstrap.Figure:
    """Alpha of `units` (one per record, in record order) as a bootstrap figure: per pairable record its
    observed disagreement and value counts, or for the ordinal metric (whose distances follow the counts) its
    whole coincidence matrix."""
    rows = [i for i, u in enumerate(units) if len(u) >= 2]
    found: dict[Any, None] = dict.fromkeys(v for i in rows for v in units[i])
    values = sorted(found) if metric == "ordinal" else list(found)
    index = {v: i for i, v in enumerate(values)}
    counts = np.zeros((len(rows), len(values)))
    for r, i in enumerate(rows):
        for v in units[i]:
            counts[r, index[v]] += 1
    m = counts.sum(axis=1, keepdims=True)
    if metric == "ordinal":
        cells = counts[:, :, None] * counts[:, None, :]
        cells[:, np.arange(len(values)), np.arange(len(values))] -= counts  # a value is not paired with itself
        return bootstrap.figure(rows, cells / (m - 1)[:, :, None],
                                lambda sums: _ordinal_alpha(sums.reshape(len(sums), len(values), len(values))))
    distance = _distance(metric, {})
    delta = np.array([[distance(c, k) for k in values] for c in values]).reshape(len(values), len(values))
    observed = np.einsum("uc,ck,uk->u", counts, delta, counts) / (m[:, 0] - 1)
    return bootstrap.figure(rows, np.column_stack([observed, counts]),
                            lambda sums: bootstrap.alpha(sums[:, 0], sums[:, 1:], delta))


def _ordinal_alpha(o: np.ndarray) -> np.ndarray:
    """Ordinal alpha per resample from its coincidences (resamples × values × values, values ascending)."""
    counts = o.sum(axis=2)
    cumulative = np.cumsum(counts, axis=1)
    v = np.arange(counts.shape[1])
    lo, hi = np.minimum.outer(v, v), np.maximum.outer(v, v)
    between = cumulative[:, hi] - cumulative[:, lo] + counts[:, lo]
    delta = (between - (counts[:, :, None] + counts[:, None, :]) / 2) ** 2
    return bootstrap.alpha(np.einsum("bck,bck->b", o, delta), counts, delta)


def _hashable(q: Question, value) -> Hashable:
    if q.type == "span":  # a span suggestion: [{label, summary: [start, end], source}]
        return _covered(tuple(v["summary"]) for v in value)
    if q.type == "multi_label":
        return frozenset(value)
    if q.type == "ranking":
        return tuple(value)
    return value


def _answers(record: dict, q: Question) -> list[tuple[dict, Hashable]]:
    """(response, answer) of the annotators who submitted the record and answered `q`; the span question's
    answer is the set of summary characters the annotator's spans cover (none: "consistent")."""
    submitted = [r for r in record.get("responses", []) if r["status"] == "submitted"]
    if q.type == "span":
        return [(r, _covered((a["summary"]["start"], a["summary"]["end"]) for a in record["annotations"]
                             if a["annotator"] == r["annotator"])) for r in submitted]
    return [(r, _hashable(q, r["values"][q.name])) for r in submitted if q.name in r.get("values", {})]


def _covered(spans) -> frozenset:
    return frozenset(i for start, end in spans for i in range(start, end))


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def question_agreement(records: Sequence[dict], questions: Sequence[Question]) -> list[dict]:
    """Per record-level question: answers, records answered by 2+ annotators, alpha per metric and its
    bootstrap interval (bootstrap.py: the records resampled as for the span figures)."""
    out: list[dict[str, Any]] = []
    figures = []
    for q in questions:
        if q.type == "span":  # today's span figures (agreement.py)
            continue
        units = [[a for _, a in _answers(r, q)] for r in records]
        out.append({"question": q.name, "type": q.type, "answers": sum(map(len, units)),
                    "records": sum(len(u) >= 2 for u in units),
                    "alpha": {m: _round(alpha(units, m)) for m in METRICS[q.type]}})
        figures += [alpha_figure(units, m) for m in METRICS[q.type]]
    found = iter(bootstrap.intervals(len(records), figures))
    for row in out:
        row["alpha_ci"] = {m: ci if a is not None else None for (m, a), ci in zip(row["alpha"].items(), found)}
    return out


def majority(answers: Sequence[Hashable]) -> Hashable | None:
    """The single most frequent answer, None on a tie or when there is none."""
    top = Counter(answers).most_common(2)
    if not top or len(top) == 2 and top[0][1] == top[1][1]:
        return None
    return top[0][0]


def roc_auc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """Probability that a positive outranks a negative (ties count half); None without both classes.
    Computed from ranks (Mann-Whitney U, tied scores sharing their mean rank): O(n log n), not the pairwise
    loop, so 10,000s of records take milliseconds."""
    pairs = sorted(zip(scores, positive), key=lambda x: x[0])
    n_pos = sum(1 for _, p in pairs if p)
    n_neg = len(pairs) - n_pos
    if not n_pos or not n_neg:
        return None
    rank_sum, i = 0.0, 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        mean_rank = (i + 1 + j) / 2  # ranks i+1 … j
        rank_sum += mean_rank * sum(1 for _, p in pairs[i:j] if p)
        i = j
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


SPLITS = ("all", "blind", "shown")
"""`blind`: answers given with the suggestions hidden (`suggestions.shown` false), `shown`: visible."""


def agent_agreement(records: Sequence[dict], questions: Sequence[Question]) -> list[dict]:
    """Per (question, agent, split): how often the annotators' answers equal the agent's suggestion, its
    accuracy against the majority answer of each record, alpha with the agent as one more coder, the ROC AUC
    of its score (Argilla's meaning: its confidence in the suggested value) for "the majority chose the
    suggested value", and how often a shown suggestion was accepted. A span suggestion is scored by the pooled
    character-overlap F1 of its summary spans with each annotator's (`agree`; docs/merge.md's char F1)."""
    by_name = {q.name: q for q in questions if q.type != "text"}
    groups: defaultdict[tuple[str, str, str], list[tuple[Hashable, float | None, list]]] = defaultdict(list)
    for record in records:
        for s in record.get("suggestions", []):
            q = by_name.get(s.get("question"))
            if q is None:
                continue
            answers = _answers(record, q)
            for split in SPLITS:
                chosen = [(r, a) for r, a in answers if split == "all"
                          or r.get("suggestions") is not None and r["suggestions"]["shown"] == (split == "shown")]
                if chosen:
                    groups[q.name, s["agent"], split].append((_hashable(q, s["value"]), s.get("score"), chosen))
    out = []
    for (name, agent, split), items in sorted(groups.items(), key=lambda g: (g[0][0], g[0][1],
                                                                          SPLITS.index(g[0][2]))):
        q = by_name[name]
        answers = [(r, a, value) for value, _, chosen in items for r, a in chosen]
        majorities = [(value, score, majority([a for _, a in chosen])) for value, score, chosen in items]
        decided = [(value, score, m) for value, score, m in majorities if m is not None]
        scored = [(score, m == value) for value, score, m in decided if isinstance(score, (int, float))]
        shown = [r for r, _, _ in answers if r.get("suggestions") and r["suggestions"]["shown"]]
        if q.type == "span":
            spans = [(cast(frozenset, a), cast(frozenset, v)) for _, a, v in answers]  # _covered's characters
            common, total = sum(len(a & v) for a, v in spans), sum(len(a) + len(v) for a, v in spans)
            out.append({"question": name, "agent": agent, "split": split, "records": len(items),
                        "answers": len(answers), "agree": _round(2 * common / total) if total else None,
                        "majority_records": 0, "accuracy": None, "alpha": None, "auc": None,
                        "accepted": _accepted(shown, name, agent)})
            continue
        out.append({
            "question": name, "agent": agent, "split": split, "records": len(items), "answers": len(answers),
            "agree": _round(sum(a == value for _, a, value in answers) / len(answers)),
            "majority_records": len(decided),
            "accuracy": _round(sum(m == value for value, _, m in decided) / len(decided)) if decided else None,
            "alpha": _round(alpha([[value, *(a for _, a in chosen)] for value, _, chosen in items],
                                  METRICS[q.type][0])),
            "auc": _round(roc_auc([s for s, _ in scored], [p for _, p in scored])),
            "accepted": _accepted(shown, name, agent),
        })
    return out


def _accepted(shown: list[dict], question: str, agent: str) -> float | None:
    """Share of the answers given with suggestions shown that accepted this agent's suggestion."""
    return _round(sum(r["suggestions"]["accepted"].get(question) == agent for r in shown) / len(shown)) if shown \
        else None
