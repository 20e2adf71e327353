"""The gold dataset from review exports: one adjudicated set per record, each item with its provenance, in
every output format of `merge` (docs/review.md, "The gold").

A record is gold only when a reviewer marked it adjudicated; the others are listed, never filled in from the
annotators' work. When several reviewers adjudicated one record, the newest adjudication is the gold and the
reviewers' agreement is reported (`reviewer_agreement`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from mercury_static.formats import GOLD_FORMAT, GOLD_VERSION
from mercury_static.report.model import GoldCounts, GoldReport, NotAdjudicated, Output, Quality, Reviewers, Undecided
from mercury_static.report.typed_json import from_json, to_json
from mercury_static.merge.notes import future_notes
from mercury_static.merge.output_formats import DATASET_FORMATS
from mercury_static.merge.pipeline import _annotation_order, serialize
from mercury_static.core.records import InputError
from mercury_static.merge.sentence_rows import record_rows
from mercury_static.merge.write_argilla import argilla_files
from mercury_static.merge.write_label_studio import label_studio_files
from mercury_static.merge.write_parquet import parquet_files
from mercury_static.review.write_bundle import load_review
from mercury_static.merge.adjudication import covered, span_f1
from mercury_static.review.exports import ReviewEntry, ReviewReader
from mercury_static.review.quality import quality_report
from mercury_static.review.sentences import gold_sentence, sentence_entry

ANNOTATION_FIELDS = ("id", "annotator", "label", "note", "summary", "source", "created_at", "updated_at")


@dataclass
class GoldResult:
    records: list[dict]
    """The gold records (adjudicated ones only, bundle order)."""
    output: bytes
    directory: dict[str, bytes]
    not_adjudicated: list[dict]
    undecided: list[dict]
    reviewers: dict
    quality: dict
    notes: list[str] = field(default_factory=list)

    def report_model(self) -> GoldReport:
        return GoldReport(Output(GOLD_FORMAT, GOLD_VERSION),
                          GoldCounts(len(self.records), len(self.not_adjudicated), len(self.undecided)),
                          from_json(list[NotAdjudicated], self.not_adjudicated),
                          from_json(list[Undecided], self.undecided), from_json(Reviewers, self.reviewers),
                          from_json(Quality, self.quality), self.notes)

    def report(self) -> dict:
        """The JSON report (`--report`)."""
        return to_json(self.report_model())


def _plain(a: dict) -> dict:
    return {k: a[k] for k in ANNOTATION_FIELDS}


def adjudicated_set(entry: ReviewEntry, record: dict) -> tuple[list[dict], dict, dict, list[str]]:
    """(gold annotations with provenance, the answers, each answer's provenance, the keys left undecided)."""
    keys = {a["key"]: a for a in record["annotations"]}
    annotations = []
    for key, d in entry.decisions.items():
        if d["action"] == "reject":
            continue
        a = keys[key]
        gold = _plain(d["annotation"] if d["action"] == "edit" else a)
        gold["provenance"] = {"proposed_by": a["annotator"], "judges": [a["annotator"]],
                              "proposed_at": a["updated_at"],
                              "action": "edited" if d["action"] == "edit" else "accepted",
                              "decided_by": entry.reviewer, "decided_at": d["updated_at"] or entry.updated_at,
                              **({"edited": d["edited"]} if d["action"] == "edit" else {})}
        annotations.append(gold)
    for a in entry.added:
        annotations.append({**_plain(a), "provenance": {
            "proposed_by": entry.reviewer, "judges": [], "proposed_at": a["created_at"] or a["updated_at"],
            "action": "added",
            "decided_by": entry.reviewer, "decided_at": a["updated_at"] or entry.updated_at}})
    given = {r["annotator"]: r.get("values") or {} for r in record["responses"]}
    values, origin = {}, {}
    for name, answer in entry.answers.items():
        if "from" in answer:
            values[name], origin[name] = given[answer["from"]][name], {"from": answer["from"]}
        else:
            values[name], origin[name] = answer["value"], {"from": entry.reviewer, "own": True}
    undecided = [k for k in keys if k not in entry.decisions]
    return one_per_span(sorted(annotations, key=_annotation_order)), values, origin, undecided


def _span_key(a: dict) -> tuple:
    source = a["source"]
    return (a["summary"]["start"], a["summary"]["end"], None if source is None else (source["start"], source["end"]),
            tuple(a["label"]))


def one_per_span(annotations: list[dict]) -> list[dict]:
    """Identical gold spans (the same summary and source offsets, the same label) as one annotation: an
    annotator's before the reviewer's own, with every judge who proposed it in `provenance.judges` and their
    distinct notes, one a line. Two judges who marked the same words alike are one finding, counted once."""
    first: dict[tuple, dict] = {}
    for a in sorted(annotations, key=lambda x: x["provenance"]["action"] == "added"):  # stable: theirs first
        kept = first.setdefault(_span_key(a), a)
        if kept is a:
            continue
        judges = kept["provenance"]["judges"]
        judges += [j for j in a["provenance"]["judges"] if j not in judges]
        notes = kept["note"].split("\n") if kept["note"] else []
        if a["note"] and a["note"] not in notes:
            kept["note"] = "\n".join([*notes, a["note"]])
    kept_ids = {id(a) for a in first.values()}
    return [a for a in annotations if id(a) in kept_ids]


def settled_sentences(entry: ReviewEntry, record: dict, texts,
                      carries: tuple[str, ...]) -> tuple[list[dict], list[int]]:
    """The gold sentences (in sentence order, each with the judges who gave that verdict and evidence) and the
    sentences of the record the reviewer left unsettled. `carries`: the verdicts that carry evidence."""
    out = []
    for s in record.get("sentences", []):
        d = entry.sentences.get(s["sentence"])
        if d is None:
            continue
        given = {v["annotator"]: v for v in s["verdicts"]}
        if "from" in d:
            verdict, evidence = given[d["from"]]["verdict"], given[d["from"]]["evidence"]
            evidence = evidence if verdict in carries else None
        else:
            verdict, evidence = d["verdict"], d["evidence"]
        judges = [v["annotator"] for v in s["verdicts"]
                  if v["verdict"] == verdict and (evidence is None or v["evidence"] == evidence)]
        out.append(gold_sentence(texts, entry.reviewer, s["sentence"], verdict, evidence, judges,
                                 "accepted" if "from" in d else "own", d["updated_at"] or entry.updated_at))
    unsettled = [s["sentence"] for s in record.get("sentences", []) if s["sentence"] not in entry.sentences]
    return out, unsettled


def gold_record(entry: ReviewEntry, record: dict, texts, carries: tuple[str, ...] = ()) -> tuple[dict, list[str]]:
    """A gold record and its undecided annotation keys (`carries`: the verdicts that carry evidence)."""
    annotations, values, origin, undecided = adjudicated_set(entry, record)
    sentences, unsettled = settled_sentences(entry, record, texts, carries)
    response = {"annotator": entry.reviewer, "status": "submitted", "updated_at": entry.updated_at,
                "values": values, "provenance": origin}
    out = {"id": record["id"], "source": texts.source, "summary": texts.summary, "metadata": texts.metadata,
           "annotations": annotations, "responses": [response],
           "review": {"reviewer": entry.reviewer, "adjudicated_at": entry.updated_at, "comments": entry.comments,
                      "undecided": undecided}}
    if record.get("suggestions"):
        out["suggestions"] = record["suggestions"]
    if "sentences" in record:
        out["sentences"] = sentences
        out["review"]["unsettled_sentences"] = unsettled
    return out, undecided


def reviewer_agreement(by_record: dict[str, list[ReviewEntry]], records: dict[str, dict]) -> dict:
    """Per pair of reviewers, over the records both adjudicated: the span F1 of their gold sets (summary
    character, label), the share of questions both answered alike, and the records where they differ."""
    pairs: dict[tuple[str, str], dict] = defaultdict(lambda: {"records": 0, "f1": [], "same": 0, "answered": 0,
                                                              "differ": []})
    for record_id, entries in by_record.items():
        sets = {e.reviewer: adjudicated_set(e, records[record_id]) for e in entries}
        for a, b in combinations(sorted(sets), 2):
            p = pairs[a, b]
            p["records"] += 1
            f1 = span_f1(covered(sets[a][0]), covered(sets[b][0]))
            p["f1"].append(f1)
            common = set(sets[a][1]) & set(sets[b][1])
            same = sum(sets[a][1][q] == sets[b][1][q] for q in common)
            p["same"] += same
            p["answered"] += len(common)
            if f1 < 1 or same < len(common) or set(sets[a][1]) != set(sets[b][1]):
                p["differ"].append(record_id)
    return {"reviewers": sorted({e.reviewer for es in by_record.values() for e in es}),
            "pairs": [{"a": a, "b": b, "records": p["records"],
                       "span_f1": round(sum(p["f1"]) / len(p["f1"]), 4),
                       "answers_agree": round(p["same"] / p["answered"], 4) if p["answered"] else None,
                       "differ": p["differ"]} for (a, b), p in sorted(pairs.items())]}


def given_sentences(record: dict, texts, carries: tuple[str, ...]) -> list[dict]:
    """The verdicts the judges gave on the review record's sentences (not the ones a span implies), in the merged
    record's `sentences` shape, as merge's Argilla output writes them."""
    out = []
    for s in record.get("sentences", []):
        for v in s["verdicts"]:
            if v["given"]:
                out.append(sentence_entry(texts, v["annotator"], s["sentence"], v["verdict"],
                                          v["evidence"] if v["verdict"] in carries else None))
    return out


def _argilla_record(record: dict, gold: dict | None, texts, carries: tuple[str, ...]) -> dict:
    """A record for argilla_files: the annotators' work as theirs (their spans, answers and given sentence
    verdicts), the reviewer's gold as one more, submitted."""
    annotations = [_plain(a) for a in record["annotations"]]
    responses = [dict(r) for r in record["responses"]]
    sentences = given_sentences(record, texts, carries)
    if gold is not None:
        reviewer = gold["review"]["reviewer"]
        annotations = [a for a in annotations if a["annotator"] != reviewer]
        responses = [r for r in responses if r["annotator"] != reviewer]
        sentences = [v for v in sentences if v["annotator"] != reviewer]
        annotations += [{**_plain(a), "annotator": reviewer} for a in gold["annotations"]]
        responses += [{k: v for k, v in r.items() if k != "provenance"} for r in gold["responses"]]
        sentences += [{k: v for k, v in x.items() if k != "provenance"} for x in gold.get("sentences", [])]
    return {"id": record["id"], "annotations": annotations,
            "responses": sorted(responses, key=lambda r: r["annotator"]),
            **({"sentences": sentences} if sentences else {}),
            **({"suggestions": record["suggestions"]} if record.get("suggestions") else {})}


def make_gold(paths: list[Path], review_dir: Path, fmt: str = "mercury-static", top: int = 20) -> GoldResult:
    """Check every review export against the review bundle (all problems raised together as one InputError
    per line: `GoldProblems`), then the gold records, in `fmt`, and the report."""
    if fmt not in DATASET_FORMATS:
        raise ValueError(f"unknown output format {fmt!r} (one of {', '.join(DATASET_FORMATS)})")
    bundle, header, records = load_review(review_dir)
    reader = ReviewReader(bundle, header, records)
    for path in paths:
        reader.read(Path(path))
    if reader.problems:
        raise GoldProblems(reader.problems)
    by_id = {r["id"]: r for r in records}
    adjudicated: dict[str, list[ReviewEntry]] = defaultdict(list)
    touched: dict[str, list[str]] = defaultdict(list)
    for (reviewer, record_id), e in sorted(reader.entries.items()):
        if e.adjudicated:
            adjudicated[record_id].append(e)
        else:
            touched[record_id].append(reviewer)
    golds, undecided, notes = {}, [], future_notes(reader.future, "gold")
    texts = {r.id: r for r in bundle.records}
    verdicts = bundle.settings.sentence_verdicts
    carries = verdicts.evidence if verdicts is not None else ()
    for record_id, entries in adjudicated.items():
        winner = max(entries, key=lambda e: (e.time, e.reviewer))
        golds[record_id], keys = gold_record(winner, by_id[record_id], texts[record_id], carries)
        undecided += [{"record_id": record_id, "key": k, "reviewer": winner.reviewer} for k in keys]
        if len(entries) > 1:
            notes.append(f"record {record_id}: adjudicated by {', '.join(sorted(e.reviewer for e in entries))}; "
                         f"kept the newest ({winner.reviewer}, {winner.updated_at})")
    gold = [golds[r.id] for r in bundle.records if r.id in golds]
    not_adjudicated = [{"record_id": r.id, "touched_by": sorted(touched.get(r.id, []))}
                       for r in bundle.records if r.id not in golds]
    directory: dict = {}
    if fmt == "argilla":
        merged = [_argilla_record(by_id[r.id], golds.get(r.id), r, carries) for r in bundle.records]
        for m, r in zip(merged, bundle.records):
            m.update(source=r.source, summary=r.summary)
        both = sorted(g["id"] for g in golds.values()
                      if g["review"]["reviewer"] in {a["annotator"] for a in by_id[g["id"]]["annotations"]}
                      | {x["annotator"] for x in by_id[g["id"]]["responses"]})
        if both:
            notes.append(f"argilla: on {len(both)} record(s) the reviewer is also one of its annotators (e.g. record "
                         f"{both[0]}): Argilla holds one response per user, so there the review replaces their own "
                         "annotation (their own stays in the review bundle)")
        directory, folder_notes = argilla_files(bundle, merged, list(bundle.settings.questions))
        notes += folder_notes
    elif fmt == "parquet":  # the sentence table: the reviewer's settled verdicts (the others not checked)
        directory = parquet_files(gold, [row for g in gold for row in record_rows(texts[g["id"]], g, verdicts)]
                                  if verdicts is not None else None)
    elif fmt == "label-studio":  # the reviewer's gold as their annotation
        directory, ls_notes = label_studio_files(bundle.manifest["labels"], gold)
        notes += ls_notes
    return GoldResult(records=gold, output=b"" if directory else serialize(gold, fmt), directory=directory,
                      not_adjudicated=not_adjudicated, undecided=undecided,
                      reviewers=reviewer_agreement({k: v for k, v in adjudicated.items() if len(v) > 1}, by_id),
                      quality=quality_report(gold, by_id, bundle.settings.questions, top), notes=notes)


class GoldProblems(InputError):
    """Every problem of the review exports (the CLI prints one line each, then exits 2)."""

    def __init__(self, problems: list[InputError]):
        first = problems[0]
        super().__init__(first.file, first.where, first.field, first.message)
        self.problems = problems
