"""`build` of Label Studio tasks with their labeling config: what `merge --format label-studio` wrote comes back as
the same prior annotations (spans, pairs, notes, annotators); predictions become suggestions; bad input is one
line, exit 2."""

from __future__ import annotations

import json

import pytest
from label_studio_sdk.label_interface import LabelInterface
from test_merge_sentences import INTRINSIC, TEXTS, ann, export, judged, rec, span  # noqa: F401

from mercury_static.bundle.contents import load_bundle
from mercury_static.merge.pipeline import merge_files
from mercury_static.merge.write_label_studio import labeling_config

LABELS = ["Questionable", "Benign", "Unwanted.Intrinsic", "Unwanted.Extrinsic"]
SUMMARY = "🎉 The tower is in Rome."
SOURCE = "The tower 🗼 is in Paris."


def _key(a: dict) -> tuple:
    source = a["source"] and (a["source"]["start"], a["source"]["end"], a["source"]["text"])
    return (a["annotator"], tuple(a["label"]), a["summary"]["start"], a["summary"]["end"], a["summary"]["text"],
            source, a["note"])


def test_what_merge_wrote_builds_back_to_the_same_annotations(judged, run, tmp_path):  # noqa: F811
    emoji = {**ann("a2", "r2", "midnight"), "source": span("r2", "source", "noon"), "note": "wrong time 🕛"}
    files = [export(tmp_path / "alice.json", judged, "alice", rec("r1", ann("a1", "r1", "Rome")), rec("r2", emoji)),
             export(tmp_path / "bob.json", judged, "bob", rec("r1", ann("b1", "r1", "1889", ["Benign"])))]
    out = tmp_path / "ls"
    assert run("merge", *files, "--bundle", judged.dir, "--format", "label-studio", "-o", out).exit_code == 0
    result = run("build", out / "tasks.json", "--settings", out / "config.xml", "-o", tmp_path / "back")
    assert result.exit_code == 0, result.output
    back = load_bundle(tmp_path / "back")
    merged = merge_files(files, judged).records
    for r in merged:
        want = sorted(_key({**a, "label": a["label"]}) for a in r["annotations"])
        assert sorted(_key(a) for a in back.record(r["id"]).prior_annotations) == want
    assert any(a["source"] and a["note"] == "wrong time 🕛" for a in back.record("r2").prior_annotations)
    assert {a["annotator"] for r in back.records for a in r.prior_annotations} == {"alice", "bob"}


def tasks_file(tmp_path, tasks: list, name: str = "tasks.json"):
    path = tmp_path / name
    path.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    return path


def config_file(tmp_path, text: str | None = None):
    path = tmp_path / "config.xml"
    path.write_text(text or labeling_config(LABELS), encoding="utf-8")
    return path


def region(rid: str, to: str, text: str, quoted: str, labels: list[str]) -> dict:
    start = text.index(quoted)
    units = len(text[:start].encode("utf-16-le")) // 2
    return {"id": rid, "from_name": f"{to}_labels", "to_name": to, "type": "labels",
            "value": {"start": units, "end": units + len(quoted), "text": quoted, "labels": labels}}


def task(**extra) -> dict:
    return {"id": 7, "data": {"source": SOURCE, "summary": SUMMARY, "batch": "b1"}, **extra}


