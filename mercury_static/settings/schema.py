"""The dataset settings (Argilla's vocabulary): fields, questions, metadata, suggestions, distribution.

`parse_settings` checks a settings document (the parsed YAML/JSON of `--settings`, or what
read_settings.py makes of an Argilla settings.json) into typed dataclasses; `Settings()` is
today's behaviour (one span question, Source/Summary). `manifest_settings` is the manifest's `settings`
key (docs/DESIGN.md). Every fault is one InputError naming the file, the entry (`questions[2]`) and the key.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import NoReturn

from mercury_static.core.names import distinct_names
from mercury_static.core.records import InputError
from mercury_static.settings.hotkeys import check_keys

NAME = re.compile(r"(?=.*[a-z0-9])[a-z0-9_-]{1,200}")
"""Argilla's rule for the names of fields, questions and metadata (its server's `*_CREATE_NAME_REGEX`)."""
MIN_VISIBLE_OPTIONS = 3
"""Argilla's least `visible_options` of a label, multi-label or span question."""
QUESTION_TYPES = ("span", "label", "multi_label", "rating", "ranking", "text")
METADATA_TYPES = ("terms", "integer", "float")
SPAN_QUESTION = "spans"
SPAN_TITLE = "Spans"
SPAN_DESCRIPTION = ("Select a span of the summary, pair it with its evidence in the source (or none: not "
                    "supported), and label it.")


@dataclass(frozen=True)
class TextField:
    """A text shown to annotators: the source, the summary, or an extra read-only field (`column` is the
    input column or metadata key it comes from; None for the two texts means --source-field/--summary-field).
    `name` of the two texts is their Argilla field name (`source`, `summary` unless an Argilla file names them);
    `description` is only carried to `merge --format argilla`."""

    name: str
    title: str
    column: str | None = None
    markdown: bool = False
    required: bool = True
    description: str = ""


@dataclass(frozen=True)
class Fields:
    source: TextField = TextField("source", "Source")
    summary: TextField = TextField("summary", "Summary")
    extra: tuple[TextField, ...] = ()


@dataclass(frozen=True)
class Option:
    """One choice of a label, multi_label or ranking question."""

    value: str
    text: str


@dataclass(frozen=True)
class Question:
    """One question of the form. `labels` (span only) is the label tree, None for --labels or the default,
    `label_texts` what the page shows for a label (else its path) and `allow_overlapping` whether Argilla may
    hold two spans over the same characters (False: the page offers one label per span); `options` for
    label/multi_label/ranking, `values` for rating, `markdown` for text. `visible_options` (Argilla: how many
    options show before "more"; the page follows it for label/multi_label) and `options_order` (multi_label)
    are carried to `merge --format argilla`."""

    name: str
    type: str
    title: str
    description: str = ""
    required: bool = False
    options: tuple[Option, ...] = ()
    values: tuple[int, ...] = ()
    markdown: bool = False
    labels: object = None
    label_texts: tuple[Option, ...] = ()
    allow_overlapping: bool = True
    visible_options: int | None = None
    options_order: str = "natural"
    granularity: str = "word"
    """span only: what a selection snaps to in the page, "word" (a mouse selection grows to whole words) or
    "character" (kept as made; Label Studio's `granularity="symbol"`)."""


@dataclass(frozen=True)
class MetadataProperty:
    """A metadata property read from the input column / metadata key `column`. `values` (terms) and
    `min`/`max` (integer, float) bound the values when given; otherwise the manifest gets them from the data."""

    name: str
    title: str
    type: str
    column: str
    visible: bool = True
    values: tuple[str, ...] | None = None
    min: float | None = None
    max: float | None = None


@dataclass(frozen=True)
class ColumnSuggestion:
    """A record-level suggestion read from input columns. The value is the column `value_from`, or, with
    `threshold`, derived from the score: `at_or_above` when score >= threshold, else `below`, and the stored
    score is then the confidence in that value (score, or 1 - score for `below`; see docs/DESIGN.md)."""

    question: str
    agent: str
    value_from: str | None = None
    score_from: str | None = None
    threshold: float | None = None
    at_or_above: str | None = None
    below: str | None = None


@dataclass(frozen=True)
class Distribution:
    """Argilla's task distribution: each record in `overlap` annotators' queues (min_submitted)."""

    annotators: tuple[str, ...]
    overlap: int


