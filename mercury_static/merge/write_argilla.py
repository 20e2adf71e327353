"""`merge --format argilla -o DIR`: the merged dataset laid out as Argilla 2.x writes a dataset to disk
(`rg.Dataset.to_disk`), so `rg.Dataset.from_disk(DIR)` logs it to a server and `datasets` reads records.json:

- `records.json`: one `Record.to_dict()` per record: `fields`, `metadata`, `suggestions` (question -> `{value,
  score, agent}`), `responses` (question -> `[{value, user_id, status}]`), `vectors`, `status`;
- `.argilla/settings.json`: `Settings.to_json()`: guidelines, fields, questions, metadata, vectors,
  distribution; `.argilla/dataset.json`: the dataset model;
- `annotators.json`: `{annotator: user_id}` (Argilla identifies a user by a UUID; ours are uuid5 of the name).

With sentence verdicts (docs/sentence-verdicts.md) two span questions are added, as Argilla holds them natively:
`sentence_verdicts` on the summary field, labelled with the verdict options, each judged sentence a span with its
verdict; `sentence_evidence` on the source field, labelled "summary sentence N", each evidence sentence a span
labelled with the summary sentence it was checked for (overlapping: one source sentence may back several).

Layouts as argilla 2.8.0 writes them (docs/argilla-*.schema.json). Where Argilla has no room for something
(a span's source evidence and note, a second suggestion for one question) it is in the mercury-static
output only; the mapping table of docs/settings.md ("Coming from Argilla") lists each.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from mercury_static.core import safeio
from mercury_static.bundle.contents import Bundle, decode_rows
from mercury_static.formats import default_manifest_settings
from mercury_static.merge.argilla_diff import differences
from mercury_static.core.records import InputError
from mercury_static.settings.model import Question, SentenceVerdicts

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
VERDICTS_NAME, EVIDENCE_NAME = "sentence_verdicts", "sentence_evidence"
"""The span questions of the sentence verdicts and their evidence (only for a bundle that asks them)."""
TIME_NAME = "time_on_task_s"
"""The record metadata property of the annotators' summed time on task (seconds): Argilla's responses carry no
metadata, so the time per annotator and per annotation is in the mercury-static output only."""


def user_id(annotator: str) -> str:
    return str(uuid.uuid5(USERS, annotator))


def _resource(**fields) -> dict:
    """An Argilla settings resource as `to_json` writes it: server ids and times null (not on a server)."""
    return {"id": None, "inserted_at": None, "updated_at": None, **fields, "dataset_id": None}


def _question(q: Question, span_labels: Sequence[str], summary: str) -> dict:
    kind = QUESTION_TYPES[q.type]
    options = [{"text": o.text, "value": o.value} for o in q.options]
    settings: dict = {"type": kind}
    if q.type == "span":
        texts = {o.value: o.text for o in q.label_texts}
        settings.update(allow_overlapping=q.allow_overlapping, field=summary,
                        options=[{"text": texts.get(label, label), "value": label} for label in span_labels],
                        visible_options=q.visible_options)
    elif q.type in ("label", "multi_label"):
        settings.update(options=options, visible_options=q.visible_options)
        if q.type == "multi_label":
            settings["options_order"] = q.options_order
    elif q.type == "rating":
        settings["options"] = [{"value": v} for v in q.values]
    elif q.type == "ranking":
        settings["options"] = options
    else:
        settings["use_markdown"] = q.markdown
    return _resource(name=q.name, settings=settings, title=q.title, description=q.description or None,
                     required=q.required, type=kind)


def _field(f: dict, role: str | None = None) -> dict:
    """A text field of the manifest (the two texts: `role` source/summary, named so unless the settings
    named them) as Argilla's; an extra field of an older manifest (no `required`) was optional."""
    return _resource(name=f.get("name", role), settings={"type": "text", "use_markdown": f.get("markdown") is True},
                     title=f["title"], required=f.get("required", role is not None),
                     description=f.get("description") or None, type="text")


