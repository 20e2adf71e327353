"""Each annotator scored on the check records against the coordinator's known answers (docs/checks.md), each
figure with its bootstrap interval over the check records (merge/bootstrap.py):

- `verdict`: the record's verdict from its spans (agreement.is_positive: a span labelled `Unwanted` or below),
  equal to the known one; `answer:Q`: the answer to the label question Q equal to the known one;
- `span_f1`: char F1 of the annotator's summary spans with the known spans (pooled, as agreement's);
- `evidence`: each known span with a linked source span, matched when a span of the annotator's overlapping it
  links a source span on one of the same source sentences; each known sentence verdict with evidence, matched
  when the annotator's evidence for that sentence shares a source sentence;
- `sentence_verdict`: each known sentence verdict equal to the annotator's effective verdict
  (docs/sentence-verdicts.md: given, else the flagged verdict under a span of theirs, else not checked).

An annotator is scored on the check records they judged (agreement.judges). One below the threshold on a
verdict, an answer, a sentence verdict or span F1 is flagged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mercury_static.bundle.contents import Bundle
from mercury_static.merge import bootstrap
from mercury_static.merge.agreement import is_positive, judges
from mercury_static.merge.check_answers import Known
from mercury_static.settings.model import FLAGGED, SentenceVerdicts

THRESHOLD = 0.7
"""`--check-threshold` when not given: a verdict accuracy or span F1 below it flags the annotator."""
NOT_CHECKED = "not checked"
SCORED = ("label", "multi_label")
"""The record-level question types scored as verdicts (a rating or a text has no one right answer)."""
FLAGGING = ("verdict", "span_f1", "sentence_verdict")
"""The measures (and every `answer:Q`) a threshold applies to."""


def accuracy(sums: np.ndarray) -> np.ndarray:
    """Columns (right, items) -> right / items."""
    return np.where(sums[:, 1] > 0, sums[:, 0] / np.maximum(sums[:, 1], 1), np.nan)


def _chars(annotations: list[dict]) -> set[int]:
    return {c for a in annotations for c in range(a["summary"]["start"], a["summary"]["end"])}


def _touched(spans: Sequence[tuple[int, int]], start: int, end: int) -> set[int]:
    """The sentences (by index) a span [start, end) overlaps."""
    return {i for i, (s, e) in enumerate(spans) if s < end and start < e}


class _Rows:
    """One annotator's contributions per check record: measure -> [(position, columns)]."""

    def __init__(self):
        self.rows: dict[str, list[tuple[int, tuple[int, int]]]] = defaultdict(list)

    def add(self, measure: str, position: int, right: int, items: int) -> None:
        if items:
            self.rows[measure].append((position, (right, items)))


def _record_rows(out: _Rows, position: int, known: Known, mine: list[dict], response: dict | None,
                 sentences: list[dict], record, positive: str | None, questions: list[str],
                 flagged_as: str | None) -> None:
    """The contributions of one annotator's work on one check record."""
    out.add("verdict", position, int(any(is_positive(a["label"], positive) for a in mine)
                                     == any(is_positive(a["label"], positive) for a in known.annotations)), 1)
    theirs, truth = _chars(mine), _chars(known.annotations)
    out.rows["span_f1"].append((position, (len(theirs & truth), len(theirs) + len(truth))))
    values = (response or {}).get("values") or {}
    for q in questions:
        if q in known.values:
            given, answer = values.get(q), known.values[q]
            same = sorted(given) == sorted(answer) if isinstance(given, list) and isinstance(answer, list) \
                else given == answer
            out.add(f"answer:{q}", position, int(same), 1)
    source_cut = record.source_text.sentences if record else []
    right = items = 0
    for k in known.annotations:
        if k.get("source") is None:
            continue
        items += 1
        wanted = _touched(source_cut, k["source"]["start"], k["source"]["end"])
        right += any(a.get("source") is not None and a["summary"]["start"] < k["summary"]["end"]
                     and k["summary"]["start"] < a["summary"]["end"]
                     and _touched(source_cut, a["source"]["start"], a["source"]["end"]) & wanted for a in mine)
    given = {s["sentence"]: s for s in sentences}
    for index, k in known.sentences.items():
        if k.evidence:
            items += 1
            theirs_ev = {e["sentence"] if isinstance(e, dict) else e for e in given.get(index, {}).get("evidence", [])}
            right += bool(theirs_ev & k.evidence)
    out.add("evidence", position, right, items)
    summary_cut = record.summary_text.sentences if record else []
    right = 0
    for index, k in known.sentences.items():
        if index in given:
            verdict = given[index]["verdict"]
        elif index < len(summary_cut) and any(index in _touched(summary_cut, a["summary"]["start"],
                                                                a["summary"]["end"]) for a in mine):
            verdict = flagged_as or FLAGGED
        else:
            verdict = NOT_CHECKED
        right += verdict == k.verdict
    out.add("sentence_verdict", position, right, len(known.sentences))


