"""Merge inputs: export files and Mercury dumps read into versions (merge_versions.Version).

Each bad file, record entry or annotation is one `InputError`, skipped and counted as rejected; a bad
question answer or suggestion acceptance drops only itself (counted in `answers_dropped`), its record entry
stays; so does a bad time on task (export version 3), its time then unknown, and a bad sentence verdict (export
version 4, merge/sentences.py) drops only itself. A re-export of a version already
validated cleanly is not validated again.
"""

from __future__ import annotations

import time as clock
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from mercury_static.core import mercury, safeio
from mercury_static.merge import checks as merge_checks
from mercury_static.bundle.contents import Bundle, BundleRecord
from mercury_static.formats import EXPORT_FORMAT, EXPORT_SENTENCES, EXPORT_TIMED, ExportHeader
from mercury_static.merge.checks import Reject, check_json, check_status, parse_time, short, span
from mercury_static.merge.questions import check_responses, check_suggestion_use
from mercury_static.merge.sentences import check_merged, check_sentences
from mercury_static.merge.timeontask import milliseconds
from mercury_static.merge.versions import Counts, Version
from mercury_static.merge.qags import read_qags
from mercury_static.read.json_docs import file_lines, peek_object
from mercury_static.read.qags import is_qags
from mercury_static.core.names import normalize_name
from mercury_static.core.records import InputError


CLASH = ("two different annotations here have this id; this entry is skipped whole, so that neither "
         "replaces the other unseen (give one of them another id in the file, then run again)")


def _clash(kept: list[tuple[float | None, dict]]) -> str | None:
    """The first id two different annotations of one record entry share (identical copies are one)."""
    seen: dict[str, tuple[float | None, dict]] = {}
    for copy in kept:
        ident = copy[1]["id"]
        if ident in seen and seen[ident] != copy:
            return ident
        seen[ident] = copy
    return None


