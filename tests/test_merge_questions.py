"""`merge` of export version 2: each question's response validated, carried into every output format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from schema_lite import errors
from settings_fixtures import build_with_settings

from mercury_static.bundle.contents import load_bundle
from mercury_static.merge.pipeline import merge_files
from mercury_static.merge.questions import TEXT_LIMIT
from mercury_static.core.records import InputError

DOCS = Path(__file__).resolve().parent.parent / "docs"
SCHEMAS = {name: json.loads((DOCS / f"{name}.schema.json").read_text(encoding="utf-8")) for name in ("export", "merged")}
# the verdict suggestions build derives from the `hhem` column (r3 has none), and r1's from the suggestions file
SUGGESTIONS = {"r1": [{"question": "verdict", "value": "hallucinated", "score": 0.9, "agent": "HHEM-2.1"},
                      {"question": "verdict", "value": "consistent", "score": 0.2, "agent": "judge-llm"}],
               "r2": [{"question": "verdict", "value": "consistent", "score": 0.6, "agent": "HHEM-2.1"}]}


@pytest.fixture(scope="module")
def asked(build_bundle, tmp_path_factory):
    """A real bundle built with six questions, metadata and HHEM suggestions (the issue-13 contract)."""
    return load_bundle(build_with_settings(build_bundle, tmp_path_factory.mktemp("asked"), "asked"))


def entry(record_id, responses=None, status="submitted", shown=True, accepted=None, annotations=(),
          updated_at="2026-12-01T10:00:00Z") -> dict:
    out = {"record_id": record_id, "status": status, "updated_at": updated_at, "annotations": list(annotations)}
    if responses is not None:
        out["responses"] = responses
    if shown is not None:
        out["suggestions"] = {"shown": shown, "accepted": accepted or {}}
    return out


def export(path: Path, bundle, annotator: str, *records, version=2) -> Path:
    doc = {"format": "mercury-static/annotations", "version": version, "bundle_id": bundle.manifest["bundle_id"],
           "title": "t", "annotator": annotator, "client_id": "c1", "exported_at": "2026-12-01T12:00:00Z",
           "tool_version": "0.1.0", "records": list(records)}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


FULL = {"verdict": "hallucinated", "topics": ["dates", "places"], "quality": 4, "order": ["y", "x", "z"],
        "comment": "Wrong year and city."}


def test_responses_merged_per_annotator(asked, tmp_path):
    a = export(tmp_path / "alice.json", asked, "alice", entry("r1", FULL, accepted={"verdict": "HHEM-2.1"}),
               entry("r2", {"verdict": "consistent"}, shown=False), entry("r3", {}, status="discarded"))
    b = export(tmp_path / "bob.json", asked, "bob", entry("r1", {"verdict": "consistent", "quality": 2}))
    result = merge_files([a, b], asked)
    assert not result.problems, result.problems
    r1, r2, r3 = result.records
    assert r1["responses"] == [
        {"annotator": "alice", "status": "submitted", "updated_at": "2026-12-01T10:00:00Z", "values": FULL,
         "suggestions": {"shown": True, "accepted": {"verdict": "HHEM-2.1"}}},
        {"annotator": "bob", "status": "submitted", "updated_at": "2026-12-01T10:00:00Z",
         "values": {"verdict": "consistent", "quality": 2}, "suggestions": {"shown": True, "accepted": {}}}]
    assert r2["responses"][0]["suggestions"] == {"shown": False, "accepted": {}}
    assert r3["responses"][0]["values"] == {}  # discarded: nothing required
    assert r1["suggestions"] == SUGGESTIONS["r1"] and r2["suggestions"] == SUGGESTIONS["r2"]
    assert "suggestions" not in r3
    for path in (a, b):  # both files and the merge hold to their schemas
        assert errors(json.loads(path.read_text(encoding="utf-8")), SCHEMAS["export"]) == []
    assert errors(result.records, SCHEMAS["merged"]) == []
    assert errors([dict(r1, responses=[dict(r1["responses"][0], values={"verdict": None})])], SCHEMAS["merged"])
    # every output format carries them, and the merged file merges again to the same records
    assert [json.loads(x) for x in merge_files([a, b], asked, fmt="jsonl").output.splitlines()] == result.records
    flat = json.loads(merge_files([a, b], asked, fmt="mercury").output)["samples"]
    assert [x.get("responses") for x in flat] == [r1["responses"], r2["responses"], r3["responses"]]
    again = tmp_path / "merged.json"
    again.write_bytes(result.output)
    assert merge_files([again], asked).records == result.records


def test_version_1_on_a_bundle_with_questions(asked, tmp_path):
    """A version-1 export predates questions: it merges as before (no values, no required check)."""
    old = export(tmp_path / "old.json", asked, "carol", entry("r1", shown=None), version=1)
    result = merge_files([old], asked)
    assert not result.problems
    assert result.records[0]["responses"] == [{"annotator": "carol", "status": "submitted",
                                               "updated_at": "2026-12-01T10:00:00Z"}]


BAD = {
    "label not an option": ({"verdict": "maybe"}, "responses.verdict", "'maybe' is not one of consistent, hallucinated"),
    "label not a string": ({"verdict": 1}, "responses.verdict", "1 is not one of consistent, hallucinated"),
    "multi_label empty": ({"verdict": "consistent", "topics": []}, "responses.topics", "non-empty list"),
    "multi_label unknown": ({"verdict": "consistent", "topics": ["dates", "cats"]}, "responses.topics",
                            "'cats' is not one of dates, places, people"),
    "multi_label twice": ({"verdict": "consistent", "topics": ["dates", "dates"]}, "responses.topics",
                          "an option is given twice"),
    "rating off the scale": ({"verdict": "consistent", "quality": 6}, "responses.quality", "6 is not one of 1, 2, 3, 4, 5"),
    "rating as text": ({"verdict": "consistent", "quality": "4"}, "responses.quality", "'4' is not one of 1, 2, 3, 4, 5"),
    "rating as bool": ({"verdict": "consistent", "quality": True}, "responses.quality", "True is not one of 1, 2, 3, 4, 5"),
    "ranking not a permutation": ({"verdict": "consistent", "order": ["x", "x", "z"]}, "responses.order",
                                  "expected an ordering of all of x, y, z"),
    "ranking short": ({"verdict": "consistent", "order": ["x", "y"]}, "responses.order", "expected an ordering of all of x, y, z"),
    "text not a string": ({"verdict": "consistent", "comment": ["a"]}, "responses.comment", "expected a non-empty text"),
    "text too long": ({"verdict": "consistent", "comment": "a" * (TEXT_LIMIT + 1)}, "responses.comment",
                      f"{TEXT_LIMIT + 1} characters (at most {TEXT_LIMIT})"),
    "unknown question": ({"verdict": "consistent", "mood": 3}, "responses.mood", "unknown question"),
    "span question in responses": ({"verdict": "consistent", "spans": []}, "responses.spans",
                                   "answered by `annotations`"),
    "required missing": ({"quality": 3}, "responses.verdict", "required, missing on a submitted record"),
    "responses not an object": (["consistent"], "responses", "expected an object"),
}


SPAN = {"id": "s1", "label": ["Unwanted", "Unwanted.Intrinsic"], "note": "",
        "summary": {"start": 47, "end": 51, "text": "Rome"}, "source": None}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_answer_drops_only_itself(asked, tmp_path, case):
    """The record entry, its status, its other answers and its spans stay; the one answer goes, in one line."""
    responses, field_name, message = BAD[case]
    bad = export(tmp_path / "eve.json", asked, "eve", entry("r1", responses, annotations=[SPAN]),
                 entry("r2", {"verdict": "consistent"}))
    result = merge_files([bad], asked)
    (problem,) = result.problems  # a required answer given but dropped ("maybe") is one line, not two
    assert str(problem) == f"{bad}: record r1: field '{field_name}': " + str(problem).split(": ", 3)[3]
    assert message in str(problem) and "\n" not in str(problem)
    assert result.answers_dropped == 1 and result.exit_code == 1
    assert vars(result.counts) == {"read": 1, "merged": 1, "duplicate": 0, "superseded": 0, "rejected": 0}
    r1, r2 = result.records[:2]
    kept = {k: v for k, v in responses.items() if f"responses.{k}" != field_name} if isinstance(responses, dict) else {}
    assert r1["responses"] == [{"annotator": "eve", "status": "submitted", "updated_at": "2026-12-01T10:00:00Z",
                                "values": kept, "suggestions": {"shown": True, "accepted": {}}}]
    assert [a["id"] for a in r1["annotations"]] == ["s1"]  # the span stays
    assert r2["responses"][0]["values"] == {"verdict": "consistent"}
    assert errors(result.records, SCHEMAS["merged"]) == []
    with pytest.raises(InputError) as raised:  # --strict stops at that same line
        merge_files([bad], asked, strict=True)
    assert str(raised.value) == str(problem)


def test_a_submitted_record_missing_a_required_answer(asked, tmp_path):
    """It stays submitted for the span agreement (its spans answer the span question), but the missing question
    has no answer from that judge: the per-question agreement counts only alice's verdict."""
    a = export(tmp_path / "alice.json", asked, "alice", entry("r1", FULL))
    e = export(tmp_path / "eve.json", asked, "eve", entry("r1", {"quality": 2}, annotations=[SPAN]))
    result = merge_files([a, e], asked)
    (problem,) = result.problems
    assert str(problem) == f"{e}: record r1: field 'responses.verdict': required, missing on a submitted record"
    verdict = next(q for q in result.agreement["questions"] if q["question"] == "verdict")
    quality = next(q for q in result.agreement["questions"] if q["question"] == "quality")
    assert (verdict["answers"], verdict["records"]) == (1, 0) and (quality["answers"], quality["records"]) == (2, 1)
    assert result.agreement["records"]["judged_by_2_or_more"] == 1  # both judged r1's spans
    assert {x["annotator"]: x["submitted"] for x in result.agreement["annotators"]} == {"alice": 1, "eve": 1}


