"""`review` and `gold` on hostile inputs and outputs: two annotations with one id, annotator names that could
share a key, an -o inside the input bundle, symlink loops, device and read-only outputs, future times, and
the skip line of a quoted text that differs late. Real files and the real CLI throughout."""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
from pathlib import Path

import pytest
from test_merge_questions import entry, export
from settings_fixtures import build_with_settings
from test_review import adjudication, ann, decision, review_export, rita

from mercury_static.bundle.contents import load_bundle
from mercury_static.review.write_bundle import load_review, review_bundle
from mercury_static.review.gold import make_gold


@pytest.fixture(scope="module")
def asked(build_bundle, tmp_path_factory) -> Path:
    return build_with_settings(build_bundle, tmp_path_factory.mktemp("asked"), "review-asked")


@pytest.fixture(scope="module")
def team(asked, tmp_path_factory) -> list[Path]:
    """Three annotators with work on r1 (the annotation keys `rita` decides on), r2 and r3."""
    folder, bundle = tmp_path_factory.mktemp("team"), load_bundle(asked)
    rest = [entry("r3", {"verdict": "consistent"})]
    return [export(folder / "alice.json", bundle, "alice", entry("r2", {"verdict": "hallucinated"}, annotations=[
                ann("a3", "r2", "midnight")]), entry("r1", {"verdict": "hallucinated"}, annotations=[
                ann("a1", "r1", "1899"), ann("a2", "r1", "Rome")]), *rest),
            export(folder / "bob.json", bundle, "bob", entry("r1", {"verdict": "consistent"}, annotations=[
                ann("b1", "r1", "1899")]), *rest),
            export(folder / "carol.json", bundle, "carol", entry("r1", {"verdict": "hallucinated"}, annotations=[
                ann("c1", "r1", "completed in 1899"), ann("c2", "r1", "Rome")]), *rest)]


@pytest.fixture(scope="module")
def reviewed(asked, team, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("review") / "review-bundle"
    review_bundle(team, asked, out)
    return out


def lines(result) -> list[str]:
    return [x for x in result.output.splitlines() if x.strip()]


def test_two_annotations_with_one_id_are_never_one_silently(asked, tmp_path, run):
    bundle = load_bundle(asked)
    first, second = ann("a1", "r1", "1899"), ann("a1", "r1", "Rome", note="city")
    dup = export(tmp_path / "dup.json", bundle, "dan", entry("r1", {"verdict": "hallucinated"},
                                                             annotations=[first, second]),
                 entry("r2", {"verdict": "consistent"}, annotations=[ann("a2", "r2", "midnight")]))
    result = run("review", dup, "--bundle", asked, "-o", tmp_path / "rb")
    assert result.exit_code == 1, result.output
    skipped = [x for x in lines(result) if x.startswith("skipped:")]
    assert len(skipped) == 1 and str(dup) in skipped[0] and "record r1, annotation a1" in skipped[0], skipped
    _, _, records = load_review(tmp_path / "rb")
    by_id = {r["id"]: r for r in records}
    assert by_id["r1"]["annotations"] == []  # neither copy stands in for the other
    assert [a["id"] for a in by_id["r2"]["annotations"]] == ["a2"]  # the rest of the file is read
    # an identical copy is one annotation, no line
    same = export(tmp_path / "same.json", bundle, "dan", entry("r1", {"verdict": "hallucinated"},
                                                                annotations=[first, dict(first)]))
    result = run("review", same, "--bundle", asked, "-o", tmp_path / "rb2")
    assert result.exit_code == 0, result.output
    _, _, records = load_review(tmp_path / "rb2")
    assert [a["id"] for a in records[0]["annotations"]] == ["a1"]


def test_two_annotations_with_one_id_in_a_dump_sample(asked, tmp_path, run):
    bundle = load_bundle(asked)
    r1 = bundle.records[0]
    flat = [{"annot_id": "x", "annotator_name": "dan", "label": ["Unwanted"], "note": "",
             "summary_span": q, "summary_start": r1.summary.index(q), "summary_end": r1.summary.index(q) + len(q)}
            for q in ("1899", "Rome")]
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"samples": [{"sample_id": r1.id, "source": r1.source, "summary": r1.summary,
                                             "annotations": flat}]}), encoding="utf-8")
    result = run("merge", dump, "--bundle", asked, "-o", tmp_path / "m.json")
    assert result.exit_code == 1, result.output
    assert any("sample r1, annotation x" in x and "this id" in x for x in lines(result)), result.output
    assert json.loads((tmp_path / "m.json").read_text())[0]["annotations"] == []


