"""What no input may do: a traceback (an integer int() refuses, an Argilla settings value of the
wrong type, a merged file's `responses` of the wrong type) or a hang (a YAML alias bomb or cycle). Each is
one line naming the file and the field, exit 2 (merge and tune: one `skipped:` line, the rest read). The
fixes are in the shared readers (safeio.loads, yaml_strict.load), so every input kind is tried."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, TEST_CACHE
from test_bad_input import GOOD, one_error

LONG = "1" * 5000
"""An integer of 5,000 digits: more than int() converts (sys.get_int_max_str_digits() is 4,300)."""
ARGILLA = json.loads((Path(__file__).parent / "argilla_settings.json").read_text(encoding="utf-8"))


def write(path: Path, text: str) -> Path:
    """`text` into `path`, each @ replaced by `LONG`."""
    path.write_text(text.replace("@", LONG), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def bundle(build_bundle, tmp_path_factory) -> Path:
    data = write(tmp_path_factory.mktemp("bounded") / "d.jsonl", json.dumps(GOOD) + "\n")
    return build_bundle([data], name="bounded")


def export(path: Path, bundle: Path, record: str) -> Path:
    bundle_id = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]
    return write(path, json.dumps({"format": "mercury-static/annotations", "version": 1, "bundle_id": bundle_id,
                                   "annotator": "al", "records": ["RECORD"]}).replace('"RECORD"', record))


# ---------------------------------------------------------------- integers int() refuses, in every input

def _data_jsonl(tmp, bundle):
    f = write(tmp / "d.jsonl", '{"id": "a", "source": "S.", "summary": "T.", "n": @}\n')
    return ["build", f, "-o", tmp / "out"], f, "line 1: field 'n'"


def _data_json(tmp, bundle):
    f = write(tmp / "d.json", '[{"id": "a", "source": "S.", "summary": "T.", "m": {"x": [-@]}}]')
    return ["build", f, "-o", tmp / "out"], f, "record 0: field 'm.x[0]'"


def _dump(tmp, bundle):
    f = write(tmp / "dump.json", '{"samples": [{"sample_id": 1, "source": "S.", "summary": "T.", "annotations": [{'
                                 '"annot_id": @}]}]}')
    return ["build", f, "-o", tmp / "out"], f, "record 0: field 'annotations[0].annot_id'"


def _settings_json(tmp, bundle):
    f = write(tmp / "s.json", '{"distribution": {"annotators": ["a"], "overlap": @}}')
    return ["build", write(tmp / "d.jsonl", json.dumps(GOOD)), "-o", tmp / "out", "--settings", f], f, \
        "field 'distribution.overlap'"


def _settings_yaml(tmp, bundle):
    f = write(tmp / "s.yaml", "distribution:\n  annotators: [a]\n  overlap: @\n")
    return ["build", write(tmp / "d.jsonl", json.dumps(GOOD)), "-o", tmp / "out", "--settings", f], f, \
        "line 3 column 12"


def _labels_yaml(tmp, bundle):
    f = write(tmp / "labels.yaml", "Benign:\nUnwanted: [@]\n")
    return ["build", write(tmp / "d.jsonl", json.dumps(GOOD)), "-o", tmp / "out", "--labels", f], f, \
        "line 2 column 12"


def _suggestions(tmp, bundle):
    f = write(tmp / "sug.jsonl", '{"record_id": "a", "question": "spans", "value": [], "score": @}\n')
    return ["build", write(tmp / "d.jsonl", json.dumps(GOOD)), "-o", tmp / "out", "--suggestions", f], f, \
        "line 1: field 'score'"


def _options(tmp, bundle):
    f = write(tmp / "o.json", '{"neighbor": @}')
    return ["eval", write(tmp / "d.jsonl", json.dumps(GOOD)), "--options", f], f, "field 'neighbor'"


def _merge_export(tmp, bundle):
    f = export(tmp / "e.json", bundle, '{"record_id": "a", "status": "submitted", "n": @, "annotations": []}')
    return ["merge", f, "--bundle", bundle, "-o", tmp / "m.json", "--strict"], f, "records[0]: field 'n'"


def _tune_export(tmp, bundle):
    f = export(tmp / "e.json", bundle, '{"record_id": "a", "status": "submitted", "updated_at": "2026-01-01T00:00:00Z",'
                                       ' "annotations": [{"id": "x", "summary": {"start": @}}]}')
    return ["tune", f, "--bundle", bundle], f, "annotation x: field 'summary.start'"


@pytest.mark.parametrize("case", [_data_jsonl, _data_json, _dump, _settings_json, _settings_yaml, _labels_yaml,
                                  _suggestions, _options, _merge_export, _tune_export])
def test_an_integer_too_long_to_convert_is_named_in_every_input(run, bundle, tmp_path, case):
    args, path, place = case(tmp_path, bundle)
    result = run(*args)
    if args[0] == "tune":  # tune skips the annotation (one line), then has too few pairs: exit 2
        [skipped] = [x for x in result.output.splitlines() if x.startswith("skipped:")]
        assert f"{path}: record a, {place}: an integer of 5000 digits is too long" in skipped, skipped
        assert result.exit_code == 2
        return
    one_error(result, f"{path}: {place}", "an integer of 5000 digits is too long to read (at most 4300)")
    assert not (tmp_path / "out").exists() and not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("where", ["data", "options", "--ranker-option"])
def test_an_integer_beyond_any_json_number_is_refused_like_1e999(run, tmp_path, where):
    """400 digits: Python holds it, the page's JSON.parse makes it Infinity (and float() overflowed)."""
    big = "9" * 400
    data = write(tmp_path / "d.jsonl", json.dumps({**GOOD, "hhem": "BIG"}).replace('"BIG"', big))
    if where == "--ranker-option":
        one_error(run("eval", data, "--ranker-option", f"neighbor={big}"), "field 'neighbor'", "is not a number")
        return
    field = "hhem" if where == "data" else "neighbor"
    args = ["build", data, "-o", tmp_path / "out"] if where == "data" else \
        ["eval", write(tmp_path / "g.jsonl", json.dumps(GOOD)), "--options", write(tmp_path / "o.json", "{"
                                                                                  f'"neighbor": {big}}}')]
    one_error(run(*args), f"field '{field}'",
              "an integer of 400 digits is beyond any JSON number (the page reads it as Infinity, as 1e999)")


