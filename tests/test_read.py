"""Readers: every format, ids, metadata, prior annotations, SummHay topics and every bad-input message."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mercury_static.read.inputs import join_documents, read_records
from mercury_static.core.records import InputError, Section

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@pytest.fixture
def here(tmp_path, monkeypatch):
    """Work in a temp folder so that messages name files as given (relative)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(name: str, content) -> str:
    data = content if isinstance(content, bytes) else content.encode("utf-8")
    Path(name).write_bytes(data)
    return name


def jsonl(rows) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


# ---------------------------------------------------------------- formats

def test_csv_with_bom_crlf_multiline_fields_and_metadata(here):
    write("data.csv", "\ufeffid,source,summary,topic\r\n"
                      'a,"First line.\r\nSecond, quoted ""line"".",Short.,news\r\n'
                      "\r\n"
                      "b,Plain source.,Plain summary.,sports\r\n")
    a, b = read_records("data.csv")
    assert (a.id, a.source, a.summary, a.metadata) == (
        "a", 'First line.\r\nSecond, quoted "line".', "Short.", {"topic": "news"})
    assert (a.origin, b.origin) == ("data.csv:2", "data.csv:5")
    assert (b.id, b.metadata) == ("b", {"topic": "sports"})
    assert a.prior_annotations == [] and a.source_sections is None and a.gold is None


def test_csv_huge_field_and_positional_ids(here):
    big = "word " * 60000  # 300,000 characters: above csv's default field limit
    write("big.csv", f"source,summary\n\"{big}\",s1\nsrc,s2\n")
    r0, r1 = read_records("big.csv")
    assert (r0.id, r1.id) == ("0", "1") and r0.source == big


def test_json_list_with_nested_metadata(here):
    write("d.json", json.dumps([
        {"id": 7, "source": "S one.", "summary": "s one.", "metadata": {"model": "m1", "score": 0.5},
         "topic": "t"},
        {"id": "x", "source": "S two.", "summary": "s two.", "tags": ["a", "b"]},
    ]))
    r0, r1 = read_records("d.json")
    assert (r0.id, r0.metadata, r0.origin) == ("7", {"model": "m1", "score": 0.5, "topic": "t"}, "d.json[0]")
    assert (r1.id, r1.metadata) == ("x", {"tags": ["a", "b"]})


def test_jsonl_custom_fields_and_id_field(here):
    write("d.jsonl", "\ufeff" + jsonl([{"key": "k1", "doc": "Doc one.", "abs": "Abs one.", "id": 1}]) + "\n"
          + jsonl([{"key": "k2", "doc": "Doc two.", "abs": "Abs two.", "id": 2}]))
    recs = read_records("d.jsonl", source_field="doc", summary_field="abs", id_field="key")
    assert [(r.id, r.source, r.summary, r.metadata, r.origin) for r in recs] == [
        ("k1", "Doc one.", "Abs one.", {"id": 1}, "d.jsonl:1"),
        ("k2", "Doc two.", "Abs two.", {"id": 2}, "d.jsonl:3"),
    ]


def test_jsonl_content_in_a_json_file_and_json_without_extension(here):
    write("lines.json", jsonl([{"source": "a", "summary": "b"}, {"source": "c", "summary": "d"}]))
    assert [r.source for r in read_records("lines.json")] == ["a", "c"]
    write("noext", json.dumps([{"source": "a", "summary": "b"}]))
    assert read_records("noext")[0].summary == "b"