def test_predictions_become_suggestions_and_utf16_offsets_code_points(run, tmp_path):
    prediction = {"model_version": "detector-v2", "score": 0.8, "result": [
        region("p", "summary", SUMMARY, "Rome", ["Unwanted.Intrinsic"]),
        region("q", "source", SOURCE, "Paris", ["Unwanted.Intrinsic"]),
        {"type": "relation", "from_id": "p", "to_id": "q", "direction": "right"}]}
    annotation = {"completed_by": {"id": 3, "email": "carol@example.org"}, "result": [
        region("s", "summary", SUMMARY, "Rome", ["Questionable"]),
        {"id": "s", "type": "textarea", "from_name": "note", "to_name": "summary", "value": {"text": ["hm"]}}]}
    data = tasks_file(tmp_path, [task(predictions=[prediction], annotations=[annotation])])
    result = run("build", data, "--settings", config_file(tmp_path), "-o", tmp_path / "b")
    assert result.exit_code == 0, result.output
    [record] = load_bundle(tmp_path / "b").records
    assert record.id == "7" and record.metadata == {"batch": "b1"}
    rome, paris = SUMMARY.index("Rome"), SOURCE.index("Paris")
    assert record.suggestions == [{"question": "spans", "agent": "detector-v2", "score": 0.8, "value": [
        {"label": "Unwanted.Intrinsic", "summary": [rome, rome + 4], "source": [paris, paris + 5]}]}]
    [prior] = record.prior_annotations
    assert (prior["annotator"], prior["label"], prior["summary"], prior["note"]) == (
        "carol@example.org", ["Questionable"], {"start": rome, "end": rome + 4, "text": "Rome"}, "hm")


def test_auto_detection_takes_tasks_and_leaves_plain_records(run, tmp_path):
    data = tasks_file(tmp_path, [task()])
    assert run("build", data, "-o", tmp_path / "b").exit_code == 0
    assert load_bundle(tmp_path / "b").records[0].metadata == {"batch": "b1"}
    plain = tasks_file(tmp_path, [{"source": SOURCE, "summary": SUMMARY, "data": {"x": 1}}], "plain.json")
    assert run("build", plain, "-o", tmp_path / "p").exit_code == 0
    assert load_bundle(tmp_path / "p").records[0].metadata == {"data": {"x": 1}}


def test_the_config_maps_to_the_label_tree_and_says_what_it_leaves_out(run, tmp_path):
    from mercury_static.settings.reader import read_settings

    xml = labeling_config(LABELS).replace("</View>", '<Choices name="overall" toName="summary">'
                                          '<Choice value="ok"/></Choices></View>')
    assert LabelInterface(xml)  # Label Studio's own parser takes it
    settings = read_settings(config_file(tmp_path, xml))
    assert settings.span.labels == {"Questionable": None, "Benign": None,
                                    "Unwanted": {"Intrinsic": None, "Extrinsic": None}}
    result = run("build", tasks_file(tmp_path, [task()]), "--settings", tmp_path / "config.xml", "-o", tmp_path / "b")
    assert result.exit_code == 0 and "<Choices name='overall'> is not read" in result.output


BAD_TEXT = [task(annotations=[{"completed_by": 1, "result": [
    {**region("s", "summary", SUMMARY, "Rome", ["Benign"]), "value": {"start": 2, "end": 6, "text": "Rome",
                                                                        "labels": ["Benign"]}}]}])]
MISSING = [task(annotations=[{"completed_by": 1, "result": [
    region("s", "summary", SUMMARY, "Rome", ["Benign"]),
    {"type": "relation", "from_id": "s", "to_id": "gone"}]}])]
NO_SOURCE = [{"data": {"summary": SUMMARY}}]


@pytest.mark.parametrize("tasks, config, message", [
    (BAD_TEXT, None, "record 0: field 'annotations[0].result[0].value.text': 'Rome' is not the summary's text at 2..6"),
    (MISSING, None, "field 'annotations[0].result[1]': a relation to region 'gone'"),
    (NO_SOURCE, None, "record 0: field 'data.source': missing (data fields: summary)"),
    ([task()], '<!DOCTYPE v [<!ENTITY x "xx">]><View><Text name="a" value="$a"/></View>',
     "a document type or entity declaration is not accepted"),
    ([task()], '<View><Text name="source" value="$source"/><Text name="summary" value="$summary"/></View>',
     "field 'Labels': no Labels control on the summary Text 'summary'"),
])
def test_bad_input_is_one_line(run, tmp_path, tasks, config, message):
    args = ["--settings", config_file(tmp_path, config)] if config else []
    result = run("build", tasks_file(tmp_path, tasks), *args, "-o", tmp_path / "b")
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output
