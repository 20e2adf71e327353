"""Merge annotators' export files (and Mercury dumps) into one validated dataset (see the README, "For coordinators").

Each input file yields *versions*: one annotator's state of one record as that file saw it. Per
(annotator, record) the newest version wins by the record's `updated_at`, so a deleted annotation stays
deleted; Mercury dumps carry no time and count as older than any dated version; versions tied on time are
united. Every bad file, record or annotation is one `InputError` line: skipped and reported, or raised at
once with `strict`.
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .agreement import agreement_report
from . import mercury, safeio
from .bundle import Bundle, BundleRecord, load_bundle
from .formats import EXPORT_FORMAT, MERGED_FORMAT, MERGED_VERSION, ExportHeader, MergedRecord
from .records import InputError
from .terminal import line

STATUSES = ("submitted", "discarded", "in_progress")
FORMATS = ("mercury-static", "mercury", "jsonl")


@dataclass
class Counts:
    """Annotation counts: read = merged + duplicate + superseded + rejected."""

    read: int = 0
    merged: int = 0
    duplicate: int = 0
    superseded: int = 0
    rejected: int = 0


@dataclass
class Version:
    """One annotator's state of one record, as one input file saw it."""

    annotator: str
    record_id: str
    status: str | None
    updated_at: str | None
    time: float | None
    annotations: list[tuple[float | None, dict]]
    client_id: str | None = None
    exported_at: str = ""


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

    @property
    def exit_code(self) -> int:
        """0 when everything merged, 1 when something was skipped."""
        return 1 if self.problems else 0

    def report(self) -> dict:
        """The JSON report (`--report`)."""
        return {"output": {"format": MERGED_FORMAT, "version": MERGED_VERSION}, "counts": vars(self.counts),
                "files": self.files,
                "problems": [str(p) for p in self.problems], "notes": self.notes, **self.agreement}


