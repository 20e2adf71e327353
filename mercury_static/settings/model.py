"""The dataset settings (Argilla's vocabulary) as typed dataclasses: fields, questions, metadata, suggestions,
distribution, sentence verdicts. `Settings()` is today's behaviour (one span question, Source/Summary).

parse.py checks a settings document into these, manifest.py writes them into the manifest and reads them back,
checks.py checks a value against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    """The Argilla settings.json read (reader.py), kept whole in the manifest: `merge --format argilla`
    writes what the bundle asked and names in a note each way that differs from this file."""

    @property
    def span(self) -> Question:
        return next(q for q in self.questions if q.type == "span")

    def question(self, name: str) -> Question | None:
        return next((q for q in self.questions if q.name == name), None)


@dataclass
class MetadataRanges:
    """What the data holds per metadata property (the manifest's `values`, `min`, `max` when not given)."""

    terms: dict[str, set] = field(default_factory=dict)
    low: dict[str, float] = field(default_factory=dict)
    high: dict[str, float] = field(default_factory=dict)
