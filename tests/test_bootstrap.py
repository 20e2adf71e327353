"""The agreement figures' bootstrap intervals (docs/merge.md, "Confidence intervals"): each figure's resampled
form gives the point figure on the records as they are; an interval holds its figure, narrows with more
records and is the same on every run."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_agreement_questions import UNITS

from mercury_static.merge import bootstrap
from mercury_static.merge.agreement import agreement_report, cohen_kappa
from mercury_static.merge.agreement_questions import alpha, alpha_figure, question_agreement
from mercury_static.settings.model import Option, Question

LABELS = ["Benign", "Unwanted", "Unwanted.Intrinsic"]
VERDICT = Question("verdict", "label", "Verdict", options=(Option("yes", "y"), Option("no", "n")))
RATING = Question("quality", "rating", "Quality", values=(1, 2, 3, 4, 5))


def as_is(f: bootstrap.Figure) -> float:
    """The figure on the records as they are: every record drawn once."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(f.statistic(f.columns.sum(axis=0)[None, :])[0])


def sets(units):
    return [[frozenset(v) for v in u] for u in units]


@pytest.mark.parametrize(("metric", "units"), [
    ("nominal", UNITS), ("ordinal", UNITS), ("interval", UNITS),
    ("masi", sets([["ab", "a"], ["a", "a", "b"], ["b", "bc"], ["c", "c"]])),
    ("kendall_tau", [[tuple("xyz"), tuple("xyz")], [tuple("xyz"), tuple("yxz"), tuple("zyx")], [tuple("zyx")]]),
])
def test_alpha_resampled_form_is_alpha(metric, units):
    assert as_is(alpha_figure(units, metric)) == pytest.approx(alpha(units, metric))


def test_kappa_and_f1_resampled_forms():
    # pairs (1,1), (0,0), (1,0), (0,0): the by-hand table of test_agreement, kappa 0.5
    rows = [(1, a * b, a, b) for a, b in ((1, 1), (0, 0), (1, 0), (0, 0))]
    assert as_is(bootstrap.figure(range(4), rows, bootstrap.kappa)) == pytest.approx(cohen_kappa([[2, 0], [1, 1]]))
    assert np.isnan(as_is(bootstrap.figure(range(2), [(1, 1, 1, 1)] * 2, bootstrap.kappa)))  # one category
    assert as_is(bootstrap.figure(range(2), [(2, 8), (1, 2)], bootstrap.f1)) == pytest.approx(0.6)


def team(n: int, seed: int = 1) -> list[dict]:
    """`n` records judged by three annotators who agree on the verdict and rating most of the time."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        bad, rating = rng.random() < 0.4, rng.randint(1, 5)
        annotations, responses = [], []
        for name in ("alice", "bob", "carol"):
            if (rng.random() < 0.85) == bad:
                start = 10 + rng.randint(0, 4)
                annotations.append({"annotator": name, "label": ["Unwanted", "Unwanted.Intrinsic"],
                                    "summary": {"start": start, "end": start + 12}})
            responses.append({"annotator": name, "status": "submitted", "values": {
                "verdict": "yes" if (rng.random() < 0.85) == bad else "no",
                "quality": max(1, min(5, rating + rng.choice((-1, 0, 0, 1))))}})
        records.append({"id": f"r{i}", "annotations": annotations, "responses": responses})
    return records


def intervals(records: list[dict]) -> dict[str, tuple[float, list[float]]]:
    """Every figure with an interval: its point value and interval."""
    report = agreement_report(records, LABELS)
    o, out = report["overall"], {}
    for key in ("alpha", "char_f1", "exact_f1"):
        out[key] = (o[key], o[f"{key}_ci"])
    for p in report["pairwise"]:
        out[f"kappa {p['a']}-{p['b']}"] = (p["kappa"], p["kappa_ci"])
    for x in report["label_agreement"]:
        out[f"label {x['label']}"] = (x["char_f1"], x["char_f1_ci"])
    for q in question_agreement(records, [VERDICT, RATING]):
        for metric, value in q["alpha"].items():
            out[f"{q['question']} {metric}"] = (value, q["alpha_ci"][metric])
    return out


def test_intervals_hold_the_figure_narrow_with_records_and_repeat():
    small, large = intervals(team(150)), intervals(team(1500))
    assert len(large) == 3 + 3 + 3 + 3  # overall, pairs, labels (Benign: undefined), verdict and rating
    for name, (value, ci) in large.items():
        if value is None:
            assert ci is None and name == "label Benign"
            continue
        assert ci[0] <= value <= ci[1], name
        low, high = small[name][1]
        assert ci[1] - ci[0] < (high - low) / 2, name  # ten times the records: about a third of the width
    assert intervals(team(150)) == small  # seeded: the same report on every run


def test_another_seed_draws_other_resamples():
    records = team(150)
    units = [[r["values"]["verdict"] for r in x["responses"]] for x in records]
    f = alpha_figure(units, "nominal")
    assert bootstrap.intervals(len(records), [f]) == bootstrap.intervals(len(records), [f])
    assert bootstrap.intervals(len(records), [f], seed=1) != bootstrap.intervals(len(records), [f])


def test_undefined_everywhere_is_no_interval():
    report = agreement_report([{"id": "r", "annotations": [], "responses": [
        {"annotator": a, "status": "submitted"} for a in ("alice", "bob")]}], LABELS)
    assert report["overall"]["alpha"] is None and report["overall"]["alpha_ci"] is None
    assert report["pairwise"][0]["kappa_ci"] is None
    assert report["bootstrap"] == {"resamples": 1000, "seed": 0, "level": 0.95, "interval": "percentile",
                                   "over": "records"}


def test_a_sparse_figure_reads_the_same_resamples():
    """A figure over a few of many records (read alone) and the same one padded with the others' zero
    contributions (read with the shared matrix) have the same interval."""
    rng = np.random.default_rng(3)
    rows = np.sort(rng.choice(400, 60, replace=False))
    columns = rng.integers(0, 5, (60, 2)).astype(float) + [0, 5]
    padded = np.zeros((400, 2))
    padded[rows] = columns
    few, every = bootstrap.figure(rows, columns, bootstrap.f1), bootstrap.figure(range(400), padded, bootstrap.f1)
    assert bootstrap.intervals(400, [few]) == bootstrap.intervals(400, [every])