MERCURY_SAMPLE = {
    "sample_id": 3,
    "source": "The budget was 160 million dollars. It grossed 181 million.",
    "summary": "The production budget was 160 million. It grossed 181 million worldwide.",
    "annotations": [
        {"annot_id": 1, "annotator_id": "u1", "annotator_name": "Ada", "label": ["Unwanted", "Unwanted.Intrinsic"],
         "note": "production", "summary_span": "production", "summary_start": 4, "summary_end": 14,
         "source_span": "The budget was 160 million dollars.", "source_start": 0, "source_end": 35},
        # offsets drifted, span occurs once: fixed
        {"annot_id": 2, "annotator_id": "u2", "annotator_name": None, "label": "Benign", "note": None,
         "summary_span": "worldwide", "summary_start": 60, "summary_end": 69,
         "source_span": None, "source_start": None, "source_end": None},
        # span occurs twice with wrong offsets: dropped
        {"annot_id": 3, "annotator_name": "Bob", "label": ["Questionable"], "note": "",
         "summary_span": "million", "summary_start": 0, "summary_end": 7},
        # source span not in the source: only the source part is dropped
        {"annot_id": 4, "annotator_name": "Bob", "label": ["Unwanted", "Unwanted.Extrinsic"], "note": "",
         "summary_span": "grossed", "summary_start": 44, "summary_end": 51,
         "source_span": "not in the source", "source_start": 0, "source_end": 17},
    ],
    "metadata": {"summarizer": "m", "raw_sample_id": 99},
}


def test_mercury_dump_prior_annotations(here, caplog):
    write("dump.json", json.dumps({"samples": [MERCURY_SAMPLE]}))
    with caplog.at_level(logging.WARNING, logger="mercury_static"):
        (rec,) = read_records("dump.json")
    assert rec.id == "3" and rec.metadata == {"summarizer": "m", "raw_sample_id": 99}
    a1, a2, a4 = rec.prior_annotations
    assert a1 == {"id": "1", "label": ["Unwanted", "Unwanted.Intrinsic"], "note": "production",
                  "summary": {"start": 4, "end": 14, "text": "production"},
                  "source": {"start": 0, "end": 35, "text": "The budget was 160 million dollars."},
                  "annotator": "Ada"}
    start = rec.summary.index("worldwide")
    assert a2 == {"id": "2", "label": ["Benign"], "note": "", "annotator": "u2", "source": None,
                  "summary": {"start": start, "end": start + 9, "text": "worldwide"}}
    assert a4["source"] is None and a4["summary"]["text"] == "grossed"
    messages = [r.getMessage() for r in caplog.records]
    assert any("dump.json: record 0: annotation 2: summary offsets fixed" in m for m in messages)
    assert any("annotation 3: summary span 'million' not found in the summary, dropped" in m for m in messages)
    assert any("annotation 4: source span not found in the source, source part dropped" in m for m in messages)


def test_mercury_list_is_detected_and_id_field_reaches_nested_metadata(here):
    write("dump.json", json.dumps([MERCURY_SAMPLE]))
    (rec,) = read_records("dump.json", id_field="raw_sample_id")
    assert rec.id == "99" and len(rec.prior_annotations) == 3
    assert rec.metadata == {"summarizer": "m", "sample_id": 3}
    (plain,) = read_records("dump.json", fmt="json")  # forced plain JSON: annotations stay metadata
    assert plain.prior_annotations == [] and plain.metadata["annotations"] == MERCURY_SAMPLE["annotations"]


def test_several_files_qualify_implicit_ids(here):
    write("batch_1.json", json.dumps({"samples": [MERCURY_SAMPLE]}))
    write("batch_2.json", json.dumps({"samples": [MERCURY_SAMPLE]}))
    write("plain.csv", "source,summary\na,b\n")
    recs = read_records(["batch_1.json", "batch_2.json", "plain.csv"])
    assert [r.id for r in recs] == ["batch_1:3", "batch_2:3", "plain:0"]


def test_source_as_a_list_of_documents(here):
    write("docs.jsonl", jsonl([
        {"id": "r", "summary": "s.", "source": [
            {"title": "First\ndoc", "id": "d1", "text": "  Alpha text.\n"},
            {"text": "Beta text."},
            "Gamma text.",
        ]},
    ]))
    (rec,) = read_records("docs.jsonl")
    assert rec.source == "First doc\nAlpha text.\n\nDocument 2\nBeta text.\n\nDocument 3\nGamma text."
    assert [(rec.source[s.start:s.end], s.title, s.doc_id) for s in rec.source_sections] == [
        ("Alpha text.", "First doc", "d1"), ("Beta text.", "Document 2", "2"), ("Gamma text.", "Document 3", "3")]