SENTENCE_MODES = ("off", "shown", "required")
DEFAULT_VERDICTS = (Option("supported", "Supported"), Option("unsupported", "Not supported"),
                    Option("unverifiable", "Cannot tell"))


@dataclass(frozen=True)
class SentenceVerdicts:
    """`sentence_verdicts`: every summary sentence judged. `mode` says what Submit does with sentences not
    checked (shown: asks once; required: refuses); `options` are the verdicts (the first is the one the
    confirm key gives, with the top lit evidence); `evidence` the verdicts that carry source sentences;
    `flagged` the verdict a sentence with a span on it counts as where no verdict was given (agreement,
    the sentence table), None: a category of its own, "flagged"."""

    mode: str = "shown"
    options: tuple[Option, ...] = DEFAULT_VERDICTS
    evidence: tuple[str, ...] = ("supported",)
    flagged: str | None = "unsupported"

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(o.value for o in self.options)


DATASET_VERDICTS = {
    "qags": SentenceVerdicts(options=(Option("yes", "Yes"), Option("no", "No")), evidence=("yes",), flagged="no"),
    "summhay": SentenceVerdicts(options=(Option("full", "Full coverage"), Option("partial", "Partial coverage"),
                                         Option("none", "No coverage")), evidence=("full", "partial"), flagged=None),
}
"""The sentence verdicts a sentence-level dataset judges with (read/qags.py, read/summhay.py): what
`sentence_verdicts` becomes when the settings name none and the input holds such judgments."""


FLAGGED = "flagged"
"""A sentence's verdict where a span lies on it and no verdict was given, when the settings map it to none."""


@dataclass(frozen=True)
class Settings:
    """Everything the settings file decides; `Settings()` is today's behaviour."""

    fields: Fields = Fields()
    questions: tuple[Question, ...] = (Question(SPAN_QUESTION, "span", SPAN_TITLE, SPAN_DESCRIPTION),)
    metadata: tuple[MetadataProperty, ...] = ()
    guidelines: str | None = None
    suggestions: tuple[ColumnSuggestion, ...] = ()
    suggestions_file: str | None = None
    blind: bool | tuple[str, ...] = False
    similar_records: bool = False
    distribution: Distribution | None = None
    citation_patterns: tuple[str, ...] | None = None
    """`citations.patterns`: the regular expressions of a summary's citation markers (citations.py); None:
    its defaults."""
    min_submitted: int | None = None
    """Argilla's `distribution.min_submitted` without named annotators (`distribution: {min_submitted: n}`):
    no queues, but `merge --format argilla` writes it and counts a record completed at n submissions."""
    file: str = "settings"
    """The settings file, as messages name it (only the defaults, which no message is about, have none)."""
    keys: dict = field(default_factory=dict)
    """The page's hotkeys the file changes, {action: keys} (hotkeys.py); the others keep their defaults."""
    sentence_verdicts: SentenceVerdicts | None = None
    """`sentence_verdicts` (None: off, the page asks no verdict per sentence)."""
    argilla: dict | None = None
    """The Argilla settings.json read (read_settings.py), kept whole in the manifest: `merge --format argilla`
    writes what the bundle asked and names in a note each way that differs from this file."""

    @property
    def span(self) -> Question:
        return next(q for q in self.questions if q.type == "span")

    def question(self, name: str) -> Question | None:
        return next((q for q in self.questions if q.name == name), None)


class _Doc:
    """A mapping of the settings document being checked, with its place for messages."""

    def __init__(self, value, file: str, where: str | None, allowed: tuple[str, ...]):
        if not isinstance(value, dict):
            raise InputError(file, where, None, f"expected a mapping, got {_kind(value)}")
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
            self.fail(key, f"expected {_names(kinds)}, got {_kind(value)}")
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


def _kind(value) -> str:
    from mercury_static.core.safeio import json_kind

    return json_kind(value)


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
                             f"expected a text or {{value, text}}, got {_kind(item)}{hint}")
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
            d.fail("label_texts", f"{path!r}: expected a non-empty text, got {_kind(text)}")
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


def check_distribution(names, overlap: int, file: str, where: str | None,
                       keys: tuple[str, str] = ("annotators", "overlap")) -> Distribution:
    """Annotator names (non-empty, distinct once normalised: names.distinct_names) and 1 <= overlap <= their
    number (shared with `assign`, whose `keys` are its flags)."""
    clean = distinct_names(names, file, where, keys[0])
    if not clean:
        raise InputError(file, where, keys[0], "no annotator names")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 1 <= overlap <= len(clean):
        raise InputError(file, where, keys[1], f"{overlap!r} must be an integer from 1 to the number of "
                         f"annotators ({len(clean)})")
    return Distribution(clean, overlap)


