"""`merge --format argilla -o DIR`: the merged dataset laid out as Argilla 2.x writes a dataset to disk
(`rg.Dataset.to_disk`), so `rg.Dataset.from_disk(DIR)` logs it to a server and `datasets` reads records.json:

- `records.json`: one `Record.to_dict()` per record: `fields`, `metadata`, `suggestions` (question -> `{value,
  score, agent}`), `responses` (question -> `[{value, user_id, status}]`), `vectors`, `status`;
- `.argilla/settings.json`: `Settings.to_json()`: guidelines, fields, questions, metadata, vectors,
  distribution; `.argilla/dataset.json`: the dataset model;
- `annotators.json`: `{annotator: user_id}` (Argilla identifies a user by a UUID; ours are uuid5 of the name).

Layouts as argilla 2.8.0 writes them (docs/argilla-*.schema.json). Where Argilla has no room for something
(a span's source evidence and note, a second suggestion for one question) it is in the mercury-static
output only; the mapping table of docs/settings.md ("Coming from Argilla") lists each.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from . import safeio
from .bundle import Bundle, decode_rows
from .formats import default_manifest_settings
from .records import InputError
from .settings import Question

RECORDS, SETTINGS, DATASET, ANNOTATORS = "records.json", ".argilla/settings.json", ".argilla/dataset.json", \
    "annotators.json"
FILES = (RECORDS, SETTINGS, DATASET, ANNOTATORS)
MARKER = ".mercury-static-merge"
"""The file at the root of a folder merge wrote: what lets a later merge replace the folder (a user's own
Argilla dataset folder has none, and is refused)."""
USERS = uuid.uuid5(uuid.NAMESPACE_URL, "mercury-static:annotator")
"""Namespace of the annotators' user ids: the same name gives the same id in every merge."""
QUESTION_TYPES = {"span": "span", "label": "label_selection", "multi_label": "multi_label_selection",
                  "rating": "rating", "ranking": "ranking", "text": "text"}
STATUS = {"submitted": "submitted", "discarded": "discarded", "in_progress": "draft"}
VECTOR_NAME = "summary_vector"


def user_id(annotator: str) -> str:
    return str(uuid.uuid5(USERS, annotator))


def _resource(**fields) -> dict:
    """An Argilla settings resource as `to_json` writes it: server ids and times null (not on a server)."""
    return {"id": None, "inserted_at": None, "updated_at": None, **fields, "dataset_id": None}


def _question(q: Question, span_labels: Sequence[str]) -> dict:
    kind = QUESTION_TYPES[q.type]
    options = [{"text": o.text, "value": o.value} for o in q.options]
    settings: dict = {"type": kind}
    if q.type == "span":
        settings.update(allow_overlapping=True, field="summary",
                        options=[{"text": label, "value": label} for label in span_labels], visible_options=None)
    elif q.type in ("label", "multi_label"):
        settings.update(options=options, visible_options=None)
        if q.type == "multi_label":
            settings["options_order"] = "natural"
    elif q.type == "rating":
        settings["options"] = [{"value": v} for v in q.values]
    elif q.type == "ranking":
        settings["options"] = options
    else:
        settings["use_markdown"] = q.markdown
    return _resource(name=q.name, settings=settings, title=q.title, description=q.description or None,
                     required=q.required, type=kind)


def _field(name: str, title: str, required: bool, markdown: bool = False) -> dict:
    return _resource(name=name, settings={"type": "text", "use_markdown": markdown}, title=title, required=required,
                     description=None, type="text")


def _metadata(p: dict) -> dict:
    settings: dict = {"visible_for_annotators": p["visible"]}
    if p["type"] == "terms":
        settings.update(type="terms", values=list(p.get("values") or []))
    else:
        settings.update(min=p.get("min"), max=p.get("max"), type=p["type"])
    return _resource(name=p["name"], settings=settings, title=p["title"], visible_for_annotators=p["visible"])


def min_submitted(manifest: dict) -> int:
    """Argilla's distribution: the bundle's queue overlap, else 1 (each record done once)."""
    queues = manifest.get("queues")
    return queues["overlap"] if isinstance(queues, dict) and isinstance(queues.get("overlap"), int) else 1


def settings_json(manifest: dict, questions: Sequence[Question], dim: int | None) -> dict:
    s = manifest.get("settings") or default_manifest_settings()
    fields = [_field("source", s["fields"]["source"]["title"], True),
              _field("summary", s["fields"]["summary"]["title"], True)]
    fields += [_field(f["name"], f["title"], False, f.get("markdown") is True) for f in s["fields"].get("extra", [])]
    guidelines = manifest.get("guidelines")
    return {
        "guidelines": guidelines["text"] if guidelines else None,
        "questions": [_question(q, manifest["label_choices"]) for q in questions],
        "fields": fields,
        "vectors": [] if dim is None else [_resource(name=VECTOR_NAME, title=s["fields"]["summary"]["title"],
                                                     dimensions=dim)],
        "metadata": [_metadata(p) for p in s.get("metadata", [])],
        "allow_extra_metadata": False,
        "distribution": {"strategy": "overlap", "min_submitted": min_submitted(manifest)},
        "mapping": None,
    }


