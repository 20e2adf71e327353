"""`review` and `gold` (docs/review.md): three annotators' real exports on a real bundle with questions →
a review bundle ordered by disagreement → hand-written review exports → the gold and its quality report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from schema_lite import errors
from settings_fixtures import build_with_settings
from test_merge_questions import entry, export
from test_write_argilla import argilla_reads

from mercury_static.bundle.contents import load_bundle
from mercury_static.bundle.folder import is_bundle
from mercury_static.review.write_bundle import load_review, review_bundle
from mercury_static.review.gold import GoldProblems, make_gold
from mercury_static.merge.write_argilla import user_id

SCHEMAS = {name: json.loads((Path(__file__).resolve().parent.parent / "docs" / f"{name}.schema.json")
                            .read_text(encoding="utf-8")) for name in ("manifest", "merged")}
INTRINSIC = ["Unwanted", "Unwanted.Intrinsic"]
SUMMARY = {"r1": "The Eiffel Tower, completed in 1899, stands in Rome.",
           "r2": "Alice met Bob 🎉 at midnight for dinner.", "r3": "Nothing happened."}
SOURCE = {"r1": "The Eiffel Tower is in Paris. It was completed in 1889.",
          "r2": "Alice met Bob 🎉 at noon. They had lunch.", "r3": "Nothing happened today."}


def span(record_id: str, quoted: str, side: str = "summary") -> dict:
    text = (SUMMARY if side == "summary" else SOURCE)[record_id]
    start = text.index(quoted)
    return {"start": start, "end": start + len(quoted), "text": quoted}


def ann(ident: str, record_id: str, quoted: str, source: str | None = None, label=INTRINSIC, note="") -> dict:
    return {"id": ident, "label": list(label), "note": note, "summary": span(record_id, quoted),
            "source": span(record_id, source, "source") if source else None,
            "created_at": "2026-12-01T09:00:00Z", "updated_at": "2026-12-01T09:00:00Z"}


@pytest.fixture(scope="module")
def asked(build_bundle, tmp_path_factory) -> Path:
    """The settings fixture's real bundle: three records, six questions, HHEM suggestions."""
    return build_with_settings(build_bundle, tmp_path_factory.mktemp("asked"), "review-asked")


@pytest.fixture(scope="module")
def team(asked, tmp_path_factory) -> list[Path]:
    """Three annotators: r1 much contested (spans and verdict), r2 a little (one label differs), r3 agreed."""
    folder = tmp_path_factory.mktemp("team")
    bundle = load_bundle(asked)
    alice = export(folder / "alice.json", bundle, "alice",
                   entry("r1", {"verdict": "hallucinated", "quality": 2}, annotations=[
                       ann("a1", "r1", "1899", "1889"), ann("a2", "r1", "Rome", "Paris", note="city")]),
                   entry("r2", {"verdict": "hallucinated"}, annotations=[ann("a3", "r2", "midnight", "noon")]),
                   entry("r3", {"verdict": "consistent"}))
    bob = export(folder / "bob.json", bundle, "bob",
                 entry("r1", {"verdict": "consistent", "quality": 4}, annotations=[ann("b1", "r1", "1899")]),
                 entry("r2", {"verdict": "hallucinated"}, annotations=[
                     ann("b2", "r2", "midnight", label=["Benign"])]),
                 entry("r3", {"verdict": "consistent"}))
    carol = export(folder / "carol.json", bundle, "carol",
                   entry("r1", {"verdict": "hallucinated", "quality": 2}, annotations=[
                       ann("c1", "r1", "completed in 1899"), ann("c2", "r1", "Rome")]),
                   entry("r2", {"verdict": "hallucinated"}, annotations=[ann("c3", "r2", "midnight")]),
                   entry("r3", {"verdict": "consistent"}))
    return [alice, bob, carol]