class _Reject(Exception):
    """A field of one annotation/record is invalid (caught and turned into an InputError)."""

    def __init__(self, field_name: str | None, message: str):
        super().__init__(message)
        self.field, self.message = field_name, message


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def parse_time(value, field_name: str) -> float | None:
    """ISO-8601 text -> POSIX seconds (naive times are UTC); None stays None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Reject(field_name, "expected an ISO-8601 time string")
    seconds = _seconds(value)
    if seconds is None:
        raise _Reject(field_name, f"{_short(value)!r} is not an ISO-8601 time")
    return seconds


@lru_cache(maxsize=65536)
def _seconds(value: str) -> float | None:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


class _Merger:
    """Reads input files into versions, collecting problems."""

    def __init__(self, bundle: Bundle, strict: bool):
        self.strict = strict
        self.bundle_id = bundle.manifest["bundle_id"]
        self.labels = list(bundle.manifest["labels"])
        self.id_field = bundle.manifest.get("id_field")
        self.known_labels = set(self.labels)
        self.by_id = {r.id: r for r in bundle.records}
        self.by_texts: dict[tuple[str, str], BundleRecord | None] = {}
        for r in bundle.records:
            key = (r.source, r.summary)
            self.by_texts[key] = None if key in self.by_texts else r
        self.counts = Counts()
        self.problems: list[InputError] = []
        self.notes: list[str] = []
        self.versions: list[Version] = []
        self.clients: dict[str, set[str]] = defaultdict(set)
        self.clean_entries: dict[tuple[str, str, str], tuple[dict, list]] = {}
        self.spellings: dict[str, set[str]] = defaultdict(set)

    def problem(self, file: Path, where: str | None, field_name: str | None, message: str,
                annotations: int = 0) -> None:
        error = InputError(file, where, field_name, message)
        if self.strict:
            raise error
        self.problems.append(error)
        self.counts.rejected += annotations

    # -- files -------------------------------------------------------------------------------------------
    def read(self, path: Path) -> None:
        try:
            doc = safeio.loads(safeio.read_text(path, str(path), safeio.EXPORT_LIMIT))
        except InputError as e:
            return self.problem(path, e.where, e.field, e.message)
        except json.JSONDecodeError as e:
            return self.problem(path, f"line {e.lineno} column {e.colno}", None, f"invalid JSON: {e.msg}")
        except RecursionError:
            return self.problem(path, None, None, "invalid JSON: nested too deeply")
        if isinstance(doc, dict):  # records and samples are checked one by one
            bad = safeio.find_invalid(doc, skip=("records", "samples"))
            if bad is not None:
                return self.problem(path, None, bad[0], bad[1], self._count(doc.get("records", doc.get("samples"))))
        if isinstance(doc, dict) and "format" in doc:
            return self.read_export(path, doc)
        if isinstance(doc, dict) and "samples" in doc or isinstance(doc, list):
            return self.read_dump(path, mercury.samples(doc))
        self.problem(path, None, None, f"not an export file ({EXPORT_FORMAT}) nor a Mercury dump")

    @staticmethod
    def _count(entries) -> int:
        if not isinstance(entries, list):
            return 0
        return sum(len(e["annotations"]) for e in entries
                   if isinstance(e, dict) and isinstance(e.get("annotations"), list))

    def read_export(self, path: Path, doc: dict) -> None:
        total = self._count(doc.get("records"))
        self.counts.read += total
        try:
            header = ExportHeader.from_json(doc, str(path))
        except InputError as e:
            return self.problem(path, None, e.field, e.message, total)
        if header.bundle_id != self.bundle_id:
            return self.problem(path, None, "bundle_id", f"{_short(str(header.bundle_id))!r} is another "
                                f"bundle (this bundle is {self.bundle_id!r})", total)
        annotator = self.name(header.annotator)
        if not annotator:
            return self.problem(path, None, "annotator", "empty (only invisible characters)", total)
        if header.client_id:
            self.clients[annotator].add(header.client_id)
        for i, entry in enumerate(header.records):
            self.read_export_record(path, i, entry, annotator, header.client_id, header.exported_at)

    def name(self, raw: str) -> str:
        """The annotator's name as compared (mercury.normalize_name); spellings merged are noted."""
        name = mercury.normalize_name(raw)
        self.spellings[name].add(raw.strip())
        return name

    def read_export_record(self, path: Path, index: int, entry, annotator: str, client: str | None,
                           exported_at: str) -> None:
        where = f"records[{index}]"
        if not isinstance(entry, dict):
            return self.problem(path, where, None, "expected an object")
        anns = entry.get("annotations")
        n = len(anns) if isinstance(anns, list) else 0
        bad = safeio.find_invalid(entry, skip=("annotations",))
        if bad is not None:
            return self.problem(path, where, bad[0], bad[1], n)
        record_id = entry.get("record_id")
        if not isinstance(record_id, str):
            return self.problem(path, where, "record_id", "missing or not a string", n)
        where = f"record {record_id}"
        record = self.by_id.get(record_id)
        if record is None:
            return self.problem(path, where, "record_id", "unknown record id (not in the bundle)", n)
        status = entry.get("status")
        if status not in STATUSES:
            return self.problem(path, where, "status", f"{_short(str(status))!r} is not one of "
                                f"{', '.join(STATUSES)}", n)
        try:
            time = parse_time(entry.get("updated_at"), "updated_at")
            if time is None:
                raise _Reject("updated_at", "missing")
        except _Reject as e:
            return self.problem(path, where, e.field, e.message, n)
        if not isinstance(anns, list):
            return self.problem(path, where, "annotations", "expected a list")
        key = (annotator, record_id, entry["updated_at"])
        seen = self.clean_entries.get(key)
        if seen is not None and seen[0] == entry:  # a re-export of a version already validated cleanly
            kept = seen[1]
        else:
            kept, problems = [], len(self.problems)
            for j, a in enumerate(anns):
                try:
                    _check_json(a)
                    kept.append(self.export_annotation(a, record, annotator))
                except _Reject as e:
                    ann_where = f"{where}, annotation {a['id']}" if isinstance(a, dict) and isinstance(
                        a.get("id"), str) else f"{where}, annotations[{j}]"
                    self.problem(path, ann_where, e.field, e.message, 1)
            if len(self.problems) == problems:
                self.clean_entries[key] = (entry, kept)
        self.versions.append(Version(annotator, record_id, status, entry["updated_at"], time, kept, client,
                                     exported_at))

    def export_annotation(self, a, record: BundleRecord, annotator: str) -> tuple[float | None, dict]:
        if not isinstance(a, dict):
            raise _Reject(None, "expected an object")
        if not isinstance(a.get("id"), str) or not a["id"]:
            raise _Reject("id", "missing or not a string")
        return self.annotation(
            id=a["id"], annotator=annotator, label=a.get("label"), note=a.get("note"),
            summary=self.span(a.get("summary"), record.summary, "summary"),
            source=None if a.get("source") is None else self.span(a["source"], record.source, "source"),
            created_at=a.get("created_at"), updated_at=a.get("updated_at"))

    # -- Mercury dumps -----------------------------------------------------------------------------------
    def read_dump(self, path: Path, samples) -> None:
        if not isinstance(samples, list):
            return self.problem(path, None, "samples", "expected a list of samples")
        self.counts.read += self._count(samples)
        for i, sample in enumerate(samples):
            self.read_sample(path, i, sample)

    def match_sample(self, path: Path, index: int, sample: dict) -> tuple[BundleRecord | None, str]:
        """The bundle record of a dump sample, found as `build` names it (`id`, else `sample_id`, else the
        position; bare or prefixed with the file stem) with equal texts, else by its (source, summary)."""
        try:
            raw = mercury.record_id(sample, index, self.dump_id_field(sample), str(path), None)
        except InputError:
            raw = None
        texts = (sample.get("source"), sample.get("summary"))
        if not all(t is None or isinstance(t, str) for t in texts):  # e.g. a list of documents
            texts = (object(), object())
        found = [r for r in (self.by_id.get(raw), self.by_id.get(f"{path.stem}:{raw}")) if r is not None] \
            if raw is not None else []
        for record in found:
            if texts in ((None, None), (record.source, record.summary)):
                return record, ""
        by_text = self.by_texts.get(texts)
        if by_text is not None:
            return by_text, ""
        if found:
            return None, "its source/summary differ from the bundle record's texts"
        return None, "unknown record id (not in the bundle, and no record has the same texts)"

    def dump_id_field(self, sample: dict) -> str | None:
        """The bundle's ``--id-field`` when this sample has it, else the default id fields."""
        return self.id_field if self.id_field is not None and self.id_field in sample else None

    def read_sample(self, path: Path, index: int, sample) -> None:
        where = f"samples[{index}]"
        if not isinstance(sample, dict):
            return self.problem(path, where, None, "expected an object")
        anns = sample.get("annotations", [])
        if not isinstance(anns, list):
            return self.problem(path, where, "annotations", "expected a list")
        bad = safeio.find_invalid(sample, skip=("annotations",))
        if bad is not None:
            return self.problem(path, where, bad[0], bad[1], len(anns))
        id_key = mercury.record_id_key(sample, self.dump_id_field(sample))
        raw_id = sample.get(id_key) if id_key else None
        if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool):
            where = f"sample {raw_id}"
        record, why = self.match_sample(path, index, sample)
        if record is None:
            return self.problem(path, where, id_key or "sample_id", why, len(anns))
        by_annotator: dict[str, list[tuple[float | None, dict]]] = defaultdict(list)
        for j, a in enumerate(anns):
            try:
                _check_json(a)
                ann = self.dump_annotation(a, record)
            except _Reject as e:
                ann_id = mercury.annotation_id(a) if isinstance(a, dict) else None
                ann_where = f"{where}, annotation {ann_id}" if ann_id else f"{where}, annotations[{j}]"
                self.problem(path, ann_where, e.field, e.message, 1)
                continue
            by_annotator[ann[1]["annotator"]].append(ann)
        responded = set()
        for j, r in enumerate(sample.get("responses") or []):
            try:
                if not isinstance(r, dict) or not isinstance(r.get("annotator"), str) or not r["annotator"].strip():
                    raise _Reject("annotator", "missing or empty")
                if r.get("status") not in STATUSES:
                    raise _Reject("status", f"{_short(str(r.get('status')))!r} is not one of {', '.join(STATUSES)}")
                time = parse_time(r.get("updated_at"), "updated_at")
            except _Reject as e:  # the annotations stay, as an undated version
                self.problem(path, f"{where}, responses[{j}]", e.field, e.message)
                continue
            name = self.name(r["annotator"])
            responded.add(name)
            self.versions.append(Version(name, record.id, r["status"], r.get("updated_at"), time,
                                         by_annotator.get(name, [])))
        for annotator, kept in by_annotator.items():
            if annotator not in responded:
                self.versions.append(Version(annotator, record.id, None, None, None, kept))

    def dump_annotation(self, a, record: BundleRecord) -> tuple[float | None, dict]:
        """A flat (FaithBench, v0.1) or nested (original Mercury / merge output) dump annotation."""
        if not isinstance(a, dict):
            raise _Reject(None, "expected an object")
        raw = next((a[k] for k in mercury.ANNOTATOR_KEYS if isinstance(a.get(k), str) and a[k].strip()), None)
        annotator = mercury.annotator(a)
        if annotator is None:
            raise _Reject("annotator_name", "no annotator_name / annotator / annotator_id")
        self.name(raw)
        if isinstance(a.get("summary"), dict):
            summary = self.span(a["summary"], record.summary, "summary")
            source = None if a.get("source") is None else self.span(a["source"], record.source, "source")
        else:
            summary = self.span({"start": a.get("summary_start"), "end": a.get("summary_end"),
                                 "text": a.get("summary_span")}, record.summary, "summary_span")
            parts = [a.get(k) for k in ("source_start", "source_end", "source_span")]
            if all(p is None for p in parts):
                source = None
            else:
                source = self.span(dict(zip(("start", "end", "text"), parts)), record.source, "source_span")
        ann_id = mercury.annotation_id(a) or mercury.derived_id(record.id, annotator, a, summary, source)
        return self.annotation(id=ann_id, annotator=annotator, label=a.get("label"), note=a.get("note"),
                               summary=summary, source=source, created_at=a.get("created_at"),
                               updated_at=a.get("updated_at"))

    # -- shared checks -----------------------------------------------------------------------------------
    @staticmethod
    def span(value, text: str, name: str) -> dict:
        if not isinstance(value, dict):
            raise _Reject(name, "expected an object {start, end, text}")
        start, end, quoted = value.get("start"), value.get("end"), value.get("text")
        if type(start) is not int or type(end) is not int:
            raise _Reject(name, f"start/end must be integers (got {start!r}, {end!r})")
        if not 0 <= start < end <= len(text):
            raise _Reject(name, f"offsets {start}..{end} out of range (text has {len(text)} characters)")
        if not isinstance(quoted, str):
            raise _Reject(name, "quoted text missing")
        if text[start:end] != quoted:
            raise _Reject(name, f"quoted text {_short(quoted)!r} != text[{start}:{end}] "
                                f"{_short(text[start:end])!r}")
        return {"text": quoted, "start": start, "end": end}

    def annotation(self, *, id: str, annotator: str, label, note, summary: dict, source: dict | None,
                   created_at, updated_at) -> tuple[float | None, dict]:
        label = mercury.label_path(label)
        if not isinstance(label, list) or not label:
            raise _Reject("label", "expected a non-empty list of labels")
        try:
            known = self.known_labels.issuperset(label)
        except TypeError:  # an unhashable item
            known = False
        if not known:
            bad = next(x for x in label if not isinstance(x, str) or x not in self.known_labels)
            raise _Reject("label", f"unknown label {_short(str(bad))!r} (bundle labels: {', '.join(self.labels)})")
        if note is not None and not isinstance(note, str):
            raise _Reject("note", "expected a string")
        if created_at is not None and not isinstance(created_at, str):
            raise _Reject("created_at", "expected an ISO-8601 time string")
        time = parse_time(updated_at, "updated_at")
        return time, {"source": source, "summary": summary, "label": label, "annotator": annotator,
                      "note": note or "", "id": id, "created_at": created_at, "updated_at": updated_at}

    # -- resolution --------------------------------------------------------------------------------------
    def resolve(self) -> tuple[dict[str, list[dict]], dict[str, list[dict]]]:
        """Pick the newest version per (annotator, record); return annotations and responses per record."""
        groups: dict[tuple[str, str], list[Version]] = defaultdict(list)
        for v in self.versions:
            groups[v.annotator, v.record_id].append(v)
        annotations: dict[str, list[dict]] = defaultdict(list)
        responses: dict[str, list[dict]] = defaultdict(list)
        for (annotator, record_id), versions in sorted(groups.items()):
            newest = max(_version_time(v) for v in versions)
            winners = [v for v in versions if _version_time(v) == newest]
            kept: dict[str, tuple[float | None, dict]] = {}
            for v in winners:
                for time, ann in v.annotations:
                    if ann["id"] in kept:
                        self.counts.duplicate += 1
                        if kept[ann["id"]] != (time, ann):
                            kept[ann["id"]] = max(kept[ann["id"]], (time, ann), key=_newest_copy)
                    else:
                        kept[ann["id"]] = (time, ann)
            dropped: set[str] = set()
            for v in versions:
                if _version_time(v) == newest:
                    continue
                for _, ann in v.annotations:
                    if ann["id"] in kept or ann["id"] in dropped:
                        self.counts.duplicate += 1
                    else:
                        dropped.add(ann["id"])
            self.counts.superseded += len(dropped)
            self.counts.merged += len(kept)
            annotations[record_id].extend(ann for _, ann in kept.values())
            winner = max(winners, key=lambda v: (v.exported_at, v.client_id or "", v.status or ""))
            if winner.status is not None:
                responses[record_id].append({"annotator": annotator, "status": winner.status,
                                             "updated_at": winner.updated_at})
            other_clients = {v.client_id for v in versions if v.client_id and v.client_id != winner.client_id
                             and _version_time(v) != newest}
            if dropped and other_clients:
                self.notes.append(
                    f"annotator {annotator!r}, record {record_id}: browsers {', '.join(sorted(other_clients))} "
                    f"and {winner.client_id} edited it; kept the newest version ({winner.updated_at}, "
                    f"{winner.client_id}); {len(dropped)} annotation(s) only in older versions dropped")
        return annotations, responses

    def name_notes(self) -> None:
        for name, spellings in sorted(self.spellings.items()):
            if len(spellings) > 1:
                self.notes.insert(0, f"annotator names {', '.join(ascii(x) for x in sorted(spellings))} are one "
                                     f"annotator {name!r} once Unicode-normalised (NFC, invisible characters "
                                     "removed): merged")

    def client_notes(self) -> None:
        for annotator, clients in sorted(self.clients.items()):
            if len(clients) > 1:
                self.notes.insert(0, f"annotator {annotator!r} exported from {len(clients)} browsers "
                                     f"(client ids {', '.join(sorted(clients))}): merged, newest version "
                                     "of each record wins")

    def shared_id_note(self, records: list[dict]) -> None:
        """Mention annotation ids found under several annotators of one record (e.g. an imported file)."""
        shared = []
        for r in records:
            owners: dict[str, set[str]] = defaultdict(set)
            for a in r["annotations"]:
                owners[a["id"]].add(a["annotator"])
            shared += [(r["id"], i, sorted(who)) for i, who in owners.items() if len(who) > 1]
        if shared:
            record_id, ident, who = min(shared)
            self.notes.append(f"{len(shared)} annotation id(s) appear under several annotators of one record "
                              f"(e.g. record {record_id}, id {ident!r}: {', '.join(who)}); kept under each")


