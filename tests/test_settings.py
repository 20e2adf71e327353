"""The settings file (YAML/JSON and Argilla's settings.json), what build writes from it (manifest
`settings`, record `fields`/`meta`/`suggestions`, the record index's `meta`, record vectors), and its bad input:
one line naming the file, the entry or record and the field, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from mercury_static.bundle.record_index import read_columns

from conftest import EXAMPLES, REPO
from schema_lite import errors

SCHEMA = json.loads((REPO / "docs" / "manifest.schema.json").read_text(encoding="utf-8"))
SPAN = {"name": "spans", "type": "span"}
VERDICT = {"name": "verdict", "type": "label", "options": ["consistent", "hallucinated"]}
ROWS = [
    {"id": "a", "source": "The cat sat on the mat. It was warm.", "summary": "A cat sat on the mat.",
     "prompt": "Summarise.", "model": "m1", "length": 12, "hhem": 0.52694},
    {"id": "b", "source": "The dog ran in the park. It was cold.", "summary": "A dog ran. It was hot.",
     "prompt": "Summarise briefly.", "model": "m2", "length": 30, "hhem": 0.2},
    {"id": "c", "source": "Rain fell all day in the town.", "summary": "It rained all day.",
     "prompt": "Summarise.", "model": "m1", "length": 7, "hhem": 0.5},
]
SETTINGS = {
    "fields": {"source": {"title": "Retrieved context"}, "summary": {"title": "Answer"},
               "extra": [{"name": "question", "title": "Question", "column": "prompt"}]},
    "questions": [SPAN, VERDICT, {"name": "quality", "type": "rating", "values": [1, 2, 3]},
                  {"name": "comment", "type": "text"}],
    "metadata": [{"name": "model", "type": "terms"}, {"name": "length", "type": "integer"},
                 {"name": "hhem", "title": "HHEM score", "type": "float", "visible": False}],
    "suggestions": {"columns": [{"question": "verdict", "agent": "HHEM-2.1", "score_from": "hhem",
                                 "threshold": 0.5, "at_or_above": "consistent", "below": "hallucinated"}]},
}


def parse(doc):
    from mercury_static.settings.parse import parse_settings

    return parse_settings(doc, "s.yaml")


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def one_error(result, *parts: str) -> str:
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, result.output
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------- the settings document, rule by rule

@pytest.mark.parametrize("doc, words", [
    ({"questions": [SPAN, {**VERDICT, "options": ["a", "a"]}]}, ["questions[1]", "'options'", "duplicate option 'a'"]),
    ({"questions": [SPAN, {**VERDICT, "options": ["a"]}]}, ["questions[1]", "at least two"]),
    ({"questions": [SPAN, {**VERDICT, "options": [1, 2]}]},
     ["questions[1].options[0]", "expected a text or {value, text}, got number 1 (quote it: '1')"]),
    ({"questions": [SPAN, {"name": "q", "type": "rating", "values": [1, 2.5]}]}, ["'values'", "2.5 is not an integer"]),
    ({"questions": [SPAN, {"name": "q", "type": "rating", "values": [1, True]}]}, ["'values'", "True is not an integer"]),
    ({"questions": [SPAN, {"name": "q", "type": "rating", "values": [1, 2, 1]}]}, ["'values'", "duplicate value 1"]),
    ({"questions": [SPAN, VERDICT, {**VERDICT, "type": "multi_label"}]}, ["questions[2]", "duplicate question name"]),
    ({"questions": [VERDICT]}, ["questions", "exactly one span question", "found 0"]),
    ({"questions": [SPAN, {**SPAN, "name": "more"}]}, ["questions[1]", "exactly one span question", "found 2"]),
    ({"questions": [SPAN, {**VERDICT, "name": "Verdict"}]}, ["questions[1]", "'name'", "lower-case"]),
    ({"questions": [SPAN, {**VERDICT, "type": "likert"}]}, ["questions[1]", "'type'", "'likert' is not one of"]),
    ({"questions": [SPAN, {**VERDICT, "values": [1, 2]}]}, ["questions[1]", "'values'", "unknown key"]),
    ({"questions": [SPAN, {**VERDICT, "required": "yes"}]}, ["'required'", "expected true or false, got string"]),
    ({"question": [SPAN]}, ["'question'", "unknown key"]),
    ({"metadata": [{"name": "m", "type": "date"}]}, ["metadata[0]", "'type'", "'date' is not one of"]),
    ({"metadata": [{"name": "m", "type": "integer", "min": 5, "max": 1}]}, ["metadata[0]", "'min'", "greater"]),
    ({"metadata": [{"name": "m", "type": "integer", "min": 1.5}]}, ["metadata[0]", "'min'", "expected an integer"]),
    ({"metadata": [{"name": "m", "type": "terms", "min": 1}]}, ["metadata[0]", "'min'", "only integer and float"]),
    ({"metadata": [{"name": "m", "type": "terms"}, {"name": "m", "type": "float"}]}, ["metadata[1]", "duplicate"]),
    ({"fields": {"extra": [{"name": "source"}]}}, ["fields.extra[0]", "duplicate field name"]),
    ({"fields": {"summary": {"markdown": True}}}, ["fields.summary", "'markdown'", "unknown key"]),
    ({"questions": [SPAN, VERDICT], "suggestions": {"columns": [{"question": "nope", "agent": "x",
                                                                  "value_from": "v"}]}},
     ["suggestions.columns[0]", "unknown question 'nope'"]),
    ({"questions": [SPAN, VERDICT], "suggestions": {"columns": [{"question": "verdict", "agent": "x",
                                                                  "score_from": "s", "threshold": 0.5,
                                                                  "at_or_above": "yes", "below": "hallucinated"}]}},
     ["'at_or_above'", "'yes' is not an option"]),
    ({"questions": [SPAN, {"name": "q", "type": "rating", "values": [1, 2]}],
      "suggestions": {"columns": [{"question": "q", "agent": "x", "score_from": "s", "threshold": 0.5,
                                   "at_or_above": "1", "below": "2"}]}}, ["'threshold'", "label question"]),
    ({"questions": [SPAN, VERDICT], "suggestions": {"columns": [{"question": "verdict", "agent": "x"}]}},
     ["'value_from'", "missing"]),
    ({"suggestions": {"blind": "yes"}}, ["suggestions", "'blind'"]),
    ({"suggestions": {"blind": ["alice", ""]}}, ["'blind'", "annotator names"]),
    ({"distribution": {"annotators": ["alice", "bob"], "overlap": 3}}, ["distribution", "'overlap'", "from 1 to"]),
    ({"distribution": {"annotators": ["alice", " alice "]}}, ["'annotators'", "duplicate annotator 'alice'"]),
    ({"distribution": {"annotators": ["alice", ""]}}, ["'annotators'", "empty annotator name"]),
    ({**SETTINGS, "metadata": [{"name": "hhem", "type": "float"}], "suggestions": {**SETTINGS["suggestions"], "blind": ["bob"]}},
     ["metadata[0]", "'visible'", "column 'hhem' holds the suggestion of agent 'HHEM-2.1', which suggestions.blind hides: set visible: false"]),
    ({"suggestions": {"blind": ["bobby"]}, "distribution": {"annotators": ["alice", "bob"], "overlap": 2}},
     ["suggestions", "'blind'", "'bobby' is not one of distribution.annotators (alice, bob)"]),
    ([SPAN], ["expected a mapping, got array"]),
    ({"questions": [{**SPAN, "granularity": "symbol"}]},
     ["questions[0]", "'granularity'", "'symbol' is not one of word, character"]),
    ({"questions": [SPAN, {**VERDICT, "granularity": "word"}]}, ["questions[1]", "'granularity'", "unknown key"]),
    ({"keys": {"fnid": "F2"}}, ["keys", "'fnid'", "unknown action (expected one of: next, prev"]),
    ({"keys": {"find": "x"}}, ["keys", "'find'", "key 'x' is both find's and no_source's"]),
    ({"keys": {"note": "f", "find": "c"}}, ["keys"]),  # swapped: no clash
    ({"keys": {"find": "3"}}, ["keys", "'find'", "'3' is kept by the page"]),
    ({"keys": {"find": "Ctrl+F"}}, ["keys", "'find'", "'Ctrl+F' is not a key: one character or one of Delete"]),
    ({"keys": {"find": []}}, ["keys", "'find'", "expected a key or a list of keys"]),
    ({"keys": ["find"]}, ["keys", "expected a mapping of action: key"]),
])
def test_each_rule_is_one_message(doc, words):
    from mercury_static.core.records import InputError

    if doc == {"keys": {"note": "f", "find": "c"}}:
        assert parse(doc).keys == {"note": ("f",), "find": ("c",)}
        return
    with pytest.raises(InputError) as e:
        parse(doc)
    message = str(e.value)
    assert message.startswith("s.yaml: ") and "\n" not in message
    for w in words:
        assert w in message, message


def test_a_complete_settings_document_is_read():
    s = parse(SETTINGS)
    assert [q.type for q in s.questions] == ["span", "label", "rating", "text"]
    assert s.question("verdict").options[1].value == "hallucinated"
    assert s.question("quality").values == (1, 2, 3)
    assert [(m.name, m.type, m.visible) for m in s.metadata] == [
        ("model", "terms", True), ("length", "integer", True), ("hhem", "float", False)]
    assert s.fields.extra[0].column == "prompt" and s.similar_records and s.distribution is None


def test_the_example_settings_files_are_valid():
    from mercury_static.settings.reader import read_settings

    demo = read_settings(EXAMPLES / "settings.yaml")
    assert sorted(q.type for q in demo.questions) == sorted(
        ["span", "label", "multi_label", "rating", "ranking", "text"])
    assert demo.distribution.overlap == 2
    fb = read_settings(EXAMPLES / "faithbench-settings.yaml")
    assert fb.suggestions[0].threshold == 0.5 and fb.metadata[1].column == "hhem-2.1"


@pytest.mark.parametrize("q, good, bad", [
    ({"type": "label", "options": ["a", "b"]}, ["a"], ["c", 1, None, ["a"]]),
    ({"type": "multi_label", "options": ["a", "b"]}, [["a"], ["b", "a"]], [[], ["a", "a"], ["c"], "a"]),
    ({"type": "rating", "values": [1, 2, 3]}, [1, 3], [0, 4, 2.0, True, "2"]),
    ({"type": "ranking", "options": ["a", "b", "c"]}, [["c", "a", "b"]], [["a", "b"], ["a", "a", "b"], ["a", "b", "d"],
                                                                           ["a", "b", "c", "c"]]),
    ({"type": "text"}, ["fine"], ["", " ", 3]),
])
def test_value_problem_per_question_type(q, good, bad):
    """A value is checked against its question alike for suggestions (build) and responses (merge)."""
    from mercury_static.settings.checks import value_problem

    doc = {"questions": [SPAN, {"name": "q", **q}]}
    question = parse(doc).question("q")
    for value in good:
        assert value_problem(question, value) is None, value
    for value in bad:
        assert value_problem(question, value), value


def test_value_problem_of_spans():
    from mercury_static.settings.checks import value_problem

    span = parse({}).span
    choices = ["Benign", "Unwanted.Intrinsic"]
    ok = [{"label": "Benign", "summary": [0, 3], "source": None},
          {"label": "Unwanted.Intrinsic", "summary": [2, 5], "source": [4, 9]}]
    assert value_problem(span, ok, choices, (5, 9)) is None
    for bad in ([], [{"label": "Unwanted", "summary": [0, 3]}], [{"label": "Benign", "summary": [3, 3]}],
                [{"label": "Benign", "summary": [0, 6]}], [{"label": "Benign", "summary": [0, 2], "source": [8, 10]}],
                [{"label": "Benign", "summary": [0, 2], "extra": 1}], [{"label": "Benign", "summary": [0, True]}]):
        assert value_problem(span, bad, choices, (5, 9)), bad


# ---------------------------------------------------------------- reading files: YAML, JSON, Argilla

def test_yaml_faults_name_line_and_key(tmp_path):
    from mercury_static.settings.reader import read_settings
    from mercury_static.core.records import InputError

    for text, words in [("questions:\n  - name: a\n    name: b\n", ["line 3", "'name'", "given twice"]),
                        ("questions: [\n", ["invalid YAML"]),
                        ("metadata:\n  - {name: m, type: terms, 1: x}\n", ["'1'", "a key must be text"])]:
        path = tmp_path / "s.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError) as e:
            read_settings(path)
        for w in words:
            assert w in str(e.value), str(e.value)
    path = tmp_path / "s.json"
    path.write_text('{"guidelines": "a", "guidelines": "b"}', encoding="utf-8")
    with pytest.raises(InputError, match="duplicate key"):
        read_settings(path)


def argilla_doc() -> dict:
    """An Argilla 2.x settings.json as `rg.Settings.serialize()` writes it (pydantic model dumps plus `type`)."""
    def text_field(name, title):
        return {"id": None, "inserted_at": None, "updated_at": None, "name": name, "title": title,
                "required": True, "description": None, "dataset_id": None, "type": "text",
                "settings": {"type": "text", "use_markdown": False}}

    def question(name, settings, required=True):
        return {"id": None, "inserted_at": None, "updated_at": None, "name": name, "title": name.title(),
                "description": None, "required": required, "dataset_id": None, "type": settings["type"],
                "settings": settings}

    return {
        "guidelines": "Check every claim.",
        "fields": [text_field("context", "Retrieved context"), text_field("answer", "Answer"),
                   text_field("question", "Question")],
        "questions": [
            question("spans", {"type": "span", "allow_overlapping": False, "field": "answer", "visible_options": None,
                               "options": [{"value": "Intrinsic", "text": "Intrinsic", "description": None},
                                           {"value": "Extrinsic", "text": "Extrinsic", "description": None}]}, False),
            question("verdict", {"type": "label_selection", "visible_options": None,
                                 "options": [{"value": "consistent", "text": "Consistent", "description": None},
                                             {"value": "hallucinated", "text": "Hallucinated", "description": None}]}),
            question("topics", {"type": "multi_label_selection", "visible_options": 3, "options_order": "natural",
                                "options": [{"value": v, "text": v, "description": None} for v in "abc"]}, False),
            question("quality", {"type": "rating", "options": [{"value": v} for v in (1, 2, 3, 4, 5)]}, False),
            question("order", {"type": "ranking", "options": [{"value": v, "text": v, "description": None}
                                                              for v in ("x", "y")]}, False),
            question("comment", {"type": "text", "use_markdown": True}, False),
        ],
        "metadata": [
            {"id": None, "name": "model", "title": "Model", "type": "terms", "visible_for_annotators": True,
             "settings": {"type": "terms", "values": ["m1", "m2"], "visible_for_annotators": True}},
            {"id": None, "name": "length", "title": "Length", "type": "integer", "visible_for_annotators": False,
             "settings": {"type": "integer", "min": 0, "max": None, "visible_for_annotators": False}},
        ],
        "vectors": [{"id": None, "name": "emb", "title": "emb", "dimensions": 384, "type": "vector"}],
        "allow_extra_metadata": False,
        "distribution": {"strategy": "overlap", "min_submitted": 1},
        "mapping": None,
    }


def test_an_argilla_settings_json_is_read(tmp_path):
    from mercury_static.settings.reader import read_settings

    path = tmp_path / "settings.json"
    path.write_text(json.dumps(argilla_doc()), encoding="utf-8")
    s = read_settings(path)
    assert (s.fields.source.column, s.fields.source.title) == ("context", "Retrieved context")
    assert (s.fields.summary.column, s.fields.summary.title) == ("answer", "Answer")
    assert [(f.name, f.column) for f in s.fields.extra] == [("question", "question")]
    assert [(q.name, q.type) for q in s.questions] == [("spans", "span"), ("verdict", "label"),
                                                       ("topics", "multi_label"), ("quality", "rating"),
                                                       ("order", "ranking"), ("comment", "text")]
    assert s.span.labels == {"Intrinsic": None, "Extrinsic": None}
    assert s.question("verdict").required and s.question("quality").values == (1, 2, 3, 4, 5)
    assert s.question("comment").markdown is True
    assert [(m.name, m.type, m.visible, m.values, m.min) for m in s.metadata] == [
        ("model", "terms", True, ("m1", "m2"), None), ("length", "integer", False, None, 0)]
    assert s.guidelines == "Check every claim." and s.similar_records


@pytest.mark.parametrize("change, words", [
    (lambda d: d["fields"].append({"name": "img", "type": "image", "settings": {"type": "image"}}),
     ["fields[3] ('img')", "'type'", "'image' fields are not supported"]),
    (lambda d: d["fields"].append({"name": "c", "type": "custom", "settings": {"type": "custom", "template": ""}}),
     ["'custom' fields are not supported"]),
    (lambda d: d["questions"][0]["settings"].update(field="context"),
     ["questions[0] ('spans')", "span question over field 'context'"]),
    (lambda d: d.update(mapping={"q": "verdict.suggestion"}), ["mapping", "'q'", "not supported"]),
    (lambda d: d["metadata"][0]["settings"].update(type="date"), ["metadata[0]", "'date' metadata"]),
    (lambda d: d["questions"][1].update(name="Ver-dict"), ["'name'", "lower-case"]),
    (lambda d: d.update(fields=d["fields"][:1]), ["'fields'", "at least two text fields"]),
    # a file of another version: Argilla 1.x's argilla.yaml (metadata_properties), a field without its type
    (lambda d: d.update(metadata_properties=[]), ["'metadata_properties'", "unknown key", "Argilla 1.x"]),
    (lambda d: [d["fields"][0].pop(k) for k in ("settings", "type")], ["fields[0] ('context')", "'settings.type'", "missing"]),
    # without a span question (one is added), questions[i] is still the file's questions[i]
    (lambda d: [d["questions"].pop(0), d["questions"][1]["settings"]["options"][0].update(value=1)],
     ["questions[1].options[0]", "'value'", "expected a string"]),
])
def test_what_argilla_has_and_this_product_not_is_one_line(tmp_path, change, words):
    from mercury_static.settings.reader import read_settings
    from mercury_static.core.records import InputError

    doc = argilla_doc()
    change(doc)
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_settings(path)
    assert str(e.value).startswith(str(path)) and "\n" not in str(e.value)
    for w in words:
        assert w in str(e.value), str(e.value)


# ---------------------------------------------------------------- build with a settings file

@pytest.fixture(scope="module")
def rag_bundle(build_bundle, tmp_path_factory):
    folder = tmp_path_factory.mktemp("rag")
    data = write_jsonl(folder / "rag.jsonl", [{**r, "context": r["source"], "answer": r["summary"]} for r in ROWS])
    settings = folder / "settings.yaml"
    settings.write_text(yaml.safe_dump(SETTINGS), encoding="utf-8")
    return build_bundle([data], name="rag", settings=settings)


def shard_records(bundle: Path) -> list[dict]:
    return [r for p in sorted((bundle / "data").glob("records-*.json"))
            for r in json.loads(p.read_text(encoding="utf-8"))["records"]]


def test_build_writes_settings_fields_meta_and_suggestions(rag_bundle):
    manifest = json.loads((rag_bundle / "manifest.json").read_text(encoding="utf-8"))
    assert errors(manifest, SCHEMA) == []
    s = manifest["settings"]
    assert s["fields"] == {"source": {"title": "Retrieved context"}, "summary": {"title": "Answer"},
                           "extra": [{"name": "question", "title": "Question", "markdown": False, "required": True}]}
    assert [q["name"] for q in s["questions"]] == ["spans", "verdict", "quality", "comment"]
    assert s["metadata"] == [  # none declares its values or range: the data's, and `from_data` says so
        {"name": "model", "title": "Model", "type": "terms", "visible": True, "values": ["m1", "m2"],
         "from_data": ["values"]},
        {"name": "length", "title": "Length", "type": "integer", "visible": True, "min": 7, "max": 30,
         "from_data": ["min", "max"]},
        {"name": "hhem", "title": "HHEM score", "type": "float", "visible": False, "min": 0.2, "max": 0.52694,
         "from_data": ["min", "max"]}]
    records = shard_records(rag_bundle)
    assert [r["fields"] for r in records] == [{"question": "Summarise."}, {"question": "Summarise briefly."},
                                              {"question": "Summarise."}]
    assert records[1]["meta"] == {"model": "m2", "length": 30, "hhem": 0.2}
    # HHEM's score is P(consistent): >= 0.5 suggests consistent with p, below hallucinated with 1 - p
    assert [r["suggestions"] for r in records] == [
        [{"question": "verdict", "value": "consistent", "score": 0.52694, "agent": "HHEM-2.1"}],
        [{"question": "verdict", "value": "hallucinated", "score": 0.8, "agent": "HHEM-2.1"}],
        [{"question": "verdict", "value": "consistent", "score": 0.5, "agent": "HHEM-2.1"}]]
    index = read_columns(rag_bundle / "data")
    assert index["meta"] == [{"model": "m1", "length": 12}, {"model": "m2", "length": 30},
                             {"model": "m1", "length": 7}]  # hidden metadata stays in the shards
    # ... and out of the list filter's tags: a hidden column, a suggestion's score column (here both `hhem`)
    assert [row[:3] for row in index["tags"]] == [["Summarise.", "m1", "12"], ["Summarise briefly.", "m2", "30"],
                                                  ["Summarise.", "m1", "7"]]
    assert not {t for row in index["tags"] for t in row} & {"0.52694", "0.2", "0.5"}


def test_suggestion_columns_and_hidden_metadata_are_not_filter_tags(build_bundle, tmp_path):
    """A blind annotator must not find records by a detector's score typed into the filter."""
    rows = [{**{k: v for k, v in r.items() if k != "hhem"}, "detector": r["hhem"], "secret": f"s{i}"}
            for i, r in enumerate(ROWS)]
    settings = {**SETTINGS, "metadata": [{"name": "model", "type": "terms"},
                                         {"name": "secret", "type": "terms", "visible": False}],
                "suggestions": {"blind": True, "columns": [{**SETTINGS["suggestions"]["columns"][0],
                                                            "score_from": "detector"}]}}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    bundle = build_bundle([write_jsonl(tmp_path / "d.jsonl", rows)], name="untagged", settings=tmp_path / "s.yaml")
    tags = read_columns(bundle / "data")["tags"]
    flat = {t for row in tags for t in row}
    assert {"m1", "m2", "12"} <= flat  # other columns stay filterable
    assert not flat & {"0.52694", "0.2", "0.5", "s0", "s1", "s2"}, flat


