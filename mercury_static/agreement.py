"""Inter-annotator agreement on a merged dataset (definitions: docs/merge.md).

Works on merged records (the default `merge` output shape). The *judges* of a record are the annotators
who submitted it (a `responses` entry with status `submitted`), plus annotators that have annotations on it
but no response at all (Mercury dumps record no responses: having annotated is their only trace).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from itertools import combinations

Interval = tuple[int, int]


def covered(spans: Sequence[Interval]) -> list[Interval]:
    """Union of half-open character intervals, sorted and disjoint."""
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e) for s, e in out]


def covered_length(intervals: Sequence[Interval]) -> int:
    return sum(e - s for s, e in intervals)


def overlap_length(a: Sequence[Interval], b: Sequence[Interval]) -> int:
    """Characters covered by both unions (two disjoint sorted interval lists)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def f1(common: int, total: int) -> float | None:
    """Dice / F1 = 2·|A∩B| / (|A| + |B|), given total = |A| + |B|; None when both are empty."""
    return 2 * common / total if total else None


def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's kappa of two raters over items rated by both; None when undefined (no items, p_e = 1)."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(1 for a, b in pairs if a == b) / n
    count_a, count_b = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(count_a[c] * count_b[c] for c in count_a) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def krippendorff_alpha_nominal(units: Sequence[Sequence[Hashable]]) -> float | None:
    """Krippendorff's alpha, nominal metric: units are the values given to each item (missing = absent).

    Items with fewer than two values are not pairable and are ignored. alpha = 1 - (n-1)·D_o / D_e with
    the coincidence matrix o_ck = Σ_u (number of ordered pairs (c,k) in u) / (m_u - 1), n_c = Σ_k o_ck,
    D_o = Σ_{c≠k} o_ck, D_e = Σ_{c≠k} n_c·n_k. None when undefined (no pairable values, a single value).
    """
    coincidence: defaultdict[tuple, float] = defaultdict(float)
    for values in units:
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        for c, nc in counts.items():
            for k, nk in counts.items():
                pairs = nc * (nc - 1) if c == k else nc * nk
                if pairs:
                    coincidence[c, k] += pairs / (m - 1)
    totals: defaultdict[Hashable, float] = defaultdict(float)
    for (c, _), value in coincidence.items():
        totals[c] += value
    n = sum(totals.values())
    disagree_observed = sum(v for (c, k), v in coincidence.items() if c != k)
    disagree_expected = sum(totals[c] * totals[k] for c in totals for k in totals if c != k)
    if n <= 1 or disagree_expected == 0:
        return None
    return 1.0 - (n - 1) * disagree_observed / disagree_expected


def judges(record: dict) -> list[str]:
    """Annotators whose verdict on the record counts (see the module docstring), sorted."""
    responded = {r["annotator"] for r in record.get("responses", [])}
    submitted = {r["annotator"] for r in record.get("responses", []) if r["status"] == "submitted"}
    dump_only = {a["annotator"] for a in record["annotations"] if a["annotator"] not in responded}
    return sorted(submitted | dump_only)


