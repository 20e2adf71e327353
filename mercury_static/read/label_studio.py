"""Label Studio tasks input (a JSON export, or what `merge --format label-studio` writes):
`[{id?, data: {<field>: text, ...}, annotations?: [{completed_by, result}], predictions?: [{model_version, score,
result}]}]`.

- `data.<source field>` and `data.<summary field>` are the texts (`--source-field` / `--summary-field`, or the
  labeling config's `Text` values); every other data field is metadata. The record id is `--id-field`, else
  `data.record_id` (merge writes it), else the usual `id` / `sample_id` of the data, else the task's `id`.
- A result's `to_name` is the data field of its text (as in `<Text name="summary" value="$summary"/>`).
  `labels` regions on the summary are spans, on the source their evidence, paired by a `relation`; a per-region
  `textarea` is the span's note. Offsets are UTF-16 code units, as Label Studio's page counts them; they are
  turned into code points, and a region's `text` must be its offsets' slice (else one line naming the task and
  the result).
- Annotations become prior annotations (as a Mercury dump's), the annotator being `completed_by`: a user's
  email, or its integer id named through the `annotators.json` merge writes beside the tasks, else `user N`.
  A cancelled annotation (a skipped task) is left out with a warning.
- Predictions become suggestions of the span question, agent `model_version` (else `label-studio`), score
  `score`.
- Result types that do not map (choices, rating, ...) are left out with one warning per type and file.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from mercury_static.core import mercury, safeio
from mercury_static.core.records import InputError
from mercury_static.read.mercury_dump import prior_annotation
from mercury_static.read.record import Item, Options, make_item

log = logging.getLogger("mercury_static")
TASK_KEYS = frozenset(("id", "data", "meta", "annotations", "predictions"))
ANNOTATORS = "annotators.json"
AGENT = "label-studio"


def is_label_studio(first) -> bool:
    """A task of Label Studio: a `data` object, and annotations or predictions or nothing else (a plain record
    with a field named `data` stays a record)."""
    return isinstance(first, dict) and isinstance(first.get("data"), dict) \
        and ("annotations" in first or "predictions" in first or set(first) <= TASK_KEYS)


def _user_names(path: Path) -> dict[int, str]:
    """User id -> name from the annotators.json beside the tasks ({} when there is none)."""
    file = path.parent / ANNOTATORS
    if not file.is_file():
        return {}
    doc = safeio.parse_checked(safeio.read_text(file, str(file), safeio.SMALL_LIMIT), str(file))
    if not isinstance(doc, dict) or not all(isinstance(v, int) and isinstance(k, str) for k, v in doc.items()):
        raise InputError(str(file), None, None, "expected {annotator name: user id}")
    return {v: k for k, v in doc.items()}


def _annotator(value, users: dict[int, str], name: str, where: str) -> str:
    if isinstance(value, dict):
        value = value.get("email") or value.get("username") or value.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return users.get(value, f"user {value}")
    if isinstance(value, str) and value.strip():
        return value
    raise InputError(name, where, "completed_by", f"expected a user id or a user, got {safeio.json_kind(value)}")


def _code_point(text: str, unit: int) -> int | None:
    """The code point offset of UTF-16 offset `unit` in `text` (None: beyond the text or inside a pair)."""
    count = 0
    for i, c in enumerate(text):
        if count == unit:
            return i
        count += 2 if ord(c) > 0xFFFF else 1
        if count > unit:
            return None
    return len(text) if count == unit else None


class _Task:
    """One task's results read against its texts, errors naming the file, the task and the result."""

    def __init__(self, name: str, where: str, texts: dict[str, str], skipped: Counter):
        self.name, self.where, self.texts, self.skipped = name, where, texts, skipped

    def fail(self, key: str, message: str) -> NoReturn:
        raise InputError(self.name, self.where, key, message)

    def spans(self, result, key: str) -> list[tuple[list[str], dict, dict | None, str]]:
        """(labels, summary span, source span or None, note) of each summary region of a result list."""
        if not isinstance(result, list):
            self.fail(key, f"expected a list, got {safeio.json_kind(result)}")
        regions: dict[str, tuple[str, list[str], dict]] = {}
        relations, notes = [], []
        for k, item in enumerate(result):
            at = f"{key}[{k}]"
            if not isinstance(item, dict):
                self.fail(at, f"expected an object, got {safeio.json_kind(item)}")
            kind = item.get("type")
            if kind == "labels":
                side, labels, span = self._region(item, at)
                region_id = str(item.get("id", at))
                if region_id in regions:
                    self.fail(f"{at}.id", f"region id {region_id!r} given twice")
                regions[region_id] = (side, labels, span)
            elif kind == "relation":
                relations.append((item, at))
            elif kind == "textarea":
                notes.append((item, at))
            else:
                self.skipped[str(kind)] += 1
        pairs: dict[str, str] = {}
        for item, at in relations:
            ends = [str(item.get(k)) for k in ("from_id", "to_id")]
            missing = next((e for e in ends if e not in regions), None)
            if missing is not None:
                self.fail(at, f"a relation to region {missing!r}, which is not a labels region of this result")
            sides = {regions[e][0]: e for e in ends}
            if set(sides) != {"summary", "source"}:
                self.fail(at, "a relation pairs a summary region with a source region")
            if sides["summary"] in pairs:
                self.fail(at, f"summary region {sides['summary']!r} paired with two source regions")
            pairs[sides["summary"]] = sides["source"]
        lone = next((r for r, (side, _, _) in regions.items() if side == "source" and r not in pairs.values()), None)
        if lone is not None:
            self.fail(key, f"source region {lone!r} is not paired with a summary region by a relation")
        note_of: dict[str, str] = {}
        for item, at in notes:
            region_id = str(item.get("id"))
            text = (item.get("value") or {}).get("text") if isinstance(item.get("value"), dict) else None
            if region_id not in regions or regions[region_id][0] != "summary":
                log.warning("%s: %s: %s: a textarea not on a summary region; left out", self.name, self.where, at)
                continue
            if isinstance(text, str):
                text = [text]
            if not isinstance(text, list) or not all(isinstance(t, str) for t in text):
                self.fail(f"{at}.value.text", "expected a list of texts")
            note_of[region_id] = "\n".join(text)
        return [(labels, span, regions[pairs[r]][2] if r in pairs else None, note_of.get(r, ""))
                for r, (side, labels, span) in regions.items() if side == "summary"]

    def _region(self, item: dict, at: str) -> tuple[str, list[str], dict]:
        side = next((s for s, field in (("summary", self.texts["summary_field"]),
                                        ("source", self.texts["source_field"])) if item.get("to_name") == field), None)
        if side is None:
            self.fail(f"{at}.to_name", f"{item.get('to_name')!r} is neither the source field "
                      f"{self.texts['source_field']!r} nor the summary field {self.texts['summary_field']!r}")
        value = item.get("value")
        if not isinstance(value, dict):
            self.fail(f"{at}.value", "expected an object {start, end, text, labels}")
        labels = value.get("labels")
        if not isinstance(labels, list) or not labels or not all(isinstance(x, str) and x for x in labels):
            self.fail(f"{at}.value.labels", "expected a non-empty list of labels")
        text = self.texts[side]
        start, end = value.get("start"), value.get("end")
        if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool) or isinstance(end, bool):
            self.fail(f"{at}.value", "expected integer start and end")
        s, e = _code_point(text, start), _code_point(text, end)
        if s is None or e is None or not s < e:
            self.fail(f"{at}.value", f"offsets {start}..{end} (UTF-16 units) are not a span of the {side}")
        if value.get("text") != text[s:e]:
            self.fail(f"{at}.value.text", f"{value.get('text')!r} is not the {side}'s text at {start}..{end} "
                      f"(UTF-16 units): {text[s:e]!r}")
        return side, labels, {"start": s, "end": e, "text": text[s:e]}


