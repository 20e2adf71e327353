"""How contested a merged record is (docs/review.md, "Disagreement"), and the one order of the records to
adjudicate, most contested first: merge's printout, report.html and the review bundle all read
`adjudication_order`, so a coordinator and a reviewer start from the same record.

Spans are compared as the (summary character, label) pairs they cover, so that two annotators who mark the
same words with different labels (Intrinsic against Extrinsic) disagree as much as two who mark different
words; record-level answers that differ count, and so do summary sentences whose effective verdicts differ
(docs/sentence-verdicts.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import combinations

from mercury_static.merge.agreement_questions import _hashable
from mercury_static.merge.sentence_rows import NOT_CHECKED, SentenceRow
from mercury_static.settings.model import Question
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


def sentence_split(rows: Iterable[SentenceRow], judges: Sequence[str]) -> float:
    """The share of a record's summary sentences that 2+ of its judges gave an effective verdict and whose
    verdicts differ."""
    by_sentence: dict[int, set[str]] = defaultdict(set)
    counted: dict[int, int] = defaultdict(int)
    for r in rows:
        if r.annotator in judges and r.verdict != NOT_CHECKED:
            by_sentence[r.sentence].add(r.verdict)
            counted[r.sentence] += 1
    pairable = [i for i, n in counted.items() if n >= 2]
    return round(sum(len(by_sentence[i]) > 1 for i in pairable) / len(pairable), 4) if pairable else 0.0


def disagreement(record: dict, judges: Sequence[str], questions: Sequence[Question],
                 sentences: Sequence[SentenceRow] | None = None) -> dict:
    """`{score, spans, questions, pairs}` of a merged record among its `judges` (sorted names), and
    `sentences` (the share of its sentences judged apart) when the bundle asks sentence verdicts (`sentences`:
    the record's rows). The score is the mean of the span disagreement, each question's flag and that share."""
    asked = [q for q in questions if q.type not in ("span", "text")]
    flags = {SPANS: False, **{q.name: False for q in asked}}
    if len(judges) < 2:
        return {"score": 0.0, "spans": 0.0, "questions": flags, "pairs": [],
                **({"sentences": 0.0} if sentences is not None else {})}
    sets = {j: covered(a for a in record["annotations"] if a["annotator"] == j) for j in judges}
    pairs: list[dict] = [{"a": a, "b": b, "spans": round(1 - span_f1(sets[a], sets[b]), 4)}
                         for a, b in combinations(judges, 2)]
    spans = round(sum(p["spans"] for p in pairs) / len(pairs), 4)
    flags[SPANS] = spans > 0
    values = {r["annotator"]: r.get("values") or {} for r in record.get("responses", []) if r["annotator"] in judges}
    for q in asked:
        answers = {_key(_hashable(q, v[q.name])) for v in values.values() if q.name in v}
        flags[q.name] = len(answers) > 1
    if sentences is None:
        score = round((spans + sum(flags[q.name] for q in asked)) / (1 + len(asked)), 4)
        return {"score": score, "spans": spans, "questions": flags, "pairs": pairs}
    split = sentence_split(sentences, judges)
    score = round((spans + sum(flags[q.name] for q in asked) + split) / (2 + len(asked)), 4)
    return {"score": score, "spans": spans, "questions": flags, "pairs": pairs, "sentences": split}


def adjudication_order(records: Sequence[dict], judges: Sequence[Sequence[str]], questions: Sequence[Question],
                       sentences: Sequence[Sequence[SentenceRow]] | None = None) -> list[tuple[int, dict]]:
    """Every record as (its position, its disagreement), most contested first, ties in record order: the one
    order of the records to adjudicate. `judges` and `sentences` (the rows, None when the bundle asks no
    sentence verdicts) are per record, in the same order as `records`."""
    scored = [(i, disagreement(r, judges[i], questions, None if sentences is None else sentences[i]))
              for i, r in enumerate(records)]
    return sorted(scored, key=lambda x: (-x[1]["score"], x[0]))


def _key(value) -> str:
    """A comparable form of an answer (frozensets and tuples as sorted/ordered text)."""
    if isinstance(value, frozenset):
        return repr(sorted(value, key=repr))
    return repr(value)


def adjudicate_first(records: Sequence[dict], judges: Sequence[Sequence[str]], questions: Sequence[Question],
                     sentences: Sequence[Sequence[SentenceRow]] | None = None, top: int = 20) -> list[dict]:
    """The contested records (score above 0) in `adjudication_order`, the first `top`, as merge's printout and
    report list them: `{record_id, annotators, score, spans, questions (those answered apart), sentences?}`."""
    out: list[dict] = []
    for i, d in adjudication_order(records, judges, questions, sentences):
        if d["score"] <= 0 or len(out) >= top:
            break
        out.append({"record_id": records[i]["id"], "annotators": list(judges[i]), "score": d["score"],
                    "spans": d["spans"], "questions": [q for q, flag in d["questions"].items() if flag and q != SPANS],
                    **({"sentences": d["sentences"]} if "sentences" in d else {})})
    return out
