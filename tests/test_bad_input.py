"""Every bad input ends in one line naming the file, place and field, exit code 2 (never a
traceback, a hang, an unopenable bundle or a silent change); merge and eval outputs never replace inputs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import REPO, TEST_CACHE

GOOD = {"id": "a", "source": "The cat sat on the mat. It was warm.", "summary": "A dog sat on the mat."}


def one_error(result, *parts: str, code: int = 2) -> str:
    """The single `error:` line of a failed command, checked to hold every part."""
    assert result.exit_code == code, result.output
    lines = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, result.output
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


def jsonl(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- JSON values JSON cannot carry

@pytest.mark.parametrize("raw, field, words", [
    ('"source": "The cat\\ud800 sat.", "summary": "A cat."', "source", "lone surrogate U+D800"),
    ('"source": "The cat.", "summary": "A cat.", "metadata": {"note": ["ok", "\\udfff"]}', "metadata.note[1]",
     "lone surrogate U+DFFF"),
    ('"source": "The cat.", "summary": "A cat.", "score": NaN', "score", "NaN"),
    ('"source": "The cat.", "summary": "A cat.", "metadata": {"x": -Infinity}', "metadata.x", "-inf"),
    ('"source": "The cat.", "summary": "A cat.", "big": 1e999', "big", "1e999"),
    ('"source": "The cat.", "summary": "A cat.", "summary": "Another."', "summary", "duplicate key"),
    ('"source": "The cat.", "summary": "A cat.", "metadata": {"k": 1, "k": 2}', "metadata.k", "duplicate key"),
])
def test_json_values_that_json_cannot_carry_are_refused(tmp_path, run, raw, field, words):
    data = jsonl(tmp_path / "data.jsonl", json.dumps(GOOD) + '\n{"id": "b", ' + raw + "}\n")
    out = tmp_path / "out"
    one_error(run("build", data, "-o", out), f"{data}: line 2: field '{field}'", words)
    assert not out.exists()


def test_a_mercury_dump_with_nan_names_the_record(tmp_path, run):
    dump = tmp_path / "dump.json"
    dump.write_text('{"samples": [{"sample_id": 1, "source": "S.", "summary": "T.", "annotations": []},'
                    '{"sample_id": 2, "source": "S.", "summary": "T.", "annotations": [], '
                    '"metadata": {"p": NaN}}]}', encoding="utf-8")
    one_error(run("build", dump, "-o", tmp_path / "out"), f"{dump}: record 1: field 'metadata.p'", "NaN")


def test_a_title_from_an_undecodable_file_name_is_refused(tmp_path, run):
    data = tmp_path / os.fsdecode(b"d\xffta.jsonl")
    data.write_text(json.dumps(GOOD), encoding="utf-8")
    one_error(run("build", data, "-o", tmp_path / "out"), "(the title is the file name; pass --title)",
              "lone surrogate U+DCFF")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(GOOD), encoding="utf-8")
    one_error(run("build", data, other, "-o", tmp_path / "out"), "line 1: field 'id': lone surrogate U+DCFF")


# ---------------------------------------------------------------- labels

@pytest.mark.parametrize("text, parts", [
    ("Benign:\nUnwanted: [Intrinsic]\nBenign:\n", ["line 3 column 1", "duplicate label 'Benign'"]),
    ("Unwanted:\n  Intrinsic:\n  Extrinsic:\n  Intrinsic:\n", ["line 4 column 3", "duplicate label 'Intrinsic'"]),
    ("a: &x\n  b: *x\n", ["alias cycle"]),
    ("Unwanted: &x [Intrinsic, {Deeper: *x}]\n", ["line 1 column 35", "alias cycle"]),
    ("Benign:\n  - a\n b: [\n", ["line 3 column 2", "invalid YAML"]),
    ('{"Benign": null, "Benign": null}', ["line 1 column 18", "duplicate label 'Benign'"]),
])
def test_labels_file_faults_keep_their_place(tmp_path, run, text, parts):
    labels = tmp_path / "labels.yaml"
    labels.write_text(text, encoding="utf-8")
    data = jsonl(tmp_path / "data.jsonl", json.dumps(GOOD))
    one_error(run("build", data, "-o", tmp_path / "out", "--labels", labels), f"{labels}:", *parts)


# ---------------------------------------------------------------- SummHay fields of the wrong type

def summhay_topic() -> dict:
    return {"topic_id": "t1", "topic": "rivers",
            "documents": [{"document_id": "d1", "document_text": "The levees failed. Repairs began.",
                           "document_metadata": {"article_source": "x"}, "insights_included": ["i1"]}],
            "subtopics": [{"subtopic_id": "s1", "subtopic_name": "levees", "subtopic": "Levees", "query": "q",
                           "insights": [{"insight_id": "i1", "insight_name": "n", "insight": "They failed."}],
                           "summaries": {"summary_subtopic_full_gpt": ["The levees failed [1]."]},
                           "eval_summaries": {"summary_subtopic_full_gpt": [
                               {"insight_id": "i1", "coverage": "FULL_COVERAGE", "bullet_id": 1}]}}]}


SUMMHAY_PLACES = [
    ("documents", 0, "insights_included"), ("documents", 0, "document_metadata"), ("documents", 0, "document_id"),
    ("subtopics", 0, "insights"), ("subtopics", 0, "eval_summaries"), ("subtopics", 0, "subtopic_name"),
    ("subtopics", 0, "query"), ("subtopics", 0, "subtopic_id"),
]


@pytest.mark.parametrize("place", SUMMHAY_PLACES + [("insight", None, None), ("judgment", None, None)])
@pytest.mark.parametrize("bad", [7, "x", [1, [2]], {"a": {}}, True, None, [{"k": 1}]])
def test_summhay_fields_of_any_type_are_read_or_named(tmp_path, place, bad):
    """Every value in every field: either a record or one InputError naming the field (no TypeError)."""
    from mercury_static.read.inputs import read_records
    from mercury_static.core.records import InputError

    topic = summhay_topic()
    kind, i, key = place
    if kind == "insight":
        topic["subtopics"][0]["insights"][0]["insight_id"] = bad
        key = "insight_id"
    elif kind == "judgment":
        topic["subtopics"][0]["eval_summaries"]["summary_subtopic_full_gpt"][0]["coverage"] = bad
        key = "coverage"
    else:
        topic[kind][i][key] = bad
    path = tmp_path / "topic.json"
    path.write_text(json.dumps(topic), encoding="utf-8")
    try:
        records = read_records([path], fmt="summhay")
    except InputError as e:
        assert str(e).startswith(f"{path}: ") and f"'{key}'" in str(e) or f"{key}[" in str(e), str(e)
    else:
        assert records and all(isinstance(r.summary, str) for r in records)
        if kind != "subtopics" or key not in ("subtopic_name", "query", "subtopic"):
            json.dumps([r.metadata for r in records], allow_nan=False)


def test_summhay_wrong_type_on_the_command_line(tmp_path, run):
    topic = summhay_topic()
    topic["documents"][0]["insights_included"] = 5
    path = tmp_path / "topic.json"
    path.write_text(json.dumps(topic), encoding="utf-8")
    one_error(run("build", path, "-o", tmp_path / "out"), f"{path}: documents[0]: field 'insights_included'",
              "expected a list, got number")


# ---------------------------------------------------------------- ranker options

@pytest.mark.parametrize("item, words", [
    ("neighbor=abc", "'abc' is not a number in [0, 1]"),
    ("prefix=[1,2]", "is not an integer in [0, 64]"),
    ("prefix=2.5", "is not an integer"),
    ("min_score=7", "'7' is not a number in [0, 1]"),
    ("min_score=NaN", "'NaN' is not a number"),
    ("algorithm=bogus", "'bogus' is not one of fused-v3"),
    ("grades=[0.6,0.3]", "ascending"),
    ("nope=1", "KEY one of"),
])
@pytest.mark.parametrize("command", ["build", "eval"])
def test_ranker_options_are_typed_and_ranged(tmp_path, run, item, words, command):
    data = jsonl(tmp_path / "data.jsonl", json.dumps(GOOD))
    args = ["-o", tmp_path / "out"] if command == "build" else []
    one_error(run(command, data, *args, "--ranker-option", item), "--ranker-option", words)
    assert not (tmp_path / "out").exists()


def test_the_manifest_carries_the_option_table_the_page_checks_with(build_bundle, tmp_path):
    from mercury_static.assist.ranker_options import DEFAULT_OPTIONS, SPEC

    data = jsonl(tmp_path / "data.jsonl", json.dumps(GOOD))
    manifest = json.loads((build_bundle([data], ranker={"neighbor": 0.3}) / "manifest.json").read_text())
    assert manifest["ranker"] == {**DEFAULT_OPTIONS, "neighbor": 0.3}
    assert [o["name"] for o in manifest["ranker_spec"]] == [o.name for o in SPEC]
    assert {o["name"]: o["default"] for o in manifest["ranker_spec"]} == DEFAULT_OPTIONS
    neighbor = next(o for o in manifest["ranker_spec"] if o["name"] == "neighbor")
    assert (neighbor["kind"], neighbor["minimum"], neighbor["maximum"]) == ("number", 0.0, 1.0)


def test_library_callers_are_checked_too(tmp_path, build_bundle):
    from mercury_static.tune.evaluate import EvalSet, score_eval_set
    from mercury_static.core.records import InputError

    with pytest.raises(InputError, match="field 'neighbor': 'abc' is not a number"):
        score_eval_set(EvalSet({}, [], None, []), 5, {"neighbor": "abc"})
    data = jsonl(tmp_path / "data.jsonl", json.dumps(GOOD))
    with pytest.raises(InputError, match="field 'min_score': 'NaN' is not a number"):
        build_bundle([data], name="nan", ranker={"min_score": float("nan")})


# ---------------------------------------------------------------- files that are not regular files

def cli(*args, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real command in a subprocess (a hang is a failed test, not a stuck suite)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "MERCURY_STATIC_CACHE": str(TEST_CACHE), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-c", "from mercury_static.cli import app; app()", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env)


class Hung(Exception):
    """A command still running when the alarm rang."""


@contextmanager
def no_hang(seconds: int = 60):
    """A command that blocks (opening a FIFO waits for a writer) fails the test instead of stopping the suite:
    the alarm's exception ends the blocked call."""
    def ring(signum, frame):
        raise Hung(f"still running after {seconds} s")

    before = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