def _check_json(value) -> None:
    bad = safeio.find_invalid(value)
    if bad is not None:
        raise _Reject(bad[0] or None, bad[1])


def _version_time(v: Version) -> tuple[bool, float]:
    return (v.time is not None, v.time or 0.0)


def _newest_copy(copy: tuple[float | None, dict]) -> tuple:
    """Order copies of one annotation: newest `updated_at`, then content (deterministic for ties)."""
    time, ann = copy
    return (time is not None, time or 0.0, json.dumps(ann, ensure_ascii=False, sort_keys=True))


def _annotation_order(a: dict) -> tuple:
    return (a["summary"]["start"], a["summary"]["end"], a["annotator"], a["id"])


def serialize(records: list[dict], fmt: str) -> bytes:
    """The output file: `mercury-static` (JSON list), `jsonl` (a record per line) or `mercury` (flat v0.1)."""
    if fmt == "mercury-static":  # a JSON list, one record per line
        text = "[\n" + ",\n".join(safeio.dumps(r) for r in records) + "\n]\n"
    elif fmt == "jsonl":
        text = "".join(safeio.dumps(r) + "\n" for r in records)
    elif fmt == "mercury":
        samples = [{"sample_id": r["id"], "source": r["source"], "summary": r["summary"],
                    "annotations": [_flat(r["id"], a) for a in r["annotations"]], "metadata": r["metadata"]}
                   for r in records]
        text = ('{"samples": [\n' + ",\n".join(safeio.dumps(r) for r in samples)
                + "\n]}\n")
    else:
        raise ValueError(f"unknown output format {fmt!r} (one of {', '.join(FORMATS)})")
    return text.encode("utf-8")