def _label(labels: list[str]) -> list[str]:
    """The annotation label (path prefixes) of a region's label values, dotted paths."""
    out: list[str] = []
    for x in labels:
        out += [p for p in mercury.label_path(x) or [] if p not in out]
    return out


def read_tasks(items: list, path: Path, name: str, opts: Options) -> Iterator[Item]:
    """The records of a Label Studio tasks list (see the module docstring)."""
    if not items:
        raise InputError(name, None, None, "no tasks (empty list)")
    users = _user_names(path)
    skipped: Counter = Counter()
    cancelled = 0
    for i, task in enumerate(items):
        where = f"record {i}"
        if not isinstance(task, dict):
            raise InputError(name, where, None, f"expected a task object, got {safeio.json_kind(task)}")
        safeio.check(task, name, where)
        data = task.get("data")
        if not isinstance(data, dict):
            raise InputError(name, where, "data", f"expected an object, got {safeio.json_kind(data)}")
        for key in (opts.source_field, opts.summary_field):
            if key not in data:
                raise InputError(name, where, f"data.{key}", f"missing (data fields: {', '.join(data) or 'none'})")
        fields, task_opts = dict(data), opts
        if opts.id_field is None and "record_id" in data:
            task_opts = replace(opts, id_field="record_id")
        elif opts.id_field is None and not {"id", "sample_id"} & set(data) and "id" in task:
            fields["id"] = task["id"]
        item = make_item(fields, i, where, name, task_opts, is_dump=False)
        record = item.record
        reader = _Task(name, where, {"summary": record.summary, "source": record.source,
                                     "summary_field": opts.summary_field, "source_field": opts.source_field}, skipped)
        for k, a in enumerate(_list(task, "annotations", name, where)):
            at = f"annotations[{k}]"
            if not isinstance(a, dict):
                raise InputError(name, where, at, f"expected an object, got {safeio.json_kind(a)}")
            if a.get("was_cancelled") is True:
                cancelled += 1
                continue
            who = _annotator(a.get("completed_by"), users, name, f"{where}: {at}")
            for n, (labels, summary, source, note) in enumerate(reader.spans(a.get("result"), f"{at}.result")):
                dump = {"annotator_name": who, "label": _label(labels), "note": note,
                        "summary_span": summary["text"], "summary_start": summary["start"],
                        "summary_end": summary["end"]}
                if source is not None:
                    dump.update(source_span=source["text"], source_start=source["start"], source_end=source["end"])
                prior = prior_annotation(dump, n, record.id, record.source, record.summary, f"{name}: {where}")
                if prior is not None:
                    record.prior_annotations.append(prior)
        for k, p in enumerate(_list(task, "predictions", name, where)):
            at = f"predictions[{k}]"
            if not isinstance(p, dict):
                raise InputError(name, where, at, f"expected an object, got {safeio.json_kind(p)}")
            agent = p.get("model_version")
            value = [{"label": label, "summary": [s["start"], s["end"]],
                      "source": None if src is None else [src["start"], src["end"]]}
                     for labels, s, src, _ in reader.spans(p.get("result"), f"{at}.result") for label in labels]
            if value:
                record.suggestions.append({"agent": agent if isinstance(agent, str) and agent.strip() else AGENT,
                                           "score": p.get("score"), "value": value, "where": f"{where}: {at}"})
        yield item
    if cancelled:
        log.warning("%s: %d cancelled annotations (skipped tasks) left out", name, cancelled)
    for kind, n in sorted(skipped.items()):
        log.warning("%s: %d results of type %s left out (labels, relation and textarea map)", name, n, kind)


def _list(task: dict, key: str, name: str, where: str) -> list:
    value = task.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(name, where, key, f"expected a list, got {safeio.json_kind(value)}")
    return value
