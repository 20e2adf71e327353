"""Agreement on the summary sentences' verdicts (docs/sentence-verdicts.md, "Agreement"): how many sentences each
annotator judged, flagged or left unchecked, the verdicts' distribution, Krippendorff's alpha and Cohen's kappa
per pair on the effective verdicts, and how alike the evidence of two annotators is, each figure with its 95%
bootstrap interval over records (bootstrap.py, as merge's other figures).

The units are the (record, sentence) pairs of records submitted by 2+ annotators; an annotator's value is their
effective verdict (sentence_rows.py); `not checked` is no value (missing), so a sentence only one annotator
checked is not pairable.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import combinations

import numpy as np

from mercury_static.merge import bootstrap
from mercury_static.merge.agreement import cohen_kappa
from mercury_static.merge.agreement_questions import alpha, alpha_figure
from mercury_static.merge.sentence_rows import NOT_CHECKED, SentenceRow, flagged_verdict
from mercury_static.settings.model import SentenceVerdicts


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def evidence_f1(a: frozenset, b: frozenset) -> float | None:
    """F1 of two evidence sets, 2|A∩B| / (|A| + |B|); None for two empty sets: no evidence to compare (a dataset
    judged without evidence, as QAGS's, must not read as perfect agreement on it)."""
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else None


def verdict_values(settings: SentenceVerdicts) -> list[str]:
    """The effective verdicts in report order: the options, the flagged category when it is none of them, and
    `not checked`."""
    values = list(settings.values)
    flagged = flagged_verdict(settings)
    return [*values, *([flagged] if flagged not in values else []), NOT_CHECKED]


def sentence_agreement(rows: Sequence[SentenceRow], records: Sequence[dict], settings: SentenceVerdicts) -> dict:
    """The `sentences` section of merge's report from the records' sentence rows (sentence_rows.py: the ones the
    adjudication order reads too; JSON-ready, figures rounded to 4 decimals)."""
    values = verdict_values(settings)
    per_annotator: dict[str, Counter] = defaultdict(Counter)
    distribution: Counter = Counter()
    for r in rows:
        c = per_annotator[r.annotator]
        c["sentences"] += 1
        c["judged" if r.given else "flagged" if r.flagged else "not_checked"] += 1
        c[f"verdict {r.verdict}"] += 1
        distribution[r.verdict] += 1
    position = {r["id"]: i for i, r in enumerate(records)}
    by_unit: dict[tuple[str, int], list[SentenceRow]] = defaultdict(list)
    judges: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        judges[r.record_id].add(r.annotator)
        by_unit[r.record_id, r.sentence].append(r)
    units = {key: [r for r in unit if r.verdict != NOT_CHECKED] for key, unit in by_unit.items()
             if len(judges[key[0]]) >= 2}
    pairable = {key: unit for key, unit in units.items() if len(unit) >= 2}
    keys = list(pairable)
    unit_values = [[values.index(r.verdict) for r in pairable[key]] for key in keys]
    record_of = np.array([position[key[0]] for key in keys], dtype=np.int64)
    figures = []
    alpha_fig = alpha_figure(unit_values, "nominal")
    figures.append(bootstrap.figure(record_of[alpha_fig.rows], alpha_fig.columns, alpha_fig.statistic)
                   if len(alpha_fig.rows) else alpha_fig)
    tables: dict[tuple[str, str], list[tuple[int, int, int]]] = defaultdict(list)  # pair -> (record, A's, B's)
    for key in keys:
        given = {r.annotator: values.index(r.verdict) for r in pairable[key]}
        for a, b in combinations(sorted(given), 2):
            tables[a, b].append((position[key[0]], given[a], given[b]))
    k = len(values)
    pairs = sorted(tables)
    for pair in pairs:
        cells = np.zeros((len(tables[pair]), k * k))
        for row, (_, x, y) in enumerate(tables[pair]):
            cells[row, x * k + y] = 1
        figures.append(bootstrap.figure([p for p, _, _ in tables[pair]], cells, bootstrap.kappa_table))
    evidence_rows: list[tuple[int, float]] = []  # (record, F1 of one pair on one sentence)
    compared: set = set()  # the sentences of those pairs
    for key, unit in units.items():
        carrying = [r for r in unit if r.given and r.verdict in settings.evidence]
        for a, b in combinations(carrying, 2):
            f1 = evidence_f1(frozenset(a.evidence), frozenset(b.evidence))
            if f1 is not None:
                evidence_rows.append((position[key[0]], f1))
                compared.add(key)
    figures.append(bootstrap.figure([p for p, _ in evidence_rows], [(f, 1.0) for _, f in evidence_rows],
                                    bootstrap.mean))
    found = bootstrap.intervals(len(records), figures)
    overall_alpha = _round(alpha(unit_values, "nominal"))
    pairwise = []
    for pair, ci in zip(pairs, found[1:-1]):
        table = np.zeros((k, k))
        for _, x, y in tables[pair]:
            table[x, y] += 1
        kappa = _round(cohen_kappa(table))
        pairwise.append({"a": pair[0], "b": pair[1], "sentences": len(tables[pair]),
                         "observed_agreement": _round(float(np.trace(table) / table.sum())),
                         "kappa": kappa, "kappa_ci": ci if kappa is not None else None})
    f1 = _round(sum(f for _, f in evidence_rows) / len(evidence_rows)) if evidence_rows else None
    return {
        "verdicts": values,
        "flagged_as": flagged_verdict(settings),
        "annotators": [{"annotator": a, "sentences": c["sentences"], "judged": c["judged"], "flagged": c["flagged"],
                        "not_checked": c["not_checked"], "verdicts": {v: c[f"verdict {v}"] for v in values}}
                       for a, c in sorted(per_annotator.items())],
        "distribution": {v: distribution[v] for v in values},
        "records": len({key[0] for key in units}), "sentences": len(units), "pairable": len(pairable),
        "alpha": overall_alpha, "alpha_ci": found[0] if overall_alpha is not None else None,
        "pairwise": pairwise,
        "evidence": {"sentences": len(compared), "pairs": len(evidence_rows), "f1": f1,
                     "f1_ci": found[-1] if f1 is not None else None},
    }
