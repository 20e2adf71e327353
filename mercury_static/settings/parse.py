"""`parse_settings`: a settings document (the parsed YAML/JSON of `--settings`, or what reader.py makes of an
Argilla settings.json) checked into the dataclasses of model.py. Every fault is one InputError naming the
file, the entry (`questions[2]`) and the key.
"""

from __future__ import annotations

import math
import re
from typing import NoReturn

from mercury_static.core.names import distinct_names
from mercury_static.core.records import InputError
from mercury_static.core.safeio import json_kind
from mercury_static.settings.checks import check_distribution
from mercury_static.settings.hotkeys import check_keys
from mercury_static.settings.model import (
    DEFAULT_VERDICTS, METADATA_TYPES, QUESTION_TYPES, SENTENCE_MODES, SPAN_DESCRIPTION, SPAN_TITLE, ColumnSuggestion,
    Distribution, Fields, MetadataProperty, Option, Question, SentenceVerdicts, Settings, TextField)

NAME = re.compile(r"(?=.*[a-z0-9])[a-z0-9_-]{1,200}")
"""Argilla's rule for the names of fields, questions and metadata (its server's `*_CREATE_NAME_REGEX`)."""
MIN_VISIBLE_OPTIONS = 3
"""Argilla's least `visible_options` of a label, multi-label or span question."""