def score_checks(records: Sequence[dict], known: dict[str, Known], bundle: Bundle, labels: Sequence[str],
                 threshold: float = THRESHOLD) -> dict:
    """The report's `checks`: `{records, threshold, method, measures: {measure: title, in the order shown},
    annotators: [{annotator, records, figures: {measure: {value, ci, items}}, below: [measure]}]}`, from the
    merged check records (JSON-ready, rounded)."""
    positive = "Unwanted" if "Unwanted" in labels else None
    settings = bundle.settings
    questions = [q.name for q in settings.questions if q.type in SCORED]
    flagged_as = (settings.sentence_verdicts or SentenceVerdicts()).flagged  # no settings: their defaults
    checked = [r for r in records if r["id"] in known]
    rows: dict[str, _Rows] = defaultdict(_Rows)
    judged: dict[str, int] = defaultdict(int)
    for position, record in enumerate(checked):
        truth = known[record["id"]]
        for name in judges(record):
            judged[name] += 1
            _record_rows(rows[name], position, truth,
                         [a for a in record["annotations"] if a["annotator"] == name],
                         next((r for r in record.get("responses", []) if r["annotator"] == name), None),
                         [s for s in record.get("sentences", []) if s.get("annotator") == name],
                         bundle.record(record["id"]), positive, questions, flagged_as)
    names = sorted(rows)
    plan = [(name, measure, entries) for name in names for measure, entries in sorted(rows[name].rows.items())]
    figures = [bootstrap.figure([p for p, _ in entries], [c for _, c in entries],
                                bootstrap.f1 if measure == "span_f1" else accuracy) for _, measure, entries in plan]
    found = bootstrap.intervals(len(checked), figures)
    people: dict[str, dict] = {name: {"annotator": name, "records": judged[name], "figures": {}, "below": []}
                               for name in names}
    for (name, measure, entries), ci in zip(plan, found):
        right, items = (int(x) for x in np.sum([c for _, c in entries], axis=0))
        value = (2 * right / items if items else None) if measure == "span_f1" else right / items
        person = people[name]
        person["figures"][measure] = {"value": None if value is None else round(value, 4),
                                      "ci": ci if value is not None else None,
                                      "items": len(entries) if measure == "span_f1" else items}
        if value is not None and value < threshold and (measure in FLAGGING or measure.startswith("answer:")):
            person["below"].append(measure)
    for person in people.values():
        person["below"].sort(key=_rank)
    measures = sorted({m for _, m, _ in plan}, key=_rank)
    return {"records": len(checked), "threshold": threshold, "method": bootstrap.METHOD,
            "measures": {m: measure_title(m) for m in measures}, "annotators": list(people.values())}


@dataclass(frozen=True)
class Checks:
    """`merge --checks FILE`: the known answers read from FILE, the flagging threshold, and whether the check
    records stay in the merged dataset (`--keep-checks`; they never enter the agreement figures)."""

    known: dict[str, Known]
    threshold: float = THRESHOLD
    keep: bool = False


def apart(records: list[dict], checks: Checks | None) -> tuple[list[dict], list[dict]]:
    """(the check records, the others), each in bundle order."""
    if checks is None:
        return [], records
    return [r for r in records if r["id"] in checks.known], [r for r in records if r["id"] not in checks.known]



def _rank(measure: str) -> tuple[int, str]:
    """Verdicts, answers, spans, evidence, sentence verdicts: the order the figures are shown in."""
    return {"verdict": 0, "span_f1": 2, "evidence": 3, "sentence_verdict": 4}.get(measure, 1), measure


def measure_title(measure: str) -> str:
    """A measure as a column names it."""
    if measure.startswith("answer:"):
        return f"{measure[len('answer:'):]} accuracy"
    return {"verdict": "verdict accuracy", "span_f1": "span F1", "evidence": "evidence accuracy",
            "sentence_verdict": "sentence verdict accuracy"}[measure]