def test_annotator_names_with_a_colon_keep_two_keys(asked, tmp_path):
    bundle = load_bundle(asked)
    one = export(tmp_path / "one.json", bundle, "a:b", entry("r1", {"verdict": "consistent"}, annotations=[ann("c", "r1", "1899")]))
    two = export(tmp_path / "two.json", bundle, "a", entry("r1", {"verdict": "consistent"}, annotations=[ann("b:c", "r1", "Rome")]))
    out = tmp_path / "rb"
    review_bundle([one, two], asked, out)
    _, _, records = load_review(out)
    keys = [a["key"] for a in records[0]["annotations"]]
    assert sorted(keys) == ["a%3Ab:c", "a:b:c"]
    export_file = review_export(tmp_path / "rev.json", out, "rita", adjudication(
        "r1", {"a%3Ab:c": decision("accept"), "a:b:c": decision("reject")}))
    gold = make_gold([export_file], out).records[0]
    assert [(a["annotator"], a["id"]) for a in gold["annotations"]] == [("a:b", "c")]


def test_review_output_inside_the_input_bundle_is_refused(asked, team, tmp_path, run):
    copy = Path(shutil.copytree(asked, tmp_path / "bundle"))
    before = sorted(str(p.relative_to(copy)) for p in copy.rglob("*"))
    result = run("review", *team, "--bundle", copy, "-o", copy / "review")
    assert result.exit_code == 2 and len(lines(result)) == 1, result.output
    assert "inside the input bundle" in result.output
    assert sorted(str(p.relative_to(copy)) for p in copy.rglob("*")) == before


@pytest.mark.parametrize("command", ["review", "gold", "merge"])
def test_a_symlink_loop_among_the_inputs_is_one_line(asked, reviewed, team, tmp_path, run, command):
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    bundle = reviewed if command == "gold" else asked
    out = tmp_path / ("out" if command == "review" else "out.json")
    result = run(command, team[0], tmp_path / "a.json", "--bundle", bundle, "-o", out)
    assert result.exit_code == 2 and len(lines(result)) == 1, result.output
    assert "symlink loop" in result.output and not out.exists()
    # a looping -o alike
    result = run(command, team[0], "--bundle", bundle, "-o", tmp_path / "a.json")
    assert result.exit_code == 2 and "symlink loop" in result.output and len(lines(result)) == 1, result.output


def device(folder: Path, name: str, minor: int) -> Path:
    """A private copy of /dev/null (minor 3) or /dev/full (minor 7): the system's own would be replaced by a
    regular file for everyone if the code under test got it wrong."""
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except OSError as e:
        pytest.skip(f"cannot make a device node here ({e.strerror})")
    return path