def test_a_normal_file_reads_as_before_and_fast(monkeypatch):
    """The fallback parse (with the integer hook, half the speed) runs only for a file int() refused: the hook
    is never called on a normal file (a test of which path runs, not of a time a loaded machine blurs)."""
    from mercury_static.core import safeio

    calls = []
    hook = safeio.parse_int
    monkeypatch.setattr(safeio, "parse_int", lambda s: calls.append(s) or hook(s))
    text = json.dumps([[i, -i, 3] for i in range(3_000)])
    assert safeio.loads(text) == json.loads(text) and calls == []
    safeio.loads(f'[1, -{LONG}]')
    assert calls  # the refused integer: read again with the hook
    assert safeio.find_invalid(safeio.loads(f'{{"a": [1, {{"b": -{LONG}}}]}}')) == (
        "a[1].b", "an integer of 5000 digits is too long to read (at most 4300)")


# ---------------------------------------------------------------- YAML: bounded walks

def alias_bomb(levels: int = 20) -> str:
    """Each level repeats the one before four times: 4^20 (10^12) values from 21 lines."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 4) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


FORKER = """
import json, os, signal, sys
from mercury_static.cli import app

def command(args, out, err, timeout):
    for fd, path in ((1, out), (2, err)):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
    signal.alarm(timeout)  # a hang: killed by SIGALRM
    sys.argv = ["-c", *args]
    app()
    sys.exit()  # app() returned: the end of the script, never back into the loop

saved = os.dup(1), os.dup(2)
try:
    command(["build", os.devnull + "/none.jsonl", "-o", os.devnull + "/none"], os.devnull, os.devnull, 0)
except SystemExit:
    sys.stdout.flush()
    sys.stderr.flush()