def test_record_vectors_are_the_mean_of_the_summary_rows(rag_bundle):
    from mercury_static.bundle.contents import load_bundle, load_vectors

    manifest = json.loads((rag_bundle / "manifest.json").read_text(encoding="utf-8"))
    dim = manifest["model"]["dim"]
    assert manifest["record_vectors"] == {"path": "data/record_vectors.bin", "encoding": "float16", "dim": dim,
                                          "cells": {"path": "data/cells", "count": 1, "of_size": 16384, "nprobe": 1}}
    stored = np.frombuffer((rag_bundle / "data" / "record_vectors.bin").read_bytes(), "<f2").reshape(-1, dim)
    bundle = load_bundle(rag_bundle)
    assert stored.shape[0] == len(bundle.records) == 3
    for row, rec in zip(stored.astype(np.float32), bundle.records):
        t = rec.summary_text
        rows = load_vectors(rag_bundle, t.shard, dim)[t.row0:t.row0 + len(t.rows)]
        mean = rows.mean(0) / np.linalg.norm(rows.mean(0))
        assert len(t.rows) >= 1 and np.abs(row - mean).max() < 2e-3
    # the two-sentence summary's vector is neither of its sentences'
    t = bundle.records[1].summary_text
    assert len(t.rows) == 2
    rows = load_vectors(rag_bundle, t.shard, dim)[t.row0:t.row0 + 2]
    assert (rows @ stored[1].astype(np.float32)).max() < 0.999


