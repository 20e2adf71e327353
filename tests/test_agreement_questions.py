"""Agreement per question type and per suggestion agent, against published and hand-computed cases."""

from __future__ import annotations

import pytest

from mercury_static.merge.agreement_questions import (
    agent_agreement, alpha, kendall_tau_distance, majority, masi_distance, question_agreement, roc_auc)
from mercury_static.settings.model import Question

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12 units,
# values 1-5 with missing data. Published: nominal .743, ordinal .815, interval .849 (the `krippendorff`
# PyPI package gives 0.74342, 0.81539, 0.84911 on the same data).
CODERS = ["1 2 3 3 2 1 4 1 2 . . .", "1 2 3 3 2 2 4 1 2 5 . 3",
          ". 3 3 3 2 3 4 2 2 5 1 .", "1 2 3 3 2 4 4 1 2 5 1 ."]
UNITS = [[int(row[u]) for row in (c.split() for c in CODERS) if row[u] != "."] for u in range(12)]


@pytest.mark.parametrize(("metric", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_2011_example(metric, published):
    assert alpha(UNITS, metric) == pytest.approx(published, abs=5e-4)


def test_interval_by_hand():
    # units [1, 2], [3, 3]: o_12 = o_21 = 1, o_33 = 2; n_1 = n_2 = 1, n_3 = 2, n = 4
    # Σ o δ = 2·1² = 2; Σ n_c n_k δ = 2·(1·1·1 + 1·2·4 + 1·2·1) = 22 -> alpha = 1 - 3·2/22
    assert alpha([[1, 2], [3, 3]], "interval") == pytest.approx(1 - 6 / 22)


def test_masi_by_hand():
    a, ab, b = frozenset("a"), frozenset("ab"), frozenset("b")
    assert masi_distance(a, a) == 0 and masi_distance(a, b) == 1
    assert masi_distance(ab, a) == pytest.approx(1 - 1 / 2 * 2 / 3)  # Jaccard 1/2, a subset: 2/3
    assert masi_distance(ab, frozenset("bc")) == pytest.approx(1 - 1 / 3 * 1 / 3)  # Jaccard 1/3, overlap: 1/3
    # units {a}{a}, {a,b}{a}, {a}{b}: o_{a,a} = 2, o_{ab,a} = o_{a,ab} = 1, o_{a,b} = o_{b,a} = 1;
    # n_a = 4, n_ab = n_b = 1, n = 6; Σ o δ = 2·2/3 + 2·1 = 10/3;
    # Σ n n δ = 2·(4·1·2/3 + 4·1·1 + 1·1·2/3) = 44/3 -> alpha = 1 - 5·(10/3)/(44/3) = -6/44 (nltk's
    # AnnotationTask with masi_distance gives the same -0.13636)
    assert alpha([[a, a], [ab, a], [a, b]], "masi") == pytest.approx(-6 / 44)


def test_kendall_tau_by_hand():
    xyz, yxz, zyx = tuple("xyz"), tuple("yxz"), tuple("zyx")
    assert kendall_tau_distance(xyz, xyz) == 0 and kendall_tau_distance(xyz, zyx) == 1
    assert kendall_tau_distance(xyz, yxz) == pytest.approx(1 / 3)
    assert kendall_tau_distance(yxz, zyx) == pytest.approx(2 / 3)
    # units xyz·xyz, xyz·yxz, xyz·zyx: n_xyz = 4, n_yxz = n_zyx = 1, n = 6; Σ o δ = 2·1/3 + 2·1 = 8/3;
    # Σ n n δ = 2·(4·1/3 + 4·1 + 1·2/3) = 12 -> alpha = 1 - 5·(8/3)/12 = -1/9
    assert alpha([[xyz, xyz], [xyz, yxz], [xyz, zyx]], "kendall_tau") == pytest.approx(-1 / 9)
    assert alpha([[xyz, xyz], [zyx, zyx]], "kendall_tau") == pytest.approx(1.0)


def test_undefined():
    assert alpha([[1], [2]], "nominal") is None  # nothing pairable
    assert alpha([[3, 3], [3, 3]], "ordinal") is None  # one value: no expected disagreement
    assert majority(["a", "b"]) is None and majority([]) is None and majority(["a", "b", "a"]) == "a"
    assert roc_auc([0.2, 0.4], [True, True]) is None
    # positives 0.9, 0.5 against negatives 0.5, 0.1: wins 1 + 1 + 0.5 (the tie) + 1 of 4 pairs
    assert roc_auc([0.9, 0.5, 0.5, 0.1], [True, True, False, False]) == pytest.approx(3.5 / 4)


QUESTIONS = [Question("spans", "span", "Spans"), Question("verdict", "label", "Verdict"),
             Question("quality", "rating", "Quality", values=(1, 2, 3, 4, 5)), Question("comment", "text", "Comment")]


def resp(annotator, verdict, shown, accepted=None, status="submitted", **more):
    return {"annotator": annotator, "status": status, "updated_at": None, "values": {"verdict": verdict, **more},
            "suggestions": {"shown": shown, "accepted": accepted or {}}}


def hhem(value, score):
    return [{"question": "verdict", "value": value, "score": score, "agent": "HHEM"}]


H, C = "hallucinated", "consistent"
RECORDS = [
    {"id": "r1", "suggestions": hhem(H, 0.9),
     "responses": [resp("alice", H, True, {"verdict": "HHEM"}, quality=4, comment="x"), resp("bob", H, False)]},
    {"id": "r2", "suggestions": hhem(C, 0.6),
     "responses": [resp("alice", H, True), resp("bob", C, False), resp("carol", H, True)]},
    {"id": "r3", "suggestions": hhem(H, 0.3),
     "responses": [resp("alice", C, True, quality=4), resp("bob", C, False, quality=5),
                   resp("dan", H, True, status="in_progress")]},  # a draft is no judgement
]


def test_question_agreement_by_hand():
    verdict, quality, comment = question_agreement(RECORDS, QUESTIONS)
    # verdict units [H, H], [H, C, H], [C, C]: o_HH = 2 + 1, o_CC = 2, o_HC = o_CH = 1; n_H = 4, n_C = 3, n = 7
    # alpha = 1 - 6·2 / (2·4·3) = 0.5
    (low, high), = verdict.pop("alpha_ci").values()  # three records resampled (tests/test_bootstrap.py)
    assert low <= 0.5 <= high
    assert verdict == {"question": "verdict", "type": "label", "answers": 7, "records": 3, "alpha": {"nominal": 0.5}}
    # quality: one unit [4, 5] only: n = 2, a single pairable unit, alpha = 1 - 1·2·δ/(2·δ) = 0
    assert quality["records"] == 1 and quality["alpha"] == {"ordinal": 0.0, "interval": 0.0}
    assert comment == {"question": "comment", "type": "text", "answers": 1, "records": 0, "alpha": {},
                       "alpha_ci": {}}


def test_agent_agreement_by_hand():
    rows = {x["split"]: x for x in agent_agreement(RECORDS, QUESTIONS)}
    assert list(rows) == ["all", "blind", "shown"]
    everyone = rows["all"]
    # answers equal to the suggestion: r1 2 of 2, r2 1 of 3, r3 0 of 2; majorities H, H, C vs H, C, H
    assert (everyone["records"], everyone["answers"], everyone["agree"]) == (3, 7, round(3 / 7, 4))
    assert (everyone["majority_records"], everyone["accuracy"]) == (3, round(1 / 3, 4))
    # right on r1 (0.9), wrong on r2 (0.6) and r3 (0.3): the score separates them perfectly
    assert everyone["auc"] == 1.0
    # agent as a coder: units [H, H, H], [C, H, C, H], [H, C, C] -> o_HH = 3 + 2/3, o_CC = 2/3 + 1,
    # o_HC = o_CH = 4/3 + 1; n_H = 6, n_C = 4, n = 10; alpha = 1 - 9·(14/3) / (2·6·4) = 0.125
    assert everyone["alpha"] == 0.125
    blind, shown = rows["blind"], rows["shown"]
    assert (blind["answers"], blind["agree"], blind["accuracy"], blind["auc"]) == (3, round(2 / 3, 4),
                                                                                  round(2 / 3, 4), 1.0)
    assert blind["accepted"] is None  # nothing was shown
    assert (shown["answers"], shown["agree"], shown["accepted"]) == (4, 0.25, 0.25)  # alice took it on r1


def test_span_agent_by_hand():
    spans = {"question": "spans", "value": [{"label": "Unwanted.Intrinsic", "summary": [0, 4], "source": None}],
             "score": 0.8, "agent": "checker"}
    record = {"id": "r", "suggestions": [spans],
              "annotations": [{"annotator": "alice", "summary": {"start": 2, "end": 6}}],
              "responses": [resp("alice", H, True), resp("bob", C, False), resp("carol", H, True, status="discarded")]}
    rows = {x["split"]: x for x in agent_agreement([record], QUESTIONS) if x["question"] == "spans"}
    # agent covers {0..3}; alice {2..5} (2 in common), bob nothing: F1 = 2·(2 + 0) / ((4 + 4) + (4 + 0))
    assert (rows["all"]["answers"], rows["all"]["agree"]) == (2, round(4 / 12, 4))
    assert rows["blind"]["agree"] == 0.0 and rows["shown"]["agree"] == 0.5  # bob alone; alice alone
    assert rows["all"]["accuracy"] is rows["all"]["alpha"] is rows["all"]["auc"] is None


def test_roc_auc_is_the_pairwise_probability_and_scales():
    """The rank form equals the pairwise definition (ties half) on random scores with many ties, and 40,000
    scored records take well under a second (the pairwise loop took minutes: `merge` and `gold` on 10,000+
    records with a suggestion agent, benchmarks/RESULTS.md)."""
    import random
    import time

    rng = random.Random(7)
    for _ in range(50):
        n = rng.randint(2, 40)
        scores = [rng.choice([0.1, 0.2, 0.5, 0.5, 0.9, rng.random()]) for _ in range(n)]
        positive = [rng.random() < 0.5 for _ in range(n)]
        pos = [s for s, p in zip(scores, positive) if p]
        neg = [s for s, p in zip(scores, positive) if not p]
        pairwise = (sum((p > q) + 0.5 * (p == q) for p in pos for q in neg) / (len(pos) * len(neg))
                    if pos and neg else None)
        assert roc_auc(scores, positive) == (pytest.approx(pairwise) if pairwise is not None else None)
    scores = [rng.random() for _ in range(40_000)]
    started = time.process_time()
    roc_auc(scores, [s > 0.3 for s in scores])
    assert time.process_time() - started < 1.0