def _flat(record_id: str, a: dict) -> dict:
    source = a["source"] or {"text": None, "start": None, "end": None}
    return {"annot_id": a["id"], "sample_id": record_id, "annotator": a["annotator"],
            "annotator_name": a["annotator"], "label": a["label"], "note": a["note"],
            "summary_span": a["summary"]["text"], "summary_start": a["summary"]["start"],
            "summary_end": a["summary"]["end"], "source_span": source["text"],
            "source_start": source["start"], "source_end": source["end"]}


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


def merge_files(paths: Iterable[str | Path], bundle: Bundle | str | Path, fmt: str = "mercury-static",
                strict: bool = False, top: int = 20) -> MergeResult:
    """Validate and merge export files / Mercury dumps against a bundle; raises InputError when strict."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r} (one of {', '.join(FORMATS)})")
    if not isinstance(bundle, Bundle):
        bundle = load_bundle(bundle)
    paths = list(paths)
    with _without_cyclic_gc():
        merger = _Merger(bundle, strict)
        for path in paths:
            merger.read(Path(path))
        annotations, responses = merger.resolve()
        records = [MergedRecord(id=r.id, source=r.source, summary=r.summary, metadata=r.metadata,
                                annotations=sorted(annotations.get(r.id, []), key=_annotation_order),
                                responses=sorted(responses.get(r.id, []), key=lambda x: x["annotator"])).to_json()
                   for r in bundle.records]
        merger.client_notes()
        merger.name_notes()
        merger.shared_id_note(records)
        return MergeResult(records=records, output=serialize(records, fmt), counts=merger.counts,
                           files=len(paths), problems=merger.problems, notes=merger.notes,
                           agreement=agreement_report(records, merger.labels, top=top))

def _cell(value) -> Text:
    if value is None:
        return Text("–")
    return line(f"{value:.3f}" if isinstance(value, float) else str(value))


def _table(title: str, columns: list[str], rows: Iterable[Iterable]) -> Table:
    table = Table(title=title, title_justify="left")
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*(_cell(v) for v in row))
    return table


def print_summary(result: MergeResult, out: Console, err: Console) -> None:
    """Problems and notes (one line each) on `err`; counts and agreement tables on `out`."""
    for problem in result.problems:
        err.print(line(f"skipped: {problem}"), soft_wrap=True)
    for note in result.notes:
        err.print(line(f"note: {note}"), soft_wrap=True)
    c, a = result.counts, result.agreement
    out.print(Text(f"{result.files} file(s): {c.read} annotations read, {c.merged} merged, {c.duplicate} "
                   f"duplicate, {c.superseded} superseded by newer versions, {c.rejected} rejected"))
    r = a["records"]
    out.print(Text(f"{r['total']} records: {r['annotated']} with annotations, {r['judged']} judged, "
                   f"{r['judged_by_2_or_more']} judged by 2+ annotators (verdict: {a['verdict']})"))
    out.print(_table("Annotators", ["annotator", "annotations", "records annotated", "submitted", "discarded",
                                    "in progress", "judged"],
                     ([x["annotator"], x["annotations"], x["records_annotated"], x["submitted"], x["discarded"],
                       x["in_progress"], x["judged"]] for x in a["annotators"])))
    out.print(_table("Labels", ["label", "annotations"], ([x["label"], x["annotations"]] for x in a["labels"])))
    o = a["overall"]
    rows = [[f"{p['a']} × {p['b']}", p["records"], p["char_f1"], p["exact_f1"], p["observed_agreement"],
             p["kappa"]] for p in a["pairwise"]]
    rows.append(["overall", o["records"], o["char_f1"], o["exact_f1"], None, None])
    out.print(_table("Agreement (summary spans; record verdicts)", ["pair", "records", "char F1", "exact F1",
                                                                    "verdict agree", "Cohen κ"], rows))
    out.print(Text(f"Krippendorff's alpha (verdicts, nominal, {o['records']} records): "
                   f"{_cell(o['alpha'])}"))
    if a["adjudication"]:
        out.print(_table("Most disagreement (adjudicate first)", ["record", "verdicts", "verdict split",
                                                                  "mean char F1"],
                         ([x["record_id"], ", ".join(f"{k}={v}" for k, v in x["verdicts"].items()),
                           x["verdict_disagreement"], x["char_f1_mean"]] for x in a["adjudication"][:10])))
