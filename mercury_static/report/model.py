"""The report of `merge` (a round) and of `gold`, as typed dataclasses: merge and gold build them, report.json is
their JSON (typed_json.to_json), the page's sections (sections.py) read them by attribute, and
docs/report.schema.json is their JSON Schema (`python -m mercury_static.tools.report_schema` writes it).

A field with a default is one an older report may lack (read as that default: the page says what the report
lacks); one marked OLDER is never null in a report written today. A field marked OPTIONAL is absent from a
round that did not have it (no check records, no sentence verdicts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mercury_static.report.typed_json import OLDER, OPTIONAL, from_json, json_schema


@dataclass
class Output:
    """What was written: the merged file's format and version, or a folder output's format and files."""

    format: str
    version: int | None = field(default=None, metadata=OPTIONAL)
    files: list[str] | None = field(default=None, metadata=OPTIONAL)


@dataclass
class MergeCounts:
    """Record versions read, merged, and set aside as duplicates, superseded or rejected."""

    read: int
    merged: int
    duplicate: int
    superseded: int
    rejected: int


@dataclass
class BundleModel:
    """The model the bundle was built with (its `trained` part: what `train` fitted it on)."""

    name: str | None
    sha256: str | None
    trained: dict[str, Any] | None


@dataclass
class RecordCounts:
    total: int
    annotated: int
    judged: int
    judged_by_2_or_more: int


@dataclass
class AnnotatorCounts:
    annotator: str
    annotations: int
    records_annotated: int
    judged: int
    submitted: int
    discarded: int
    in_progress: int


@dataclass
class LabelCount:
    label: str
    annotations: int


@dataclass
class LabelAgreement:
    """Summary-span agreement (character F1 over annotator pairs) on one label."""

    label: str
    records: int
    char_f1: float | None
    char_f1_ci: list[float] | None = None


@dataclass
class Pair:
    """Two annotators over the records both judged: span F1s and Cohen's kappa of the verdicts."""

    a: str
    b: str
    records: int
    char_f1: float | None
    exact_f1: float | None
    observed_agreement: float | None
    kappa: float | None
    kappa_ci: list[float] | None = None


@dataclass
class Overall:
    """The span agreement and the verdicts' Krippendorff's alpha over every pair."""

    pairs: int
    records: int
    char_f1: float | None
    exact_f1: float | None
    alpha: float | None
    alpha_ci: list[float] | None = None
    char_f1_ci: list[float] | None = None
    exact_f1_ci: list[float] | None = None


@dataclass
class Bootstrap:
    """How the intervals were drawn (merge/bootstrap.py)."""

    resamples: int
    seed: int
    level: float
    interval: str
    over: str


@dataclass
class Adjudication:
    """A record to adjudicate, in the review bundle's order."""

    record_id: str
    annotators: list[str]
    score: float
    spans: float
    questions: list[str]
    sentences: float | None = field(default=None, metadata=OPTIONAL)


@dataclass
class QuestionAgreement:
    """Krippendorff's alpha of one question's answers, per metric."""

    question: str
    type: str
    answers: int
    records: int
    alpha: dict[str, float | None]
    alpha_ci: dict[str, list[float] | None] | None = field(default=None, metadata=OLDER)


@dataclass
class AgentAgreement:
    """One suggestion agent against the annotators' answers, split by whether its suggestion was shown."""

    question: str
    agent: str
    split: str
    records: int
    answers: int
    agree: float | None
    majority_records: int
    accuracy: float | None
    alpha: float | None
    auc: float | None
    accepted: float | None


@dataclass
class ProgressCounts:
    """One annotator's records by status, and what is left in their queue (None without queues)."""

    submitted: int
    in_progress: int
    discarded: int
    queue: int | None
    queue_left: int | None
    queue_todo: int | None = None


@dataclass
class Timeline:
    """Records submitted per annotator in steps of `bin_s` seconds from each bin's start (UTC)."""

    bin_s: float | None
    bins: list[str]
    submitted: dict[str, list[int]]


@dataclass
class Progress:
    overlap: int
    records_done: int
    records_left: int
    annotators: dict[str, ProgressCounts]
    timeline: Timeline | None = field(default=None, metadata=OLDER)


@dataclass
class AnnotatorTime:
    """One annotator's figures: the sum of their records' active time, how many records have one, the median."""

    active_s: float
    records: int
    median_record_s: float | None = None


@dataclass
class TimeOnTask:
    """`time_on_task` of merge's report: per annotator, per record and annotator, and each annotation's
    creation-to-save time per annotator (annotators and records without a time are left out); the idle
    threshold said with them, so a figure is read with its rule."""

    idle_threshold_s: float
    annotators: dict[str, AnnotatorTime] = field(default_factory=dict)
    records: dict[str, dict[str, float]] = field(default_factory=dict)
    annotations_elapsed_s: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class SentenceAnnotator:
    annotator: str
    sentences: int
    judged: int
    flagged: int
    not_checked: int
    verdicts: dict[str, int]


@dataclass
class SentencePair:
    a: str
    b: str
    sentences: int
    observed_agreement: float | None
    kappa: float | None
    kappa_ci: list[float] | None


@dataclass
class Evidence:
    """Agreement on the evidence sentences of the verdicts both annotators of a pair gave alike."""

    sentences: int
    pairs: int
    f1: float | None
    f1_ci: list[float] | None


