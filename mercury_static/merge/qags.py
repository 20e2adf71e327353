"""merge step 1 for QAGS's layout (read/qags.py): the file a bundle was built from, read again as judgments.

Each object is matched to its bundle record as a Mercury dump's sample is (its id with equal texts, else its
source and summary); the bundle must cut the summary as the file does (built from it). Each worker is an
annotator whose response on a record is a submitted version holding their sentence verdicts (merged shape,
docs/sentence-verdicts.md; `updated_at` null and no evidence: QAGS records neither). A bad object is one skipped line
with its responses counted as dropped; the other objects merge.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from mercury_static.bundle.contents import BundleRecord
from mercury_static.core.records import InputError
from mercury_static.merge.versions import Version
from mercury_static.read.qags import qags_item
from mercury_static.read.record import Options
from mercury_static.settings.model import SentenceVerdicts


class Reader(Protocol):
    """What of merge's `InputReader` a QAGS file needs (its versions, problems and record matching)."""

    verdicts: SentenceVerdicts | None
    id_field: str | None
    answers_dropped: int
    versions: list[Version]

    def problem(self, file: Path, where: str | None, field_name: str | None, message: str,
                annotations: int = 0) -> None: ...
    def match_sample(self, path: Path, index: int, sample: dict) -> tuple[BundleRecord | None, str]: ...
    def name(self, raw: str) -> str: ...


def _responses(obj) -> int:
    """How many responses an object holds, as far as its shape lets them be counted."""
    entries = obj.get("summary_sentences") if isinstance(obj, dict) else None
    return sum(len(s["responses"]) for s in entries if isinstance(s, dict) and isinstance(s.get("responses"), list)) \
        if isinstance(entries, list) else 0


def read_qags(reader: Reader, path: Path, objects: Iterable[tuple[str, object]]) -> None:
    """Every judgment of a QAGS file into `reader.versions`; each bad object one problem line."""
    settings = reader.verdicts
    if settings is None:
        return reader.problem(path, None, None, "QAGS judgments, but this bundle asks no sentence verdicts (its "
                                                "settings have no sentence_verdicts)")
    opts = Options("source", "summary", reader.id_field, qualify_ids=False, verdicts=settings.values)
    for position, (where, obj) in enumerate(objects):
        try:
            item, _ = qags_item(obj, position, where, str(path), opts)
        except InputError as e:
            reader.problem(path, e.where, e.field, e.message)
            reader.answers_dropped += _responses(obj)
            continue
        read = item.record
        record, why = reader.match_sample(path, position, {"id": read.id, "source": read.source,
                                                           "summary": read.summary})
        if record is None:
            reader.problem(path, where, item.id_key or "article", why)
            reader.answers_dropped += len(read.prior_sentences)
            continue
        if record.summary_text.sentences != read.summary_sentences:
            reader.problem(path, where, "summary_sentences", f"the bundle cuts record {record.id!r}'s summary "
                           "into other sentences (build the bundle from this file)")
            reader.answers_dropped += len(read.prior_sentences)
            continue
        by_worker: dict[str, list[dict]] = {}
        for p in read.prior_sentences:
            s, e = read.summary_sentences[p["sentence"]]
            by_worker.setdefault(reader.name(p["annotator"]), []).append(
                {"annotator": reader.name(p["annotator"]), "sentence": p["sentence"],
                 "summary": {"start": s, "end": e, "text": read.summary[s:e]}, "verdict": p["verdict"],
                 "updated_at": None})
        for worker, verdicts in by_worker.items():
            reader.versions.append(Version(worker, record.id, "submitted", None, None, [],
                                           sentences=sorted(verdicts, key=lambda v: v["sentence"])))
