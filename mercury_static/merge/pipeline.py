"""Merge annotators' export files (and Mercury dumps) into one validated dataset (see docs/merge.md).

The steps, one module each: inputs.py reads every file into versions (validated by checks.py),
versions.py picks the newest version per (annotator, record), notes.py says what was merged that a
coordinator should know; this module runs them and serialises the output. Every bad file, record,
annotation or question answer is one `InputError` line: skipped and reported, or raised at once with
`strict`. The library returns data; the CLI prints it (printing.py).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from mercury_static.core import safeio
from mercury_static.merge import notes as merge_notes
from mercury_static.merge.adjudication import adjudicate_first
from mercury_static.merge.agreement import agreement_report, judges
from mercury_static.merge.agreement_questions import agent_agreement, question_agreement
from mercury_static.merge.checks_score import Checks, apart, score_checks
from mercury_static.merge.agreement_sentences import sentence_agreement
from mercury_static.bundle.assign import read_queues
from mercury_static.bundle.contents import Bundle, load_bundle
from mercury_static.formats import MERGED_FORMAT, MERGED_VERSION, MergedRecord
from mercury_static.merge.inputs import InputReader
from mercury_static.merge.output_formats import FORMATS
from mercury_static.merge.sentence_rows import record_rows, sentence_rows, sentences_csv
from mercury_static.merge.timeline import work_progress
from mercury_static.merge.timeontask import IDLE_S, time_on_task
from mercury_static.merge.versions import Counts, resolve, Resolved
from mercury_static.core.records import InputError
from mercury_static.merge.write_argilla import argilla_files
from mercury_static.merge.write_label_studio import label_studio_files
from mercury_static.merge.write_parquet import parquet_files
from mercury_static.report.model import BundleModel, MergeCounts, Output, RoundReport, TimeOnTask
from mercury_static.report.typed_json import from_json, to_json



@dataclass
class MergeResult:
    """The merged records (default shape), the serialised output and everything worth reporting."""

    records: list[dict]
    output: bytes
    counts: Counts
    files: int
    problems: list[InputError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    agreement: dict = field(default_factory=dict)
    directory: dict[str, bytes] = field(default_factory=dict)
    """The files of a folder output (`argilla`, `parquet`, `label-studio`: each writer's FILES), by path relative
    to -o."""
    answers_dropped: int = 0
    """Question answers and suggestion acceptances dropped (each one of `problems`; their records merged)."""
    model: dict = field(default_factory=dict)
    """The model the bundle was built with: its name, sha256 and, for a model `train` wrote, its pairs."""
    time_on_task: TimeOnTask = field(default_factory=lambda: TimeOnTask(IDLE_S))
    fmt: str = "mercury-static"

    @property
    def exit_code(self) -> int:
        """0 when everything merged, 1 when something was skipped."""
        return 1 if self.problems else 0

    def report_model(self) -> RoundReport:
        """The report: the run's counts and output around the agreement figures (read as their dataclasses)."""
        output = Output(self.fmt, files=sorted(self.directory)) if self.directory else Output(
            MERGED_FORMAT, MERGED_VERSION) if self.fmt != "sentences" else Output("sentences")
        return replace(from_json(RoundReport, self.agreement), output=output, counts=MergeCounts(**vars(self.counts)),
                       answers_dropped=self.answers_dropped, files=self.files,
                       model=from_json(BundleModel, self.model), problems=[str(p) for p in self.problems],
                       notes=self.notes, time_on_task=self.time_on_task)

    def report(self) -> dict:
        """The JSON report (`--report`)."""
        return to_json(self.report_model())


def model_of(manifest: dict) -> dict:
    """The bundle's model as the reports name it."""
    model = manifest.get("model") or {}
    trained = model.get("trained")
    return {"name": model.get("name"), "sha256": model.get("sha256"),
            "trained": {k: trained.get(k) for k in ("pairs", "records", "from")} if trained else None}


def _annotation_order(a: dict) -> tuple:
    return (a["summary"]["start"], a["summary"]["end"], a["annotator"], a["id"])


def serialize(records: list[dict], fmt: str) -> bytes:
    """The output file: `mercury-static` (JSON list), `jsonl` (a record per line) or `mercury` (flat v0.1)."""
    if fmt == "mercury-static":  # a JSON list, one record per line
        text = "[\n" + ",\n".join(safeio.dumps(r) for r in records) + "\n]\n"
    elif fmt == "jsonl":
        text = "".join(safeio.dumps(r) + "\n" for r in records)
    elif fmt == "mercury":
        samples = [_sample(r) for r in records]
        text = ('{"samples": [\n' + ",\n".join(safeio.dumps(r) for r in samples)
                + "\n]}\n")
    else:
        raise ValueError(f"unknown output format {fmt!r} (one of {', '.join(FORMATS)})")
    return text.encode("utf-8")


def _sample(r: dict) -> dict:
    """A record in the flat v0.1 layout; with the responses (question answers, time on task) only when there are
    some, so a bundle without questions gives the layout FaithBench tooling reads, unchanged."""
    sample = {"sample_id": r["id"], "source": r["source"], "summary": r["summary"],
              "annotations": [_flat(r["id"], a) for a in r["annotations"]], "metadata": r["metadata"]}
    if any("values" in x or "active_ms" in x for x in r["responses"]):
        sample["responses"] = r["responses"]
    if r.get("sentences"):
        sample["sentence_verdicts"] = [_flat_verdict(x) for x in r["sentences"]]
    return sample


def _flat_verdict(x: dict) -> dict:
    """A sentence verdict in the flat layout (the summary sentence as summary_start/end/span)."""
    out = {"annotator": x["annotator"], "sentence": x["sentence"], "summary_start": x["summary"]["start"],
           "summary_end": x["summary"]["end"], "summary_span": x["summary"]["text"], "verdict": x["verdict"]}
    return {**out, **{k: x[k] for k in ("evidence", "updated_at", "elapsed_ms", "suggested_by") if k in x}}


def _flat(record_id: str, a: dict) -> dict:
    source = a["source"] or {"text": None, "start": None, "end": None}
    return {"annot_id": a["id"], "sample_id": record_id, "annotator": a["annotator"],
            "annotator_name": a["annotator"], "label": a["label"], "note": a["note"],
            "summary_span": a["summary"]["text"], "summary_start": a["summary"]["start"],
            "summary_end": a["summary"]["end"], "source_span": source["text"],
            "source_start": source["start"], "source_end": source["end"],
            **{k: a[k] for k in ("elapsed_ms", "provenance") if k in a}}


@contextlib.contextmanager
def _without_cyclic_gc():
    """Pause the cyclic garbage collector: merging allocates ~10 objects per annotation and keeps them
    alive, so its collections would rescan the whole heap again and again (40 % of the time at 50,000
    annotations). Nothing here creates reference cycles; refcounting still frees everything."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def merged_records(bundle: Bundle, reader: InputReader) -> tuple[list[dict], Resolved]:
    """The merged records of what `reader` read (one per bundle record, in bundle order) and the resolution
    (also used by `review`, which reads its inputs file by file)."""
    resolved = resolve(reader.versions, reader.counts)
    records = [MergedRecord(id=r.id, source=r.source, summary=r.summary, metadata=r.metadata,
                            annotations=sorted(resolved.annotations.get(r.id, []), key=_annotation_order),
                            responses=sorted(resolved.responses.get(r.id, []), key=lambda x: x["annotator"]),
                            suggestions=r.suggestions,
                            sentences=sorted(resolved.sentences.get(r.id, []),
                                             key=lambda x: (x["sentence"], x["annotator"]))).to_json()
               for r in bundle.records]
    return records, resolved


def round_progress(bundle: Bundle, records: list[dict]) -> dict:
    """The round's progress (timeline.work_progress) against the bundle's queues, if it has some."""
    queues = read_queues(bundle.dir, bundle.manifest)
    return work_progress(records, queues, int((bundle.manifest.get("queues") or {}).get("overlap") or 1))


def merge_files(paths: Iterable[str | Path], bundle: Bundle | str | Path, fmt: str = "mercury-static",
                strict: bool = False, top: int = 20, checks: Checks | None = None) -> MergeResult:
    """Validate and merge export files / Mercury dumps against a bundle; raises InputError when strict.
    `checks`: the check records, scored apart and left out of the agreement (and of the output unless kept)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r} (one of {', '.join(FORMATS)})")
    if not isinstance(bundle, Bundle):
        bundle = load_bundle(bundle)
    paths = list(paths)
    with _without_cyclic_gc():
        try:
            reader = InputReader(bundle, strict)
        except InputError as e:  # the manifest's settings (Bundle.settings)
            raise InputError(bundle.dir, None, None, f"cannot read the bundle: {e}") from None
        for path in paths:
            reader.read(Path(path))
        records, resolved = merged_records(bundle, reader)
        notes = [*merge_notes.name_notes(reader.spellings), *merge_notes.client_notes(reader.clients),
                 *resolved.notes, *merge_notes.shared_id_notes(records),
                 *merge_notes.blind_notes(records, bundle.settings.blind), *merge_notes.future_notes(reader.future)]
        questions = list(reader.questions.values())
        every, (checked, records) = records, apart(records, checks)
        by_id = {b.id: b for b in bundle.records}
        verdicts = bundle.settings.sentence_verdicts
        kept = [by_id[r["id"]] for r in records]
        rows = [record_rows(b, r, verdicts) for b, r in zip(kept, records)] if verdicts else None
        agreement = {**agreement_report(records, reader.labels,
                                        unsupported=verdicts.flagged if verdicts is not None else None),
                     "adjudication": adjudicate_first(records, [judges(r) for r in records], questions, rows, top),
                     "questions": question_agreement(records, questions),
                     "agents": agent_agreement(records, questions),
                     "progress": round_progress(bundle, every)}
        if verdicts is not None:
            agreement["sentences"] = sentence_agreement([row for rs in rows or () for row in rs], records, verdicts)
        if checks is not None:
            agreement["checks"] = score_checks(checked, checks.known, bundle, reader.labels, checks.threshold)
            records = every if checks.keep else records
        directory, folder_notes = argilla_files(bundle, records, questions) if fmt == "argilla" else ({}, [])
        table = sentence_rows([by_id[r["id"]] for r in records], records, verdicts) \
            if fmt == "sentences" or fmt == "parquet" and verdicts else None
        if fmt == "parquet":
            directory = parquet_files(records, table)
        elif fmt == "label-studio":
            directory, folder_notes = label_studio_files(reader.labels, records)
        if fmt == "sentences":
            output = sentences_csv(table or [])
        else:
            output = b"" if directory else serialize(records, fmt)
        return MergeResult(records=records, output=output, fmt=fmt,
                           counts=reader.counts, files=len(paths), problems=reader.problems,
                           notes=notes + folder_notes, agreement=agreement, directory=directory,
                           answers_dropped=reader.answers_dropped, model=model_of(bundle.manifest),
                           time_on_task=time_on_task(records))
