"""The disagreement score (review order) and the quality report against the gold, on records small enough to
count by hand (docs/review.md gives the definitions)."""

from __future__ import annotations

from mercury_static.merge.adjudication import disagreement
from mercury_static.review.quality import quality_report
from mercury_static.settings.model import Option, Question

SPANS = Question("spans", "span", "Spans")
VERDICT = Question("verdict", "label", "Verdict", options=(Option("c", "c"), Option("h", "h")))
TOPICS = Question("topics", "multi_label", "Topics", options=(Option("x", "x"), Option("y", "y")))
COMMENT = Question("comment", "text", "Comment")
QUESTIONS = [SPANS, VERDICT, TOPICS, COMMENT]


def a(annotator: str, start: int, end: int, *label: str) -> dict:
    return {"annotator": annotator, "summary": {"start": start, "end": end}, "label": list(label or ["X"])}


def r(annotator: str, **values) -> dict:
    return {"annotator": annotator, "status": "submitted", "values": values}


def test_disagreement_counts_characters_labels_and_questions():
    record = {"annotations": [a("alice", 0, 4), a("bob", 2, 6), a("carol", 0, 4, "Y")],
              "responses": [r("alice", verdict="h", topics=["x", "y"], comment="a"),
                            r("bob", verdict="h", topics=["y", "x"], comment="b"), r("carol", verdict="c")]}
    d = disagreement(record, ["alice", "bob", "carol"], QUESTIONS)
    # alice·bob share 2 of 4+4 characters (F1 0.5); carol's label differs from both (F1 0)
    assert [(p["a"], p["b"], p["spans"]) for p in d["pairs"]] == [("alice", "bob", 0.5), ("alice", "carol", 1.0),
                                                                  ("bob", "carol", 1.0)]
    assert d["spans"] == round(2.5 / 3, 4)
    # topics alike as sets (order ignored); the text question is never a disagreement
    assert d["questions"] == {"spans": True, "verdict": True, "topics": False}
    assert d["score"] == round((2.5 / 3 + 1) / 3, 4)


def test_no_disagreement_without_two_judges_and_when_nobody_found_anything():
    alone = {"annotations": [a("alice", 0, 4)], "responses": [r("alice", verdict="h")]}
    assert disagreement(alone, ["alice"], QUESTIONS)["score"] == 0
    quiet = {"annotations": [], "responses": [r("alice", verdict="c"), r("bob", verdict="c")]}
    d = disagreement(quiet, ["alice", "bob"], QUESTIONS)
    assert d["score"] == 0 and d["pairs"] == [{"a": "alice", "b": "bob", "spans": 0.0}]


def test_quality_against_the_gold():
    review = {
        "g1": {"judges": ["alice", "bob"], "annotations": [a("alice", 2, 6), a("bob", 0, 4, "Y")],
               "responses": [r("alice", verdict="h"), r("bob", verdict="c")]},
        "g2": {"judges": ["alice", "bob"], "annotations": [],
               "responses": [r("alice", verdict="c"), r("bob", verdict="c")]},
    }
    gold = [{"id": "g1", "annotations": [a("bob", 0, 4)], "responses": [r("rita", verdict="h")],
             "suggestions": [{"question": "verdict", "value": "h", "score": 0.9, "agent": "det"}]},
            {"id": "g2", "annotations": [], "responses": [r("rita", verdict="c")],
             "suggestions": [{"question": "verdict", "value": "h", "score": 0.2, "agent": "det"}]}]
    q = quality_report(gold, review, QUESTIONS)
    alice, bob = q["annotators"]
    # alice: 2 of her 4 characters are gold's, 2 of gold's 4 are hers; right on both verdicts
    assert (alice["span_precision"], alice["span_recall"], alice["span_f1"]) == (0.5, 0.5, 0.5)
    assert alice["accuracy"] == {"verdict": 1.0} and alice["records"] == 2
    # bob: the right characters with another label count for nothing
    assert (bob["span_precision"], bob["span_recall"], bob["span_f1"]) == (0.0, 0.0, 0.0)
    assert bob["accuracy"] == {"verdict": 0.5}
    assert q["agents"] == [{"question": "verdict", "agent": "det", "records": 2, "accuracy": 0.5, "auc": 1.0}]
    # g1 changed: span F1 0.5 and 0 with the gold, and the verdict was a tie the review settled; g2 not at all
    assert q["changed"] == [{"record_id": "g1", "change": round((0.75 + 1) / 3, 4), "spans": 0.75, "answers_changed": 1},
                            {"record_id": "g2", "change": 0.0, "spans": 0.0, "answers_changed": 0}]
