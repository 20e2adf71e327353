"""`mercury-static review`: a review bundle, i.e. the annotation bundle copied whole plus the merged work of
every annotator, ordered by disagreement at build time (docs/review.md gives the files and their shapes).

The inputs are read by merge's own reader (merge/inputs.py InputReader, merge/pipeline.py merged_records), file by file,
so that the annotators of a Mercury dump are known per file: a dump records no status, and its annotators
are taken to have judged each of its samples (a sample without their spans: they found nothing); a merged
file keeps its responses, and only they count. The folder is written as `build` writes a bundle: a temp
folder beside -o, switched in one step under its lock.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mercury_static import __version__
from mercury_static.core import safeio
from mercury_static.merge import notes as merge_notes
from mercury_static.merge.agreement import judges as submitted_judges
from mercury_static.bundle.contents import Bundle, dumps, load_bundle
from mercury_static.bundle.folder import MARKER, check_output, editing, new_folder, switch
from mercury_static.bundle.manifest import manifest_bytes
from mercury_static.bundle.page import copy_bundle_file
from mercury_static.formats import REVIEW_DATA, REVIEW_DATA_FORMAT, REVIEW_DATA_VERSION
from mercury_static.merge.agreement import agreement_report
from mercury_static.merge.agreement_questions import agent_agreement, question_agreement
from mercury_static.merge.pipeline import _without_cyclic_gc, merged_records, round_progress, serialize
from mercury_static.merge.inputs import InputReader
from mercury_static.core.records import InputError
from mercury_static.report.html import INSTALL, available, render_html
from mercury_static.report.model import read_report
from mercury_static.bundle.assign import read_queues
from mercury_static.merge.adjudication import SPANS, adjudicate_first, adjudication_order
from mercury_static.merge.sentence_rows import flagged_verdict, record_rows
from mercury_static.review.sentences import review_sentences
from mercury_static.review.statuses import judge_statuses

ROWS_PER_SHARD = 1000
RECORDS_PER_SHARD = 50
"""A records shard of 50 contested records of 3 annotators is what the page loads for the first record (its size:
benchmarks/RESULTS.md, bench_review)."""
DATA = "data"
HEADER = f"{DATA}/review.json"
DASHBOARD = "report.html"


@dataclass
class ReviewResult:
    """What `review` wrote, and the inputs' problems (skipped, as `merge` skips them)."""

    manifest: dict
    header: dict
    problems: list[InputError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.problems else 0


def merge_sha256(records: list[dict]) -> str:
    """The identity of a merge: the sha256 of its records as `merge` writes them (mercury-static format)."""
    return hashlib.sha256(serialize(records, "mercury-static")).hexdigest()


def review_id(bundle_id: str, merged: str) -> str:
    return "r" + hashlib.sha256(f"{bundle_id}\0{merged}".encode()).hexdigest()[:16]


def read_work(paths: list[Path], bundle: Bundle, strict: bool) -> tuple[list[dict], dict[str, list[str]], InputReader]:
    """The merged records, each record's judges (sorted names) and the reader (its problems and notes)."""
    try:
        reader = InputReader(bundle, strict)
    except InputError as e:  # the manifest's settings (Bundle.settings)
        raise InputError(bundle.dir, None, None, f"cannot read the bundle: {e}") from None
    dump_team: dict[str, set[str]] = defaultdict(set)
    for path in paths:
        before = len(reader.versions)
        reader.read(Path(path))
        if Path(path) in reader.dump_samples:
            team = {v.annotator for v in reader.versions[before:] if v.status is None}  # not a merged file's
            for record_id in reader.dump_samples[Path(path)]:
                dump_team[record_id] |= team
    records, _ = merged_records(bundle, reader)
    return records, {r["id"]: sorted(set(submitted_judges(r)) | dump_team[r["id"]]) for r in records}, reader


def annotation_key(a: dict) -> str:
    """The key a review decision names an annotation by: `ANNOTATOR:ID`, one per annotation of a record. A
    `%` or `:` in the name is escaped (%25, %3A), so that "a:b" with id "c" and "a" with id "b:c" keep two
    keys; any other name reads as itself."""
    return a["annotator"].replace("%", "%25").replace(":", "%3A") + ":" + a["id"]


def sentence_rows_of(bundle: Bundle, records: list[dict]) -> list[list] | None:
    """Each record's summary sentences as its annotators left them (None: the bundle asks no verdicts)."""
    verdicts = bundle.settings.sentence_verdicts
    return [record_rows(b, r, verdicts) for b, r in zip(bundle.records, records)] if verdicts else None


def review_record(record: dict, judges: list[str], contested: dict, expected: Iterable[str] = (),
                  sentences: list[dict] | None = None, flagging: Iterable[str] = ()) -> dict:
    """A record of a records shard: every annotator's work with its status, each judge's status of the record
    (`expected`: the annotators whose queue held it; `flagging`: the verdicts that flag a sentence), the
    summary sentences with each judge's verdict (`sentences`, review/sentences.py; None: none asked), the
    suggestions, the disagreement."""
    status = {r["annotator"]: r["status"] for r in record["responses"]}
    annotations = [{"key": annotation_key(a), **a, "status": status.get(a["annotator"])}
                   for a in record["annotations"]]
    flagged = {v["annotator"] for v in record.get("sentences", []) if v["verdict"] in set(flagging)}
    return {"id": record["id"], "disagreement": contested, "judges": judges,
            "annotators": sorted({*judges, *status, *(a["annotator"] for a in annotations)}),
            "statuses": judge_statuses(record, judges, expected, flagged),
            "annotations": annotations, "responses": record["responses"],
            "suggestions": record.get("suggestions", []),
            **({"sentences": sentences} if sentences is not None else {})}


def expected_judges(bundle: Bundle, records: list[dict]) -> dict[str, list[str]]:
    """Record id -> the annotators whose queue held it: the bundle's queues, else every annotator of the round
    (who works every record without queues)."""
    queues = read_queues(bundle.dir, bundle.manifest)
    if queues is None:
        everyone = sorted({a for r in records for a in [*(x["annotator"] for x in r["responses"]),
                                                         *(x["annotator"] for x in r["annotations"])]})
        return {r["id"]: everyone for r in records}
    held: dict[str, list[str]] = defaultdict(list)
    for name, ids in sorted(queues.items()):
        for record_id in ids:
            held[record_id].append(name)
    return held


def review_files(bundle: Bundle, records: list[dict], judges: dict[str, list[str]]) -> tuple[dict, dict[str, bytes]]:
    """The review header and the files under data/ (path -> bytes), most contested record first."""
    questions = bundle.settings.questions
    merged = merge_sha256(records)
    who = [judges[r["id"]] for r in records]
    expected = expected_judges(bundle, records)
    settings = bundle.settings.sentence_verdicts
    flagging = () if settings is None else [v for v in (*settings.values, flagged_verdict(settings))
                                            if v not in settings.evidence]
    rows_of = sentence_rows_of(bundle, records)
    texts = {r.id: r for r in bundle.records}
    items = [review_record(records[i], who[i], contested, expected.get(records[i]["id"], ()),
                           None if rows_of is None else review_sentences(texts[records[i]["id"]], rows_of[i]),
                           flagging)
             for i, contested in adjudication_order(records, who, questions, rows_of)]
    files: dict[str, bytes] = {}
    rows = []
    for n in range(0, len(items), RECORDS_PER_SHARD):
        chunk = items[n:n + RECORDS_PER_SHARD]
        files[f"{DATA}/review-records-{n // RECORDS_PER_SHARD:04d}.json"] = dumps({"records": chunk}).encode("utf-8")
        rows += [{"id": x["id"], "score": x["disagreement"]["score"], "shard": n // RECORDS_PER_SHARD,
                  "questions": [q for q, flag in x["disagreement"]["questions"].items() if flag],
                  "annotators": x["annotators"]} for x in chunk]
    for n in range(0, max(len(rows), 1), ROWS_PER_SHARD):
        files[f"{DATA}/review-order-{n // ROWS_PER_SHARD:04d}.json"] = dumps(
            {"rows": rows[n:n + ROWS_PER_SHARD]}).encode("utf-8")
    span = next((q for q in questions if q.type == "span"), None)
    header = {"format": REVIEW_DATA_FORMAT, "version": REVIEW_DATA_VERSION, "bundle_id": bundle.manifest["bundle_id"],
              "review_id": review_id(bundle.manifest["bundle_id"], merged), "merge_sha256": merged,
              "tool_version": __version__,
              "annotators": sorted({a for x in items for a in x["annotators"]}),
              "questions": [{"name": SPANS if q is span else q.name, "type": q.type} for q in questions],
              "counts": {"records": len(items), "contested": sum(x["disagreement"]["score"] > 0 for x in items),
                         "annotations": sum(len(x["annotations"]) for x in items)},
              "shards": {"order": -(-max(len(rows), 1) // ROWS_PER_SHARD),
                         "records": -(-len(items) // RECORDS_PER_SHARD)},
              "rows_per_shard": ROWS_PER_SHARD, "records_per_shard": RECORDS_PER_SHARD,
              "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}}
    files[HEADER] = dumps(header).encode("utf-8")
    return header, files


def dashboard(bundle: Bundle, records: list[dict], reader: InputReader) -> bytes | None:
    """The report page of the merged work (merge's figures), linking records to this bundle's own page; None
    without the chart renderer (the `report` extra)."""
    if not available():
        return None
    questions = list(reader.questions.values())
    who = [submitted_judges(r) for r in records]
    verdicts = bundle.settings.sentence_verdicts
    flagged = verdicts.flagged if verdicts else None
    report = read_report({
        **agreement_report(records, reader.labels, unsupported=flagged),
        "adjudication": adjudicate_first(records, who, questions, sentence_rows_of(bundle, records)),
        "questions": question_agreement(records, questions),
        "agents": agent_agreement(records, questions), "progress": round_progress(bundle, records)})
    return render_html(report, "index.html", f"{bundle.manifest.get('title') or 'Review'}: the round").encode("utf-8")


def _not_review(bundle_dir: Path):
    """shutil.copytree's ignore: a review bundle made from a review bundle drops the old review files."""
    data = bundle_dir / DATA
    return lambda folder, names: {n for n in names if n.startswith("review") and Path(folder) == data}


def review_bundle(paths: list[Path], bundle_dir: Path, out: Path, strict: bool = False) -> ReviewResult:
    """Read, merge and write the review bundle `out` (one switch under its lock)."""
    bundle_dir, out = Path(bundle_dir), Path(out)
    protected = [*map(Path, paths), bundle_dir]
    check_output(out, protected)  # before the work: a bad -o costs nothing
    if safeio.resolved(bundle_dir) in safeio.resolved(out).parents:
        raise InputError(out, None, None, f"is inside the input bundle {bundle_dir} (the review would change it "
                         "and copy itself); choose a folder outside it for -o")
    bundle = load_bundle(bundle_dir)
    with _without_cyclic_gc():  # as merge: many small objects kept alive, no cycles
        records, judges, reader = read_work(paths, bundle, strict)
        header, files = review_files(bundle, records, judges)
        page = dashboard(bundle, records, reader)
    manifest = dict(bundle.manifest)
    manifest["review"] = {"format": REVIEW_DATA_FORMAT, "version": REVIEW_DATA_VERSION, "path": HEADER,
                          "review_id": header["review_id"], "merge_sha256": header["merge_sha256"],
                          "sha256": hashlib.sha256(files[HEADER]).hexdigest(), "annotators": header["annotators"],
                          **({"dashboard": DASHBOARD} if page is not None else {})}
    with editing(out, "review", create=True):
        check_output(out, protected)
        new = new_folder(out)
        try:
            shutil.copytree(bundle_dir, new, ignore=_not_review(bundle_dir), dirs_exist_ok=True,
                            copy_function=copy_bundle_file)
            (new / "manifest.json").unlink()
            for name, data in files.items():
                (new / name).write_bytes(data)
            (new / DASHBOARD).unlink(missing_ok=True)  # a dashboard copied from the input bundle is not this one
            if page is not None:
                (new / DASHBOARD).write_bytes(page)
            (new / "manifest.json").write_bytes(manifest_bytes(manifest))
            if not (new / MARKER).is_file():
                (new / MARKER).write_text(f"{manifest['format']} {manifest['version']}\nWritten by mercury-static "
                                          "review; a later build or review replaces this folder whole.\n",
                                          encoding="utf-8")
            switch(new, out)
        finally:
            if new.exists():
                shutil.rmtree(new, ignore_errors=True)
    notes = [*merge_notes.name_notes(reader.spellings), *merge_notes.future_notes(reader.future)]
    if page is None:
        notes.append(f"no dashboard ({DASHBOARD}) in the review bundle: the chart renderer is not installed "
                     f"({INSTALL})")
    return ReviewResult(manifest=manifest, header=header, problems=reader.problems, notes=notes)


def load_review(folder: Path) -> tuple[Bundle, dict, list[dict]]:
    """A review bundle read back for `gold`: the bundle, the review header and its records (bundle order),
    after checking that no review file was edited since `review` wrote it (one InputError naming the file)."""
    folder = Path(folder)
    bundle = load_bundle(folder)
    info = bundle.manifest.get("review")
    if not isinstance(info, dict):
        raise InputError(folder, None, "manifest.json: review", "not a review bundle (made by mercury-static "
                         "review); give the review bundle the reviewers worked on")
    raw = _read(folder, HEADER, info.get("sha256"))
    header = safeio.loads(raw.decode("utf-8"))
    REVIEW_DATA.check(header, str(folder / HEADER))
    if header.get("review_id") != info.get("review_id"):
        raise InputError(folder / HEADER, None, "review_id", "differs from the manifest's review.review_id")
    by_id = {}
    for name, digest in header["files"].items():
        if name.startswith(f"{DATA}/review-records-"):
            for r in json.loads(_read(folder, name, digest))["records"]:  # the bytes `review` wrote (sha256)
                by_id[r["id"]] = r
    return bundle, header, [by_id[r.id] for r in bundle.records if r.id in by_id]


def _read(folder: Path, name: str, digest) -> bytes:
    data = safeio.read_bytes(folder / name, str(folder / name))
    if hashlib.sha256(data).hexdigest() != digest:
        raise InputError(folder / name, None, None, "edited after `mercury-static review` wrote it (its sha256 "
                         "differs from the one recorded); run review again")
    return data