@pytest.mark.parametrize("role", ["input", "labels", "guidelines"])
def test_a_fifo_is_refused_without_hanging(tmp_path, run, role):
    """In-process, under an alarm (test_read.py runs the real entry point on bad input)."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    data = jsonl(tmp_path / "data.jsonl", json.dumps(GOOD))
    args = [fifo] if role == "input" else [data, f"--{role}", fifo]
    with no_hang():
        done = run("build", *args, "-o", tmp_path / "out")
    assert done.exit_code == 2, done.output
    assert f"error: {fifo}: not a regular file (a FIFO)" in done.stderr and done.stdout == ""


def test_dev_zero_is_refused(tmp_path, run):
    one_error(run("build", "/dev/zero", "-o", tmp_path / "out"), "/dev/zero: not a regular file (a device)")


def test_too_large_a_labels_file_is_refused(tmp_path, run):
    labels = tmp_path / "labels.yaml"
    with open(labels, "wb") as f:
        f.truncate(17 << 20)
    data = jsonl(tmp_path / "data.jsonl", json.dumps(GOOD))
    one_error(run("build", data, "-o", tmp_path / "out", "--labels", labels), f"{labels}: too large")


# ---------------------------------------------------------------- prior annotations outside the label set

def test_prior_annotations_with_unknown_labels_are_warned_about_and_not_suggested(tmp_path, run, stand_in_model):
    summary = "A dog sat on the mat."
    flat = {"summary_span": "dog", "summary_start": 2, "summary_end": 5, "annotator_name": "old"}
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"samples": [{
        "sample_id": "s1", "source": GOOD["source"], "summary": summary, "annotations": [
            {**flat, "annot_id": 1, "label": "Unwanted.Intrinsic"}, {**flat, "annot_id": 2, "label": "Wrong"},
            {**flat, "annot_id": 3, "label": ["Unwanted", "Unwanted.Made-up"]}]}]}), encoding="utf-8")
    out = tmp_path / "out"
    result = run("build", dump, "-o", out, "--model", stand_in_model)
    assert result.exit_code == 0, result.output
    warnings = [x for x in result.output.splitlines() if x.startswith("warning:")]
    assert len(warnings) == 2, result.output
    assert "record s1, annotation 2: label 'Wrong' is not in the bundle's labels" in warnings[0]
    assert "annotation 3: label 'Unwanted.Made-up'" in warnings[1] and "not offered as a suggestion" in warnings[1]
    shard = json.loads((out / "data" / "records-0000.json").read_text())
    assert [(a["id"], a["label"]) for a in shard["records"][0]["prior_annotations"]] == [
        ("1", ["Unwanted", "Unwanted.Intrinsic"])]
