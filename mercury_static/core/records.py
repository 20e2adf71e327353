"""The typed data model shared by every pipeline step."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Section:
    """A document inside a source text (e.g. one article of a SummHay haystack)."""

    start: int
    end: int
    title: str
    doc_id: str


@dataclass
class Record:
    """One (source, summary) pair to annotate."""

    id: str
    source: str
    summary: str
    metadata: dict = field(default_factory=dict)
    prior_annotations: list[dict] = field(default_factory=list)
    source_sections: list[Section] | None = None
    gold: dict | None = None
    origin: str = ""
    summary_sentences: list[tuple[int, int]] | None = None
    """The summary's sentences as the dataset cuts them (code points; checked by `read.sentences.check_cut`):
    the build stores these instead of `segment.split_sentences`, so sentence judgments map one to one."""
    prior_sentences: list[dict] = field(default_factory=list)
    """Sentence verdicts people gave before (a QAGS worker's answers): `{annotator, sentence, verdict}`."""
    sentence_suggestions: list[dict] = field(default_factory=list)
    """Sentence verdicts an agent gave (SummHay's evaluator): `{agent, sentence, verdict}`."""
    suggestions: list[dict] = field(default_factory=list)
    """Span suggestions the dataset carries (Label Studio's predictions): `{agent, score, value, where}`, the value
    in the span question's shape; the build names the question and checks the labels (`span_suggestions`)."""
    verdict_scale: str | None = None
    """The dataset's own sentence verdicts (a key of settings/model.py's `DATASET_VERDICTS`), which turn
    `sentence_verdicts` on when the settings do not."""


class InputError(Exception):
    """Bad input, reported as one line naming the file, the place and the field."""

    def __init__(self, file: str | os.PathLike[str], where: str | None, field: str | None, message: str):
        self.file, self.where, self.field, self.message = str(file), where, field, message
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [self.file]
        if self.where:
            parts.append(self.where)
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts) + f": {self.message}"