def test_no_settings_file_is_todays_bundle(stand_in_demo):
    from mercury_static.formats import default_manifest_settings

    manifest = json.loads((stand_in_demo / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["settings"] == default_manifest_settings()
    assert [q["type"] for q in manifest["settings"]["questions"]] == ["span"]
    assert manifest["settings"]["fields"]["source"] == {"title": "Source"}
    assert manifest["queues"] is None and manifest["record_vectors"] is None
    assert not list((stand_in_demo / "data").glob("queues*.json"))
    assert not (stand_in_demo / "data" / "record_vectors.bin").exists()
    index = read_columns(stand_in_demo / "data")
    assert "meta" not in index
    for r in shard_records(stand_in_demo):
        assert not {"fields", "meta", "suggestions"} & set(r)


def test_a_manifest_without_settings_reads_as_today(stand_in_demo):
    from mercury_static.formats import Manifest, default_manifest_settings

    manifest = json.loads((stand_in_demo / "manifest.json").read_text(encoding="utf-8"))
    for key in ("settings", "queues", "record_vectors"):
        del manifest[key]
    info = Manifest.from_json(manifest, "manifest.json")
    assert info.settings == default_manifest_settings() and info.queues is None


def test_suggestions_from_a_jsonl_file(build_bundle, tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", ROWS)
    settings = tmp_path / "s.yaml"
    settings.write_text(yaml.safe_dump({"questions": [SPAN, VERDICT]}), encoding="utf-8")
    hot, cold = ROWS[1]["summary"].index("hot"), ROWS[1]["source"].index("cold")
    span = {"label": "Unwanted.Intrinsic", "summary": [hot, hot + 3], "source": [cold, cold + 4]}
    sugg = write_jsonl(tmp_path / "sugg.jsonl", [
        {"record_id": "b", "question": "spans", "value": [span], "score": 0.7, "agent": "detector"},
        {"record_id": "b", "question": "verdict", "value": "hallucinated", "agent": "judge"}])
    out = build_bundle([data], name="sugg", settings=settings, suggestions=sugg)
    records = shard_records(out)
    assert "suggestions" not in records[0]
    assert records[1]["suggestions"] == [
        {"question": "spans", "value": [span], "score": 0.7, "agent": "detector"},
        {"question": "verdict", "value": "hallucinated", "score": None, "agent": "judge"}]


# ---------------------------------------------------------------- bad input at build: one line, nothing written

def test_bad_metadata_value_names_file_record_and_column(run, tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", [ROWS[0], {**ROWS[1], "length": "long"}])
    settings = tmp_path / "s.yaml"
    settings.write_text(yaml.safe_dump({"metadata": [{"name": "length", "type": "integer"}]}), encoding="utf-8")
    out = tmp_path / "out"
    one_error(run("build", data, "-o", out, "--settings", settings),
              "d.jsonl:2", "record b", "field 'length'", "expected an integer, got string")
    assert not out.exists()


@pytest.mark.parametrize("meta, rows, words", [
    ({"name": "m", "type": "terms", "column": "model", "values": ["m1"]}, ROWS, ["d.jsonl:2", "'m2' is not one of"]),
    ({"name": "m", "type": "float", "column": "hhem", "max": 0.3}, ROWS, ["d.jsonl:1", "outside"]),
    ({"name": "m", "type": "float", "column": "hhem"}, [{**ROWS[0], "hhem": True}], ["expected a number, got boolean"]),
    ({"name": "m", "type": "terms", "column": "model"}, [{**ROWS[0], "model": 3}], ["expected a string or a list"]),
])
def test_metadata_values_are_type_checked(run, tmp_path, meta, rows, words):
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    settings = tmp_path / "s.yaml"
    settings.write_text(yaml.safe_dump({"metadata": [meta]}), encoding="utf-8")
    one_error(run("build", data, "-o", tmp_path / "out", "--settings", settings), *words)


@pytest.mark.parametrize("settings, words", [
    ({"metadata": [{"name": "m", "type": "terms", "column": "model"}, {"name": "n", "type": "integer", "column": "lenght"}]},
     ["s.yaml: metadata[1]: field 'column': column 'lenght' is in none of the 3 records"]),
    ({"questions": [SPAN, VERDICT], "suggestions": {"columns": [
        {"question": "verdict", "agent": "HHEM-2.1", "score_from": "hhem_2.1", "threshold": 0.5,
         "at_or_above": "consistent", "below": "hallucinated"}]}},
     ["s.yaml: suggestions.columns[0]: field 'score_from': column 'hhem_2.1' is in none of the 3 records"]),
])
def test_a_settings_column_in_no_record_is_a_misspelling(run, stand_in_model, tmp_path, settings, words):
    """Absent from some records is no value; absent from all is a typo that would give an empty filter or no
    suggestion at all, silently. The first record lacks the column: the check is over the whole input, not
    over what was read so far (a streamed build reads one record at a time)."""
    rows = [{k: v for k, v in ROWS[1].items() if k not in ("model", "hhem")}, ROWS[0], ROWS[2]]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(settings), encoding="utf-8")
    out = tmp_path / "out"
    one_error(run("build", data, "-o", out, "--settings", path), *words)
    assert not out.exists()
    fixed = json.loads(json.dumps(settings).replace("lenght", "length").replace("hhem_2.1", "hhem"))
    path.write_text(yaml.safe_dump(fixed), encoding="utf-8")
    assert run("build", data, "-o", out, "--settings", path, "--model", stand_in_model).exit_code == 0


@pytest.mark.parametrize("line, words", [
    ({"record_id": "zz", "question": "verdict", "value": "consistent", "agent": "a"}, ["line 2", "unknown record id"]),
    ({"record_id": "a", "question": "nope", "value": 1, "agent": "a"}, ["line 2", "unknown question 'nope'"]),
    ({"record_id": "a", "question": "verdict", "value": "maybe", "agent": "a"}, ["line 2", "'value'", "'maybe'"]),
    ({"record_id": "a", "question": "verdict", "value": "consistent", "agent": "a", "score": 1.5},
     ["line 2", "'score'", "from 0 to 1"]),
    ({"record_id": "a", "question": "spans", "agent": "a",
      "value": [{"label": "Benign", "summary": [0, 99], "source": None}]}, ["line 2", "out of range"]),
    ({"record_id": "a", "question": "spans", "agent": "a",
      "value": [{"label": "Wrong", "summary": [0, 3], "source": None}]}, ["line 2", "label 'Wrong'"]),
    ({"record_id": "a", "question": "verdict", "value": "hallucinated", "agent": "x"}, ["line 2", "a second suggestion"]),
    ({"record_id": "a", "question": "verdict", "value": "consistent"}, ["line 2", "'agent'", "missing"]),
])
def test_bad_suggestion_lines(run, tmp_path, line, words):
    data = write_jsonl(tmp_path / "d.jsonl", ROWS)
    settings = tmp_path / "s.yaml"
    settings.write_text(yaml.safe_dump({"questions": [SPAN, VERDICT]}), encoding="utf-8")
    first = {"record_id": "a", "question": "verdict", "value": "consistent", "agent": "x"}
    sugg = write_jsonl(tmp_path / "sugg.jsonl", [first, line])
    one_error(run("build", data, "-o", tmp_path / "out", "--settings", settings, "--suggestions", sugg),
              "sugg.jsonl", *words)


def test_one_agent_one_value_per_question(run, tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", ROWS)
    settings = tmp_path / "s.yaml"
    settings.write_text(yaml.safe_dump({"questions": [SPAN, VERDICT], "suggestions": SETTINGS["suggestions"]}),
                        encoding="utf-8")
    sugg = write_jsonl(tmp_path / "sugg.jsonl", [
        {"record_id": "b", "question": "verdict", "value": "consistent", "agent": "HHEM-2.1"}])
    one_error(run("build", data, "-o", tmp_path / "out", "--settings", settings, "--suggestions", sugg),
              "s.yaml", "record b", "'agent'", "suggests question 'verdict' twice")


def test_given_twice_is_one_line(run, tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", ROWS)
    settings = tmp_path / "s.yaml"
    settings.write_text(yaml.safe_dump({"questions": [{**SPAN, "labels": ["Bad"]}], "guidelines": "Read."}),
                        encoding="utf-8")
    one_error(run("build", data, "-o", tmp_path / "o", "--settings", settings, "--labels", EXAMPLES / "labels.yaml"),
              "s.yaml", "'labels'", "labels given twice")
    settings.write_text(yaml.safe_dump({"guidelines": "Read."}), encoding="utf-8")
    one_error(run("build", data, "-o", tmp_path / "o", "--settings", settings, "--guidelines",
                  EXAMPLES / "guidelines.md"), "s.yaml", "'guidelines'", "given twice")
    settings.write_text(yaml.safe_dump({"fields": {"source": {"column": "context"}}}), encoding="utf-8")
    one_error(run("build", data, "-o", tmp_path / "o", "--settings", settings, "--source-field", "text"),
              "fields.source", "'column'", "disagree")
    settings.write_text(yaml.safe_dump({"fields": {"extra": [{"name": "nope"}]}}), encoding="utf-8")
    one_error(run("build", data, "-o", tmp_path / "o", "--settings", settings),
              "d.jsonl:1", "record a", "field 'nope'", "missing")
    assert not (tmp_path / "o").exists()


def test_the_span_question_labels_replace_labels(build_bundle, tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", ROWS)
    settings = tmp_path / "s.yaml"
    settings.write_text(yaml.safe_dump({"questions": [{**SPAN, "labels": {"Wrong": ["Number", "Name"]}}]}),
                        encoding="utf-8")
    manifest = json.loads((build_bundle([data], name="lab", settings=settings) / "manifest.json").read_text())
    assert manifest["labels"] == ["Wrong", "Wrong.Number", "Wrong.Name"]
    assert manifest["label_choices"] == ["Wrong.Number", "Wrong.Name"]


def test_the_manifest_settings_read_back(rag_bundle, stand_in_demo):
    """merge reads the questions back from the manifest (`settings.from_manifest`) as build wrote them."""
    from mercury_static.settings.manifest import from_manifest

    s = from_manifest(json.loads((rag_bundle / "manifest.json").read_text(encoding="utf-8"))["settings"])
    expected = parse(SETTINGS)
    assert s.questions == expected.questions
    assert [m.name for m in s.metadata] == ["model", "length", "hhem"]
    assert s.metadata[0].values is None and s.metadata[1].min is None  # the data's, not declared (`from_data`)
    default = from_manifest(json.loads((stand_in_demo / "manifest.json").read_text(encoding="utf-8"))["settings"])
    assert default.questions == parse({}).questions
    from mercury_static.bundle.contents import load_bundle

    assert load_bundle(rag_bundle).settings.questions == expected.questions


def test_argilla_mapping_names_the_columns(tmp_path):
    from mercury_static.settings.reader import read_settings

    doc = argilla_doc()
    doc["mapping"] = {"ctx": "context", "text": "answer", "llm": "model"}
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    s = read_settings(path)
    assert (s.fields.source.column, s.fields.summary.column, s.metadata[0].column) == ("ctx", "text", "llm")


@pytest.mark.shared_data
def test_faithbench_settings_build(build_bundle):
    """The FaithBench example settings on a real batch: HHEM-2.1 becomes the verdict suggestion by the
    documented threshold rule, the detectors' scores are typed metadata."""
    from conftest import SHARED_DATA

    batch = SHARED_DATA / "faithbench" / "batch_1.json"
    if not batch.exists():
        pytest.skip("no shared data")
    out = build_bundle([batch], name="fb", settings=EXAMPLES / "faithbench-settings.yaml")
    samples = json.loads(batch.read_text(encoding="utf-8"))["samples"]
    records = shard_records(out)
    assert len(records) == len(samples)
    for sample, rec in zip(samples, records):
        p = sample["metadata"]["hhem-2.1"]
        (s,) = rec["suggestions"]
        assert s["agent"] == "HHEM-2.1"
        assert (s["value"], s["score"]) == (("consistent", p) if p >= 0.5 else ("hallucinated", round(1 - p, 6)))
        assert rec["meta"]["hhem"] == p and rec["meta"]["summarizer"] == sample["metadata"]["summarizer"]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert errors(manifest, SCHEMA) == []
    index = read_columns(out / "data")
    assert all(set(m) == {"summarizer", "hhem"} for m in index["meta"])  # gpt_4o is hidden


def test_a_settings_json_written_by_argilla_is_read(run, stand_in_model, tmp_path):
    """tests/argilla_settings.json was written by argilla 2.8.0 (`rg.Settings(...).to_json`, every question
    type, three metadata types, a vector, min_submitted 2): build reads it and says how to get the overlap."""
    rows = [{"id": r["id"], "context": r["source"], "answer": r["summary"], "question": r["prompt"],
             "model": r["model"], "length": r["length"], "hhem": r["hhem"]} for r in ROWS]
    data = write_jsonl(tmp_path / "rag.jsonl", rows)
    out = tmp_path / "out"
    result = run("build", data, "-o", out, "--settings", Path(__file__).parent / "argilla_settings.json",
                 "--model", stand_in_model)
    assert result.exit_code == 0, result.output
    assert "warning: " in result.output and "min_submitted 2" in result.output and "--overlap 2" in result.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    s = manifest["settings"]
    assert s["fields"] == {"source": {"title": "Retrieved context", "name": "context"},
                           "summary": {"title": "Answer", "name": "answer"},
                           "extra": [{"name": "question", "title": "Question", "markdown": True, "required": False}]}
    assert [(q["name"], q["type"]) for q in s["questions"]] == [
        ("spans", "span"), ("verdict", "label"), ("topics", "multi_label"), ("quality", "rating"),
        ("order", "ranking"), ("comment", "text")]
    assert manifest["labels"] == ["Intrinsic", "Extrinsic"] and manifest["guidelines"]["format"] == "markdown"
    assert [(m["name"], m["visible"]) for m in s["metadata"]] == [("model", True), ("length", False), ("hhem", True)]
    assert s["vectors"] == {"similar_records": True} and manifest["queues"] is None
    assert shard_records(out)[0]["fields"] == {"question": "Summarise."}


def test_rewording_keeps_the_bundle_id_and_answers_do_not(build_bundle, tmp_path):
    """Titles, descriptions, an option's text and the guidelines only word the page: a coordinator who fixes
    a typo keeps every export mergeable. What stored answers mean (a rating's scale) is part of the id."""
    data = write_jsonl(tmp_path / "d.jsonl", ROWS)

    def bundle_id(name: str, settings: dict) -> str:
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(settings), encoding="utf-8")
        out = build_bundle([data], name=name, settings=path)
        return json.loads((out / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]

    base = {**SETTINGS, "guidelines": "Read both texts."}
    reworded = json.loads(json.dumps(base))
    reworded["guidelines"] = "Read both texts carefully."
    reworded["fields"]["summary"]["title"] = "The answer"
    reworded["questions"][1] = {**VERDICT, "title": "Is it supported?", "description": "Pick one.",
                                "options": [{"value": "consistent", "text": "Supported"},
                                            {"value": "hallucinated", "text": "Not supported"}]}
    reworded["metadata"][0] = {**reworded["metadata"][0], "title": "Summariser"}
    changed = json.loads(json.dumps(base))
    changed["questions"][2] = {"name": "quality", "type": "rating", "values": [1, 2, 3, 4]}
    assert bundle_id("base", base) == bundle_id("reworded", reworded) != bundle_id("changed", changed)


def test_the_span_granularity_reaches_the_manifest_only_when_it_is_character():
    """A mouse selection snaps to whole words unless the span question keeps characters; the
    default is not written (a bundle without it keeps its id)."""
    from mercury_static.settings.manifest import manifest_settings
    from mercury_static.settings.model import MetadataRanges

    def span_json(doc):
        return manifest_settings(parse(doc), MetadataRanges())["questions"][0]

    assert parse({"questions": [SPAN]}).span.granularity == "word"
    assert "granularity" not in span_json({"questions": [{**SPAN, "granularity": "word"}]})
    assert span_json({"questions": [{**SPAN, "granularity": "character"}]})["granularity"] == "character"


def test_clashing_hotkeys_stop_the_build_in_one_line(run, tmp_path):
    """The settings file's hotkeys are checked at build: exit 2, one line, nothing written."""
    data = write_jsonl(tmp_path / "d.jsonl", ROWS)
    settings = tmp_path / "s.yaml"
    settings.write_text("keys:\n  next_saved: '>'\n  prev_saved: '>'\n", encoding="utf-8")
    out = tmp_path / "out"
    one_error(run("build", data, "-o", out, "--settings", settings),
              "s.yaml", "keys", "'prev_saved'", "key '>' is both next_saved's and prev_saved's")
    assert not out.exists()
