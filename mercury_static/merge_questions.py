"""The check of one annotator's answers to the bundle's questions (`Bundle.settings.questions`).

An export of version 2 carries, per record, `responses` (question name -> value, only the questions answered;
the span question is answered by `annotations`) and `suggestions` (`{shown, accepted: {question: agent}}`).
Each fault is one `Reject` naming the field (`responses.quality`), so merge skips that record entry only.
Kept apart from merge_checks.py (spans and times) because it depends on the bundle's settings.
"""

from __future__ import annotations

from .merge_checks import Reject, short
from .settings import Question, value_problem

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


def check_responses(questions: dict[str, Question], responses, status: str) -> dict:
    """The answers of one record entry, once every value holds and, when `submitted`, the required ones are
    there (a draft or a discarded record may leave them out)."""
    if responses is None:
        responses = {}
    if not isinstance(responses, dict):
        raise Reject("responses", "expected an object {question: value}")
    for name, value in responses.items():
        q = questions.get(name)
        if q is None:
            names = ", ".join(n for n, x in questions.items() if x.type != "span") or "none"
            raise Reject(f"responses.{name}", f"unknown question (bundle questions: {names})")
        check_value(q, value)
    if status == "submitted":
        missing = [q.name for q in questions.values() if q.required and q.type != "span" and q.name not in responses]
        if missing:
            raise Reject(f"responses.{missing[0]}", "required, missing on a submitted record")
    return dict(responses)


def check_suggestion_use(questions: dict[str, Question], use, suggestions: list[dict]) -> dict | None:
    """`{shown, accepted}` of one record entry: each accepted agent made a suggestion for that question on
    this record, and nothing is accepted that was not shown. None when the entry does not say."""
    if use is None:
        return None
    if not isinstance(use, dict) or not isinstance(use.get("shown"), bool):
        raise Reject("suggestions.shown", "expected true or false")
    accepted = use.get("accepted") or {}
    if not isinstance(accepted, dict):
        raise Reject("suggestions.accepted", "expected an object {question: agent}")
    for name, agent in accepted.items():
        field_name = f"suggestions.accepted.{name}"
        if name not in questions:
            raise Reject(field_name, "unknown question")
        if not use["shown"]:
            raise Reject(field_name, "accepted a suggestion that was not shown (suggestions.shown is false)")
        agents = {s.get("agent") for s in suggestions if s.get("question") == name}
        if not isinstance(agent, str) or agent not in agents:
            raise Reject(field_name, f"{short(repr(agent))} made no suggestion for this question on this record")
    return {"shown": use["shown"], "accepted": dict(accepted)}
