"""Inter-annotator agreement on a merged dataset (definitions: docs/merge.md, "Agreement").

Works on merged records (the default `merge` output shape). The *judges* of a record are the annotators
who submitted it (a `responses` entry with status `submitted`), plus annotators that have annotations on it
but no response at all (Mercury dumps record no responses: having annotated is their only trace).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence

import numpy as np

from mercury_static.merge import bootstrap
from mercury_static.merge.agreement_questions import alpha, alpha_figure


def f1(common: int, total: int) -> float | None:
    """Dice / F1 = 2·|A∩B| / (|A| + |B|), given total = |A| + |B|; None when both are empty."""
    return 2 * common / total if total else None


def cohen_kappa(table) -> float | None:
    """Cohen's kappa from a k×k contingency table (rows: rater A's category, columns: rater B's).

    kappa = (p_o - p_e) / (1 - p_e), p_o = trace / n, p_e = Σ_c rowsum_c · colsum_c / n². None when
    undefined (no items, or p_e = 1).
    """
    table = np.asarray(table, dtype=np.float64)
    n = table.sum()
    if n == 0:
        return None
    observed = np.trace(table) / n
    expected = float(table.sum(axis=1) @ table.sum(axis=0)) / (n * n)
    if expected >= 1.0:
        return None
    return float((observed - expected) / (1.0 - expected))


def krippendorff_alpha_nominal(units: Sequence[Sequence[Hashable]]) -> float | None:
    """Krippendorff's alpha, nominal metric: units are the values given to each item (missing = absent).

    Items with fewer than two values are not pairable and are ignored. alpha = 1 - (n-1)·D_o / D_e with
    the coincidence matrix o_ck = Σ_u (number of ordered pairs (c,k) in u) / (m_u - 1), n_c = Σ_k o_ck,
    D_o = Σ_{c≠k} o_ck, D_e = Σ_{c≠k} n_c·n_k. None when undefined (no pairable values, a single value).
    """
    return alpha(units, "nominal")  # the one implementation of alpha, every metric


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


class _PairSums:
    """Per annotator pair (global indices i < j), sums over the records both judged."""

    def __init__(self, n: int):
        z = lambda: np.zeros((n, n), dtype=np.int64)  # noqa: E731
        self.char_common, self.char_total, self.exact_common, self.exact_total = z(), z(), z(), z()
        self.records, self.both_positive, self.positive = z(), z(), z()  # positive[i, j]: i's 1s with j

    def add(self, idx: np.ndarray, char_common, lengths, exact_common, counts, verdicts) -> None:
        ix = np.ix_(idx, idx)
        self.char_common[ix] += char_common
        self.char_total[ix] += lengths[:, None] + lengths[None, :]
        self.exact_common[ix] += exact_common
        self.exact_total[ix] += counts[:, None] + counts[None, :]
        self.records[ix] += 1
        self.both_positive[ix] += np.outer(verdicts, verdicts)
        self.positive[ix] += verdicts[:, None]


class _LabelSums:
    """Per label, the char F1 pooled over annotator pairs of the spans carrying that label (records judged by
    2+ annotators where one of them used it): which labels the team reads alike."""

    def __init__(self):
        self.common: Counter = Counter()
        self.total: Counter = Counter()
        self.records: Counter = Counter()
        self.per_record: dict[str, list[tuple[int, int, int]]] = defaultdict(list)  # (position, common, total)

    def add(self, position: int, judges: int, annotations: list[dict]) -> None:
        """One record: its number of judges and their annotations. Summed over the judges' pairs, |A∩B| is
        Σ over characters of C(k, 2), k the judges covering the character, and |A| + |B| is (judges - 1)·Σ|A|:
        linear in the characters however many judges there are."""
        covered: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
        for a in annotations:
            chars = range(a["summary"]["start"], a["summary"]["end"])
            for label in set(a["label"]):
                covered[label][a["annotator"]].update(chars)
        for label, by_judge in covered.items():
            depth = Counter(c for chars in by_judge.values() for c in chars)
            common = sum(k * (k - 1) // 2 for k in depth.values())
            total = (judges - 1) * sum(map(len, by_judge.values()))
            self.common[label] += common
            self.total[label] += total
            self.records[label] += 1
            self.per_record[label].append((position, common, total))

    def figures(self, labels: Sequence[str]) -> list[bootstrap.Figure]:
        return [bootstrap.figure([p for p, _, _ in self.per_record[label]],
                                 [(c, t) for _, c, t in self.per_record[label]], bootstrap.f1) for label in labels]

    def report(self, labels: Sequence[str], intervals: Sequence[list[float] | None]) -> list[dict]:
        out = []
        for label, ci in zip(labels, intervals):
            char_f1 = _round(f1(self.common[label], self.total[label]))
            out.append({"label": label, "records": self.records[label], "char_f1": char_f1,
                        "char_f1_ci": ci if char_f1 is not None else None})
        return out


def _record_matrices(judges: int, rows: list[int], starts: list[int], ends: list[int]) -> tuple[np.ndarray, ...]:
    """Summary spans (row = judge) of one record -> covered-character overlaps between judges (m×m, diagonal
    = covered lengths) and exact-span matches (m×m, diagonal = distinct span counts)."""
    rows_a, starts_a, ends_a = (np.asarray(x, dtype=np.int64) for x in (rows, starts, ends))
    width = int(ends_a.max()) + 1 if len(ends_a) else 1
    diff = np.zeros((judges, width + 1), dtype=np.int32)
    np.add.at(diff, (rows_a, starts_a), 1)
    np.add.at(diff, (rows_a, ends_a), -1)
    covered_chars = (np.cumsum(diff, axis=1) > 0).astype(np.int32)
    distinct, column = np.unique(starts_a * (width + 1) + ends_a, return_inverse=True)
    exact = np.zeros((judges, max(len(distinct), 1)), dtype=np.int32)
    exact[rows_a, column] = 1
    # einsum: exact integer products without BLAS (whose idle threads spin for such small matrices)
    char_common = np.einsum("ik,jk->ij", covered_chars, covered_chars).astype(np.int64)
    exact_common = np.einsum("ik,jk->ij", exact, exact).astype(np.int64)
    return char_common, np.diag(char_common).copy(), exact_common, np.diag(exact_common).copy()


def _pair_figures(verdict_rows: list[tuple[int, np.ndarray, np.ndarray]], annotators: int,
                  pairs: list[tuple[int, int]]) -> list[bootstrap.Figure]:
    """Each pair's kappa as a bootstrap figure: per record both judged, (1, both positive, A's, B's verdict)."""
    positions = np.array([p for p, _, _ in verdict_rows], dtype=np.int64)
    table = np.full((len(verdict_rows), annotators), -1, dtype=np.int8)  # a record's verdict by judge, -1: none
    for row, (_, judges_, verdicts) in enumerate(verdict_rows):
        table[row, judges_] = verdicts
    out = []
    for i, j in pairs:
        both = np.flatnonzero((table[:, i] >= 0) & (table[:, j] >= 0))
        a, b = table[both, i].astype(np.float64), table[both, j].astype(np.float64)
        out.append(bootstrap.figure(positions[both], np.column_stack([np.ones(len(both)), a * b, a, b]),
                                    bootstrap.kappa))
    return out