def test_gold_to_a_device_writes_it_and_keeps_the_node(reviewed, tmp_path, run):
    (tmp_path / "in").mkdir()
    exports = rita(reviewed, tmp_path / "in")
    null, full = device(tmp_path, "null", 3), device(tmp_path, "full", 7)
    result = run("gold", exports, "--bundle", reviewed, "-o", null, "--report", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    assert null.is_char_device() and json.loads((tmp_path / "r.json").read_text())["counts"]["gold"] == 2
    # a full device: the write fails, one line, and the report is not left behind
    result = run("gold", exports, "--bundle", reviewed, "-o", full, "--report", tmp_path / "r2.json")
    assert result.exit_code == 2 and len(lines(result)) == 1 and str(full) in result.output, result.output
    assert full.is_char_device() and not (tmp_path / "r2.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "in", "null", "r.json"]  # no temp file left


def test_merge_to_a_device_and_a_fifo(asked, team, tmp_path, run):
    null = device(tmp_path, "null", 3)
    result = run("merge", *team, "--bundle", asked, "-o", null, "--report", null)
    assert result.exit_code == 0, result.output
    assert null.is_char_device()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = run("merge", *team, "--bundle", asked, "-o", fifo)  # nobody reads it: one line, no hang
    assert result.exit_code == 2 and "no process reads" in result.output, result.output
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    for _ in range(100):  # until the reader has the FIFO open
        result = run("merge", *team, "--bundle", asked, "-o", fifo)
        if result.exit_code == 0:
            break
    reader.join(10)
    assert result.exit_code == 0 and fifo.is_fifo() and json.loads(got[0])[0]["id"] == "r1", result.output


def test_gold_with_a_report_it_cannot_write_writes_nothing(reviewed, tmp_path, run):
    exports = rita(reviewed, tmp_path)
    gold_file = tmp_path / "gold.json"
    result = run("gold", exports, "--bundle", reviewed, "-o", gold_file, "--report", "/proc/version")
    assert result.exit_code == 2 and len(lines(result)) == 1, result.output
    assert not gold_file.exists() and [p.name for p in tmp_path.iterdir()] == ["rita.json"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_gold_with_a_read_only_report_writes_nothing(reviewed, tmp_path, run):
    exports = rita(reviewed, tmp_path)
    report = tmp_path / "report.json"
    report.write_text("{}")
    report.chmod(0o444)
    result = run("gold", exports, "--bundle", reviewed, "-o", tmp_path / "gold.json", "--report", report)
    assert result.exit_code == 2 and "read-only" in result.output and not (tmp_path / "gold.json").exists()


def test_future_decisions_go_into_the_gold_with_a_note(reviewed, tmp_path, run):
    future = "2999-01-01T00:00:00Z"
    late = review_export(tmp_path / "late.json", reviewed, "rita", adjudication(
        "r3", answers={"verdict": {"from": "bob"}}, updated_at=future))
    now = review_export(tmp_path / "now.json", reviewed, "sam", adjudication(
        "r3", answers={"verdict": {"from": "alice"}}, updated_at="2026-12-03T00:00:00Z"))
    result = run("gold", late, now, "--bundle", reviewed, "-o", tmp_path / "gold.json")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "in the future" in text and "2999-01-01T00:00:00Z" in text and "time of this gold" in text
    gold = json.loads((tmp_path / "gold.json").read_text())
    assert "2999" not in json.dumps(gold)  # written as gold's start, ordered as it: rita's (later) is the gold
    assert gold[0]["review"]["reviewer"] == "rita" and gold[0]["responses"][0]["updated_at"] > "2026-12-03"


def test_a_quoted_text_that_differs_late_shows_the_difference(asked, tmp_path, run):
    bundle = load_bundle(asked)
    record = bundle.records[0]
    wrong = ann("a1", "r1", "The Eiffel Tower, completed in 1899, stands in Rome")
    wrong["summary"]["text"] = wrong["summary"]["text"][:-1] + "a"
    bad = export(tmp_path / "bad.json", bundle, "dan", entry("r1", {"verdict": "consistent"}, annotations=[wrong]))
    result = run("merge", bad, "--bundle", asked, "-o", tmp_path / "m.json")
    assert result.exit_code == 1
    line = " ".join(result.output.split())
    assert "in Roma'" in line and "in Rome'" in line, line  # both cut to a window around the difference
    assert record.summary.startswith("The Eiffel Tower, completed in 1899, stands in Rome")