@dataclass
class Sentences:
    """Sentence verdicts: what each annotator judged, the verdicts given, and the agreement on them."""

    verdicts: list[str]
    flagged_as: str
    annotators: list[SentenceAnnotator]
    distribution: dict[str, int]
    records: int
    sentences: int
    pairable: int
    alpha: float | None
    alpha_ci: list[float] | None
    pairwise: list[SentencePair]
    evidence: Evidence


@dataclass
class CheckFigure:
    value: float | None
    ci: list[float] | None
    items: int


@dataclass
class CheckAnnotator:
    """One annotator on the check records: each measure's figure, and the measures below the threshold."""

    annotator: str
    records: int
    figures: dict[str, CheckFigure]
    below: list[str]


@dataclass
class Checks:
    """The annotators scored on the check records (merge --checks)."""

    records: int
    threshold: float
    method: Bootstrap
    measures: dict[str, str]
    annotators: list[CheckAnnotator]


@dataclass
class RoundReport:
    """merge's report of a round (and `progress --report`'s of a round in flight)."""

    output: Output | None = field(default=None, metadata=OLDER)
    counts: MergeCounts | None = field(default=None, metadata=OLDER)
    answers_dropped: int | None = field(default=None, metadata=OLDER)
    files: int | None = field(default=None, metadata=OLDER)
    model: BundleModel | None = field(default=None, metadata=OLDER)
    problems: list[str] | None = field(default=None, metadata=OLDER)
    notes: list[str] | None = field(default=None, metadata=OLDER)
    records: RecordCounts | None = field(default=None, metadata=OLDER)
    verdict: str | None = field(default=None, metadata=OLDER)
    annotators: list[AnnotatorCounts] = field(default_factory=list)
    labels: list[LabelCount] = field(default_factory=list)
    label_counts: dict[str, dict[str, int]] | None = field(default=None, metadata=OLDER)
    label_agreement: list[LabelAgreement] | None = field(default=None, metadata=OLDER)
    pairwise: list[Pair] = field(default_factory=list)
    overall: Overall | None = field(default=None, metadata=OLDER)
    bootstrap: Bootstrap | None = field(default=None, metadata=OLDER)
    adjudication: list[Adjudication] = field(default_factory=list)
    questions: list[QuestionAgreement] = field(default_factory=list)
    agents: list[AgentAgreement] = field(default_factory=list)
    progress: Progress | None = field(default=None, metadata=OLDER)
    sentences: Sentences | None = field(default=None, metadata=OPTIONAL)
    checks: Checks | None = field(default=None, metadata=OPTIONAL)
    time_on_task: TimeOnTask | None = field(default=None, metadata=OLDER)


@dataclass
class GoldCounts:
    gold: int
    not_adjudicated: int
    undecided_annotations: int


@dataclass
class NotAdjudicated:
    record_id: str
    touched_by: list[str]


@dataclass
class Undecided:
    """An annotation the adjudicating reviewer left without a decision."""

    record_id: str
    key: str
    reviewer: str


@dataclass
class ReviewerPair:
    """Two reviewers over the records both adjudicated, and the records where they differ."""

    a: str
    b: str
    records: int
    span_f1: float
    answers_agree: float | None
    differ: list[str]


@dataclass
class Reviewers:
    reviewers: list[str]
    pairs: list[ReviewerPair]


@dataclass
class GoldSentences:
    judged: int
    verdict_accuracy: float | None
    evidence_f1: float | None


@dataclass
class GoldAnnotator:
    """An annotator against the gold: span precision, recall and F1, and each question's accuracy."""

    annotator: str
    records: int
    span_precision: float | None
    span_recall: float | None
    span_f1: float | None
    accuracy: dict[str, float | None]
    sentences: GoldSentences | None = field(default=None, metadata=OPTIONAL)


@dataclass
class AgentSpans:
    agent: str
    records: int
    span_precision: float | None
    span_recall: float | None
    span_f1: float | None


@dataclass
class GoldAgent:
    question: str
    agent: str
    records: int
    accuracy: float | None
    auc: float | None


@dataclass
class Changed:
    """A record the review changed: how much, in its spans and its answers."""

    record_id: str
    change: float
    spans: float
    answers_changed: int


@dataclass
class Quality:
    annotators: list[GoldAnnotator]
    agent_spans: list[AgentSpans]
    agents: list[GoldAgent]
    changed: list[Changed]


@dataclass
class GoldReport:
    """gold's report: what is not adjudicated or left undecided, the reviewers' agreement, and the annotators'
    and agents' figures against the gold."""

    output: Output
    counts: GoldCounts
    not_adjudicated: list[NotAdjudicated]
    undecided: list[Undecided]
    reviewers: Reviewers
    quality: Quality
    notes: list[str]


Report = RoundReport | GoldReport


def read_report(data: dict) -> Report:
    """A JSON report (today's or an older one) as its dataclasses: gold's has `quality`."""
    return from_json(GoldReport if "quality" in data else RoundReport, data)


def report_schema() -> dict:
    """docs/report.schema.json: merge's or gold's report.json."""
    return json_schema("mercury-static report.json (merge --report, gold --report, progress --report)",
                       RoundReport, GoldReport)