def field_names(manifest: dict) -> tuple[str, str]:
    """The Argilla field names of the two texts."""
    s = (manifest.get("settings") or default_manifest_settings())["fields"]
    return s["source"].get("name", "source"), s["summary"].get("name", "summary")


def _metadata(p: dict) -> dict:
    """A metadata property; values or a bound the manifest took from the data (`from_data`) stay unset. Its
    `settings.visible_for_annotators` is true as argilla 2.8 writes it for every property (a default its
    model never sets: the property's own key is the one that counts)."""
    settings: dict = {"visible_for_annotators": True}
    observed = p.get("from_data", ())
    if p["type"] == "terms":
        settings.update(type="terms", values=None if "values" in observed else list(p.get("values") or []))
    else:
        settings.update(min=None if "min" in observed else p.get("min"),
                        max=None if "max" in observed else p.get("max"), type=p["type"])
    return _resource(name=p["name"], settings=settings, title=p["title"], visible_for_annotators=p["visible"])


def min_submitted(manifest: dict) -> int:
    """Argilla's distribution: the bundle's queue overlap, else the settings' min_submitted, else 1."""
    queues = manifest.get("queues")
    if isinstance(queues, dict) and isinstance(queues.get("overlap"), int):
        return queues["overlap"]
    dist = (manifest.get("settings") or {}).get("distribution") or {}
    return dist["min_submitted"] if isinstance(dist.get("min_submitted"), int) else 1


def _time_property() -> dict:
    return _resource(name=TIME_NAME, settings={"visible_for_annotators": True, "min": None, "max": None,
                                               "type": "float"},
                     title="Time on task (s, all annotators)", visible_for_annotators=False)


def _span_question(name: str, field: str, options: list[dict], title: str, description: str,
                   overlapping: bool) -> dict:
    """A span question as Argilla writes it (`visible_options` all of them from 3 options, as its model sets)."""
    settings = {"type": "span", "allow_overlapping": overlapping, "field": field, "options": options,
                "visible_options": len(options) if len(options) >= 3 else None}
    return _resource(name=name, settings=settings, title=title, description=description, required=False,
                     type="span")


def evidence_label(sentence: int) -> str:
    """The label of an evidence span: the summary sentence (0-based) it was checked for."""
    return f"sentence-{sentence}"


def sentence_questions(verdicts: SentenceVerdicts, names: tuple[str, str], n_sentences: int) -> list[dict]:
    """The two span questions of the sentence verdicts: verdicts on the summary, evidence on the source (one
    label per summary sentence of the longest summary)."""
    labels = [{"text": o.text, "value": o.value} for o in verdicts.options]
    evidence = [{"text": f"Summary sentence {i + 1}", "value": evidence_label(i)} for i in range(n_sentences)]
    return [_span_question(VERDICTS_NAME, names[1], labels, "Sentence verdicts",
                           "Each summary sentence judged, as a span labelled with its verdict.", False),
            _span_question(EVIDENCE_NAME, names[0], evidence, "Sentence evidence",
                           "The source sentences each summary sentence was checked against, labelled with it.", True)]


def settings_json(manifest: dict, questions: Sequence[Question], dim: int | None, timed: bool = False,
                  sentences: list[dict] | None = None) -> dict:
    """Argilla's settings.json; `timed`: some record has a time on task (its metadata property is added);
    `sentences`: the questions of the sentence verdicts (sentence_questions)."""
    s = manifest.get("settings") or default_manifest_settings()
    fields = [_field(s["fields"]["source"], "source"), _field(s["fields"]["summary"], "summary")]
    fields += [_field(f) for f in s["fields"].get("extra", [])]
    guidelines = manifest.get("guidelines")
    summary = field_names(manifest)[1]
    return {
        "guidelines": guidelines["text"] if guidelines else None,
        "questions": [_question(q, manifest["label_choices"], summary) for q in questions] + (sentences or []),
        "fields": fields,
        "vectors": [] if dim is None else [_resource(name=VECTOR_NAME, title=s["fields"]["summary"]["title"],
                                                     dimensions=dim)],
        "metadata": [_metadata(p) for p in s.get("metadata", [])] + ([_time_property()] if timed else []),
        "allow_extra_metadata": False,
        "distribution": {"strategy": "overlap", "min_submitted": min_submitted(manifest)},
        "mapping": None,
    }