def test_a_partly_dropped_version_is_still_the_newest(asked, tmp_path):
    """The newest version wins whole even when one of its answers was dropped: the older one's answer does not
    come back, and the older one's spans are superseded."""
    old_span = dict(SPAN, id="s0")
    path = export(tmp_path / "eve.json", asked, "eve",
                  entry("r1", {"verdict": "consistent", "quality": 2}, annotations=[old_span],
                        updated_at="2026-12-01T09:00:00Z"),
                  entry("r1", {"verdict": "hallucinated", "quality": 9}, annotations=[SPAN]))
    result = merge_files([path], asked)
    (problem,) = result.problems
    assert "record r1: field 'responses.quality': 9 is not one of" in str(problem)
    (response,) = result.records[0]["responses"]
    assert response["updated_at"] == "2026-12-01T10:00:00Z" and response["values"] == {"verdict": "hallucinated"}
    assert [a["id"] for a in result.records[0]["annotations"]] == ["s1"]
    assert vars(result.counts) == {"read": 2, "merged": 1, "duplicate": 0, "superseded": 1, "rejected": 0}


def test_required_only_on_submitted(asked, tmp_path):
    ok = export(tmp_path / "ok.json", asked, "dan", entry("r1", {}, status="in_progress"),
                entry("r2", {"quality": 5}, status="discarded"))
    assert not merge_files([ok], asked).problems


