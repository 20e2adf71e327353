"""`merge --format label-studio -o DIR`: the merged dataset as Label Studio imports it into a project:

- `config.xml`: the labeling config (two `Text` objects, `source` and `summary`; a `Labels` control on each with the
  bundle's labels, the leaves of the tree by their dotted path; `Relations`; a per-region `TextArea` for notes);
- `tasks.json`: one task per record, `{data: {source, summary, record_id}, annotations: [{completed_by, result}]}`,
  an annotation per annotator: each span a `labels` region on the summary, its source evidence one on the source
  and a `relation` from the one to the other, its note a `textarea` result on the summary region;
- `annotators.json`: `{annotator: user id}` (Label Studio's `completed_by` is a user's integer id: 1, 2, … in the
  order of the names).

Offsets are UTF-16 code units, as Label Studio's page counts them (ours are code points: they differ after an
emoji). What Label Studio's layout has no place for (question answers, sentence verdicts) is said in a note.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

from mercury_static.core import safeio

TASKS, CONFIG, ANNOTATORS = "tasks.json", "config.xml", "annotators.json"
FILES = (TASKS, CONFIG, ANNOTATORS)
SOURCE, SUMMARY = "source", "summary"
SOURCE_LABELS, SUMMARY_LABELS, NOTE = "source_labels", "summary_labels", "note"
RELATION = "evidence"


def leaves(paths: Sequence[str]) -> list[str]:
    """The labels an annotator picks: the paths no other path extends."""
    return [p for p in paths if not any(o.startswith(f"{p}.") for o in paths)]


def labeling_config(labels: Sequence[str]) -> str:
    options = "".join(f"    <Label value={quoteattr(x)}/>\n" for x in labels)
    return ("<View>\n"
            f'  <Header value="Source"/>\n  <Text name="{SOURCE}" value="${SOURCE}"/>\n'
            f'  <Header value="Summary"/>\n  <Text name="{SUMMARY}" value="${SUMMARY}"/>\n'
            f'  <Labels name="{SUMMARY_LABELS}" toName="{SUMMARY}">\n{options}  </Labels>\n'
            f'  <Labels name="{SOURCE_LABELS}" toName="{SOURCE}">\n{options}  </Labels>\n'
            f'  <Relations>\n    <Relation value="{RELATION}"/>\n  </Relations>\n'
            f'  <TextArea name="{NOTE}" toName="{SUMMARY}" perRegion="true" editable="true"/>\n'
            "</View>\n")


def _utf16(text: str, offset: int) -> int:
    return len(text[:offset].encode("utf-16-le")) // 2


def _region(region_id: str, control: str, obj: str, text: str, span: dict, labels: list[str]) -> dict:
    return {"id": region_id, "from_name": control, "to_name": obj, "type": "labels", "origin": "manual",
            "value": {"start": _utf16(text, span["start"]), "end": _utf16(text, span["end"]), "text": span["text"],
                      "labels": labels}}


def annotation_result(record: dict, annotations: Sequence[dict]) -> list[dict]:
    """The `result` of one annotator's work on a record."""
    result = []
    for k, a in enumerate(annotations):
        labels = leaves(a["label"])
        summary_id = f"s{k}"
        summary = _region(summary_id, SUMMARY_LABELS, SUMMARY, record["summary"], a["summary"], labels)
        result.append(summary)
        if a["source"] is not None:
            result.append(_region(f"r{k}", SOURCE_LABELS, SOURCE, record["source"], a["source"], labels))
            result.append({"type": "relation", "from_id": summary_id, "to_id": f"r{k}", "direction": "right",
                           "labels": [RELATION]})
        if a["note"]:
            result.append({"id": summary_id, "from_name": NOTE, "to_name": SUMMARY, "type": "textarea",
                           "origin": "manual", "value": {**{k: summary["value"][k] for k in ("start", "end")},
                                                         "text": [a["note"]]}})
    return result


def label_studio_files(labels: Sequence[str], records: Sequence[dict]) -> tuple[dict[str, bytes], list[str]]:
    """The folder's files (path relative to -o -> bytes, deterministic) and the notes on what is not in them.
    `labels`: the bundle's label paths in display order."""
    names = sorted({a["annotator"] for r in records for a in r["annotations"]}
                   | {x["annotator"] for r in records for x in r["responses"] if x["status"] == "submitted"})
    users = {name: i for i, name in enumerate(names, 1)}
    tasks = []
    for r in records:
        by_annotator: dict[str, list[dict]] = {}
        for x in r["responses"]:
            if x["status"] == "submitted":
                by_annotator[x["annotator"]] = []
        for a in r["annotations"]:
            by_annotator.setdefault(a["annotator"], []).append(a)
        tasks.append({"data": {SOURCE: r["source"], SUMMARY: r["summary"], "record_id": r["id"]},
                      "annotations": [{"completed_by": users[name], "result": annotation_result(r, spans)}
                                      for name, spans in sorted(by_annotator.items())]})
    notes = []
    if any(x.get("values") for r in records for x in r["responses"]):
        notes.append("label-studio: question answers are not written (the labeling config holds the spans only); "
                     "they are in the mercury-static output")
    if any(r.get("sentences") for r in records):
        notes.append("label-studio: sentence verdicts are not written; they are in the mercury-static output "
                     "(--format sentences: a table)")
    text = "[\n" + ",\n".join(safeio.dumps(t) for t in tasks) + "\n]\n"
    return {TASKS: text.encode("utf-8"), CONFIG: labeling_config(leaves(labels)).encode("utf-8"),
            ANNOTATORS: (safeio.dumps(users, indent=1) + "\n").encode("utf-8")}, notes