for fd, copy in zip((1, 2), saved):
    os.dup2(copy, fd)
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        command(*json.loads(line))
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""
"""Runs `python -c "from mercury_static.cli import app; app()" ARGS` for each line of its stdin, each in a
process forked from this one, which imported the CLI and ran it once on a missing file: a command pays for its
own work, not for starting an interpreter and importing the CLI. The child ends as that interpreter would (its
exit code, a traceback on stderr); its exit code is written to stdout."""


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """The real command in a process of its own (a hang is a failed test, not a stuck suite):
    `cli(*args, timeout=...) -> subprocess.CompletedProcess`, its output read from files."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "MERCURY_STATIC_CACHE": str(TEST_CACHE), "HF_HUB_OFFLINE": "1"}
    forker = subprocess.Popen([sys.executable, "-c", FORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env)
    outputs = tmp_path_factory.mktemp("cli")

    def run(*args, timeout: int = 120) -> subprocess.CompletedProcess:
        out, err = outputs / "out", outputs / "err"
        forker.stdin.write(json.dumps([list(map(str, args)), str(out), str(err), timeout]) + "\n")
        forker.stdin.flush()
        code = int(forker.stdout.readline())
        return subprocess.CompletedProcess(args, code, out.read_text(encoding="utf-8"),
                                           err.read_text(encoding="utf-8"))

    yield run
    forker.stdin.close()
    forker.wait()


@pytest.mark.parametrize("role", ["settings", "labels"])
@pytest.mark.parametrize("text, words", [
    (alias_bomb(), ["line 8 column 25", "more than 100,000 values (each alias counts the values it repeats)"]),
    ("fields: &x\n  extra: [*x]\n", ["line 2 column 11", "alias *x is inside the node it names (an alias cycle"]),
    ("Benign: " + "[" * 150 + "]" * 150 + "\n", ["line 1 column 108", "nested too deeply (more than 100 levels)"]),
    ("Benign: 2026-02-30\n", ["line 1 column 9", "'2026-02-30': day is out of range for month"]),
])
def test_yaml_that_expands_loops_or_nests_without_end_is_one_line_at_once(cli, tmp_path, role, text, words):
    path = write(tmp_path / f"{role}.yaml", text)
    start = time.monotonic()
    done = cli("build", write(tmp_path / "d.jsonl", json.dumps(GOOD)), "-o", tmp_path / "out", f"--{role}", path,
               timeout=60)
    lines = [x for x in (done.stdout + done.stderr).splitlines() if x.strip()]
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: {path}: ") and all(w in lines[0] for w in words), lines[0]
    assert time.monotonic() - start < 30 and not (tmp_path / "out").exists()


def test_yaml_within_the_bounds_keeps_its_aliases():
    from mercury_static.core import yaml_strict

    doc = yaml_strict.load("a: &a [x, {y: &y 1}]\nb: *a\nc: [*y, *a]\n", "f", None, "deep")
    assert doc == {"a": ["x", {"y": 1}], "b": ["x", {"y": 1}], "c": [1, ["x", {"y": 1}]]}


# ---------------------------------------------------------------- Argilla settings of the wrong types

WRONG = [[], ["x"], [["x"]], {}, {"a": 1}, 1, 1.5, None, True, "x", ""]


def places(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from places(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from places(v, path + (i,))


def test_every_value_of_an_argilla_settings_file_of_any_type_is_read_or_named():
    """Each value of a real settings.json (with a mapping) replaced by each JSON type: an InputError or a
    result, never another exception (a list where a string or object is expected was a TypeError)."""
    from mercury_static.settings.argilla import from_argilla
    from mercury_static.core.records import InputError
    from mercury_static.settings.parse import parse_settings

    base = {**ARGILLA, "mapping": {"ctx": "context", "len": ["length", "answer"]}}
    text = json.dumps(base)  # a fresh copy of the JSON values for each try: json.loads, faster than a deepcopy
    tried = 0
    for path in list(places(base))[1:]:
        for wrong in WRONG:
            doc = json.loads(text)
            parent = doc
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = wrong
            tried += 1
            try:
                parse_settings(from_argilla(doc, "s.json") if isinstance(doc.get("fields"), list) else doc, "s.json")
            except InputError:
                pass
    assert tried > 1500


@pytest.mark.parametrize("change, words", [
    (lambda d: d["questions"][1]["settings"].update(type=["label_selection"]),
     "questions[1] ('verdict'): field 'settings.type': expected text, got array"),
    (lambda d: d.update(mapping={"ctx": [["context"]]}),
     "mapping: field 'ctx': expected the name of a field or a metadata property (or a list of names), got array"),
    (lambda d: d["fields"][2].update(settings=["text"]), "fields[2] ('question'): field 'settings': expected an "
                                                         "object, got array"),
    (lambda d: d["questions"][0]["settings"]["options"][0].update(value=["Intrinsic"]),
     "questions[0] ('spans'): field 'settings.options[0].value': expected text or a number, got array"),
    (lambda d: d["questions"][1].update(required="no"), "field 'required': expected true or false, got string"),
])
def test_argilla_settings_of_the_wrong_type_are_one_line(run, tmp_path, change, words):
    doc = copy.deepcopy(ARGILLA)
    change(doc)
    path = write(tmp_path / "settings.json", json.dumps(doc))
    data = write(tmp_path / "d.jsonl", json.dumps({"id": "a", "context": "S.", "answer": "T.", "question": "Q?"}))
    one_error(run("build", data, "-o", tmp_path / "out", "--settings", path), f"{path}: ", words)


# ---------------------------------------------------------------- a merged file's responses

@pytest.mark.parametrize("responses, kind", [(7, "number"), ("submitted", "string"), ({"a": 1}, "object")])
def test_a_merged_files_responses_of_the_wrong_type_is_one_line(run, bundle, tmp_path, responses, kind):
    merged = tmp_path / "merged.json"
    assert run("merge", export(tmp_path / "e.json", bundle, json.dumps({
        "record_id": "a", "status": "submitted", "updated_at": "2026-01-01T00:00:00Z", "annotations": [{
            "id": "x1", "label": ["Benign"], "summary": {"start": 2, "end": 5, "text": "dog"}}]})),
        "--bundle", bundle, "-o", merged).exit_code == 0
    doc = json.loads(merged.read_text(encoding="utf-8"))
    doc[0]["responses"] = responses
    write(merged, json.dumps(doc))
    result = run("merge", merged, "--bundle", bundle, "-o", tmp_path / "again.json")
    assert result.exit_code == 1, result.output
    skipped = [x for x in result.output.splitlines() if x.startswith("skipped:")]
    assert skipped == [f"skipped: {merged}: sample a: field 'responses': expected a list of {{annotator, status, "
                       f"updated_at}}, got {kind}"], result.output
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert [a["id"] for a in again[0]["annotations"]] == ["x1"]  # the annotations stay