@dataclass
class MetadataRanges:
    """What the data holds per metadata property (the manifest's `values`, `min`, `max` when not given)."""

    terms: dict[str, set] = field(default_factory=dict)
    low: dict[str, float] = field(default_factory=dict)
    high: dict[str, float] = field(default_factory=dict)


def check_meta_value(prop: MetadataProperty, value, file: str, where: str, ranges: MetadataRanges):
    """`value` of one record checked against its property (InputError naming record and column); returns it
    as stored in the shard (a terms value: a string or a list of strings)."""
    def bad(message: str):
        raise InputError(file, where, prop.column, f"metadata {prop.name!r} ({prop.type}): {message}")

    if prop.type == "terms":
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(v, str) for v in items):
            bad(f"expected a string or a list of strings, got {_kind(value)}")
        for v in items:
            if prop.values is not None and v not in prop.values:
                bad(f"{v!r} is not one of {', '.join(prop.values)}")
            ranges.terms.setdefault(prop.name, set()).add(v)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            prop.type == "integer" and not isinstance(value, int)):
        bad(f"expected {'an integer' if prop.type == 'integer' else 'a number'}, got {_kind(value)} {value!r}")
    if prop.min is not None and value < prop.min or prop.max is not None and value > prop.max:
        bad(f"{value} is outside [{prop.min}, {prop.max}]")
    ranges.low[prop.name] = min(value, ranges.low.get(prop.name, value))
    ranges.high[prop.name] = max(value, ranges.high.get(prop.name, value))
    return value


def _question_json(q: Question) -> dict:
    out = {"name": q.name, "type": q.type, "title": q.title, "description": q.description, "required": q.required}
    if q.options:
        out["options"] = [{"value": o.value, "text": o.text} for o in q.options]
    if q.type == "rating":
        out["values"] = list(q.values)
    if q.type == "text":
        out["markdown"] = q.markdown
    # Argilla's span and label settings, only when given (a bundle without them keeps its id)
    if q.label_texts:
        out["label_texts"] = {o.value: o.text for o in q.label_texts}
    if not q.allow_overlapping:
        out["allow_overlapping"] = False
    if q.visible_options is not None:
        out["visible_options"] = q.visible_options
    if q.options_order != "natural":
        out["options_order"] = q.options_order
    if q.granularity != "word":
        out["granularity"] = q.granularity
    return out


def _field_json(f: TextField, role: str | None) -> dict:
    """A text field in the manifest: the two texts' Argilla name, required and description only when they
    are not the defaults (today's bundles keep their ids)."""
    out: dict = {"title": f.title} if role else {"name": f.name, "title": f.title, "markdown": f.markdown,
                                           "required": f.required}
    if role and f.name != role:
        out["name"] = f.name
    if role and not f.required:
        out["required"] = False
    if f.description:
        out["description"] = f.description
    return out


def _metadata_json(p: MetadataProperty, ranges: MetadataRanges) -> dict:
    """A metadata property in the manifest: its values (or range) as declared, else as the data holds them
    (for the page's filter), and then `from_data` names those keys (Argilla's file keeps them unset)."""
    out = {"name": p.name, "title": p.title, "type": p.type, "visible": p.visible}
    if p.type == "terms":
        out["values"] = list(p.values) if p.values is not None else sorted(ranges.terms.get(p.name, ()))
        observed = ["values"] if p.values is None else []
    else:
        out["min"] = p.min if p.min is not None else ranges.low.get(p.name)
        out["max"] = p.max if p.max is not None else ranges.high.get(p.name)
        observed = [k for k in ("min", "max") if getattr(p, k) is None]
    if observed:
        out["from_data"] = observed
    return out


