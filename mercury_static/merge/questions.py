"""The check of one annotator's answers to the bundle's questions (`Bundle.settings.questions`).

An export of version 2 carries, per record, `responses` (question name -> value, only the questions answered;
the span question is answered by `annotations`) and `suggestions` (`{shown, accepted: {question: agent}}`).
Each fault is one `Reject` naming the field (`responses.quality`) and drops that answer (or that acceptance)
only: the record entry, its status and its span annotations stay, because a labelling tool should lose as
little of an annotator's work as it can, and the problem line says exactly what was dropped. Kept apart
from checks.py (spans and times) because it depends on the bundle's settings.
"""

from __future__ import annotations

from mercury_static.merge.checks import Reject, short
from mercury_static.settings.checks import value_problem
from mercury_static.settings.model import Question

TEXT_LIMIT = 10_000
"""Longest `text` response in code points: an answer is a comment, not a document, and a runaway paste should
be a problem line rather than megabytes in every output."""


def check_value(q: Question, value) -> None:
    """Reject unless `value` is a valid answer to `q` (settings.value_problem, as build checks suggestions;
    the span question is answered by `annotations`)."""
    field_name = f"responses.{q.name}"
    if q.type == "span":
        raise Reject(field_name, f"the span question {q.name!r} is answered by `annotations`, not in `responses`")
    if q.type == "text" and isinstance(value, str) and len(value) > TEXT_LIMIT:
        raise Reject(field_name, f"{len(value)} characters (at most {TEXT_LIMIT})")
    problem = value_problem(q, value)
    if problem is not None:
        raise Reject(field_name, short(problem, 160))


def check_responses(questions: dict[str, Question], responses, status: str) -> tuple[dict, list[Reject]]:
    """The valid answers of one record entry, and one `Reject` per answer dropped (a value that does not fit,
    an unknown question) or, on a `submitted` entry, per required question left out (a draft or a discarded
    record may leave them out); `responses` that is not an object is one line and no answers.

    A submitted entry missing a required answer stays submitted: the span question is answered by its
    annotations, which were checked on their own, so the span agreement keeps that judge; the missing question
    simply has no answer from them, so it never counts as their full answer to it (agreement reads only the
    answers present). A required answer that was given but dropped is one line, not two."""
    if responses is None:
        responses = {}
    if not isinstance(responses, dict):
        return {}, [Reject("responses", "expected an object {question: value}")]
    kept, dropped = {}, []
    for name, value in responses.items():
        q = questions.get(name)
        try:
            if q is None:
                names = ", ".join(n for n, x in questions.items() if x.type != "span") or "none"
                raise Reject(f"responses.{name}", f"unknown question (bundle questions: {names})")
            check_value(q, value)
        except Reject as e:
            dropped.append(e)
            continue
        kept[name] = value
    if status == "submitted":
        dropped += [Reject(f"responses.{q.name}", "required, missing on a submitted record")
                    for q in questions.values() if q.required and q.type != "span" and q.name not in responses]
    return kept, dropped


def check_suggestion_use(questions: dict[str, Question], use, suggestions: list[dict]) -> tuple[dict | None,
                                                                                                 list[Reject]]:
    """`{shown, accepted}` of one record entry, and one `Reject` per acceptance dropped: each accepted agent made
    a suggestion for that question on this record, and nothing is accepted that was not shown. None when the
    entry does not say, or says it so that whether suggestions were shown is unknown."""
    if use is None:
        return None, []
    if not isinstance(use, dict) or not isinstance(use.get("shown"), bool):
        return None, [Reject("suggestions.shown", "expected true or false")]
    accepted = use.get("accepted") or {}
    if not isinstance(accepted, dict):
        return {"shown": use["shown"], "accepted": {}}, [Reject("suggestions.accepted",
                                                                 "expected an object {question: agent}")]
    kept, dropped = {}, []
    for name, agent in accepted.items():
        field_name = f"suggestions.accepted.{name}"
        agents = {s.get("agent") for s in suggestions if s.get("question") == name}
        if name not in questions:
            dropped.append(Reject(field_name, "unknown question"))
        elif not use["shown"]:
            dropped.append(Reject(field_name, "accepted a suggestion that was not shown (suggestions.shown is false)"))
        elif not isinstance(agent, str) or agent not in agents:
            dropped.append(Reject(field_name, f"{short(repr(agent))} made no suggestion for this question on this "
                                              "record"))
        else:
            kept[name] = agent
    return {"shown": use["shown"], "accepted": kept}, dropped