def _spans(value: list[dict]) -> list[dict]:
    """Span values (a suggestion's `{label, summary: [s, e]}`) as Argilla's `{start, end, label}`."""
    return [{"start": v["summary"][0], "end": v["summary"][1], "label": v["label"]} for v in value]


def _leaves(label: Sequence[str]) -> list[str]:
    """The labels an annotator ticked: an annotation's `label` lists each one with its parents."""
    return [x for x in label if not any(o.startswith(f"{x}.") for o in label)]


def span_answer(annotations: Sequence[dict], overlapping: bool, lost: list[tuple]) -> list[dict]:
    """One annotator's spans as Argilla's `{start, end, label}`, one per label ticked. Where the question does
    not allow overlapping spans, a span over characters an earlier one covers (a second label included) is
    left out and counted in `lost` (Argilla refuses the whole answer otherwise)."""
    out: list[dict] = []
    for a in annotations:
        start, end = a["summary"]["start"], a["summary"]["end"]
        for label in _leaves(a["label"]):
            if not overlapping and any(start < o["end"] and o["start"] < end for o in out):
                lost.append((a["record_id"], a["annotator"], label))
                continue
            out.append({"start": start, "end": end, "label": label})
    return out


def verdict_answers(verdicts: list[dict]) -> tuple[list[dict], list[dict]]:
    """One annotator's sentence verdicts as the two span answers: (verdict spans on the summary, evidence spans on
    the source labelled with their summary sentence)."""
    spans = [{"start": v["summary"]["start"], "end": v["summary"]["end"], "label": v["verdict"]} for v in verdicts]
    evidence = [{"start": e["start"], "end": e["end"], "label": evidence_label(v["sentence"])}
                for v in verdicts for e in v.get("evidence", [])]
    return spans, sorted(evidence, key=lambda x: (x["start"], x["label"]))


