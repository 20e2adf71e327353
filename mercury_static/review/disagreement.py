"""How contested a merged record is (docs/review.md, "Disagreement"): the review bundle orders records by it,
most contested first, so the reviewer starts where the annotators disagree most.

Spans are compared as the (summary character, label) pairs they cover, so that two annotators who mark the
same words with different labels disagree as much as two who mark different words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from mercury_static.merge.agreement_questions import _hashable
from mercury_static.settings.schema import Question
from mercury_static.merge.write_argilla import _leaves

SPANS = "spans"
"""The name under which span disagreement is flagged (whatever the span question is called)."""


def covered(annotations: Iterable[dict]) -> frozenset[tuple[int, str]]:
    """The (summary character, label leaf) pairs a set of annotations covers."""
    return frozenset((i, leaf) for a in annotations for leaf in _leaves(a["label"])
                     for i in range(a["summary"]["start"], a["summary"]["end"]))


def span_f1(a: frozenset, b: frozenset) -> float:
    """F1 (Dice) of two covered sets; two empty sets agree (1.0): neither found anything."""
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 1.0


def disagreement(record: dict, judges: Sequence[str], questions: Sequence[Question]) -> dict:
    """`{score, spans, questions, pairs}` of a merged record among its `judges` (sorted names)."""
    asked = [q for q in questions if q.type not in ("span", "text")]
    flags = {SPANS: False, **{q.name: False for q in asked}}
    if len(judges) < 2:
        return {"score": 0.0, "spans": 0.0, "questions": flags, "pairs": []}
    sets = {j: covered(a for a in record["annotations"] if a["annotator"] == j) for j in judges}
    pairs: list[dict] = [{"a": a, "b": b, "spans": round(1 - span_f1(sets[a], sets[b]), 4)}
                         for a, b in combinations(judges, 2)]
    spans = round(sum(p["spans"] for p in pairs) / len(pairs), 4)
    flags[SPANS] = spans > 0
    values = {r["annotator"]: r.get("values") or {} for r in record.get("responses", []) if r["annotator"] in judges}
    for q in asked:
        answers = {_key(_hashable(q, v[q.name])) for v in values.values() if q.name in v}
        flags[q.name] = len(answers) > 1
    score = round((spans + sum(flags[q.name] for q in asked)) / (1 + len(asked)), 4)
    return {"score": score, "spans": spans, "questions": flags, "pairs": pairs}


def _key(value) -> str:
    """A comparable form of an answer (frozensets and tuples as sorted/ordered text)."""
    if isinstance(value, frozenset):
        return repr(sorted(value, key=repr))
    return repr(value)
