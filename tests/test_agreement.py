"""Agreement figures against cases computed by hand (and Krippendorff's published example)."""

from __future__ import annotations

import pytest

from mercury_static.merge.adjudication import adjudicate_first
from mercury_static.merge.agreement import agreement_report, cohen_kappa, judges, krippendorff_alpha_nominal

LABELS = ["Questionable", "Benign", "Unwanted", "Unwanted.Intrinsic", "Unwanted.Extrinsic"]


def test_alpha_binary_by_hand():
    # coincidences: o11 = 2, o00 = 4, o01 = o10 = 1 -> n0 = 5, n1 = 3, n = 8
    # alpha = 1 - (n-1) * (o01+o10) / (2 n0 n1) = 1 - 7*2/30
    assert krippendorff_alpha_nominal([[1, 1], [0, 0], [1, 0], [0, 0]]) == pytest.approx(1 - 14 / 30)


def test_alpha_krippendorff_2011_example():
    # "Computing Krippendorff's Alpha-Reliability" (2011), 4 coders x 12 units with missing values:
    # nominal alpha = 0.743. Unit 12 has a single value and is not pairable.
    coders = ["1 2 3 3 2 1 4 1 2 . . .", "1 2 3 3 2 2 4 1 2 5 . 3",
              ". 3 3 3 2 3 4 2 2 5 1 .", "1 2 3 3 2 4 4 1 2 5 1 ."]
    rows = [c.split() for c in coders]
    units = [[row[u] for row in rows if row[u] != "."] for u in range(12)]
    assert krippendorff_alpha_nominal(units) == pytest.approx(0.743, abs=5e-4)


def test_alpha_undefined_and_perfect():
    assert krippendorff_alpha_nominal([[1, 1], [1, 1]]) is None  # one value only: no expected disagreement
    assert krippendorff_alpha_nominal([[1], [0]]) is None  # nothing pairable
    assert krippendorff_alpha_nominal([[1, 1], [0, 0, 0]]) == pytest.approx(1.0)


def test_cohen_kappa_by_hand():
    # pairs (1,1), (0,0), (1,0), (0,0) -> table rows A, columns B: [[2, 0], [1, 1]]
    # p_o = 3/4; marginals A (.5, .5), B (.75, .25) -> p_e = .5 -> kappa = .5
    assert cohen_kappa([[2, 0], [1, 1]]) == pytest.approx(0.5)
    assert cohen_kappa([[0, 0], [0, 2]]) is None  # one category only: p_e = 1
    assert cohen_kappa([[0, 0], [0, 0]]) is None
    assert cohen_kappa([[0, 1], [1, 0]]) == pytest.approx(-1.0)
    # 3 categories, n = 10: p_o = 5/10, rows (4, 3, 3), columns (3, 4, 3): p_e = (12+12+9)/100
    assert cohen_kappa([[2, 1, 1], [0, 2, 1], [1, 1, 1]]) == pytest.approx((0.5 - 0.33) / 0.67)


def ann(annotator, start, end, label=("Unwanted", "Unwanted.Intrinsic"), ident=None):
    return {"annotator": annotator, "label": list(label), "id": ident or f"{annotator}-{start}-{end}",
            "summary": {"start": start, "end": end, "text": "x" * (end - start)}, "source": None}


def sub(annotator, status="submitted"):
    return {"annotator": annotator, "status": status, "updated_at": "2026-11-29T12:00:00Z"}


def test_judges_rule():
    record = {"id": "r", "annotations": [ann("dump", 0, 2), ann("carol", 0, 2)],
              "responses": [sub("alice"), sub("bob", "in_progress"), sub("carol", "discarded")]}
    # alice submitted (no spans = consistent); dump has no response but annotated; bob/carol did not finish
    assert judges(record) == ["alice", "dump"]


def test_report_by_hand():
    records = [
        # r1: alice [0,8) ∪ [3,5) Unwanted, bob [6,10) Benign: char overlap 2 of 8+4, exact 0; verdicts 1 vs 0
        {"id": "r1", "annotations": [ann("alice", 0, 8), ann("alice", 3, 5), ann("bob", 6, 10, ("Benign",))],
         "responses": [sub("alice"), sub("bob")]},
        # r2: both exactly [2,4) Unwanted: overlap 2 of 2+2, exact 1 of 1+1; verdicts 1, 1
        {"id": "r2", "annotations": [ann("alice", 2, 4), ann("bob", 2, 4)],
         "responses": [sub("alice"), sub("bob")]},
        # r3: both submitted without spans: agree on "consistent"
        {"id": "r3", "annotations": [], "responses": [sub("alice"), sub("bob")]},
        # r4: only alice: not in pairwise figures
        {"id": "r4", "annotations": [ann("alice", 0, 1)], "responses": [sub("alice")]},
    ]
    report = agreement_report(records, LABELS)
    assert report["records"] == {"total": 4, "annotated": 3, "judged": 4, "judged_by_2_or_more": 3}
    (pair,) = report["pairwise"]
    assert (pair["a"], pair["b"], pair["records"]) == ("alice", "bob", 3)
    assert pair["char_f1"] == round(2 * (2 + 2) / (12 + 4), 4)
    assert pair["exact_f1"] == round(2 * 1 / (3 + 2), 4)
    # verdict pairs (1,0), (1,1), (0,0): p_o = 2/3, p_e = 2/3*1/3 + 1/3*2/3 = 4/9, kappa = (2/9)/(5/9)
    assert pair["observed_agreement"] == round(2 / 3, 4)
    assert pair["kappa"] == round(0.4, 4)
    assert report["overall"]["char_f1"] == pair["char_f1"]
    # alpha: o11 = 2 (r2), o00 = 2 (r3), o10 = o01 = 1 (r1): n0 = n1 = 3, n = 6 -> 1 - 5*2/18
    assert report["overall"]["alpha"] == round(1 - 10 / 18, 4)
    labels = {x["label"]: x["annotations"] for x in report["labels"]}
    assert labels == {"Questionable": 0, "Benign": 1, "Unwanted": 5, "Unwanted.Intrinsic": 5,
                      "Unwanted.Extrinsic": 0}
    alice = next(a for a in report["annotators"] if a["annotator"] == "alice")
    assert (alice["annotations"], alice["records_annotated"], alice["submitted"], alice["judged"]) == (4, 3, 4, 4)
    # adjudication: r1 (spans apart) first; r2, r3 agree fully and are not listed
    first = adjudicate_first(records, [judges(r) for r in records], [])
    assert [c["record_id"] for c in first] == ["r1"] and first[0]["spans"] == 1.0


def test_verdict_without_unwanted_label():
    records = [{"id": "r", "annotations": [ann("a", 0, 1, ("Bad",))], "responses": [sub("a"), sub("b")]}]
    report = agreement_report(records, ["Bad", "Good"])
    assert report["verdict"] == "has an annotation"
    assert adjudicate_first(records, [["a", "b"]], [])[0]["record_id"] == "r"