class _Doc:
    """A mapping of the settings document being checked, with its place for messages."""

    def __init__(self, value, file: str, where: str | None, allowed: tuple[str, ...]):
        if not isinstance(value, dict):
            raise InputError(file, where, None, f"expected a mapping, got {json_kind(value)}")
        unknown = [k for k in value if k not in allowed]
        if unknown:
            raise InputError(file, where, str(unknown[0]), f"unknown key (expected one of: {', '.join(allowed)})")
        self.value, self.file, self.where = value, file, where

    def fail(self, key: str | None, message: str) -> NoReturn:
        raise InputError(self.file, self.where, key, message)

    def get(self, key: str, kind, default=None, required: bool = False, empty: bool = False):
        if key not in self.value or self.value[key] is None:
            if required:
                self.fail(key, "missing")
            return default
        value = self.value[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            self.fail(key, f"expected {_names(kinds)}, got {json_kind(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            self.fail(key, f"{value} is not a finite number")
        if isinstance(value, str) and kind is str and not empty and not value.strip():
            self.fail(key, "empty text")
        return value

    def name(self, key: str = "name") -> str:
        value = self.get(key, str, required=True)
        if not NAME.fullmatch(value):
            self.fail(key, f"{value!r} is not a name of lower-case letters, digits, _ and - (Argilla's rule, at "
                      "most 200)")
        return value


def _names(kinds: tuple) -> str:
    words = {str: "a string", bool: "true or false", int: "an integer", float: "a number", list: "a list",
             dict: "a mapping"}
    return " or ".join(words[k] for k in kinds if k in words)


def parse_settings(doc, file: str) -> Settings:
    """Check a settings document (docs/DESIGN.md, "Settings file") into `Settings`."""
    top = _Doc(doc, file, None, ("fields", "questions", "guidelines", "metadata", "suggestions", "distribution",
                                 "vectors", "keys", "citations", "sentence_verdicts"))
    fields = _fields(top.get("fields", dict, {}), file)
    questions = _questions(top.get("questions", list), file)
    metadata = _metadata(top.get("metadata", list, []), file, fields)
    guidelines = top.get("guidelines", str)
    sugg = _Doc(top.get("suggestions", dict, {}), file, "suggestions", ("blind", "columns", "file"))
    columns = tuple(_column_suggestion(x, file, f"suggestions.columns[{i}]", questions)
                    for i, x in enumerate(sugg.get("columns", list, [])))
    blind = _blind(sugg)
    vectors = _Doc(top.get("vectors", dict, {}), file, "vectors", ("similar_records",))
    citation_patterns = _citation_patterns(top.get("citations", dict), file)
    dist = top.get("distribution", dict)
    min_submitted = None
    if dist is not None and "annotators" not in dist:
        d = _Doc(dist, file, "distribution", ("min_submitted",))
        min_submitted = d.get("min_submitted", int, required=True)
        if min_submitted < 1:
            d.fail("min_submitted", f"{min_submitted} must be at least 1")
        dist = None
    distribution = None if dist is None else _distribution(dist, file)
    if isinstance(blind, tuple) and distribution:
        # a misspelt blind name would silently show that annotator every suggestion
        stray = [n for n in blind if n not in distribution.annotators]
        if stray:
            sugg.fail("blind", f"{stray[0]!r} is not one of distribution.annotators "
                      f"({', '.join(distribution.annotators)})")
    if blind:
        _check_blind_metadata(metadata, columns, file)
    return Settings(fields=fields, questions=questions, metadata=metadata, guidelines=guidelines,
                    suggestions=columns, suggestions_file=sugg.get("file", str), blind=blind,
                    similar_records=vectors.get("similar_records", bool, True),
                    distribution=distribution, min_submitted=min_submitted, file=file,
                    keys=check_keys(top.value["keys"], file) if top.value.get("keys") is not None else {},
                    citation_patterns=citation_patterns,
                    sentence_verdicts=_sentence_verdicts(top.value.get("sentence_verdicts"), file))


def _sentence_verdicts(value, file: str) -> SentenceVerdicts | None:
    """`sentence_verdicts: off | shown | required`, or a mapping {mode, options, evidence, flagged}."""
    where = "sentence_verdicts"
    if value is None or value is False:
        return None
    if isinstance(value, str):
        value = {"mode": value}
    elif value is True:
        value = {}
    sub = _Doc(value, file, where, ("mode", "options", "evidence", "flagged"))
    mode = sub.get("mode", str, "shown")
    if mode not in SENTENCE_MODES:
        sub.fail("mode", f"{mode!r} is not one of {', '.join(SENTENCE_MODES)}")
    if mode == "off":
        return None
    options = _options(sub) if "options" in value else DEFAULT_VERDICTS
    values = [o.value for o in options]
    default_evidence = ("supported",) if "supported" in values else (values[0],)
    evidence = sub.get("evidence", (list, str), list(default_evidence))
    evidence = [evidence] if isinstance(evidence, str) else evidence
    for v in evidence:
        if v not in values:
            sub.fail("evidence", f"{v!r} is not one of the verdicts ({', '.join(values)})")
    default_flagged = "unsupported" if "unsupported" in values else None
    flagged = sub.get("flagged", str, default_flagged)
    if flagged is not None and flagged not in values:
        sub.fail("flagged", f"{flagged!r} is not one of the verdicts ({', '.join(values)})")
    return SentenceVerdicts(mode, tuple(options), tuple(dict.fromkeys(evidence)), flagged)


def _citation_patterns(value, file: str) -> tuple[str, ...] | None:
    """`citations: {patterns: [regex, ...]}`, each checked as the page will use it (citations.py)."""
    from mercury_static.core.citations import pattern_problem

    if value is None:
        return None
    d = _Doc(value, file, "citations", ("patterns",))
    patterns = d.get("patterns", list, required=True)
    for i, p in enumerate(patterns):
        problem = pattern_problem(p)
        if problem:
            raise InputError(file, "citations", f"patterns[{i}]", problem)
    return tuple(patterns)


def _text_field(value, file: str, where: str, name: str | None, title: str) -> TextField:
    # the two texts are annotated by offset, so they are plain text (no markdown key)
    keys = ("name", "title", "column", "required", "description") + (() if name else ("markdown",))
    d = _Doc(value, file, where, keys)
    role = name
    name = d.name() if not role or "name" in d.value else role
    column = d.get("column", str, None if role else name)
    return TextField(name=name, title=d.get("title", str, title), column=column,
                     markdown=d.get("markdown", bool, False), required=d.get("required", bool, True),
                     description=d.get("description", str, "", empty=True))


def _fields(value, file: str) -> Fields:
    d = _Doc(value, file, "fields", ("source", "summary", "extra"))
    source = _text_field(d.get("source", dict, {}), file, "fields.source", "source", "Source")
    summary = _text_field(d.get("summary", dict, {}), file, "fields.summary", "summary", "Summary")
    extra: list[TextField] = []
    for i, item in enumerate(d.get("extra", list, [])):
        f = _text_field(item, file, f"fields.extra[{i}]", None, "")
        if f.name in ("source", "summary", source.name, summary.name) or any(e.name == f.name for e in extra):
            raise InputError(file, f"fields.extra[{i}]", "name", f"duplicate field name {f.name!r}")
        extra.append(f if f.title else _replace(f, title=f.name.replace("_", " ").capitalize()))
    if source.name == summary.name:
        raise InputError(file, "fields.summary", "name", f"duplicate field name {summary.name!r}")
    return Fields(source, summary, tuple(extra))


def _options(d: _Doc) -> tuple[Option, ...]:
    items = d.get("options", list, required=True)
    options: list[Option] = []
    for k, item in enumerate(items):
        if isinstance(item, str) and item.strip():
            option = Option(item, item)
        elif not isinstance(item, dict):  # options: [1, 2] (YAML numbers): the values are text
            hint = f" {item!r} (quote it: '{item}')" if isinstance(item, (int, float)) else ""
            raise InputError(d.file, f"{d.where}.options[{k}]", None,
                             f"expected a text or {{value, text}}, got {json_kind(item)}{hint}")
        else:
            o = _Doc(item, d.file, f"{d.where}.options[{k}]", ("value", "text"))
            value = o.get("value", str, required=True)
            option = Option(value, o.get("text", str, value))
        if any(x.value == option.value for x in options):
            d.fail("options", f"duplicate option {option.value!r}")
        options.append(option)
    if len(options) < 2:
        d.fail("options", "expected at least two options")
    return tuple(options)


def _rating_values(d: _Doc) -> tuple[int, ...]:
    values = d.get("values", list, required=True)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            d.fail("values", f"{v!r} is not an integer (a rating is an integer scale)")
    if len(set(values)) != len(values):
        d.fail("values", f"duplicate value {next(v for v in values if values.count(v) > 1)}")
    if len(values) < 2:
        d.fail("values", "expected at least two values")
    return tuple(values)


GRANULARITIES = ("word", "character")
QUESTION_KEYS = {"span": ("labels", "label_texts", "allow_overlapping", "visible_options", "granularity"),
                 "label": ("options", "visible_options"),
                 "multi_label": ("options", "visible_options", "options_order"),
                 "ranking": ("options",), "rating": ("values",), "text": ("markdown",)}


def _questions(items, file: str) -> tuple[Question, ...]:
    if items is None:
        return Settings().questions
    questions: list[Question] = []
    for i, item in enumerate(items):
        where = f"questions[{i}]"
        kind = _Doc(item, file, where, tuple(item) if isinstance(item, dict) else ()).get("type", str, required=True)
        if kind not in QUESTION_TYPES:
            raise InputError(file, where, "type", f"{kind!r} is not one of {', '.join(QUESTION_TYPES)}")
        d = _Doc(item, file, where, ("name", "type", "title", "description", "required", *QUESTION_KEYS[kind]))
        name = d.name()
        if any(q.name == name for q in questions):
            d.fail("name", f"duplicate question name {name!r}")
        default_title = SPAN_TITLE if kind == "span" else name.replace("_", " ").capitalize()
        q = Question(name=name, type=kind, title=d.get("title", str, default_title),
                     description=d.get("description", str, SPAN_DESCRIPTION if kind == "span" else "", empty=True),
                     required=d.get("required", bool, False))
        if kind in ("label", "multi_label", "ranking"):
            q = _replace(q, options=_options(d))
        elif kind == "rating":
            q = _replace(q, values=_rating_values(d))
        elif kind == "text":
            q = _replace(q, markdown=d.get("markdown", bool, False))
        else:
            q = _replace(q, labels=d.get("labels", (dict, list)), label_texts=_label_texts(d),
                         allow_overlapping=d.get("allow_overlapping", bool, True),
                         granularity=d.get("granularity", str, "word"))
            if q.granularity not in GRANULARITIES:
                d.fail("granularity", f"{q.granularity!r} is not one of {', '.join(GRANULARITIES)}")
        if kind in ("label", "multi_label", "span"):
            q = _replace(q, visible_options=_visible_options(d, len(q.options) if q.options else None))
        if kind == "multi_label":
            q = _replace(q, options_order=d.get("options_order", str, "natural"))
            if q.options_order not in ("natural", "suggestion"):
                d.fail("options_order", f"{q.options_order!r} is not one of natural, suggestion")
        questions.append(q)
    spans = [i for i, q in enumerate(questions) if q.type == "span"]
    if len(spans) != 1:
        where = f"questions[{spans[1]}]" if spans else "questions"
        raise InputError(file, where, "type", "expected exactly one span question (the span annotation of the "
                         f"summary), found {len(spans)}")
    return tuple(questions)


def _replace(q, **changes):
    from dataclasses import replace

    return replace(q, **changes)


def _label_texts(d: _Doc) -> tuple[Option, ...]:
    """The span labels' texts, `{label path: text}` (build checks the paths against the label tree)."""
    texts = d.get("label_texts", dict, {})
    for path, text in texts.items():
        if not isinstance(text, str) or not text.strip():
            d.fail("label_texts", f"{path!r}: expected a non-empty text, got {json_kind(text)}")
    return tuple(Option(path, text) for path, text in texts.items())


def _visible_options(d: _Doc, options: int | None) -> int | None:
    """Argilla's `visible_options`: at least 3 and at most the number of options (its server's rules)."""
    value = d.get("visible_options", int)
    if value is not None and (value < MIN_VISIBLE_OPTIONS or options is not None and value > options):
        d.fail("visible_options", f"{value} must be from {MIN_VISIBLE_OPTIONS} to the number of options"
               + (f" ({options})" if options is not None else ""))
    return value


def _metadata(items, file: str, fields: Fields) -> tuple[MetadataProperty, ...]:
    props: list[MetadataProperty] = []
    for i, item in enumerate(items):
        where = f"metadata[{i}]"
        d = _Doc(item, file, where, ("name", "title", "type", "column", "visible", "values", "min", "max"))
        name = d.name()
        if any(p.name == name for p in props):
            d.fail("name", f"duplicate metadata name {name!r}")
        kind = d.get("type", str, required=True)
        if kind not in METADATA_TYPES:
            d.fail("type", f"{kind!r} is not one of {', '.join(METADATA_TYPES)}")
        values = None
        if kind == "terms":
            for key in ("min", "max"):
                if key in item:
                    d.fail(key, "only integer and float properties have a range")
            raw = d.get("values", list)
            if raw is not None:
                if not raw or not all(isinstance(v, str) for v in raw) or len(set(raw)) != len(raw):
                    d.fail("values", "expected a list of distinct strings")
                values = tuple(raw)
        elif "values" in item:
            d.fail("values", "only terms properties have values (integer and float have min and max)")
        number = int if kind == "integer" else (int, float)
        low, high = d.get("min", number), d.get("max", number)
        if low is not None and high is not None and low > high:
            d.fail("min", f"{low} is greater than max {high}")
        props.append(MetadataProperty(name=name, title=d.get("title", str, name.replace("_", " ").capitalize()),
                                      type=kind, column=d.get("column", str, name),
                                      visible=d.get("visible", bool, True), values=values, min=low, max=high))
    return tuple(props)


def _column_suggestion(item, file: str, where: str, questions: tuple[Question, ...]) -> ColumnSuggestion:
    d = _Doc(item, file, where, ("question", "agent", "value_from", "score_from", "threshold", "at_or_above",
                                 "below"))
    name = d.get("question", str, required=True)
    q = next((x for x in questions if x.name == name), None)
    if q is None:
        d.fail("question", f"unknown question {name!r} (questions: {', '.join(x.name for x in questions)})")
    if q.type == "span":
        d.fail("question", "span suggestions come from --suggestions FILE or prior annotations, not columns")
    s = ColumnSuggestion(question=name, agent=d.get("agent", str, required=True),
                         value_from=d.get("value_from", str), score_from=d.get("score_from", str),
                         threshold=d.get("threshold", (int, float)), at_or_above=d.get("at_or_above", str),
                         below=d.get("below", str))
    if s.threshold is None:
        if s.value_from is None:
            d.fail("value_from", "missing (or give threshold, at_or_above and below to derive it from score_from)")
        for key in ("at_or_above", "below"):
            if getattr(s, key) is not None:
                d.fail(key, "only used with threshold")
    else:
        if s.value_from is not None:
            d.fail("value_from", "give either value_from or threshold, not both")
        if s.score_from is None:
            d.fail("score_from", "missing (threshold derives the value from the score)")
        if q.type != "label":
            d.fail("threshold", "a threshold derives a value of a label question")
        for key in ("at_or_above", "below"):
            value = d.get(key, str, required=True)
            if value not in [o.value for o in q.options]:
                d.fail(key, f"{value!r} is not an option of question {name!r}")
    return s


def _check_blind_metadata(metadata: tuple[MetadataProperty, ...], columns: tuple[ColumnSuggestion, ...],
                          file: str) -> None:
    """In blind mode a visible metadata property read from a suggestion's column would show that suggestion
    (its score in the list's filter, sort and record info) to the annotators it is hidden from."""
    for i, p in enumerate(metadata):
        rule = next((c for c in columns if p.visible and p.column in (c.score_from, c.value_from)), None)
        if rule:
            raise InputError(file, f"metadata[{i}]", "visible", f"column {p.column!r} holds the suggestion of agent "
                             f"{rule.agent!r}, which suggestions.blind hides: set visible: false")


def _blind(d: _Doc) -> bool | tuple[str, ...]:
    value = d.get("blind", (bool, list), False)
    if isinstance(value, list):
        if not all(isinstance(x, str) and x.strip() for x in value):
            d.fail("blind", "expected true, false or a list of annotator names")
        return distinct_names(value, d.file, d.where, "blind")
    return value


def _distribution(value, file: str) -> Distribution:
    d = _Doc(value, file, "distribution", ("annotators", "overlap"))
    names = d.get("annotators", list, required=True)
    overlap = d.get("overlap", int, 1)
    return check_distribution(names, overlap, file, "distribution")