def is_positive(label: list[str], positive: str | None) -> bool:
    """Whether an annotation's label list marks the positive verdict (any label when positive is None)."""
    if positive is None:
        return True
    return any(x == positive or x.startswith(positive + ".") for x in label)


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def agreement_report(records: Sequence[dict], labels: Sequence[str], positive: str | None = "Unwanted",
                     top: int = 20) -> dict:
    """Counts and agreement figures of merged records (JSON-ready; figures rounded to 4 decimals)."""
    if positive is not None and positive not in labels:
        positive = None
    per_annotator: dict[str, Counter] = defaultdict(Counter)
    per_label: Counter = Counter()
    pair_stats: dict[tuple[str, str], list] = {}
    overall = [0, 0, 0, 0, 0]  # char overlap, char |A|+|B|, exact common, exact |A|+|B|, records
    units: list[list[int]] = []
    candidates: list[dict] = []
    annotated = judged = judged_2 = 0

    for index, record in enumerate(records):
        anns = record["annotations"]
        annotated += bool(anns)
        for a in anns:
            per_annotator[a["annotator"]]["annotations"] += 1
            per_label.update(set(a["label"]))
        for a in {a["annotator"] for a in anns}:
            per_annotator[a]["records_annotated"] += 1
        for r in record.get("responses", []):
            per_annotator[r["annotator"]][r["status"]] += 1
        who = judges(record)
        judged += bool(who)
        for a in who:
            per_annotator[a]["judged"] += 1
        if len(who) < 2:
            continue
        judged_2 += 1
        spans: dict[str, list[Interval]] = {a: [] for a in who}
        verdict = dict.fromkeys(who, 0)
        for a in anns:
            if a["annotator"] in spans:
                spans[a["annotator"]].append((a["summary"]["start"], a["summary"]["end"]))
                if is_positive(a["label"], positive):
                    verdict[a["annotator"]] = 1
        union = {a: covered(s) for a, s in spans.items()}
        length = {a: covered_length(u) for a, u in union.items()}
        exact = {a: set(s) for a, s in spans.items()}
        units.append([verdict[a] for a in who])
        record_f1s, differing = [], 0
        for a, b in combinations(who, 2):
            ov = overlap_length(union[a], union[b])
            ex = len(exact[a] & exact[b])
            stats = pair_stats.setdefault((a, b), [0, 0, 0, 0, []])
            stats[0] += ov
            stats[1] += length[a] + length[b]
            stats[2] += ex
            stats[3] += len(exact[a]) + len(exact[b])
            stats[4].append((verdict[a], verdict[b]))
            overall[0] += ov
            overall[1] += length[a] + length[b]
            overall[2] += ex
            overall[3] += len(exact[a]) + len(exact[b])
            pair_f1 = f1(ov, length[a] + length[b])
            record_f1s.append(1.0 if pair_f1 is None else pair_f1)
            differing += verdict[a] != verdict[b]
        n_pairs = len(record_f1s)
        mean_f1 = sum(record_f1s) / n_pairs
        if differing or mean_f1 < 1.0:
            candidates.append({"record_id": record["id"], "annotators": who, "verdicts": verdict,
                               "spans": {a: len(exact[a]) for a in who},
                               "verdict_disagreement": _round(differing / n_pairs),
                               "char_f1_mean": _round(mean_f1), "_order": index})

    pairwise = []
    for (a, b), (ov, char_total, ex, exact_total, verdicts) in sorted(pair_stats.items()):
        pairwise.append({
            "a": a, "b": b, "records": len(verdicts),
            "char_f1": _round(f1(ov, char_total)), "exact_f1": _round(f1(ex, exact_total)),
            "observed_agreement": _round(sum(x == y for x, y in verdicts) / len(verdicts)),
            "kappa": _round(cohen_kappa(verdicts)),
        })
    candidates.sort(key=lambda c: (-c["verdict_disagreement"], c["char_f1_mean"], c["_order"]))
    for c in candidates:
        del c["_order"]
    return {
        "records": {"total": len(records), "annotated": annotated, "judged": judged,
                    "judged_by_2_or_more": judged_2},
        "verdict": f"has an annotation labelled {positive}" if positive else "has an annotation",
        "annotators": [{"annotator": a, "annotations": c["annotations"],
                        "records_annotated": c["records_annotated"], "judged": c["judged"],
                        "submitted": c["submitted"], "discarded": c["discarded"],
                        "in_progress": c["in_progress"]} for a, c in sorted(per_annotator.items())],
        "labels": [{"label": label, "annotations": per_label[label]} for label in labels],
        "pairwise": pairwise,
        "overall": {"pairs": len(pair_stats), "records": judged_2,
                    "char_f1": _round(f1(overall[0], overall[1])), "exact_f1": _round(f1(overall[2], overall[3])),
                    "alpha": _round(krippendorff_alpha_nominal(units))},
        "adjudication": candidates[:top],
    }
