"""The bundle's questions (manifest `settings.questions`) and the check of one annotator's answers to them.

An export of version 2 carries, per record, `responses` (question name -> value, only the questions answered;
the span question is answered by `annotations`) and `suggestions` (`{shown, accepted: {question: agent}}`).
Each fault is one `Reject` naming the field (`responses.quality`), so merge skips that record entry only.
Kept apart from merge_checks.py (spans and times) because it depends on the bundle's settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from .merge_checks import Reject, short
from .records import InputError

TYPES = ("span", "label", "multi_label", "rating", "ranking", "text")
TEXT_LIMIT = 10_000
"""Longest `text` response in code points: a comment, not a document (the page's note field is as short)."""
SPAN_NAME = "spans"
"""The span question's name when the manifest has no `settings` (a bundle built before settings existed)."""


@dataclass(frozen=True)
class Question:
    """One question of the bundle: `options` are the values of label / multi_label / ranking questions,
    `values` the scale of a rating question."""

    name: str
    type: str
    title: str = ""
    required: bool = False
    options: tuple[str, ...] = ()
    values: tuple[int, ...] = ()


def read_questions(manifest: dict) -> tuple[Question, ...]:
    """The questions in form order; a manifest without `settings` has today's single span question.
    A malformed entry is an InputError naming `settings.questions[i].<key>` in manifest.json."""
    settings = manifest.get("settings")
    if settings is None:
        return (Question(SPAN_NAME, "span"),)
    raw = settings.get("questions") if isinstance(settings, dict) else None
    if not isinstance(raw, list):
        raise InputError("manifest.json", None, "settings.questions", "expected a list")
    out: list[Question] = []
    for i, q in enumerate(raw):
        where = f"settings.questions[{i}]"
        if not isinstance(q, dict) or not isinstance(q.get("name"), str) or q.get("type") not in TYPES:
            raise InputError("manifest.json", None, where, f"expected {{name, type}} with a type in {', '.join(TYPES)}")
        options: tuple[str, ...] = ()
        values: tuple[int, ...] = ()
        if q["type"] in ("label", "multi_label", "ranking"):
            items = q.get("options")
            if not isinstance(items, list) or not items or not all(
                    isinstance(o, dict) and isinstance(o.get("value"), str) for o in items):
                raise InputError("manifest.json", None, f"{where}.options", "expected a list of {value, text}")
            options = tuple(o["value"] for o in items)
        elif q["type"] == "rating":
            values = tuple(q.get("values") or ())
            if not values or not all(type(v) is int for v in values):
                raise InputError("manifest.json", None, f"{where}.values", "expected a list of integers")
        out.append(Question(name=q["name"], type=q["type"], title=q.get("title") or q["name"],
                            required=bool(q.get("required")), options=options, values=values))
    if [q.type for q in out].count("span") != 1 or len({q.name for q in out}) != len(out):
        raise InputError("manifest.json", None, "settings.questions", "expected unique names and exactly one "
                         "span question")
    return tuple(out)


def check_value(q: Question, value) -> None:
    """Reject unless `value` is a valid answer to `q` (the span question is answered by annotations)."""
    field_name = f"responses.{q.name}"
    if q.type == "label":
        if not isinstance(value, str) or value not in q.options:
            raise Reject(field_name, f"{short(repr(value))} is not one of the options ({', '.join(q.options)})")
    elif q.type == "multi_label":
        if not isinstance(value, list) or not value:
            raise Reject(field_name, "expected a non-empty list of options")
        bad = next((v for v in value if not isinstance(v, str) or v not in q.options), None)
        if bad is not None:
            raise Reject(field_name, f"{short(repr(bad))} is not one of the options ({', '.join(q.options)})")
        if len(set(value)) != len(value):
            raise Reject(field_name, "an option is given twice")
    elif q.type == "rating":
        if type(value) is not int or value not in q.values:
            raise Reject(field_name, f"{short(repr(value))} is not on the scale ({', '.join(map(str, q.values))})")
    elif q.type == "ranking":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value) \
                or sorted(value) != sorted(q.options):
            raise Reject(field_name, f"expected every option once, in the annotator's order "
                         f"({', '.join(q.options)}), got {short(repr(value))}")
    elif q.type == "text":
        if not isinstance(value, str) or not value.strip():
            raise Reject(field_name, "expected a non-empty string")
        if len(value) > TEXT_LIMIT:
            raise Reject(field_name, f"{len(value)} characters (at most {TEXT_LIMIT})")
    else:
        raise Reject(field_name, f"the {q.type} question is answered by `annotations`, not in `responses`")


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
