"""Review exports (format mercury-static/review, docs/review.md) read and checked against the review bundle
they were made on. Every fault is one InputError naming the file, the record and the field; `gold` stops
with all of them (exit 2) rather than build a gold dataset from part of a review.

A time after gold's start (a reviewer's wrong clock) is written as that start in every field, with a note: the
gold never states a decision made in the future, nor lets one win over every later one.

A review export binds to its review bundle by `bundle_id` (another bundle: foreign), `review_id` and
`merge_sha256` (the same bundle reviewed from an older or other merge: stale, the annotations it decides on
may no longer be the ones in the review bundle).
"""

from __future__ import annotations

import time as clock
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from mercury_static.core import safeio
from mercury_static.formats import ReviewHeader
from mercury_static.merge.checks import Reject, annotation, check_json, parse_time, short, span
from mercury_static.merge.questions import check_value
from mercury_static.core.names import normalize_name
from mercury_static.core.records import InputError
from mercury_static.merge.adjudication import SPANS
from mercury_static.merge.sentence_rows import NOT_CHECKED

ACTIONS = ("accept", "reject", "edit")
EDITABLE = ("summary", "source", "label", "note")


@dataclass
class ReviewEntry:
    """One reviewer's checked decisions on one record (the newest entry of their exports)."""

    reviewer: str
    record_id: str
    updated_at: str
    time: float
    adjudicated: bool
    decisions: dict[str, dict]
    """Annotation key -> {action, updated_at, and for edit: the annotation as edited}."""
    added: list[dict]
    answers: dict[str, dict]
    """Question -> {"from": annotator} or {"value": V}."""
    comments: list[dict] = field(default_factory=list)
    file: str = ""
    sentences: dict[int, dict] = field(default_factory=dict)
    """Summary sentence -> {"from": judge} or {"verdict", "evidence"}, each with its "updated_at" (REVIEW v2)."""