def record_json(bundle_record, merged: dict, questions: Sequence[Question], needed: int,
                vector: list[float] | None, dropped: list[tuple], lost: list[tuple],
                names: tuple[str, str] = ("source", "summary"), timed: bool = False, verdicts: bool = False) -> dict:
    """One record as `Record.to_dict()` writes it; suggestions Argilla has no room for go to `dropped`, spans
    it cannot hold to `lost`; `timed`: its annotators' summed time on task goes to its metadata; `verdicts`: its
    sentence verdicts, per annotator who gave some, as the answers of the sentence questions."""
    question = next(q for q in questions if q.type == "span")
    span = question.name
    suggestions: dict = {}
    for s in merged.get("suggestions", []):  # Argilla keeps one per question: the first, as the page lists them
        if s["question"] in suggestions:
            dropped.append((merged["id"], s["question"], s.get("agent")))
        else:
            value = _spans(s["value"]) if s["question"] == span else s["value"]
            suggestions[s["question"]] = {"value": value, "score": s.get("score"), "agent": s.get("agent")}
    statuses = {r["annotator"]: STATUS[r["status"]] for r in merged["responses"]}
    values = {r["annotator"]: r.get("values", {}) for r in merged["responses"]}
    for a in [*merged["annotations"], *merged.get("sentences", [])]:  # Mercury dumps record no status: their
        statuses.setdefault(a["annotator"], "submitted")                # annotators count as having submitted
    responses: dict[str, list[dict]] = {}
    for annotator in sorted(statuses):
        who = {"user_id": user_id(annotator), "status": statuses[annotator]}
        spans = span_answer([{**a, "record_id": merged["id"]} for a in merged["annotations"]
                             if a["annotator"] == annotator], question.allow_overlapping, lost)
        responses.setdefault(span, []).append({"value": spans, **who})  # no span is an answer: "consistent"
        for q in questions:
            if q.name in values.get(annotator, {}):
                responses.setdefault(q.name, []).append({"value": values[annotator][q.name], **who})
        given = [v for v in merged.get("sentences", []) if v["annotator"] == annotator] if verdicts else []
        if given:
            spans, evidence = verdict_answers(given)
            responses.setdefault(VERDICTS_NAME, []).append({"value": spans, **who})
            if evidence:
                responses.setdefault(EVIDENCE_NAME, []).append({"value": evidence, **who})
    submitted = sum(s == "submitted" for s in statuses.values())
    times = [r["active_ms"] for r in merged["responses"] if "active_ms" in r]
    metadata = {**bundle_record.meta, **({TIME_NAME: sum(times) / 1000} if times and timed else {})}
    return {"id": merged["id"],
            "fields": {names[0]: merged["source"], names[1]: merged["summary"], **bundle_record.fields},
            "metadata": metadata, "suggestions": suggestions, "responses": responses,
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
    lost: list[tuple] = []
    names = field_names(bundle.manifest)
    notes = []
    verdicts = bundle.settings.sentence_verdicts
    sentences = None
    if verdicts is not None:
        taken = {q.name for q in questions} & {VERDICTS_NAME, EVIDENCE_NAME}
        if taken:
            notes.append(f"argilla: the sentence verdicts are not written: the bundle has a question "
                         f"{sorted(taken)[0]!r} already; they are in the mercury-static output")
        else:
            sentences = sentence_questions(verdicts, names,
                                           max((len(r.summary_text.sentences) for r in bundle.records), default=0))
    timed = any("active_ms" in r for m in records for r in m["responses"])
    if timed and any(p["name"] == TIME_NAME for p in (bundle.manifest.get("settings") or {}).get("metadata", [])):
        notes.append(f"argilla: the time on task is not written: the bundle has a metadata property {TIME_NAME!r} "
                     "already; it is in the mercury-static output")
        timed = False
    out = [record_json(b, m, questions, needed, v, dropped, lost, names, timed, sentences is not None)
           for b, m, v in zip(bundle.records, records, vectors)]
    if dropped:
        record_id, question, agent = dropped[0]
        notes.append(f"argilla: {len(dropped)} suggestion(s) not written: Argilla keeps one suggestion per question "
                     f"of a record, the first one (e.g. record {record_id}, question {question!r}, agent {agent!r})")
    if lost:
        record_id, annotator, label = lost[0]
        notes.append(f"argilla: {len(lost)} span label(s) not written: the span question does not allow "
                     f"overlapping spans, and each was on characters another span of its annotator covers (e.g. "
                     f"record {record_id}, annotator {annotator!r}, label {label!r}); they are in the "
                     "mercury-static output")
    if any(a["source"] or a["note"] for m in records for a in m["annotations"]):
        notes.append("argilla: span evidence (source spans) and notes have no place in Argilla's span answers; "
                     "they are in the mercury-static output (--format mercury-static)")
    settings = settings_json(bundle.manifest, questions, dim, timed, sentences)
    notes += [f"argilla: {x}" for x in differences((bundle.manifest.get("settings") or {}).get("argilla"), settings)]
    dataset = {"id": None, "inserted_at": None, "updated_at": None, "name": bundle.manifest["title"] or "mercury",
               "status": "draft", "guidelines": settings["guidelines"], "allow_extra_metadata": False,
               "distribution": settings["distribution"], "workspace_id": None, "last_activity_at": None}
    names = sorted({r["annotator"] for m in records for r in m["responses"]}
                   | {a["annotator"] for m in records for a in m["annotations"]})
    text = "[\n" + ",\n".join(safeio.dumps(r) for r in out) + "\n]\n"
    return {RECORDS: text.encode("utf-8"), SETTINGS: (safeio.dumps(settings, indent=1) + "\n").encode("utf-8"),
            DATASET: (safeio.dumps(dataset, indent=1) + "\n").encode("utf-8"),
            ANNOTATORS: (safeio.dumps({n: user_id(n) for n in names}, indent=1) + "\n").encode("utf-8")}, notes
