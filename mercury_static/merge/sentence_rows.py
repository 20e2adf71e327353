"""Each summary sentence as each annotator who submitted its record left it (docs/sentence-verdicts.md): the
verdict given, else the settings' `flagged` verdict where a span of theirs lies on it, else `not checked`; the
`--format sentences` table, and what the sentence agreement and the adjudication order read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from mercury_static.bundle.contents import BundleRecord
from mercury_static.settings.model import FLAGGED, SentenceVerdicts

NOT_CHECKED = "not checked"
"""A sentence's effective verdict when its annotator neither judged it nor put a span on it."""
DUMP_STATUS = "unknown"
"""The status of a Mercury dump's annotator: a dump records none, so its annotators count as having submitted
(as `review` and the Argilla output count them)."""
COLUMNS = ("record_id", "sentence", "start", "end", "text", "annotator", "status", "verdict", "given", "evidence",
           "evidence_text", "labels", "updated_at")


@dataclass(frozen=True)
class SentenceRow:
    """One summary sentence of one record as one annotator left it."""

    record_id: str
    sentence: int
    start: int
    end: int
    text: str
    annotator: str
    status: str
    verdict: str
    """The effective verdict: given, else flagged (a span lies on it), else `not checked`."""
    given: bool
    evidence: tuple[int, ...]
    evidence_text: tuple[str, ...]
    labels: tuple[str, ...]
    """The labels (leaves) of the annotator's spans on the sentence, in span order, each once."""
    updated_at: str | None

    @property
    def flagged(self) -> bool:
        return not self.given and self.verdict != NOT_CHECKED


def flagged_verdict(settings: SentenceVerdicts | None) -> str:
    """What a sentence with a span on it and no verdict counts as."""
    return settings.flagged if settings is not None and settings.flagged else FLAGGED


def submitters(record: dict) -> dict[str, str]:
    """The annotators who submitted a merged record (a dump's annotators too), with their status."""
    out = {r["annotator"]: r["status"] for r in record["responses"] if r["status"] == "submitted"}
    answered = {r["annotator"] for r in record["responses"]}
    for a in [*record["annotations"], *record.get("sentences", [])]:
        if a["annotator"] not in answered:
            out.setdefault(a["annotator"], DUMP_STATUS)
    return dict(sorted(out.items()))


def _leaves(label: Sequence[str]) -> list[str]:
    return [x for x in label if not any(o.startswith(f"{x}.") for o in label)]


def record_rows(bundle_record: BundleRecord, record: dict, settings: SentenceVerdicts | None) -> list[SentenceRow]:
    """The rows of one merged record: every summary sentence (the bundle's cut) for every submitter, by
    sentence then annotator."""
    flagged = flagged_verdict(settings)
    given = {(v["annotator"], v["sentence"]): v for v in record.get("sentences", [])}
    who = submitters(record)
    rows = []
    for i, (start, end) in enumerate(bundle_record.summary_text.sentences):
        for annotator, status in who.items():
            labels: dict[str, None] = {}
            for a in record["annotations"]:
                if a["annotator"] == annotator and a["summary"]["start"] < end and start < a["summary"]["end"]:
                    labels.update(dict.fromkeys(_leaves(a["label"])))
            v = given.get((annotator, i))
            evidence = v.get("evidence", []) if v else []
            verdict = v["verdict"] if v else flagged if labels else NOT_CHECKED
            rows.append(SentenceRow(record["id"], i, start, end, bundle_record.summary[start:end], annotator, status,
                                    verdict, v is not None, tuple(e["sentence"] for e in evidence),
                                    tuple(e["text"] for e in evidence), tuple(labels),
                                    v["updated_at"] if v else None))
    return rows


def sentence_rows(bundle_records: Sequence[BundleRecord], records: Sequence[dict],
                  settings: SentenceVerdicts | None) -> list[SentenceRow]:
    """Every record's rows, in bundle order (records: the merged records, one per bundle record)."""
    return [row for b, r in zip(bundle_records, records) for row in record_rows(b, r, settings)]


def sentences_csv(rows: Sequence[SentenceRow]) -> bytes:
    """`--format sentences`: one CSV row per sentence and submitter (RFC 4180, UTF-8, a header row); `given` is
    true/false, `evidence` the source sentence indices space-separated, `evidence_text` their texts one a line,
    `labels` `|`-joined. The texts are written as they are (a spreadsheet may read a cell starting with `=` as a
    formula: open it as text)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow([r.record_id, r.sentence, r.start, r.end, r.text, r.annotator, r.status, r.verdict,
                         "true" if r.given else "false", " ".join(map(str, r.evidence)), "\n".join(r.evidence_text),
                         "|".join(r.labels), r.updated_at or ""])
    return out.getvalue().encode("utf-8")