def manifest_settings(s: Settings, ranges: MetadataRanges) -> dict:
    """The manifest's `settings` key (docs/DESIGN.md; the page's form, filters and suggestions read it)."""
    return {
        "fields": {"source": _field_json(s.fields.source, "source"),
                   "summary": _field_json(s.fields.summary, "summary"),
                   "extra": [_field_json(f, None) for f in s.fields.extra]},
        "questions": [_question_json(q) for q in s.questions],
        "metadata": [_metadata_json(p, ranges) for p in s.metadata],
        "suggestions": {"blind": list(s.blind) if isinstance(s.blind, tuple) else s.blind},
        "vectors": {"similar_records": s.similar_records},
        **({"distribution": {"min_submitted": s.min_submitted}} if s.min_submitted is not None else {}),
        **({"keys": {a: list(k) for a, k in s.keys.items()}} if s.keys else {}),
        **({"citations": {"patterns": list(s.citation_patterns)}} if s.citation_patterns is not None else {}),
        **({"sentence_verdicts": sentence_verdicts_json(s.sentence_verdicts)} if s.sentence_verdicts else {}),
        **({"argilla": s.argilla} if s.argilla is not None else {}),
    }


def sentence_verdicts_json(v: SentenceVerdicts) -> dict:
    """The manifest's `settings.sentence_verdicts` (what the page reads; `parse_settings` reads it back)."""
    return {"mode": v.mode, "options": [{"value": o.value, "text": o.text} for o in v.options],
            "evidence": list(v.evidence), "flagged": v.flagged}


def value_problem(q: Question, value, label_choices: list[str] | None = None,
                  lengths: tuple[int, int] | None = None) -> str | None:
    """What is wrong with `value` as an answer to (or suggestion for) question `q`, or None if it fits.

    Shared by build (suggestions) and merge (responses). A span value is a list of
    `{"label": leaf, "summary": [s, e], "source": [s, e] | null}` checked against the label choices and
    the (summary, source) lengths in code points."""
    options = [o.value for o in q.options]
    if q.type == "label":
        return None if isinstance(value, str) and value in options else f"{value!r} is not one of {', '.join(options)}"
    if q.type == "multi_label":
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            return f"expected a non-empty list of options, got {_kind(value)}"
        bad = next((v for v in value if v not in options), None)
        if bad is not None:
            return f"{bad!r} is not one of {', '.join(options)}"
        return "an option is given twice" if len(set(value)) != len(value) else None
    if q.type == "rating":
        ok = isinstance(value, int) and not isinstance(value, bool) and value in q.values
        return None if ok else f"{value!r} is not one of {', '.join(map(str, q.values))}"
    if q.type == "ranking":
        if not isinstance(value, list) or sorted(map(str, value)) != sorted(options) or len(value) != len(options) \
                or not all(isinstance(v, str) for v in value):
            return f"expected an ordering of all of {', '.join(options)} (each once)"
        return None
    if q.type == "text":
        return None if isinstance(value, str) and value.strip() else "expected a non-empty text"
    return _span_problem(value, label_choices or [], lengths)


def _span_problem(value, choices: list[str], lengths: tuple[int, int] | None) -> str | None:
    if not isinstance(value, list) or not value:
        return f"expected a non-empty list of spans, got {_kind(value)}"
    for k, span in enumerate(value):
        if not isinstance(span, dict) or set(span) - {"label", "summary", "source"} or "summary" not in span:
            return f"span {k}: expected {{label, summary: [start, end], source: [start, end] | null}}"
        if span.get("label") not in choices:
            return f"span {k}: label {span.get('label')!r} is not one of {', '.join(choices)}"
        for side, limit in (("summary", lengths[0] if lengths else None), ("source", lengths[1] if lengths else None)):
            pair = span.get(side)
            if pair is None and side == "source":
                continue
            if not (isinstance(pair, list) and len(pair) == 2 and all(
                    isinstance(x, int) and not isinstance(x, bool) for x in pair)):
                return f"span {k}: {side}: expected [start, end] integers"
            if not 0 <= pair[0] < pair[1] or limit is not None and pair[1] > limit:
                return f"span {k}: {side}: offsets {pair[0]}..{pair[1]} out of range (text has {limit} characters)"
    return None


def from_manifest(doc: dict, file: str = "manifest.json") -> Settings:
    """The `Settings` of a bundle's manifest `settings` (merge checks responses against its questions). The
    span question's labels are the manifest's `labels`, not repeated here."""
    doc = {k: v for k, v in doc.items() if k != "argilla"}
    doc["metadata"] = [{k: v for k, v in m.items() if k != "from_data" and k not in m.get("from_data", ())
                        and not (k == "values" and not v)} for m in doc.get("metadata", [])]
    return parse_settings(doc, file)