USE = {
    "accepted unknown agent": ({"shown": True, "accepted": {"verdict": "GPT-judge"}}, "suggestions.accepted.verdict",
                               "'GPT-judge' made no suggestion"),
    "accepted without suggestion": ({"shown": True, "accepted": {"quality": "HHEM-2.1"}},
                                    "suggestions.accepted.quality", "made no suggestion for this question"),
    "accepted while blind": ({"shown": False, "accepted": {"verdict": "HHEM-2.1"}}, "suggestions.accepted.verdict",
                             "not shown"),
    "shown not a bool": ({"shown": "yes"}, "suggestions.shown", "expected true or false"),
    "accepted not an object": ({"shown": True, "accepted": ["HHEM-2.1"]}, "suggestions.accepted",
                               "expected an object {question: agent}"),
    "accepted unknown question": ({"shown": True, "accepted": {"mood": "HHEM-2.1"}}, "suggestions.accepted.mood",
                                  "unknown question"),
}


@pytest.mark.parametrize("case", sorted(USE))
def test_bad_suggestion_use_drops_only_the_acceptance(asked, tmp_path, case):
    """A valid acceptance next to the bad one stays (when suggestions were shown), as do the answers and spans;
    a `shown` that is not a bool leaves the entry saying nothing about suggestions."""
    use, field_name, message = USE[case]
    several = use["shown"] is True and isinstance(use["accepted"], dict) and "verdict" not in use["accepted"]
    if several:  # a good acceptance beside the bad one
        use = dict(use, accepted={"verdict": "HHEM-2.1", **use["accepted"]})
    record = dict(entry("r1", {"verdict": "hallucinated"}, annotations=[SPAN]), suggestions=use)
    path = export(tmp_path / "eve.json", asked, "eve", record)
    result = merge_files([path], asked)
    (problem,) = result.problems
    assert f"record r1: field '{field_name}': " in str(problem) and message in str(problem)
    assert result.answers_dropped == 1 and result.counts.merged == 1 and result.counts.rejected == 0
    (response,) = result.records[0]["responses"]
    assert response["values"] == {"verdict": "hallucinated"}
    accepted = use.get("accepted", {})
    kept = {k: v for k, v in accepted.items() if f"suggestions.accepted.{k}" != field_name} \
        if isinstance(accepted, dict) else {}
    assert response.get("suggestions") == (None if case == "shown not a bool" else
                                           {"shown": use["shown"], "accepted": kept})
    if several:
        assert kept == {"verdict": "HHEM-2.1"}
    with pytest.raises(InputError) as raised:
        merge_files([path], asked, strict=True)
    assert str(raised.value) == str(problem)