class ReviewReader:
    """Reads review exports against a review bundle (`load_review`'s bundle, header and records)."""

    def __init__(self, bundle, header: dict, records: list[dict]):
        self.bundle, self.header = bundle, header
        self.records = {r["id"]: r for r in records}
        self.texts = {r.id: r for r in bundle.records}
        self.labels = list(bundle.manifest["labels"])
        self.questions = {q.name: q for q in bundle.settings.questions if q.type != "span"}
        self.problems: list[InputError] = []
        self.entries: dict[tuple[str, str], ReviewEntry] = {}
        self.now = int(clock.time() * 1000) / 1000
        self.start = datetime.fromtimestamp(self.now, timezone.utc).isoformat(timespec="milliseconds")[:-6] + "Z"
        """Gold's start, as the time written for a later one."""
        self.future: list[str] = []
        """Times after gold's start (a wrong clock), each counted and written as that start: where, as text."""

    def clamp(self, time: float | None, place: str, value) -> float | None:
        """`time`, or gold's start when it is later (noted), as merge does: a reviewer's wrong clock must not
        make their adjudication win over every later one unseen."""
        if time is None or time <= self.now:
            return time
        self.future.append(f"{place} {value!r}")
        return self.now

    def stamp(self, value, field_name: str, place: str) -> tuple[float | None, str | None]:
        """An optional ISO-8601 time of the export as gold keeps it: (its instant, its text), both gold's start
        when it is later (noted)."""
        time = parse_time(value, field_name)
        clamped = self.clamp(time, place, value)
        return clamped, value if clamped == time else self.start

    def problem(self, file, where, field_name, message) -> None:
        self.problems.append(InputError(file, where, field_name, message))

    def read(self, path: Path) -> None:
        try:
            doc = safeio.read_json(path, safeio.EXPORT_LIMIT)
        except InputError as e:
            return self.problem(path, e.where, e.field, e.message)
        try:
            header = ReviewHeader.from_json(doc, str(path))
        except InputError as e:
            return self.problem(path, None, e.field, e.message)
        mine = self.header
        if header.bundle_id != mine["bundle_id"]:
            return self.problem(path, None, "bundle_id", f"{short(header.bundle_id)!r} is another bundle (this review "
                                f"bundle is of {mine['bundle_id']!r})")
        if header.merge_sha256 != mine["merge_sha256"] or header.review_id != mine["review_id"]:
            return self.problem(path, None, "merge_sha256", f"stale: a review of another merge of this bundle "
                                f"(review id {short(header.review_id)!r}; this review bundle is {mine['review_id']!r},"
                                f" made from merge {mine['merge_sha256'][:12]}…): give gold the review bundle it was "
                                "made on")
        reviewer = normalize_name(header.reviewer)
        if not reviewer:
            return self.problem(path, None, "reviewer", "empty (only invisible characters)")
        for i, entry in enumerate(header.records):
            where = f"records[{i}]"
            if isinstance(entry, dict) and isinstance(entry.get("record_id"), str):
                where = f"record {entry['record_id']}"
            try:
                self.read_entry(path, reviewer, entry)
            except Reject as e:
                self.problem(path, where, e.field, e.message)

    def read_entry(self, path: Path, reviewer: str, entry) -> None:
        if not isinstance(entry, dict):
            raise Reject(None, "expected an object")
        check_json(entry)
        record_id = entry.get("record_id")
        record = self.records.get(record_id) if isinstance(record_id, str) else None
        if record is None:
            raise Reject("record_id", "unknown record id (not in the review bundle)")
        if not isinstance(entry.get("adjudicated"), bool):
            raise Reject("adjudicated", "expected true or false")
        place = f"{path.name}, record {record['id']}"
        time, updated_at = self.stamp(entry.get("updated_at"), "updated_at", place)
        if time is None or updated_at is None:
            raise Reject("updated_at", "missing")
        text = self.texts[record["id"]]
        keys = {a["key"]: a for a in record["annotations"]}
        decisions = _object(entry.get("decisions"), "decisions")
        checked = {}
        for key, d in decisions.items():
            name = f"decisions.{key}"
            if key not in keys:
                raise Reject(name, "no annotation of this record has this key")
            d = _object(d, name)
            if d.get("action") not in ACTIONS:
                raise Reject(f"{name}.action", f"{short(str(d.get('action')))!r} is not one of {', '.join(ACTIONS)}")
            _, decided = self.stamp(d.get("updated_at"), f"{name}.updated_at", f"{place}, {name}")
            out = {"action": d["action"], "updated_at": decided}
            if d["action"] == "edit":
                a = {**keys[key], **{k: d[k] for k in EDITABLE if k in d}}
                out["annotation"] = self.annotation(a, text, name, a["annotator"], place)
                out["edited"] = sorted(k for k in EDITABLE if k in d and d[k] != keys[key][k])
            checked[key] = out
        added: list[dict] = []
        ids: dict[str, int] = {}
        for j, a in enumerate(_list(entry.get("added"), "added")):
            a = _object(a, f"added[{j}]")
            if not isinstance(a.get("id"), str) or not a["id"]:
                raise Reject(f"added[{j}].id", "missing or not a string")
            if a["id"] in ids:
                raise Reject(f"added[{j}].id", f"{short(a['id'])!r} is the id of added[{ids[a['id']]}] too (each "
                             "annotation of yours needs its own id: one of the two would be lost)")
            ids[a["id"]] = j
            added.append(self.annotation(a, text, f"added[{j}]", reviewer, place))
        answers = {}
        for q_name, answer in _object(entry.get("answers"), "answers").items():
            name = f"answers.{q_name}"
            q = self.questions.get(q_name)
            answer = _object(answer, name)
            if q is None:
                raise Reject(name, "unknown question" + (" (the span question is decided by `decisions`)"
                                                         if q_name == SPANS else ""))
            if set(answer) == {"from"}:
                given = {r["annotator"]: r.get("values") or {} for r in record["responses"]}
                if not isinstance(answer["from"], str) or q_name not in given.get(answer["from"], {}):
                    raise Reject(f"{name}.from", f"{short(str(answer['from']))!r} gave no answer to this question")
            elif set(answer) == {"value"}:
                try:
                    check_value(q, answer["value"])
                except Reject as e:
                    raise Reject(name + ".value", str(e)) from None
            else:
                raise Reject(name, 'expected {"from": ANNOTATOR} or {"value": VALUE}')
            answers[q_name] = answer
        targets = {"record", *keys, *(a["id"] for a in added)}
        comments = []
        for j, c in enumerate(_list(entry.get("comments"), "comments")):
            c = _object(c, f"comments[{j}]")
            for k in ("id", "on", "author", "time", "text"):
                if not isinstance(c.get(k), str):
                    raise Reject(f"comments[{j}].{k}", "missing or not a string")
            if c["on"] not in targets:
                raise Reject(f"comments[{j}].on", f"{short(c['on'])!r} is neither the record, an annotation key nor "
                             "an added annotation's id")
            _, at = self.stamp(c["time"], f"comments[{j}].time", f"{place}, comments[{j}]")
            comments.append({"id": c["id"], "on": c["on"], "author": c["author"], "time": at, "text": c["text"]})
        sentences = self.sentences(entry.get("sentences"), record, text, place)
        new = ReviewEntry(reviewer, record["id"], updated_at, time, entry["adjudicated"], checked, added,
                          answers, comments, str(path), sentences)
        old = self.entries.get((reviewer, record["id"]))
        if old is None or (new.time, new.file) >= (old.time, old.file):
            self.entries[reviewer, record["id"]] = new

    def sentences(self, given, record: dict, text, place: str) -> dict[int, dict]:
        """The reviewer's settled sentences: each names a summary sentence of the review data, and takes a
        judge's verdict (`from`: a judge who checked it) or gives one of the settings' verdicts with its evidence
        (source sentences, only for a verdict that carries evidence)."""
        settings = self.bundle.settings.sentence_verdicts
        known = {s["sentence"]: s for s in record.get("sentences", [])}
        out: dict[int, dict] = {}
        for j, d in enumerate(_list(given, "sentences")):
            name = f"sentences[{j}]"
            d = _object(d, name)
            index = d.get("sentence")
            if type(index) is not int or index not in known:
                raise Reject(f"{name}.sentence", f"{short(repr(index))} is not a summary sentence of this record"
                             + ("" if known else " (this review bundle has no sentence verdicts)"))
            if index in out:
                raise Reject(f"{name}.sentence", f"sentence {index} is settled twice")
            _, at = self.stamp(d.get("updated_at"), f"{name}.updated_at", f"{place}, {name}")
            if set(d) - {"sentence", "updated_at"} == {"from"}:
                checked = {v["annotator"] for v in known[index]["verdicts"] if v["verdict"] != NOT_CHECKED}
                if d["from"] not in checked:
                    raise Reject(f"{name}.from", f"{short(str(d['from']))!r} gave no verdict on this sentence")
                out[index] = {"from": d["from"], "updated_at": at}
                continue
            verdict, evidence = d.get("verdict"), d.get("evidence")
            if settings is None or not isinstance(verdict, str) or verdict not in settings.values:
                values = ", ".join(settings.values) if settings is not None else "none: the bundle asks no verdict"
                raise Reject(f"{name}.verdict", f"{short(repr(verdict))} is not a verdict of the settings ({values})")
            if verdict not in settings.evidence:
                if evidence not in (None, []):
                    raise Reject(f"{name}.evidence", f"the verdict {verdict!r} carries no evidence")
                out[index] = {"verdict": verdict, "evidence": None, "updated_at": at}
                continue
            count = len(text.source_text.sentences)
            if not isinstance(evidence, list):
                raise Reject(f"{name}.evidence", "expected a list of source sentence indices")
            for k, e in enumerate(evidence):
                if type(e) is not int or not 0 <= e < count or e in evidence[:k]:
                    raise Reject(f"{name}.evidence[{k}]", f"{short(repr(e))} is not a source sentence (0 to "
                                 f"{count - 1}, each once)")
            out[index] = {"verdict": verdict, "evidence": list(evidence), "updated_at": at}
        return out

    def annotation(self, a: dict, record, name: str, annotator: str, place: str) -> dict:
        """An annotation as edited or added, checked as merge checks an annotator's (offsets, label, note)."""
        try:
            summary = span(a.get("summary"), record.summary, "summary")
            source = None if a.get("source") is None else span(a["source"], record.source, "source")
            time, out = annotation(self.labels, set(self.labels), id=a["id"], annotator=annotator, label=a.get("label"),
                                note=a.get("note"), summary=summary, source=source, created_at=a.get("created_at"),
                                updated_at=a.get("updated_at"))
        except Reject as e:
            raise Reject(f"{name}.{e.field}" if e.field else name, str(e)) from None
        if self.clamp(time, f"{place}, {name}", out["updated_at"]) != time:
            out["updated_at"] = self.start
        try:  # a creation time that is no time is kept as it is, as merge keeps it
            created = parse_time(out["created_at"], "created_at")
        except Reject:
            created = None
        if self.clamp(created, f"{place}, {name}.created_at", out["created_at"]) != created:
            out["created_at"] = self.start
        return out


def _object(value, name: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Reject(name, f"expected an object, got {safeio.json_kind(value)}")
    return value


def _list(value, name: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise Reject(name, f"expected a list, got {safeio.json_kind(value)}")
    return value