@pytest.fixture(scope="module")
def reviewed(asked, team, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("review") / "review-bundle"
    review_bundle(team, asked, out)
    return out


def test_review_bundle_is_the_bundle_plus_ordered_work(asked, team, reviewed):
    bundle, header, records = load_review(reviewed)
    manifest = bundle.manifest
    assert is_bundle(reviewed) and errors(manifest, SCHEMAS["manifest"]) == []
    assert manifest["bundle_id"] == json.loads((asked / "manifest.json").read_text())["bundle_id"]
    assert manifest["review"]["review_id"] == header["review_id"] and header["annotators"] == ["alice", "bob", "carol"]
    rows = json.loads((reviewed / "data" / "review-order-0000.json").read_text())["rows"]
    assert [r["id"] for r in rows] == ["r1", "r2", "r3"]  # most contested first
    assert rows[0]["questions"] == ["spans", "verdict", "quality"] and rows[1]["questions"] == ["spans"]
    assert rows[2] == {"id": "r3", "score": 0.0, "shard": 0, "questions": [], "annotators": ["alice", "bob", "carol"]}
    assert rows[0]["score"] > rows[1]["score"] > 0
    first = json.loads((reviewed / "data" / "review-records-0000.json").read_text())["records"][0]
    assert first["id"] == "r1" and [a["key"] for a in first["annotations"]] == [  # in summary order, as merged
        "carol:c1", "alice:a1", "bob:b1", "alice:a2", "carol:c2"]
    assert {a["status"] for a in first["annotations"]} == {"submitted"}
    assert [r["values"]["verdict"] for r in first["responses"]] == ["hallucinated", "consistent", "hallucinated"]
    assert first["suggestions"][0]["agent"] == "HHEM-2.1"
    assert {p["a"] + p["b"]: p["spans"] for p in first["disagreement"]["pairs"]}["alicebob"] > 0
    # the rest of the bundle is the same, file for file
    for path in asked.rglob("*"):
        if path.is_file() and path.name != "manifest.json":
            assert (reviewed / path.relative_to(asked)).read_bytes() == path.read_bytes(), path


DECIDED = "2026-12-02T10:00:00Z"


def review_export(path: Path, reviewed: Path, reviewer: str, *records, **override) -> Path:
    """A review export as the page writes it (docs/review.md), bound to the review bundle `reviewed`."""
    info = json.loads((reviewed / "manifest.json").read_text(encoding="utf-8"))
    doc = {"format": "mercury-static/review", "version": 1, "bundle_id": info["bundle_id"],
           "review_id": info["review"]["review_id"], "merge_sha256": info["review"]["merge_sha256"],
           "reviewer": reviewer, "client_id": "c-r", "exported_at": DECIDED, "tool_version": "0.1.0",
           "records": list(records), **override}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def decision(action: str, **edit) -> dict:
    return {"action": action, "updated_at": DECIDED, **edit}


def adjudication(record_id: str, decisions=None, added=(), answers=None, comments=(), adjudicated=True,
                 updated_at=DECIDED) -> dict:
    return {"record_id": record_id, "adjudicated": adjudicated, "updated_at": updated_at,
            "decisions": decisions or {}, "added": list(added), "answers": answers or {}, "comments": list(comments)}


def rita(reviewed: Path, folder: Path) -> Path:
    """rita adjudicates r1 (accepts alice's span, edits bob's, rejects carol's, adds one, answers two questions,
    comments) and r3 (nobody found anything), and leaves r2 half done."""
    wider = span("r1", "completed in 1899")
    return review_export(folder / "rita.json", reviewed, "rita", adjudication(
        "r1", {"alice:a1": decision("accept"), "bob:b1": decision("edit", summary=wider, note="the whole clause"),
               "carol:c1": decision("reject"), "alice:a2": decision("accept"), "carol:c2": decision("reject")},
        added=[{**ann("g1", "r1", "stands", label=["Benign"]), "created_at": DECIDED, "updated_at": DECIDED}],
        answers={"verdict": {"from": "alice"}, "quality": {"value": 3}},
        comments=[{"id": "m1", "on": "bob:b1", "author": "rita", "time": DECIDED, "text": "too short"},
                  {"id": "m2", "on": "record", "author": "rita", "time": DECIDED, "text": "year and city"}]),
        adjudication("r2", {"alice:a3": decision("accept")}, adjudicated=False),
        adjudication("r3", answers={"verdict": {"from": "bob"}}))


def test_gold_holds_exactly_what_was_decided(reviewed, tmp_path, run):
    gold_file, report = tmp_path / "gold.json", tmp_path / "report.json"
    result = run("gold", rita(reviewed, tmp_path), "--bundle", reviewed, "-o", gold_file, "--report", report)
    assert result.exit_code == 0, result.output
    assert "2 record(s) adjudicated (gold); 1 not adjudicated: r2" in result.output
    r1, r3 = json.loads(gold_file.read_text(encoding="utf-8"))
    assert [(a["annotator"], a["summary"]["text"], a["provenance"]["action"]) for a in r1["annotations"]] == [
        ("bob", "completed in 1899", "edited"), ("alice", "1899", "accepted"), ("rita", "stands", "added"),
        ("alice", "Rome", "accepted")]
    edited = r1["annotations"][0]
    assert edited["note"] == "the whole clause" and edited["id"] == "b1"
    assert edited["provenance"] == {"proposed_by": "bob", "judges": ["bob"], "proposed_at": "2026-12-01T09:00:00Z", "action": "edited",
                                    "decided_by": "rita", "decided_at": DECIDED, "edited": ["note", "summary"]}
    assert r1["responses"] == [{"annotator": "rita", "status": "submitted", "updated_at": DECIDED,
                                "values": {"verdict": "hallucinated", "quality": 3},
                                "provenance": {"verdict": {"from": "alice"}, "quality": {"from": "rita", "own": True}}}]
    assert [c["text"] for c in r1["review"]["comments"]] == ["too short", "year and city"]
    assert r3["annotations"] == [] and r3["responses"][0]["values"] == {"verdict": "consistent"}
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert doc["not_adjudicated"] == [{"record_id": "r2", "touched_by": ["rita"]}]
    assert doc["counts"] == {"gold": 2, "not_adjudicated": 1, "undecided_annotations": 0}
    quality = {a["annotator"]: a for a in doc["quality"]["annotators"]}
    assert quality["alice"]["accuracy"] == {"verdict": 1.0, "quality": 0.0}
    assert quality["bob"]["accuracy"]["verdict"] == 0.5  # wrong on r1, right on r3
    assert quality["alice"]["span_precision"] == 1.0 and quality["alice"]["span_recall"] < 1
    assert doc["quality"]["changed"][0]["record_id"] == "r1"
    (hhem,) = [a for a in doc["quality"]["agents"] if a["agent"] == "HHEM-2.1"]
    assert hhem["records"] == 1 and hhem["accuracy"] == 1.0  # r1: suggested hallucinated, the gold agrees


def test_gold_in_every_format(reviewed, tmp_path, run):
    """mercury (flat dump), JSONL and Argilla carry the same gold; in Argilla the reviewer's answer is one more
    submitted response beside the annotators' own, as argilla's own parser reads it."""
    export_file = rita(reviewed, tmp_path)
    gold = make_gold([export_file], reviewed).records
    assert [json.loads(x) for x in make_gold([export_file], reviewed, "jsonl").output.splitlines()] == gold
    flat = json.loads(make_gold([export_file], reviewed, "mercury").output)["samples"]
    assert [x["sample_id"] for x in flat] == ["r1", "r3"]
    assert [(a["annotator"], a["summary_span"], a["provenance"]["decided_by"]) for a in flat[0]["annotations"]] == [
        (a["annotator"], a["summary"]["text"], "rita") for a in gold[0]["annotations"]]
    assert flat[0]["responses"] == gold[0]["responses"]
    out = tmp_path / "argilla"
    assert run("gold", export_file, "--bundle", reviewed, "-o", out, "--format", "argilla").exit_code == 0
    records = json.loads((out / "records.json").read_text(encoding="utf-8"))
    r1 = records[0]
    verdicts = {x["user_id"]: (x["value"], x["status"]) for x in r1["responses"]["verdict"]}
    assert verdicts[user_id("rita")] == ("hallucinated", "submitted")
    assert verdicts[user_id("bob")] == ("consistent", "submitted")  # the annotators' answers kept as theirs
    spans = {x["user_id"]: x["value"] for x in r1["responses"]["spans"]}
    assert {(v["start"], v["end"]) for v in spans[user_id("rita")]} == {
        (a["summary"]["start"], a["summary"]["end"]) for a in gold[0]["annotations"]}
    assert user_id("rita") not in {x["user_id"] for x in records[1]["responses"]["verdict"]}  # r2: not adjudicated
    parsed = argilla_reads(out)
    assert ["verdict", user_id("rita"), "submitted"] in parsed["records"][0]["responses"]
    assert ["verdict", user_id("alice"), "submitted"] in parsed["records"][0]["responses"]
    assert parsed["datasets_rows"] == 3


def test_two_reviewers_agreement(reviewed, tmp_path):
    """sam adjudicates r1 like rita but without her added span and with his own verdict; r3 alike. The newest
    adjudication is the gold (noted), and their agreement is reported."""
    first = rita(reviewed, tmp_path)
    sam = review_export(tmp_path / "sam.json", reviewed, "sam", adjudication(
        "r1", {"alice:a1": decision("accept"), "alice:a2": decision("accept")}, answers={"verdict": {"value": "consistent"}},
        updated_at="2026-12-02T11:00:00Z"), adjudication("r3", answers={"verdict": {"from": "alice"}}))
    result = make_gold([first, sam], reviewed)
    (pair,) = result.reviewers["pairs"]
    assert (pair["a"], pair["b"], pair["records"], pair["differ"]) == ("rita", "sam", 2, ["r1"])
    assert 0 < pair["span_f1"] < 1 and pair["answers_agree"] == 0.5
    assert result.records[0]["review"]["reviewer"] == "sam"  # newer
    assert "record r1: adjudicated by rita, sam; kept the newest (sam, 2026-12-02T11:00:00Z)" in result.notes
    assert result.records[1]["review"]["reviewer"] == "sam"  # r3: tied times, the later name (deterministic)


def test_undecided_annotations_are_not_gold(reviewed, tmp_path):
    export_file = review_export(tmp_path / "r.json", reviewed, "rita",
                                adjudication("r1", {"alice:a1": decision("accept")}))
    result = make_gold([export_file], reviewed)
    assert [a["id"] for a in result.records[0]["annotations"]] == ["a1"]
    assert {x["key"] for x in result.undecided} == {"alice:a2", "bob:b1", "carol:c1", "carol:c2"}
    assert [x["record_id"] for x in result.not_adjudicated] == ["r2", "r3"]


def rewrite(path: Path, change) -> Path:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def entry_of(record: dict):
    return lambda doc: doc["records"][0].update(record)


BAD_EXPORTS = {
    "foreign bundle": (lambda doc: doc.update(bundle_id="b-other"), None, "bundle_id",
                       "'b-other' is another bundle (this review bundle is of "),
    "bad version": (lambda doc: doc.update(version=3), None, "version",
                    "unsupported version 3 of mercury-static/review (this tool reads versions 1 and 2)"),
    "another format": (lambda doc: doc.update(format="mercury-static/annotations"), None, "format",
                       "'mercury-static/annotations' is not 'mercury-static/review'"),
    "no reviewer": (lambda doc: doc.pop("reviewer"), None, "reviewer", "missing or empty"),
    "unknown record": (entry_of({"record_id": "r9"}), "record r9", "record_id",
                       "unknown record id (not in the review bundle)"),
    "unknown annotation": (entry_of({"decisions": {"dave:d1": decision("accept")}}), "record r1",
                           "decisions.dave:d1", "no annotation of this record has this key"),
    "bad action": (entry_of({"decisions": {"alice:a1": decision("maybe")}}), "record r1",
                   "decisions.alice:a1.action", "'maybe' is not one of accept, reject, edit"),
    "edited span off the text": (entry_of({"decisions": {"bob:b1": decision(
        "edit", summary={"start": 3, "end": 8, "text": "Rome!"})}}), "record r1", "decisions.bob:b1.summary",
        "quoted text 'Rome!' != text[3:8] ' Eiff'"),
    "edited label unknown": (entry_of({"decisions": {"bob:b1": decision("edit", label=["Nice"])}}), "record r1",
                             "decisions.bob:b1.label", "unknown label 'Nice'"),
    "answer from a silent annotator": (entry_of({"answers": {"topics": {"from": "bob"}}}), "record r1",
                                       "answers.topics.from", "'bob' gave no answer to this question"),
    "answer that does not fit": (entry_of({"answers": {"quality": {"value": 9}}}), "record r1",
                                 "answers.quality.value", "9"),
    "unknown question": (entry_of({"answers": {"mood": {"value": 1}}}), "record r1", "answers.mood",
                         "unknown question"),
    "comment on nothing": (entry_of({"comments": [{"id": "m", "on": "zed:z", "author": "rita", "time": DECIDED,
                                                   "text": "?"}]}), "record r1", "comments[0].on",
                           "'zed:z' is neither the record"),
    "adjudicated not a boolean": (entry_of({"adjudicated": "yes"}), "record r1", "adjudicated", "expected true or false"),
}


@pytest.mark.parametrize("case", BAD_EXPORTS, ids=list(BAD_EXPORTS))
def test_bad_review_export_is_one_line(reviewed, tmp_path, run, case):
    change, where, field, words = BAD_EXPORTS[case]
    bad = rewrite(rita(reviewed, tmp_path), change)
    with pytest.raises(GoldProblems) as raised:
        make_gold([bad], reviewed)
    (problem,) = raised.value.problems
    assert (problem.file, problem.where, problem.field) == (str(bad), where, field) and words in problem.message
    result = run("gold", bad, "--bundle", reviewed, "-o", tmp_path / "gold.json")
    assert result.exit_code == 2 and result.output.count("error:") == 1 and str(bad) in result.output
    assert not (tmp_path / "gold.json").exists()


def test_stale_review_of_an_older_merge(asked, team, reviewed, tmp_path, run):
    """rita reviewed a review bundle made before carol's export came in: against today's review bundle her
    decisions are stale (the annotations she decided on are not today's set)."""
    older = tmp_path / "older-review"
    review_bundle(team[:2], asked, older)
    stale = rita(older, tmp_path)
    result = run("gold", stale, "--bundle", reviewed, "-o", tmp_path / "gold.json")
    assert result.exit_code == 2 and result.output.count("error:") == 1
    assert f"{stale}: field 'merge_sha256': stale: a review of another merge of this bundle" in " ".join(
        result.output.split())
    own = review_export(tmp_path / "own.json", older, "rita", adjudication("r1", {"alice:a1": decision("accept")}))
    assert run("gold", own, "--bundle", older, "-o", tmp_path / "gold.json").exit_code == 0  # on its own: fine


def test_corrupt_and_edited_files(reviewed, tmp_path, run, fresh_copy):
    cut = tmp_path / "cut.json"
    cut.write_text(rita(reviewed, tmp_path).read_text(encoding="utf-8")[:-9], encoding="utf-8")
    good = rita(reviewed, tmp_path)
    result = run("gold", cut, good, "--bundle", reviewed, "-o", tmp_path / "gold.json")
    assert result.exit_code == 2 and result.output.count("error:") == 1
    assert f"{cut}: line 1 column " in result.output and ": invalid JSON" in result.output
    edited = fresh_copy(reviewed)
    shard = edited / "data" / "review-records-0000.json"
    shard.write_text(shard.read_text(encoding="utf-8").replace('"1899"', '"1898"'), encoding="utf-8")
    result = run("gold", good, "--bundle", edited, "-o", tmp_path / "gold.json")
    assert result.exit_code == 2 and result.output.count("error:") == 1
    assert f"{shard}: edited after `mercury-static review` wrote it" in " ".join(result.output.split())
    (edited / "data" / "review.json").write_text("{}", encoding="utf-8")
    assert "data/review.json: edited after" in run("gold", good, "--bundle", edited, "-o", tmp_path / "g.json").output


def test_gold_of_a_bundle_that_is_not_a_review_bundle(asked, reviewed, tmp_path, run):
    result = run("gold", rita(reviewed, tmp_path), "--bundle", asked, "-o", tmp_path / "gold.json")
    assert result.exit_code == 2 and "not a review bundle" in result.output and "Traceback" not in result.output


def test_two_bad_exports_two_lines(reviewed, tmp_path, run):
    a = rewrite(rita(reviewed, tmp_path), lambda doc: doc.update(version=3))
    b = rewrite(review_export(tmp_path / "b.json", reviewed, "sam", adjudication("r9")), lambda doc: None)
    result = run("gold", a, b, "--bundle", reviewed, "-o", tmp_path / "gold.json")
    assert result.exit_code == 2 and result.output.count("error:") == 2


def test_review_cli(asked, team, tmp_path, run):
    out = tmp_path / "rb"
    result = run("review", *team, "--bundle", asked, "-o", out)
    assert result.exit_code == 0, result.output
    assert "3 records, 2 contested, 8 annotations by alice, bob, carol" in " ".join(result.output.split())
    before = (out / "manifest.json").read_bytes()
    # again, over its own output: replaced whole, the same bytes (deterministic)
    assert run("review", *team, "--bundle", asked, "-o", out).exit_code == 0
    assert (out / "manifest.json").read_bytes() == before
    # a review bundle made from a review bundle is the same review (its old review files not carried over)
    again = tmp_path / "rb2"
    assert run("review", *team, "--bundle", out, "-o", again).exit_code == 0
    assert sorted(p.name for p in (again / "data").glob("review*")) == sorted(p.name for p in (out / "data").glob("review*"))
    assert json.loads((again / "manifest.json").read_text())["review"] == json.loads(before)["review"]


def test_review_bad_inputs(asked, team, tmp_path, run):
    foreign = rewrite(Path(shutil.copy(team[0], tmp_path / "foreign.json")), lambda d: d.update(bundle_id="b-x"))
    out = tmp_path / "rb"
    result = run("review", foreign, *team[1:], "--bundle", asked, "-o", out)
    assert result.exit_code == 1 and f"skipped: {foreign}: field 'bundle_id':" in " ".join(result.output.split())
    assert json.loads((out / "data" / "review.json").read_text())["annotators"] == ["bob", "carol"]
    strict = run("review", foreign, "--bundle", asked, "-o", tmp_path / "strict", "--strict")
    assert strict.exit_code == 2 and strict.output.count("error:") == 1 and not (tmp_path / "strict").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine", encoding="utf-8")
    refused = run("review", *team, "--bundle", asked, "-o", mine)
    assert refused.exit_code == 2 and "is not a mercury-static bundle" in refused.output
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert run("review", *team, "--bundle", asked, "-o", asked).exit_code == 2  # never over its input
    assert run("review", *team, "--bundle", tmp_path / "nothing", "-o", tmp_path / "x").exit_code == 2


SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@pytest.mark.shared_data
@pytest.mark.skipif(not (SHARED_DATA / "faithbench").is_dir(), reason="../shared/data/faithbench absent")
def test_faithbench_batch_as_review_input(build_bundle, tmp_path):
    """A real FaithBench batch (three annotators, original Mercury's dump) is review input as it is: its
    annotators are the team, and the order by disagreement matches a recount from the raw file (which samples
    the annotators' (character, label) marks differ on), most contested first."""
    batch = SHARED_DATA / "faithbench" / "batch_3.json"
    samples = json.loads(batch.read_text(encoding="utf-8"))["samples"]
    team = sorted({a["annotator_name"] for s in samples for a in s["annotations"]})
    bundle = build_bundle([batch], name="faithbench-review")
    out = tmp_path / "review"
    result = review_bundle([batch], bundle, out)
    assert [str(p).split(": field ")[1] for p in result.problems] == [  # as merge says it of the same file
        "'label': expected a non-empty list of labels"]
    for s in samples:
        s["annotations"] = [a for a in s["annotations"] if a["label"]]
    loaded, header, records = load_review(out)
    assert header["annotators"] == team and len(team) == 3
    rows = [r for i in range(header["shards"]["order"])
            for r in json.loads((out / "data" / f"review-order-{i:04d}.json").read_text())["rows"]]
    assert len(rows) == len(samples) and [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)

    def marks(sample, name):  # the raw file, without the review code: (character, label leaf) pairs
        out = set()
        for a in sample["annotations"]:
            if a["annotator_name"] == name:
                leaves = [x for x in a["label"] if not any(o.startswith(x + ".") for o in a["label"])]
                out |= {(i, leaf) for i in range(a["summary_start"], a["summary_end"]) for leaf in leaves}
        return out

    contested = {loaded.records[i].id for i, s in enumerate(samples)
                 if len({frozenset(marks(s, n)) for n in team}) > 1}
    assert {r["id"] for r in rows if r["score"] > 0} == contested and 10 < len(contested) < len(samples)
    assert all(r["annotators"] == team for r in rows)  # a dump's annotators judged each of its samples
    first = records[[r.id for r in loaded.records].index(rows[0]["id"])]
    assert first["disagreement"]["spans"] == max(r["disagreement"]["spans"] for r in records)
    assert sum(len(r["annotations"]) for r in records) == sum(len(s["annotations"]) for s in samples)
    # a reviewer settles the 10 most contested samples by taking the first annotator's spans whole
    first_name = team[0]
    ordered = {r["id"]: r for r in records}
    decided = [adjudication(row["id"], {a["key"]: decision("accept" if a["annotator"] == first_name else "reject")
                                        for a in ordered[row["id"]]["annotations"]}) for row in rows[:10]]
    gold = make_gold([review_export(tmp_path / "review.json", out, "rita", *decided)], out)
    assert [g["id"] for g in gold.records] == [r.id for r in loaded.records if r.id in {d["record_id"] for d in decided}]
    assert len(gold.not_adjudicated) == len(samples) - 10 and not gold.undecided
    quality = {a["annotator"]: a for a in gold.quality["annotators"]}
    assert quality[first_name]["span_precision"] == quality[first_name]["span_recall"] == 1.0
    assert all(quality[n]["span_f1"] < 1 for n in team[1:])  # the others disagreed on these records
    print("\nFaithBench batch_3 review:", header["counts"], "top:", rows[:3], "\nquality:", gold.quality["annotators"])


def test_a_merged_file_is_review_input_too(asked, team, reviewed, tmp_path):
    """`review merged.json` gives the review of the exports it was merged from, byte for byte; an annotator who
    never saw a record (dave did r1 only) is no judge of the others, although a merged file is read as a dump."""
    from mercury_static.merge.pipeline import merge_files

    merged = tmp_path / "merged.json"
    merged.write_bytes(merge_files(team, load_bundle(asked)).output)
    again = tmp_path / "again"
    review_bundle([merged], asked, again)
    for path in sorted((reviewed / "data").glob("review*")):
        assert (again / "data" / path.name).read_bytes() == path.read_bytes(), path.name
    dave = export(tmp_path / "dave.json", load_bundle(asked), "dave",
                  entry("r1", {"verdict": "consistent"}, annotations=[ann("d1", "r1", "Rome")]))
    merged.write_bytes(merge_files([*team, dave], load_bundle(asked)).output)
    review_bundle([merged], asked, again)
    rows = {r["id"]: r for r in json.loads((again / "data" / "review-order-0000.json").read_text())["rows"]}
    assert rows["r1"]["annotators"] == ["alice", "bob", "carol", "dave"]
    assert rows["r3"]["annotators"] == ["alice", "bob", "carol"] and rows["r3"]["score"] == 0


def test_gold_never_writes_over_its_inputs(reviewed, tmp_path, run):
    export_file = rita(reviewed, tmp_path)
    before = export_file.read_bytes()
    for args in (("-o", export_file), ("-o", reviewed / "gold.json"),
                 ("-o", tmp_path / "g.json", "--report", tmp_path / "g.json")):
        result = run("gold", export_file, "--bundle", reviewed, *args)
        assert result.exit_code == 2 and result.output.count("error:") == 1, result.output
    assert export_file.read_bytes() == before and not (reviewed / "gold.json").exists()
    taken = tmp_path / "taken"  # a user's file where --format argilla would write a folder: merge's rule
    taken.write_text("mine", encoding="utf-8")
    result = run("gold", export_file, "--bundle", reviewed, "-o", taken, "--format", "argilla")
    assert result.exit_code == 2 and "is a file; --format argilla writes a folder" in result.output, result.output
    assert taken.read_text(encoding="utf-8") == "mine"


def test_review_data_of_a_newer_version(reviewed, tmp_path, run, fresh_copy):
    """A review bundle written by a newer tool (its review.json's version, the manifest consistent with it)."""
    import hashlib

    newer = fresh_copy(reviewed)
    header = newer / "data" / "review.json"
    header.write_text(header.read_text(encoding="utf-8").replace('"version":2', '"version":3'), encoding="utf-8")
    manifest = json.loads((newer / "manifest.json").read_text(encoding="utf-8"))
    manifest["review"]["sha256"] = hashlib.sha256(header.read_bytes()).hexdigest()
    (newer / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = run("gold", rita(reviewed, tmp_path), "--bundle", newer, "-o", tmp_path / "gold.json")
    assert result.exit_code == 2 and result.output.count("error:") == 1
    assert (f"{header}: field 'version': unsupported version 3 of mercury-static/review-data (this tool reads "
            "versions 1 and 2)") in " ".join(result.output.split())


def test_a_reviewer_who_annotated_too(reviewed, tmp_path):
    """alice reviews r1, which she annotated: Argilla keeps one response per user, so hers is the review (noted)."""
    export_file = review_export(tmp_path / "alice-review.json", reviewed, "alice",
                                adjudication("r1", {"bob:b1": decision("accept")}, answers={"verdict": {"from": "bob"}}))
    result = make_gold([export_file], reviewed, "argilla")
    (note,) = [n for n in result.notes if "also one of its annotators" in n]
    assert "e.g. record r1" in note
    r1 = json.loads(result.directory["records.json"])[0]
    mine = {x["user_id"]: x["value"] for x in r1["responses"]["verdict"]}
    assert mine[user_id("alice")] == "consistent"  # bob's answer, chosen by alice the reviewer
    assert [(s["start"], s["end"]) for s in {x["user_id"]: x["value"] for x in r1["responses"]["spans"]}[
        user_id("alice")]] == [(31, 35)]  # bob's span, not alice's two


ADDED_CASES = json.loads((Path(__file__).parent / "review_added_cases.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", ADDED_CASES, ids=[c["name"] for c in ADDED_CASES])
def test_each_added_annotation_needs_its_own_id(reviewed, tmp_path, case):
    """Two added annotations with one id: refused with one line (the page's import refuses it alike, on the same
    cases: tests/js/review_import.test.mjs), never one of them dropped."""
    text = SUMMARY["r1"]
    added = [{"id": a["id"], "label": INTRINSIC, "note": "",
              "summary": {"start": a["summary"][0], "end": a["summary"][1], "text": text[slice(*a["summary"])]},
              "source": None, "created_at": DECIDED, "updated_at": DECIDED} for a in case["added"]]
    path = review_export(tmp_path / "rita.json", reviewed, "rita", adjudication("r1", added=added))
    if case["field"] is None:
        [gold] = make_gold([path], reviewed).records
        assert sorted(a["id"] for a in gold["annotations"]) == sorted(a["id"] for a in case["added"])
        return
    with pytest.raises(GoldProblems) as raised:
        make_gold([path], reviewed)
    [problem] = raised.value.problems
    assert str(problem).startswith(f"{path}: record r1: field '{case['field']}': ") and case["says"] in str(problem)