def test_join_documents_offsets():
    text, sections = join_documents([("T1", "a", "x y"), ("T2", "b", "\nz\n")])
    assert text == "T1\nx y\n\nT2\nz"
    assert sections == [Section(3, 6, "T1", "a"), Section(11, 12, "T2", "b")]


# ---------------------------------------------------------------- SummHay

def summhay_topic() -> dict:
    """A tiny topic file with the schema of the SummHay benchmark."""
    return {
        "topic_id": "topic1", "topic": "Rivers", "topic_metadata": {"participants": []},
        "subtopics": [
            {"subtopic_id": "st1", "subtopic_name": "floods", "subtopic": "Flood risk", "query": "Flood risk?",
             "insights": [{"insight_id": "i1", "insight_name": "Levees", "insight": "Levees failed in May."},
                          {"insight_id": "i2", "insight_name": "Rain", "insight": "Rain doubled."}],
             "retriever": {"oracle": {"d1": 1, "d2": 0, "d3": 1}},
             "summaries": {
                 "summary_subtopic_oracle_model-x": ["Here are the insights:", "- Levees failed in May [1].",
                                                     "- Rain doubled [3]."],
                 "summary_subtopic_model-y": ["* Rain doubled."],
                 "summary_subtopic_random_model-x": [],
             },
             "eval_summaries": {
                 "summary_subtopic_oracle_model-x": [
                     {"insight_id": "i1", "coverage": "FULL_COVERAGE", "bullet_id": 2},
                     {"insight_id": "i2", "coverage": "PARTIAL_COVERAGE", "bullet_id": 3}],
                 "summary_subtopic_model-y": [
                     {"insight_id": "i1", "coverage": "NO_COVERAGE", "bullet_id": "NA"},
                     {"insight_id": "i2", "coverage": "FULL_COVERAGE", "bullet_id": 1}],
             }},
            {"subtopic_id": "st2", "subtopic_name": "fish", "subtopic": "Fish", "query": "Fish?",
             "insights": [{"insight_id": "i3", "insight_name": "Salmon", "insight": "Salmon returned."}],
             "summaries": {"summary_subtopic_model-y": ["- Salmon returned [2]."]},
             "eval_summaries": {"summary_subtopic_model-y": [
                 {"insight_id": "i3", "coverage": "FULL_COVERAGE", "bullet_id": 1}]}},
        ],
        "documents": [
            {"document_id": "d1", "idx": 0, "document_text": "The levees failed in May. \n\nRepairs began.",
             "document_metadata": {"article_source": "river.example"}, "insights_included": ["i1"]},
            {"document_id": "d2", "idx": 1, "document_text": "Salmon returned to the river.",
             "document_metadata": {}, "insights_included": ["i3"]},
            {"document_id": "d3", "idx": 2, "document_text": "Rain doubled this year. Levees held elsewhere.",
             "document_metadata": [], "insights_included": ["i1", "i2"]},
        ],
    }