def _spans(value: list[dict]) -> list[dict]:
    """Span values (a suggestion's `{label, summary: [s, e]}`) as Argilla's `{start, end, label}`."""
    return [{"start": v["summary"][0], "end": v["summary"][1], "label": v["label"]} for v in value]


def record_json(bundle_record, merged: dict, questions: Sequence[Question], needed: int,
                vector: list[float] | None, dropped: list[tuple]) -> dict:
    """One record as `Record.to_dict()` writes it; suggestions Argilla has no room for go to `dropped`."""
    span = next(q.name for q in questions if q.type == "span")
    suggestions: dict = {}
    for s in merged.get("suggestions", []):  # Argilla keeps one per question: the first, as the page lists them
        if s["question"] in suggestions:
            dropped.append((merged["id"], s["question"], s.get("agent")))
        else:
            value = _spans(s["value"]) if s["question"] == span else s["value"]
            suggestions[s["question"]] = {"value": value, "score": s.get("score"), "agent": s.get("agent")}
    statuses = {r["annotator"]: STATUS[r["status"]] for r in merged["responses"]}
    values = {r["annotator"]: r.get("values", {}) for r in merged["responses"]}
    for a in merged["annotations"]:  # Mercury dumps record no status: their annotators count as having submitted
        statuses.setdefault(a["annotator"], "submitted")
    responses: dict[str, list[dict]] = {}
    for annotator in sorted(statuses):
        who = {"user_id": user_id(annotator), "status": statuses[annotator]}
        spans = [{"start": a["summary"]["start"], "end": a["summary"]["end"], "label": a["label"][-1]}
                 for a in merged["annotations"] if a["annotator"] == annotator]
        responses.setdefault(span, []).append({"value": spans, **who})  # no span is an answer: "consistent"
        for q in questions:
            if q.name in values.get(annotator, {}):
                responses.setdefault(q.name, []).append({"value": values[annotator][q.name], **who})
    submitted = sum(s == "submitted" for s in statuses.values())
    return {"id": merged["id"],
            "fields": {"source": merged["source"], "summary": merged["summary"], **bundle_record.fields},
            "metadata": dict(bundle_record.meta), "suggestions": suggestions, "responses": responses,
            "vectors": {} if vector is None else {VECTOR_NAME: vector},
            "status": "completed" if submitted >= needed else "pending", "_server_id": None}


def _record_vectors(bundle: Bundle) -> tuple[int | None, list]:
    info = bundle.manifest.get("record_vectors")
    if not info:
        return None, [None] * len(bundle.records)
    name = info["path"]
    try:
        rows = decode_rows(safeio.read_bytes(bundle.dir / name, name), info["dim"])
    except InputError as e:
        raise InputError(bundle.dir, None, None, f"cannot read the bundle: {e}") from None
    except (ValueError, TypeError):
        raise InputError(bundle.dir, None, None, f"cannot read the bundle: {name}: not {info['dim']}-dimensional "
                         "float16 rows") from None
    if len(rows) != len(bundle.records):
        raise InputError(bundle.dir, None, None, f"cannot read the bundle: {name}: {len(rows)} rows for "
                         f"{len(bundle.records)} records")
    return info["dim"], [row.tolist() for row in rows]


def argilla_files(bundle: Bundle, records: Sequence[dict],
                  questions: Sequence[Question]) -> tuple[dict[str, bytes], list[str]]:
    """The files of the Argilla layout (path relative to -o DIR -> bytes, deterministic) and a note for each
    kind of thing Argilla's layout cannot hold."""
    dim, vectors = _record_vectors(bundle)
    needed = min_submitted(bundle.manifest)
    dropped: list[tuple] = []
    out = [record_json(b, m, questions, needed, v, dropped) for b, m, v in zip(bundle.records, records, vectors)]
    notes = []
    if dropped:
        record_id, question, agent = dropped[0]
        notes.append(f"argilla: {len(dropped)} suggestion(s) not written: Argilla keeps one suggestion per question "
                     f"of a record, the first one (e.g. record {record_id}, question {question!r}, agent {agent!r})")
    if any(a["source"] or a["note"] for m in records for a in m["annotations"]):
        notes.append("argilla: span evidence (source spans) and notes have no place in Argilla's span answers; "
                     "they are in the mercury-static output (--format mercury-static)")
    settings = settings_json(bundle.manifest, questions, dim)
    dataset = {"id": None, "inserted_at": None, "updated_at": None, "name": bundle.manifest["title"] or "mercury",
               "status": "draft", "guidelines": settings["guidelines"], "allow_extra_metadata": False,
               "distribution": settings["distribution"], "workspace_id": None, "last_activity_at": None}
    names = sorted({r["annotator"] for m in records for r in m["responses"]}
                   | {a["annotator"] for m in records for a in m["annotations"]})
    text = "[\n" + ",\n".join(safeio.dumps(r) for r in out) + "\n]\n"
    return {RECORDS: text.encode("utf-8"), SETTINGS: (safeio.dumps(settings, indent=1) + "\n").encode("utf-8"),
            DATASET: (safeio.dumps(dataset, indent=1) + "\n").encode("utf-8"),
            ANNOTATORS: (safeio.dumps({n: user_id(n) for n in names}, indent=1) + "\n").encode("utf-8")}, notes
