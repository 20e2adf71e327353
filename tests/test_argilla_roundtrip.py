"""An Argilla 2.8 settings.json goes through `build --settings`, an annotator's export and `merge --format
argilla`, and comes out as it came in: argilla's own `Settings.from_json` reads both files, and every field
that differs is named in a `note:` line of the merge."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mercury_static.bundle.contents import load_bundle
from mercury_static.cli import app

READER = Path(__file__).parent / "argilla_read.py"
RECORDS = [
    {"id": "r1", "context": "The Eiffel Tower is in Paris. It was completed in 1889.",
     "answer": "The Eiffel Tower, completed in 1899, stands in Rome.", "question": "Where is it?",
     "model": "gpt-4", "hhem": 0.1, "length": 52},
    {"id": "r2", "context": "Alice met Bob at noon. They had lunch.", "answer": "Alice met Bob at midnight.",
     "question": "When?", "model": "llama", "hhem": 0.6, "length": 26},
]


def resource(**fields) -> dict:
    return {"id": None, "inserted_at": None, "updated_at": None, **fields, "dataset_id": None}


def question(name, kind, settings, title=None, required=True, description=None) -> dict:
    return resource(name=name, settings={"type": kind, **settings}, title=title or name, description=description,
                    required=required, type=kind)


def field(name, title, required=True, markdown=False, description=None) -> dict:
    return resource(name=name, settings={"type": "text", "use_markdown": markdown}, title=title, required=required,
                    description=description, type="text")


def argilla_settings(overlapping: bool) -> dict:
    """A settings.json as argilla 2.8.0's `Settings.to_json` writes it."""
    options = [{"text": "Consistent", "value": "consistent"}, {"text": "Hallucinated", "value": "hallucinated"},
               {"text": "Can't tell", "value": "unsure"}]
    return {
        "guidelines": "Mark every claim the context does not support.",
        "questions": [
            question("error-kinds", "span", {"allow_overlapping": overlapping, "field": "answer", "options": [
                {"text": "Fabricated fact", "value": "fabricated"},
                {"text": "Contradicts the context", "value": "contradicted"}], "visible_options": None},
                title="Error kinds"),
            question("verdict", "label_selection", {"options": options, "visible_options": 3}, title="Verdict"),
            question("topics", "multi_label_selection", {"options": [{"text": x.upper(), "value": x} for x in "abcd"],
                                                         "visible_options": 3, "options_order": "suggestion"},
                     required=False),
            question("quality", "rating", {"options": [{"value": v} for v in range(1, 6)]}, required=False,
                     description="1 bad, 5 good"),
            question("order", "ranking", {"options": [{"text": "X", "value": "x"}, {"text": "Y", "value": "y"}]},
                     required=False),
            question("comment", "text", {"use_markdown": True}, required=False),
        ],
        "fields": [field("context", "Retrieved context"), field("answer", "Answer", description="the model's answer"),
                   field("question", "Question", required=False, markdown=True)],
        "vectors": [resource(name="emb", title="emb", dimensions=384)],
        "metadata": [
            resource(name="model", settings={"visible_for_annotators": True, "type": "terms", "values": None},
                     title="Model", visible_for_annotators=True),
            resource(name="hhem", settings={"visible_for_annotators": True, "min": None, "max": None, "type": "float"},
                     title="hhem", visible_for_annotators=True),
            resource(name="length", settings={"visible_for_annotators": True, "min": 0, "max": 1000,
                                              "type": "integer"}, title="length", visible_for_annotators=False),
        ],
        "allow_extra_metadata": False,
        "distribution": {"strategy": "overlap", "min_submitted": 2},
        "mapping": None,
    }