def test_summhay_topic(here, caplog):
    write("topic.json", json.dumps(summhay_topic()))
    with caplog.at_level(logging.WARNING, logger="mercury_static"):
        recs = read_records("topic.json")
    assert "empty summary, skipped" in caplog.text
    assert [r.id for r in recs] == ["st1:oracle_model-x", "st1:model-y", "st2:model-y"]
    rec = recs[0]
    assert rec.source == ("Document 1 (river.example)\nThe levees failed in May. \n\nRepairs began.\n\n"
                          "Document 2\nSalmon returned to the river.\n\n"
                          "Document 3\nRain doubled this year. Levees held elsewhere.")
    assert [(rec.source[s.start:s.end], s.title, s.doc_id) for s in rec.source_sections] == [
        ("The levees failed in May. \n\nRepairs began.", "Document 1 (river.example)", "d1"),
        ("Salmon returned to the river.", "Document 2", "d2"),
        ("Rain doubled this year. Levees held elsewhere.", "Document 3", "d3")]
    assert all(r.source == rec.source and r.source_sections == rec.source_sections for r in recs)
    assert rec.summary == "Here are the insights:\n- Levees failed in May [1].\n- Rain doubled [3]."
    assert rec.metadata == {
        "topic": "Rivers", "topic_id": "topic1", "title": "floods · oracle_model-x", "subtopic_id": "st1",
        "subtopic_name": "floods", "subtopic": "Flood risk", "query": "Flood risk?", "method": "oracle_model-x", "retriever": "oracle",
        "summarizer": "model-x", "coverage_score": 75.0,
        "coverage": summhay_topic()["subtopics"][0]["eval_summaries"]["summary_subtopic_oracle_model-x"]}
    assert rec.gold["insights"] == [
        {"id": "i1", "name": "Levees", "text": "Levees failed in May.", "documents": ["d1", "d3"]},
        {"id": "i2", "name": "Rain", "text": "Rain doubled.", "documents": ["d3"]}]
    bullets = rec.gold["bullets"]
    assert [(b["index"], rec.summary[b["start"]:b["end"]], b["covered_insights"]) for b in bullets] == [
        (1, "Here are the insights:", []),
        (2, "- Levees failed in May [1].", [{"insight_id": "i1", "coverage": "FULL_COVERAGE"}]),
        (3, "- Rain doubled [3].", [{"insight_id": "i2", "coverage": "PARTIAL_COVERAGE"}])]
    full = recs[1]
    assert (full.metadata["retriever"], full.metadata["summarizer"], full.metadata["coverage_score"]) == (
        "full-context", "model-y", 50.0)
    assert full.gold["bullets"][0]["covered_insights"] == [{"insight_id": "i2", "coverage": "FULL_COVERAGE"}]
    assert recs[2].gold["insights"][0]["documents"] == ["d2"]
    assert rec.origin == "topic.json:st1:oracle_model-x"


def test_summhay_forced_format_and_bad_document(here):
    topic = summhay_topic()
    write("topic.txt", json.dumps(topic))
    assert len(read_records("topic.txt", fmt="summhay")) == 3
    topic["documents"][1]["document_text"] = "  "
    write("bad.json", json.dumps(topic))
    with pytest.raises(InputError) as e:
        read_records("bad.json")
    assert str(e.value) == "bad.json: documents[1]: field 'document_text': empty text"


@pytest.mark.shared_data
def test_real_summhay_topic():
    path = SHARED_DATA / "summhay" / "topic_news1.json"
    if not path.exists():
        pytest.skip("../shared/data/summhay is absent")
    raw = json.loads(path.read_text(encoding="utf-8"))
    recs = read_records(path)
    assert len(recs) == sum(len(st["summaries"]) for st in raw["subtopics"])
    rec = recs[0]
    assert len(rec.source) > 400_000 and len(rec.source_sections) == len(raw["documents"]) == 100
    for sec, doc in zip(rec.source_sections, raw["documents"]):
        assert rec.source[sec.start:sec.end] == doc["document_text"].strip() and sec.doc_id == doc["document_id"]
    for r in recs:
        for b in r.gold["bullets"]:
            assert r.summary[b["start"]:b["end"]] == b["text"]
    covered = sum(len(b["covered_insights"]) for r in recs for b in r.gold["bullets"])
    judged = sum(1 for st in raw["subtopics"] for m in st["summaries"] for e in st["eval_summaries"][m]
                 if e["coverage"] != "NO_COVERAGE")
    assert covered == judged > 1000


@pytest.mark.shared_data
def test_real_faithbench_dumps_keep_every_annotation_with_a_label():
    """Every annotation is kept but those whose label list is empty (FaithBench has two: dropped alone, with a
    warning, as merge and tune drop them)."""
    from mercury_static.core.mercury import checked_label

    def labelled(a) -> bool:
        try:
            return bool(checked_label(a.get("label")))
        except ValueError:
            return False

    paths = sorted((SHARED_DATA / "faithbench").glob("batch_*.json"))
    if not paths:
        pytest.skip("../shared/data/faithbench is absent")
    recs = read_records(paths)
    raw = [s for p in paths for s in json.loads(p.read_text(encoding="utf-8"))["samples"]]
    assert len(recs) == len(raw) and len({r.id for r in recs}) == len(recs)
    kept = sum(len(r.prior_annotations) for r in recs)
    assert kept == sum(labelled(a) for s in raw for a in s["annotations"]) == sum(
        len(s["annotations"]) for s in raw) - 2
    for r in recs:
        for a in r.prior_annotations:
            assert r.summary[a["summary"]["start"]:a["summary"]["end"]] == a["summary"]["text"]
            if a["source"]:
                assert r.source[a["source"]["start"]:a["source"]["end"]] == a["source"]["text"]