def agreement_report(records: Sequence[dict], labels: Sequence[str], positive: str | None = "Unwanted",
                     unsupported: str | None = None) -> dict:
    """Counts and agreement figures of merged records, each α, κ and span F1 with its bootstrap interval
    (JSON-ready; figures rounded to 4 decimals). `unsupported`: the sentence verdict that flags a record as a
    span does (the settings' `flagged` verdict), so a dataset judged by sentences has a record verdict too."""
    if positive is not None and positive not in labels:
        positive = None
    per_annotator: dict[str, Counter] = defaultdict(Counter)
    per_label: Counter = Counter()
    label_use: dict[str, Counter] = defaultdict(Counter)
    who_by_record = []
    for record in records:
        for a in record["annotations"]:
            per_annotator[a["annotator"]]["annotations"] += 1
            for label in set(a["label"]):
                per_label[label] += 1
                label_use[a["annotator"]][label] += 1
        for a in {a["annotator"] for a in record["annotations"]}:
            per_annotator[a]["records_annotated"] += 1
        for r in record.get("responses", []):
            per_annotator[r["annotator"]][r["status"]] += 1
        who = judges(record)
        for a in who:
            per_annotator[a]["judged"] += 1
        who_by_record.append(who)

    names = sorted({a for who in who_by_record for a in who})
    index = {a: i for i, a in enumerate(names)}
    sums = _PairSums(len(names))
    by_label = _LabelSums()
    units: list[list[int]] = []
    verdict_units: list[list[int]] = [[] for _ in records]  # by record position, for the bootstrap
    spans_by_record: list[tuple[int, list[int]]] = []  # (position, [char common, char total, exact common, total])
    verdict_rows: list[tuple[int, np.ndarray, np.ndarray]] = []  # (position, judges' indices, their verdicts)
    for order, (record, who) in enumerate(zip(records, who_by_record)):
        if len(who) < 2:
            continue
        row = {a: k for k, a in enumerate(who)}
        rows, starts, ends, flagged = [], [], [], [0] * len(who)
        judged = []
        for a in record["annotations"]:
            k = row.get(a["annotator"])
            if k is not None:
                rows.append(k)
                starts.append(a["summary"]["start"])
                ends.append(a["summary"]["end"])
                judged.append(a)
                if not flagged[k] and is_positive(a["label"], positive):
                    flagged[k] = 1
        for s in record.get("sentences", ()) if unsupported is not None else ():
            k = row.get(s["annotator"])
            if k is not None and s["verdict"] == unsupported:
                flagged[k] = 1
        by_label.add(order, len(who), judged)
        verdicts = np.array(flagged, dtype=np.int64)
        char_common, lengths, exact_common, counts = _record_matrices(len(who), rows, starts, ends)
        judge_index = np.array([index[a] for a in who])
        sums.add(judge_index, char_common, lengths, exact_common, counts, verdicts)
        verdict_rows.append((order, judge_index, verdicts))
        units.append(verdicts.tolist())
        verdict_units[order] = units[-1]
        upper = np.triu_indices(len(who), 1)
        total = (lengths[:, None] + lengths[None, :])[upper]
        spans_by_record.append((order, [int(char_common[upper].sum()), int(total.sum()),
                                        int(exact_common[upper].sum()),
                                        int((counts[:, None] + counts[None, :])[upper].sum())]))

    pairs = list(zip(*np.nonzero(np.triu(sums.records, 1))))
    spans = [p for p, _ in spans_by_record], [c for _, c in spans_by_record]
    figures = [alpha_figure(verdict_units, "nominal"),
               bootstrap.figure(spans[0], spans[1], lambda s: bootstrap.f1(s[:, :2])),
               bootstrap.figure(spans[0], spans[1], lambda s: bootstrap.f1(s[:, 2:])),
               *_pair_figures(verdict_rows, len(names), pairs), *by_label.figures(labels)]
    found = bootstrap.intervals(len(records), figures)
    overall_ci, pair_ci, label_ci = found[:3], found[3:3 + len(pairs)], found[3 + len(pairs):]
    pairwise = []
    for (i, j), kappa_ci in zip(pairs, pair_ci):
        n, both, a1, b1 = (int(x) for x in (sums.records[i, j], sums.both_positive[i, j],
                                             sums.positive[i, j], sums.positive[j, i]))
        table = [[n - a1 - b1 + both, b1 - both], [a1 - both, both]]
        pairwise.append({
            "a": names[i], "b": names[j], "records": n,
            "char_f1": _round(f1(int(sums.char_common[i, j]), int(sums.char_total[i, j]))),
            "exact_f1": _round(f1(int(sums.exact_common[i, j]), int(sums.exact_total[i, j]))),
            "observed_agreement": _round((table[0][0] + both) / n), "kappa": _round(cohen_kappa(table)),
        })
        pairwise[-1]["kappa_ci"] = kappa_ci if pairwise[-1]["kappa"] is not None else None
    upper = np.triu(np.ones_like(sums.records, dtype=bool), 1)
    overall: dict[str, object] = {
        "pairs": len(pairwise), "records": len(units),
        "char_f1": _round(f1(int(sums.char_common[upper].sum()), int(sums.char_total[upper].sum()))),
        "exact_f1": _round(f1(int(sums.exact_common[upper].sum()), int(sums.exact_total[upper].sum()))),
        "alpha": _round(krippendorff_alpha_nominal(units))}
    for key, ci in zip(("alpha", "char_f1", "exact_f1"), overall_ci):
        overall[f"{key}_ci"] = ci if overall[key] is not None else None
    return {
        "records": {"total": len(records), "annotated": sum(bool(r["annotations"]) for r in records),
                    "judged": sum(bool(w) for w in who_by_record), "judged_by_2_or_more": len(units)},
        "verdict": (f"has an annotation labelled {positive}" if positive else "has an annotation")
        + (f", or a sentence judged {unsupported!r}" if unsupported is not None else ""),
        "annotators": [{"annotator": a, "annotations": c["annotations"],
                        "records_annotated": c["records_annotated"], "judged": c["judged"],
                        "submitted": c["submitted"], "discarded": c["discarded"],
                        "in_progress": c["in_progress"]} for a, c in sorted(per_annotator.items())],
        "labels": [{"label": label, "annotations": per_label[label]} for label in labels],
        "label_counts": {a: {label: use[label] for label in labels} for a, use in sorted(label_use.items())},
        "label_agreement": by_label.report(labels, label_ci),
        "pairwise": pairwise,
        "overall": overall,
        "bootstrap": bootstrap.METHOD,
    }