def read_with_argilla(*paths: Path) -> list[dict]:
    python = os.environ.get("ARGILLA_PYTHON", sys.executable)
    run = subprocess.run([python, str(READER), "--settings", *map(str, paths)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


def differing(a, b, path: str = "") -> list[str]:
    """The paths where two `Settings.serialize()` differ, resources matched by name."""
    if isinstance(a, list) and isinstance(b, list) and all(isinstance(x, dict) and "name" in x for x in a + b):
        names = [x["name"] for x in a] + [x["name"] for x in b if x["name"] not in {y["name"] for y in a}]
        by_a, by_b = {x["name"]: x for x in a}, {x["name"]: x for x in b}
        return [d for n in names for d in differing(by_a.get(n), by_b.get(n), f"{path} {n!r}")]
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in dict.fromkeys([*a, *b]) for d in differing(a.get(k), b.get(k), f"{path}.{k}")]
    return [] if a == b else [f"{path}: {a!r} -> {b!r}"]


def span(sid: str, labels: list[str], start: int, end: int, text: str) -> dict:
    return {"id": sid, "label": labels, "note": "", "created_at": "2026-12-01T10:00:00Z",
            "updated_at": "2026-12-01T10:00:00Z", "summary": {"start": start, "end": end, "text": text}, "source": None}


@pytest.fixture(scope="module", params=[False, True], ids=["no-overlap", "overlap"])
def roundtrip(request, build_bundle, tmp_path_factory):
    overlapping = request.param
    tmp = tmp_path_factory.mktemp("roundtrip")
    given = tmp / "settings.json"
    given.write_text(json.dumps(argilla_settings(overlapping)), encoding="utf-8")
    data = tmp / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    bundle = load_bundle(build_bundle([data], name=f"argilla-{overlapping}", id_field="id", settings=given,
                                      source_field="context", summary_field="answer"))
    # one span with both labels ticked, one with one label, as the page exports them
    annotations = [span("s1", ["fabricated", "contradicted"], 31, 35, "1899"), span("s2", ["fabricated"], 47, 51, "Rome")]
    responses = {"verdict": "hallucinated", "topics": ["a", "c"], "quality": 2, "order": ["y", "x"], "comment": "**no**"}
    export = {"format": "mercury-static/annotations", "version": 2, "bundle_id": bundle.manifest["bundle_id"],
              "annotator": "alice", "client_id": "c1", "exported_at": "2026-12-01T12:00:00Z",
              "records": [{"record_id": "r1", "status": "submitted", "updated_at": "2026-12-01T10:00:00Z",
                           "annotations": annotations, "responses": responses,
                           "suggestions": {"shown": True, "accepted": {}}}]}
    (tmp / "alice.json").write_text(json.dumps(export), encoding="utf-8")
    out = tmp / "out"
    run = CliRunner().invoke(app, ["merge", str(tmp / "alice.json"), "--bundle", str(bundle.dir), "-o", str(out),
                                   "--format", "argilla"], env={"COLUMNS": "400"})
    assert run.exit_code == 0, run.output
    notes = [x for x in run.output.splitlines() if x.startswith("note: argilla:")]
    return overlapping, given, out, notes, bundle


@pytest.mark.slow
def test_settings_come_out_as_they_came_in(roundtrip):
    """argilla's Settings.from_json on the file read and the file written: the same but for what a note names
    (the vectors: the bundle's own `summary_vector` stands for the file's `emb`, whose values it never had)."""
    _, given, out, notes, _ = roundtrip
    before, after = read_with_argilla(given, out / ".argilla" / "settings.json")
    diffs = differing(before, after)
    where = sorted({re.match(r"\.(\w+(?: '[^']*')?)", d).group(1) for d in diffs})  # the section and the resource
    assert where == ["vectors 'emb'", "vectors 'summary_vector'"], diffs
    said = [n for n in notes if "settings.json differs" in n]
    assert all(any(f"{w}:" in n for n in said) for w in where), (diffs, notes)
    assert said == [
        "note: argilla: settings.json differs from the bundle's Argilla settings file: vectors 'emb': in the "
        "settings file, not written",
        "note: argilla: settings.json differs from the bundle's Argilla settings file: vectors 'summary_vector': "
        "written, not in the settings file"]


@pytest.mark.slow
def test_settings_fields_kept(roundtrip):
    """The parts found changed, one by one, in argilla's reading of the written file."""
    overlapping, _, out, _, _ = roundtrip
    (after,) = read_with_argilla(out / ".argilla" / "settings.json")
    q = {x["name"]: x for x in after["questions"]}
    assert q["error-kinds"]["settings"]["options"] == [{"text": "Fabricated fact", "value": "fabricated"},
                                                      {"text": "Contradicts the context", "value": "contradicted"}]
    assert q["error-kinds"]["settings"]["allow_overlapping"] is overlapping
    assert q["error-kinds"]["settings"]["field"] == "answer" and q["error-kinds"]["description"] is None
    assert [q[n]["settings"]["visible_options"] for n in ("verdict", "topics")] == [3, 3]
    assert q["topics"]["settings"]["options_order"] == "suggestion"
    meta = {m["name"]: m for m in after["metadata"]}
    assert meta["model"]["settings"]["values"] is None
    assert (meta["hhem"]["settings"]["min"], meta["hhem"]["settings"]["max"]) == (None, None)
    assert [f["name"] for f in after["fields"]] == ["context", "answer", "question"]
    assert after["distribution"]["min_submitted"] == 2


@pytest.mark.slow
def test_two_labels_on_one_span(roundtrip):
    """Where the span question allows overlapping spans, a span with two labels is two spans (one per
    label); where it does not, Argilla cannot hold the second: it is left out and a note says so."""
    overlapping, _, out, notes, _ = roundtrip
    (r1,) = [r for r in json.loads((out / "records.json").read_text(encoding="utf-8")) if r["id"] == "r1"]
    assert set(r1["fields"]) == {"context", "answer", "question"}
    value = r1["responses"]["error-kinds"][0]["value"]
    if overlapping:
        assert value == [{"start": 31, "end": 35, "label": "fabricated"}, {"start": 31, "end": 35, "label": "contradicted"},
                         {"start": 47, "end": 51, "label": "fabricated"}]
        assert not [n for n in notes if "span label" in n]
    else:
        assert value == [{"start": 31, "end": 35, "label": "fabricated"}, {"start": 47, "end": 51, "label": "fabricated"}]
        assert [n for n in notes if "span label" in n] == [
            "note: argilla: 1 span label(s) not written: the span question does not allow overlapping spans, and "
            "each was on characters another span of its annotator covers (e.g. record r1, annotator 'alice', label "
            "'contradicted'); they are in the mercury-static output"]
    assert r1["responses"]["topics"][0]["value"] == ["a", "c"]
    assert r1["status"] == "pending"  # one submission of min_submitted 2


def test_argilla_names_accepted(tmp_path):
    """Argilla's name rule (its server's `^(?=.*[a-z0-9])[a-z0-9_-]+$`, at most 200): `error-kinds` is a name,
    `-` or `Error` is not (one line naming the file and the question)."""
    from mercury_static.settings.reader import read_settings
    from mercury_static.core.records import InputError

    path = tmp_path / "settings.json"
    path.write_text(json.dumps(argilla_settings(False)), encoding="utf-8")
    assert read_settings(path).span.name == "error-kinds"
    for bad in ("-", "Error", "a" * 201):
        doc = argilla_settings(False)
        doc["questions"][1]["name"] = bad
        path.write_text(json.dumps(doc), encoding="utf-8")
        with pytest.raises(InputError) as e:
            read_settings(path)
        assert "questions[1]" in str(e.value) and "not a name" in str(e.value)


@pytest.mark.parametrize("change, where, words", [
    (lambda d: d["questions"][1]["settings"].update(visible_options=2), "questions[1]",
     "field 'visible_options': 2 must be from 3 to the number of options (3)"),
    (lambda d: d["questions"][2]["settings"].update(visible_options=5), "questions[2]",
     "field 'visible_options': 5 must be from 3 to the number of options (4)"),
    (lambda d: d["questions"][2]["settings"].update(options_order="random"), "questions[2]",
     "field 'options_order': 'random' is not one of natural, suggestion"),
    (lambda d: d["questions"][0]["settings"].update(visible_options=3), "questions: error-kinds",
     "field 'visible_options': 3 is more than the 2 labels"),
])
def test_bad_argilla_settings_are_one_line(run, tmp_path, change, where, words):
    """What Argilla itself refuses in these settings is one line naming the file, the question and the key."""
    doc = argilla_settings(False)
    change(doc)
    given = tmp_path / "settings.json"
    given.write_text(json.dumps(doc), encoding="utf-8")
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    result = run("build", data, "-o", tmp_path / "out", "--settings", given, "--id-field", "id")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert str(given) in line and where in line and words in line, line


def test_label_texts_name_labels(run, tmp_path):
    """`label_texts` of our own settings file: a text for a label the tree does not have is one line."""
    given = tmp_path / "settings.json"
    given.write_text(json.dumps({"questions": [{"name": "spans", "type": "span", "labels": {"Unwanted": ["Intrinsic"]},
                                                "label_texts": {"Unwanted.Intrinsic": "Contradicts", "Other": "x"}}]}),
                     encoding="utf-8")
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "source": "A cat.", "summary": "A dog."}) + "\n", encoding="utf-8")
    result = run("build", data, "-o", tmp_path / "out", "--settings", given, "--id-field", "id")
    assert result.exit_code == 2
    (line,) = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert line == (f"error: {given}: questions: spans: field 'label_texts': 'Other' is not a label (labels: Unwanted, "
                    "Unwanted.Intrinsic)")