# ---------------------------------------------------------------- bad input

BAD_INPUT = [
    # (file name, content, read_records kwargs, message)
    ("data.csv", "id,source,summary\r\na,\"multi\r\nline source\",ok\r\nb,src,\r\n", {},
     "data.csv: line 4: field 'summary': empty text"),
    ("data.csv", "id,source,text\na,b,c\n", {},
     "data.csv: line 1: field 'summary': missing column (available columns: id, source, text)"),
    ("data.csv", "source,summary\na,b\n", {"id_field": "key"},
     "data.csv: line 1: field 'key': missing column (available columns: source, summary)"),
    ("data.csv", "source,summary\na,b\nc,d,e\n", {}, "data.csv: line 3: 3 values but the header has 2 columns"),
    ("data.csv", "source,summary,source\na,b,c\n", {}, "data.csv: line 1: field 'source': duplicate column"),
    ("data.csv", "source,summary\n", {}, "data.csv: no records (only a header row)"),
    ("data.csv", b"source,summary\nok,fine\ncaf\xe9,x\n", {},
     "data.csv: line 3: not UTF-8 (byte 0xe9 at byte offset 26)"),
    ("bom.jsonl", b"\xef\xbb\xbf" + b'{"source": "a", "summary": "b"}\n{"source": "\xff"}\n', {},
     "bom.jsonl: line 2: not UTF-8 (byte 0xff at byte offset 47)"),
    ("x.jsonl", '{"source": "a", "summary": "b"}\n\n{"source":"a" "summary": "b"}\n', {},
     "x.jsonl: line 3: invalid JSON (Expecting ',' delimiter at column 15)"),
    ("x.jsonl", '{"source": "a", "summary": "b"}\n["source"]\n', {}, "x.jsonl: line 2: expected a JSON object, got array"),
    ("x.jsonl", '{"source": "a", "id": 1}\n', {}, "x.jsonl: line 1: field 'summary': missing (fields: source, id)"),
    ("x.jsonl", '{"source": 12, "summary": "b"}\n', {},
     "x.jsonl: line 1: field 'source': expected a string or a list of documents, got number"),
    ("x.jsonl", '{"source": "a", "summary": ["b"]}\n', {}, "x.jsonl: line 1: field 'summary': expected a string, got array"),
    ("x.jsonl", '{"source": "a", "summary": null}\n', {}, "x.jsonl: line 1: field 'summary': expected a string, got null"),
    ("x.jsonl", '{"source": [], "summary": "b"}\n', {}, "x.jsonl: line 1: field 'source': empty list of documents"),
    ("x.jsonl", '{"source": [{"title": "t"}], "summary": "b"}\n', {},
     "x.jsonl: line 1: field 'source': document 0: missing 'text'"),
    ("x.jsonl", '{"source": "a", "summary": "b", "id": [1]}\n', {},
     "x.jsonl: line 1: field 'id': expected a string or an integer id, got array"),
    ("d.jsonl", '{"id": "a", "source": "s", "summary": "t"}\n{"id": "b", "source": "s", "summary": "t"}\n'
                '{"id": "a", "source": "s", "summary": "t"}\n', {},
     "d.jsonl: line 3: field 'id': duplicate id 'a' (first seen at d.jsonl: line 1)"),
    ("x.json", '[{"source": "a", "summary": "b"},\n {"source": 1.5, "summary": "b"}]', {},
     "x.json: record 1: field 'source': expected a string or a list of documents, got number"),
    ("x.json", '[{"source": "a", "summary": "b"},\n "oops"]', {}, "x.json: record 1: expected a JSON object, got string"),
    ("x.json", '[\n{"source": "a",\n "summary": "b",}\n]', {},
     "x.json: line 3: invalid JSON (Expecting property name enclosed in double quotes at column 17)"),
    ("x.json", "[]", {}, "x.json: no records (empty list)"),
    ("x.json", '{"rows": []}', {},
     'x.json: expected a JSON list of records, a Mercury dump {"samples": [...]} or a SummHay topic '
     "(found an object with keys: rows)"),
    ("x.json", '"just text"', {},
     'x.json: expected a JSON list of records, a Mercury dump {"samples": [...]} or a SummHay topic '
     "(found a string)"),
    ("x.json", '{"samples": {"a": 1}}', {}, "x.json: field 'samples': expected a list of samples"),
    ("x.json", '{"samples": [{"sample_id": 1, "source": "a", "summary": "b", "annotations": 5}]}', {},
     "x.json: record 0: field 'annotations': expected a list, got number"),
    ("empty.jsonl", "", {}, "empty.jsonl: empty file"),
    ("bom.csv", "\ufeff \r\n", {}, "bom.csv: empty file"),
    ("notes.txt", "source,summary\na,b\n", {},
     "notes.txt: cannot tell the format (use .csv, .json or .jsonl, or pass --format)"),
    ("d.csv", "source,summary\na,b\n", {"fmt": "xml"},
     "d.csv: unknown format 'xml' (choose from auto, csv, json, jsonl, mercury, summhay, qags, parquet, label-studio)"),
]