class InputReader:
    """Reads export files and Mercury dumps into versions checked against the bundle, collecting problems
    (or raising the first one when `strict`)."""

    def __init__(self, bundle: Bundle, strict: bool):
        self.strict = strict
        self.bundle_id = bundle.manifest["bundle_id"]
        self.labels = list(bundle.manifest["labels"])
        self.id_field = bundle.manifest.get("id_field")
        self.known_labels = set(self.labels)
        self.questions = {q.name: q for q in bundle.settings.questions}
        self.verdicts = bundle.settings.sentence_verdicts
        self.by_id = {r.id: r for r in bundle.records}
        self.by_texts: dict[tuple[object, object], BundleRecord | None] = {}  # looked up with any sample's texts
        for r in bundle.records:
            key = (r.source, r.summary)
            self.by_texts[key] = None if key in self.by_texts else r
        self.counts = Counts()
        self.answers_dropped = 0
        """Question answers, suggestion acceptances and sentence verdicts dropped by validation (their record
        entries kept)."""
        self.problems: list[InputError] = []
        self.versions: list[Version] = []
        self.clients: dict[str, set[str]] = defaultdict(set)
        self.clean_entries: dict[tuple[str, str, str], tuple[dict, list]] = {}
        self.spellings: dict[str, set[str]] = defaultdict(set)
        self.now = clock.time()
        self.dump_samples: dict[Path, list[str]] = defaultdict(list)
        """The record ids of each Mercury dump's samples: a dump records no status, so `review` takes every
        annotator of a dump to have judged each of its samples."""
        self.future: list[str] = []
        """Times after the merge's start (a wrong clock), each counted as that start: where, as text."""

    def clamp(self, time: float | None, place: str, value) -> float | None:
        """`time`, or the merge's start when it is later (noted): a wrong clock in one browser must not make
        its version win over every later edit."""
        if time is None or time <= self.now:
            return time
        self.future.append(f"{place} {value!r}")
        return self.now

    def problem(self, file: Path, where: str | None, field_name: str | None, message: str,
                annotations: int = 0) -> None:
        error = InputError(file, where, field_name, message)
        if self.strict:
            raise error
        self.problems.append(error)
        self.counts.rejected += annotations

    # -- files -------------------------------------------------------------------------------------------
    def read(self, path: Path) -> None:
        if path.suffix.lower() in (".jsonl", ".ndjson"):  # QAGS's layout (merge/qags.py)
            return self.read_lines(path)
        try:
            doc = safeio.read_json(path, safeio.EXPORT_LIMIT)
        except InputError as e:
            return self.problem(path, e.where, e.field, e.message)
        if isinstance(doc, list) and doc and is_qags(doc[0]):
            return read_qags(self, path, ((f"record {i}", x) for i, x in enumerate(doc)))
        if isinstance(doc, dict):  # records and samples are checked one by one
            bad = safeio.find_invalid(doc, skip=("records", "samples"))
            if bad is not None:
                return self.problem(path, None, bad[0], bad[1], self._count(doc.get("records", doc.get("samples"))))
        if isinstance(doc, dict) and "format" in doc:
            return self.read_export(path, doc)
        if isinstance(doc, dict) and "samples" in doc or isinstance(doc, list):
            return self.read_dump(path, mercury.samples(doc))
        self.problem(path, None, None, f"not an export file ({EXPORT_FORMAT}) nor a Mercury dump")

    def read_lines(self, path: Path) -> None:
        """A JSON Lines input: QAGS's layout, one judged summary a line."""
        try:
            first, lines = peek_object(file_lines(path, str(path), safeio.EXPORT_LIMIT))
            if not is_qags(first):
                return self.problem(path, None, None, "a JSON Lines file that is not QAGS's layout ({article, "
                                    "summary_sentences} a line)")
            read_qags(self, path, self.lines_read(path, lines))
        except InputError as e:  # the file itself (not UTF-8, a line not JSON): what was read stays
            self.problem(path, e.where, e.field, e.message)

    def lines_read(self, path: Path, lines) -> Iterator[tuple[str, object]]:
        """(``line N``, value) of each JSON line; a line that is not JSON is a problem, the next lines read."""
        for lineno, line in lines:
            if line.strip():
                try:
                    yield f"line {lineno}", safeio.json_line(line, str(path), f"line {lineno}")
                except InputError as e:
                    self.problem(path, e.where, e.field, e.message)

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
            return self.problem(path, None, "bundle_id", f"{short(str(header.bundle_id))!r} is another "
                                f"bundle (this bundle is {self.bundle_id!r})", total)
        annotator = self.name(header.annotator)
        if not annotator:
            return self.problem(path, None, "annotator", "empty (only invisible characters)", total)
        if header.client_id:
            self.clients[annotator].add(header.client_id)
        for i, entry in enumerate(header.records):
            self.read_export_record(path, i, entry, annotator, header.client_id, header.exported_at,
                                    header.version)

    def name(self, raw: str) -> str:
        """The annotator's name as compared (names.normalize_name); spellings merged are noted."""
        name = normalize_name(raw)
        self.spellings[name].add(raw.strip())
        return name

    def answers(self, path: Path, where: str, values, use, record: BundleRecord,
                status: str) -> tuple[dict, dict | None]:
        """The valid question answers and suggestion use of a version-2 entry (or of a merged file's
        response); each one dropped is a problem line."""
        values, bad_values = check_responses(self.questions, values, status)
        use, bad_use = check_suggestion_use(self.questions, use, record.suggestions)
        self.dropped(path, where, [*bad_values, *bad_use])
        return values, use

    def dropped(self, path: Path, where: str, rejects: list[Reject]) -> None:
        """One problem line per answer or verdict dropped (its record entry kept)."""
        for e in rejects:
            self.problem(path, where, e.field, e.message)
            self.answers_dropped += 1

    def time(self, path: Path, where: str, value, name: str) -> int | None:
        """A time on task in ms, None when absent; a bad one is a problem line and unknown."""
        try:
            return milliseconds(value, name)
        except Reject as e:
            self.problem(path, where, e.field, e.message)
            return None

    def timed(self, path: Path, where: str, a, copy: tuple[float | None, dict]) -> tuple[float | None, dict]:
        """The merged annotation `copy` with the exported annotation `a`'s `elapsed_ms`, when it has a good one."""
        ms = self.time(path, where, a.get("elapsed_ms"), "elapsed_ms")
        return copy if ms is None else (copy[0], {**copy[1], "elapsed_ms": ms})

    def read_export_record(self, path: Path, index: int, entry, annotator: str, client: str | None,
                           exported_at: str, version: int = 1) -> None:
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
        try:
            status = check_status(status)
            time = self.clamp(parse_time(entry.get("updated_at"), "updated_at"), f"{path.name}, {where}",
                              entry.get("updated_at"))
            if time is None:
                raise Reject("updated_at", "missing")
        except Reject as e:
            return self.problem(path, where, e.field, e.message, n)
        if not isinstance(anns, list):
            return self.problem(path, where, "annotations", "expected a list")
        values = use = None
        if version >= 2:
            values, use = self.answers(path, where, entry.get("responses"), entry.get("suggestions"), record, status)
        active = self.time(path, where, entry.get("active_ms"), "active_ms") if version >= EXPORT_TIMED else None
        sentences: list[dict] = []
        if version >= EXPORT_SENTENCES:
            shown = use.get("shown") if use else None
            sentences, bad = check_sentences(entry.get("sentences"), record, self.verdicts, annotator, shown=shown)
            self.dropped(path, where, bad)
        key = (annotator, record_id, entry["updated_at"])
        seen = self.clean_entries.get(key)
        if seen is not None and seen[0] == entry:  # a re-export of a version already validated cleanly
            kept = seen[1]
        else:
            kept, problems = [], len(self.problems)
            for j, a in enumerate(anns):
                try:
                    check_json(a)
                    copy = self.export_annotation(a, record, annotator)
                except Reject as e:
                    ann_where = f"{where}, annotation {a['id']}" if isinstance(a, dict) and isinstance(
                        a.get("id"), str) else f"{where}, annotations[{j}]"
                    self.problem(path, ann_where, e.field, e.message, 1)
                    continue
                timed = version >= EXPORT_TIMED
                kept.append(self.timed(path, f"{where}, annotation {a['id']}", a, copy) if timed else copy)
            clash = _clash(kept)
            if clash is not None:
                return self.problem(path, f"{where}, annotation {clash}", "id", CLASH, len(kept))
            if len(self.problems) == problems:
                self.clean_entries[key] = (entry, kept)
        self.versions.append(Version(annotator, record_id, status, entry["updated_at"], time, kept, client,
                                     exported_at, values, use, active, sentences))

    def export_annotation(self, a, record: BundleRecord, annotator: str) -> tuple[float | None, dict]:
        if not isinstance(a, dict):
            raise Reject(None, "expected an object")
        if not isinstance(a.get("id"), str) or not a["id"]:
            raise Reject("id", "missing or not a string")
        return self.annotation(
            id=a["id"], annotator=annotator, label=a.get("label"), note=a.get("note"),
            summary=span(a.get("summary"), record.summary, "summary"),
            source=None if a.get("source") is None else span(a["source"], record.source, "source"),
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
        self.dump_samples[path].append(record.id)
        by_annotator: dict[str, list[tuple[float | None, dict]]] = defaultdict(list)
        for j, a in enumerate(anns):
            try:
                check_json(a)
                ann = self.dump_annotation(a, record)
            except Reject as e:
                ann_id = mercury.annotation_id(a) if isinstance(a, dict) else None
                ann_where = f"{where}, annotation {ann_id}" if ann_id else f"{where}, annotations[{j}]"
                self.problem(path, ann_where, e.field, e.message, 1)
                continue
            ann = self.timed(path, f"{where}, annotation {ann[1]['id']}", a, ann)  # a merged file's
            by_annotator[ann[1]["annotator"]].append(ann)
        clashed = set()
        for annotator, kept in by_annotator.items():
            clash = _clash(kept)
            if clash is not None:
                self.problem(path, f"{where}, annotation {clash}", "id", CLASH, len(kept))
                clashed.add(annotator)
        verdicts: dict[str, list[dict]] = {}
        for key in ("sentences", "sentence_verdicts"):  # merge's own outputs: mercury-static / jsonl, mercury
            found, bad = check_merged(sample.get(key), record, self.verdicts, self.name, key)
            self.dropped(path, where, bad)
            for annotator, kept in found.items():
                verdicts.setdefault(annotator, []).extend(kept)
        responded = set(clashed)  # their whole work on this sample is skipped, their response too
        responses = sample.get("responses")
        if responses is not None and not isinstance(responses, list):  # the annotations stay, undated
            self.problem(path, where, "responses", f"expected a list of {{annotator, status, updated_at}}, got "
                         f"{safeio.json_kind(responses)}")
            responses = None
        for j, r in enumerate(responses or []):
            try:
                if not isinstance(r, dict) or not isinstance(r.get("annotator"), str) or not r["annotator"].strip():
                    raise Reject("annotator", "missing or empty")
                check_status(r.get("status"))
                time = self.clamp(parse_time(r.get("updated_at"), "updated_at"), f"{path.name}, {where}",
                                  r.get("updated_at"))
            except Reject as e:  # the annotations stay, as an undated version
                self.problem(path, f"{where}, responses[{j}]", e.field, e.message)
                continue
            name = self.name(r["annotator"])
            if name in clashed:
                continue
            values, use = self.answers(path, f"{where}, responses[{j}]", r["values"], r.get("suggestions"), record,
                                       r["status"]) if "values" in r else (None, None)
            responded.add(name)
            active = self.time(path, f"{where}, responses[{j}]", r.get("active_ms"), "active_ms")
            self.versions.append(Version(name, record.id, r["status"], r.get("updated_at"), time,
                                         by_annotator.get(name, []), values=values, suggestion_use=use,
                                         active_ms=active, sentences=verdicts.get(name, [])))
        for annotator in sorted(by_annotator.keys() | verdicts.keys()):
            if annotator not in responded:
                self.versions.append(Version(annotator, record.id, None, None, None, by_annotator.get(annotator, []),
                                             sentences=verdicts.get(annotator, [])))

    def dump_annotation(self, a, record: BundleRecord) -> tuple[float | None, dict]:
        """A flat (FaithBench, v0.1) or nested (original Mercury / merge output) dump annotation."""
        if not isinstance(a, dict):
            raise Reject(None, "expected an object")
        raw = next((a[k] for k in mercury.ANNOTATOR_KEYS if isinstance(a.get(k), str) and normalize_name(a[k])), None)
        if raw is None:  # the spelling of the key mercury.annotator reads (invisible characters name nobody)
            raise Reject("annotator_name", "no annotator_name / annotator / annotator_id")
        annotator = self.name(raw)
        if isinstance(a.get("summary"), dict):
            summary = span(a["summary"], record.summary, "summary")
            source = None if a.get("source") is None else span(a["source"], record.source, "source")
        else:
            summary = span({"start": a.get("summary_start"), "end": a.get("summary_end"),
                            "text": a.get("summary_span")}, record.summary, "summary_span")
            parts = [a.get(k) for k in ("source_start", "source_end", "source_span")]
            if all(p is None for p in parts):
                source = None
            else:
                source = span(dict(zip(("start", "end", "text"), parts)), record.source, "source_span")
        ann_id = mercury.annotation_id(a) or mercury.derived_id(record.id, annotator, a, summary, source)
        return self.annotation(id=ann_id, annotator=annotator, label=a.get("label"), note=a.get("note"),
                               summary=summary, source=source, created_at=a.get("created_at"),
                               updated_at=a.get("updated_at"))

    def annotation(self, **fields) -> tuple[float | None, dict]:
        time, ann = merge_checks.annotation(self.labels, self.known_labels, **fields)
        return self.clamp(time, f"annotation {ann['id']}", ann["updated_at"]), ann