def test_malformed_questions_in_the_bundle(asked, tmp_path):
    copy = tmp_path / "bundle"
    shutil.copytree(asked.dir, copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["settings"]["questions"][3]["values"] = ["1", "2"]  # by hand: build would refuse it
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(InputError) as raised:
        merge_files([], load_bundle(copy))
    assert str(raised.value) == (f"{copy}: cannot read the bundle: manifest.json: questions[3]: field 'values': "
                                 "'1' is not an integer (a rating is an integer scale)")


def test_cli_prints_question_and_agent_agreement(asked, tmp_path):
    from typer.testing import CliRunner

    from mercury_static.cli import app

    a = export(tmp_path / "alice.json", asked, "alice", entry("r1", FULL, accepted={"verdict": "HHEM-2.1"}),
               entry("r2", {"verdict": "hallucinated", "quality": 3}, shown=False))
    b = export(tmp_path / "bob.json", asked, "bob", entry("r1", {"verdict": "hallucinated", "quality": 5}),
               entry("r2", {"verdict": "consistent", "quality": 2}, shown=False))
    out, report = tmp_path / "merged.json", tmp_path / "report.json"
    run = CliRunner().invoke(app, ["merge", str(a), str(b), "--bundle", str(asked.dir), "-o", str(out),
                                   "--report", str(report)], env={"COLUMNS": "200"})
    assert run.exit_code == 0, run.output
    assert "Agreement per question" in run.output and "ordinal / interval" in run.output
    assert "HHEM-2.1" in run.output and "count only" in run.output
    # the span tables' verdicts are not the `verdict` question's answers: they say so
    assert "span verdict agree" in run.output and "Krippendorff's alpha (span verdicts, nominal" in run.output
    assert "(verdicts," not in run.output
    doc = json.loads(report.read_text(encoding="utf-8"))
    verdict = next(q for q in doc["questions"] if q["question"] == "verdict")
    # verdict units [H, H], [H, C]: o_HH = 2, o_HC = o_CH = 1; n_H = 3, n_C = 1, n = 4 -> 1 - 3·2/(2·3·1) = 0
    (low, high), = verdict.pop("alpha_ci").values()
    assert low <= 0.0 <= high and f"[{low:.3f}, {high:.3f}]" in run.output  # printed in the question's row
    assert verdict == {"question": "verdict", "type": "label", "answers": 4, "records": 2, "alpha": {"nominal": 0.0}}
    blind = next(x for x in doc["agents"] if x["split"] == "blind")
    # r2 only (HHEM said consistent, 0.6): alice hallucinated, bob consistent -> no majority
    assert (blind["records"], blind["agree"], blind["majority_records"], blind["accuracy"]) == (1, 0.5, 0, None)


def test_cli_says_what_answer_it_dropped(asked, tmp_path):
    from typer.testing import CliRunner

    from mercury_static.cli import app

    bad = export(tmp_path / "eve.json", asked, "eve", entry("r1", {"verdict": "hallucinated", "quality": 6},
                                                            annotations=[SPAN]))
    out, report = tmp_path / "merged.json", tmp_path / "report.json"
    run = CliRunner().invoke(app, ["merge", str(bad), "--bundle", str(asked.dir), "-o", str(out),
                                   "--report", str(report)], env={"COLUMNS": "300"})
    assert run.exit_code == 1, run.output
    skipped = [x for x in run.output.splitlines() if x.startswith("skipped:")]
    assert skipped == [f"skipped: {bad}: record r1: field 'responses.quality': 6 is not one of 1, 2, 3, 4, 5"]
    assert "1 annotations read, 1 merged, 0 duplicate, 0 superseded by newer versions, 0 rejected; 1 answer(s) " \
           "dropped (their records merged)" in run.output
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert doc["answers_dropped"] == 1 and doc["problems"] == [skipped[0].removeprefix("skipped: ")]
    assert json.loads(out.read_text(encoding="utf-8"))[0]["responses"][0]["values"] == {"verdict": "hallucinated"}


SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.skipif(not (SHARED_DATA / "faithbench").is_dir(), reason="../shared/data/faithbench absent")
def test_faithbench_verdict_question_agrees_with_span_verdicts(build_bundle, tmp_path):
    """On the real FaithBench batches built with examples/faithbench-settings.yaml: when each annotator's
    `verdict` answer is their span verdict (an Unwanted span or not), the question's nominal alpha equals the
    span verdicts' alpha, two computations that share no code; HHEM-2.1 is scored on every record it covers."""
    files = sorted((SHARED_DATA / "faithbench").glob("batch_*.json"))
    examples = Path(__file__).resolve().parent.parent / "examples"
    bundle = load_bundle(build_bundle(files, name="faithbench-settings", settings=examples / "faithbench-settings.yaml"))
    dumps = merge_files(files, bundle)
    work: dict[str, list] = {}
    for i, r in enumerate(dumps.records):
        for name in sorted({a["annotator"] for a in r["annotations"]}):
            spans = [a for a in r["annotations"] if a["annotator"] == name]
            verdict = "hallucinated" if any(x.split(".")[0] == "Unwanted" for a in spans for x in a["label"]) \
                else "consistent"  # the README's span verdict: a label Unwanted or below it
            work.setdefault(name, []).append(entry(r["id"], {"verdict": verdict}, shown=i % 2 == 0, annotations=[
                {k: a[k] for k in ("id", "label", "note", "summary", "source")} for a in spans]))
    paths = [export(tmp_path / f"{n}.json", bundle, n, *recs) for n, recs in work.items()]
    result = merge_files(paths, bundle)
    assert not result.problems and result.counts.merged == dumps.counts.merged
    (verdict,) = [q for q in result.agreement["questions"] if q["question"] == "verdict"]
    assert verdict["records"] == result.agreement["overall"]["records"] > 200
    assert verdict["alpha"]["nominal"] == result.agreement["overall"]["alpha"]
    hhem = {x["split"]: x for x in result.agreement["agents"] if x["agent"] == "HHEM-2.1"}
    assert hhem["all"]["records"] == hhem["blind"]["records"] + hhem["shown"]["records"]
    print("\nFaithBench verdict:", verdict, "\nHHEM-2.1:", *hhem.values(), sep="\n  ")


def test_a_merged_file_with_a_bad_answer_keeps_its_spans(asked, tmp_path):
    """A merged file read back as a dump: an answer that no longer fits is one problem line and is dropped; the
    response (its status, time and other answers) and that annotator's spans stay."""
    span = {"id": "s1", "label": ["Unwanted", "Unwanted.Intrinsic"], "note": "",
            "summary": {"start": 47, "end": 51, "text": "Rome"}, "source": None}
    a = export(tmp_path / "alice.json", asked, "alice",
               entry("r1", {"verdict": "hallucinated", "quality": 4}, annotations=[span]))
    merged = json.loads(merge_files([a], asked).output)
    merged[0]["responses"][0]["values"]["verdict"] = "maybe"
    path = tmp_path / "merged.json"
    path.write_text(json.dumps(merged), encoding="utf-8")
    result = merge_files([path], asked)
    (problem,) = result.problems
    assert str(problem) == (f"{path}: sample r1, responses[0]: field 'responses.verdict': 'maybe' is not one of "
                            "consistent, hallucinated")
    assert [x["id"] for x in result.records[0]["annotations"]] == ["s1"]
    (response,) = result.records[0]["responses"]
    assert response["status"] == "submitted" and response["values"] == {"quality": 4}
    assert vars(result.counts) == {"read": 1, "merged": 1, "duplicate": 0, "superseded": 0, "rejected": 0}


def test_a_blind_annotator_whose_export_says_shown_is_noted(build_bundle, tmp_path):
    """bob is blind in the settings, yet his export says suggestions were shown (his name typed "Bob" in a page
    before blind names were compared case-folded): merge says so, since his answers then count as shown."""
    from settings_fixtures import JUDGE, RECORDS, SETTINGS

    data = tmp_path / "tiny.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    (tmp_path / "suggestions.jsonl").write_text(json.dumps(JUDGE) + "\n", encoding="utf-8")
    (tmp_path / "settings.yaml").write_text(SETTINGS.replace("blind: false", "blind: [bob]"), encoding="utf-8")
    bundle = load_bundle(build_bundle([data], name="blind-bob", id_field="id", settings=tmp_path / "settings.yaml"))
    assert bundle.settings.blind == ("bob",)
    a = export(tmp_path / "alice.json", bundle, "alice", entry("r1", {"verdict": "consistent"}, shown=True))
    b = export(tmp_path / "bob.json", bundle, "Bob", entry("r1", {"verdict": "consistent"}, shown=True),
               entry("r2", {"verdict": "consistent"}, shown=True))
    c = export(tmp_path / "bob2.json", bundle, "bob", entry("r3", {"verdict": "consistent"}, shown=False))
    result = merge_files([a, b, c], bundle)
    assert result.problems == []
    assert [n for n in result.notes if "blind" in n] == [
        "annotator 'Bob' is blind in the settings (suggestions.blind) but their export says suggestions were "
        "shown on 2 record(s): those answers count as shown"]