@pytest.mark.parametrize("name, content, kwargs, message", BAD_INPUT, ids=[m for *_, m in BAD_INPUT])
def test_bad_input_message(here, name, content, kwargs, message):
    write(name, content)
    with pytest.raises(InputError) as e:
        read_records(name, **kwargs)
    assert str(e.value) == message


def test_missing_file_and_directory(here):
    with pytest.raises(InputError, match=r"^nope\.csv: file not found$"):
        read_records("nope.csv")
    os.mkdir("folder.json")
    with pytest.raises(InputError, match=r"^folder\.json: is a directory, not a file$"):
        read_records("folder.json")


def test_duplicate_explicit_id_across_files(here):
    write("a.jsonl", jsonl([{"k": "1", "source": "s", "summary": "t"}]))
    write("b.jsonl", jsonl([{"k": "2", "source": "s", "summary": "t"}, {"k": "1", "source": "s", "summary": "t"}]))
    with pytest.raises(InputError) as e:
        read_records(["a.jsonl", "b.jsonl"], id_field="k")
    assert str(e.value) == "b.jsonl: line 2: field 'k': duplicate id '1' (first seen at a.jsonl: line 1)"


# ---------------------------------------------------------------- through the CLI

CLI = [str(Path(sys.executable).parent / "mercury-static")]

CLI_CASES = [case for case in BAD_INPUT if case[3].startswith((
    "data.csv: line 4:", "data.csv: line 1: field 'summary'", "data.csv: line 3: not UTF-8",
    "x.jsonl: line 3: invalid JSON", "d.jsonl: line 3: field 'id': duplicate", "x.json: line 3", "empty.jsonl"))]
assert len(CLI_CASES) == 7 and not any(case[2] for case in CLI_CASES)


@pytest.mark.parametrize("name, content, kwargs, message", CLI_CASES, ids=[m for *_, m in CLI_CASES])
def test_cli_bad_input_exits_2_with_one_line(here, run, name, content, kwargs, message):
    """In-process (no traceback: the run fixture); test_cli_missing_file runs the real entry point."""
    write(name, content)
    result = run("build", name, "-o", "out")
    assert result.exit_code == 2, result.output
    errors = [x for x in result.stderr.splitlines() if x.strip()]
    assert len(errors) == 1 and message in errors[0], result.stderr
    assert result.stdout == ""
    assert not Path("out").exists()


def test_cli_missing_file(here):
    """The installed command in a process of its own: exit 2 and the one line on stderr."""
    proc = subprocess.run(CLI + ["build", "nope.jsonl", "-o", "out"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "300"})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "nope.jsonl" in proc.stderr
