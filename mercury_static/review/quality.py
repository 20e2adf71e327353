"""Quality against the gold (docs/review.md, "The quality report"): how well each annotator and each
suggestion agent matches the adjudicated records, and which records the review changed most.

Only adjudicated records count; an annotator is scored on the records they judged (review data `judges`:
submitted, or in a Mercury dump), their spans as (summary character, label) pairs like the disagreement, and
their effective sentence verdicts against the settled sentences of the gold.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from mercury_static.merge.agreement_questions import _hashable, majority, roc_auc
from mercury_static.settings.model import Question
from mercury_static.merge.adjudication import covered, span_f1
from mercury_static.merge.sentence_rows import NOT_CHECKED


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _f1(p: float | None, r: float | None) -> float | None:
    if p is None or r is None:
        return None
    return round(2 * p * r / (p + r), 4) if p + r else 0.0


def _count_spans(c: Counter, mine: frozenset, truth: frozenset) -> None:
    c["records"] += 1
    c["common"] += len(mine & truth)
    c["marked"] += len(mine)
    c["gold"] += len(truth)


def _span_scores(c: Counter) -> dict:
    """Records, span precision, recall and F1 of pooled (character, label) counts; nothing marked on
    records whose gold has nothing either is perfect."""
    p, r = _ratio(c["common"], c["marked"]), _ratio(c["common"], c["gold"])
    return {"records": c["records"], "span_precision": p, "span_recall": r,
            "span_f1": _f1(p, r) if c["marked"] or c["gold"] else 1.0}


def _evidence_f1(a: list[int], b: list[int]) -> float:
    """F1 of two evidence sets (source sentence indices); two empty ones agree."""
    return 2 * len(set(a) & set(b)) / (len(set(a)) + len(set(b))) if a or b else 1.0


def _count_sentences(counts: dict[str, dict], review: dict, gold: dict) -> None:
    """Each judge's effective verdicts on the record's settled sentences: judged, right (the gold's verdict) and,
    where right on a verdict that carries evidence, the F1 of their evidence with the gold's."""
    settled = {s["sentence"]: s for s in gold.get("sentences", [])}
    for s in review.get("sentences", []):
        truth = settled.get(s["sentence"])
        if truth is None:
            continue
        for v in s["verdicts"]:
            if v["verdict"] == NOT_CHECKED:
                continue
            c = counts.setdefault(v["annotator"], {"judged": 0, "right": 0, "evidence": []})
            c["judged"] += 1
            c["right"] += v["verdict"] == truth["verdict"]
            if v["verdict"] == truth["verdict"] and "evidence" in truth:
                c["evidence"].append(_evidence_f1(v["evidence"], [e["sentence"] for e in truth["evidence"]]))


def _sentence_scores(c: dict | None) -> dict:
    c = c or {"judged": 0, "right": 0, "evidence": []}
    return {"judged": c["judged"], "verdict_accuracy": _ratio(c["right"], c["judged"]),
            "evidence_f1": round(sum(c["evidence"]) / len(c["evidence"]), 4) if c["evidence"] else None}


def quality_report(gold: Sequence[dict], review: dict[str, dict], questions: Sequence[Question],
                   top: int = 20) -> dict:
    """`{annotators, agent_spans, agents, changed}` for the gold records (`review`: the review bundle's records
    by id); with sentence verdicts each annotator's `sentences`: judged (of the settled sentences), verdict
    accuracy, and the mean evidence F1 where their verdict is the gold's and carries evidence."""
    asks_sentences = any("sentences" in g for g in gold)
    asked = {q.name: q for q in questions if q.type not in ("span", "text")}
    span_question = next((q.name for q in questions if q.type == "span"), None)
    agent_spans: dict[str, Counter] = defaultdict(Counter)
    spans: dict[str, Counter] = defaultdict(Counter)
    answers: dict[tuple[str, str], Counter] = defaultdict(Counter)
    agents: dict[tuple[str, str], list[tuple[bool, float | None]]] = defaultdict(list)
    changed = []
    sentences: dict[str, dict] = {}
    for g in gold:
        r = review[g["id"]]
        _count_sentences(sentences, r, g)
        truth = covered(g["annotations"])
        values = g["responses"][0]["values"]
        given = {x["annotator"]: x.get("values") or {} for x in r["responses"]}
        f1s, moved = [], 0
        for judge in r["judges"]:
            mine = covered(a for a in r["annotations"] if a["annotator"] == judge)
            _count_spans(spans[judge], mine, truth)
            f1s.append(span_f1(mine, truth))
            for name, q in asked.items():
                if name in values and name in given.get(judge, {}):
                    answers[judge, name]["answered"] += 1
                    answers[judge, name]["right"] += _hashable(q, given[judge][name]) == _hashable(q, values[name])
        for name, q in asked.items():  # a tie among the annotators is one the review settled: a change
            judged = [_hashable(q, given[j][name]) for j in r["judges"] if name in given.get(j, {})]
            if name in values and judged and majority(judged) != _hashable(q, values[name]):
                moved += 1
        for s in g.get("suggestions", []):
            if s["question"] == span_question:
                _count_spans(agent_spans[s["agent"]], covered(
                    {"label": [v["label"]], "summary": {"start": v["summary"][0], "end": v["summary"][1]}}
                    for v in s["value"]), truth)
            q = asked.get(s["question"])
            if q is not None and s["question"] in values:
                score = s.get("score") if isinstance(s.get("score"), (int, float)) else None
                agents[s["question"], s["agent"]].append((_hashable(q, s["value"]) == _hashable(q, values[q.name]),
                                                          score))
        span_change = 1 - sum(f1s) / len(f1s) if f1s else 0.0
        changed.append({"record_id": g["id"], "change": round((span_change + moved) / (1 + len(asked)), 4),
                        "spans": round(span_change, 4), "answers_changed": moved})
    annotators = [{"annotator": name, **_span_scores(spans[name]),
                   "accuracy": {q: _ratio(answers[name, q]["right"], answers[name, q]["answered"])
                                for q in asked if answers[name, q]["answered"]},
                   **({"sentences": _sentence_scores(sentences.get(name))} if asks_sentences else {})}
                  for name in sorted(set(spans) | {a for a, _ in answers} | set(sentences))]
    return {"annotators": annotators,
            "agent_spans": [{"agent": agent, **_span_scores(c)} for agent, c in sorted(agent_spans.items())],
            "agents": [{"question": q, "agent": agent, "records": len(items),
                        "accuracy": _ratio(sum(ok for ok, _ in items), len(items)),
                        "auc": None if (auc := roc_auc([s for ok, s in items if s is not None],
                                                       [ok for ok, s in items if s is not None])) is None
                        else round(auc, 4)}
                       for (q, agent), items in sorted(agents.items())],
            "changed": sorted(changed, key=lambda x: (-x["change"], x["record_id"]))[:top]}
