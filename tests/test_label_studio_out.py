"""`merge --format label-studio` checked by label-studio-sdk: its labeling config parsed by `LabelInterface`, every
task and annotation validated against it and read with the SDK's own models; every span, label, relation, note
and annotator comes back."""

from __future__ import annotations

import json

import pytest
from label_studio_sdk.label_interface import LabelInterface
from label_studio_sdk.types import Annotation
from test_merge_sentences import INTRINSIC, TEXTS, ann, export, judged, rec, span  # noqa: F401

from mercury_static.merge.pipeline import merge_files


def test_merge_writes_what_label_studio_validates_and_reads_back(judged, run, tmp_path):  # noqa: F811
    emoji = {**ann("a2", "r2", "midnight"), "source": span("r2", "source", "noon"), "note": "wrong time 🕛"}
    files = [export(tmp_path / "alice.json", judged, "alice", rec("r1", ann("a1", "r1", "Rome")), rec("r2", emoji)),
             export(tmp_path / "bob.json", judged, "bob", rec("r1"))]
    out = tmp_path / "ls"
    result = run("merge", *files, "--bundle", judged.dir, "--format", "label-studio", "-o", out)
    assert result.exit_code == 0, result.output
    config = (out / "config.xml").read_text(encoding="utf-8")
    interface = LabelInterface(config)
    assert {c.name for c in interface.controls} == {"summary_labels", "source_labels", "note"}
    assert "Unwanted.Intrinsic" in interface.get_control("summary_labels").labels
    tasks = json.loads((out / "tasks.json").read_text(encoding="utf-8"))
    users = json.loads((out / "annotators.json").read_text(encoding="utf-8"))
    assert users == {"alice": 1, "bob": 2}
    assert [t["data"]["record_id"] for t in tasks] == ["r1", "r2", "r3"]
    for task in tasks:
        # the data (validate_task of a task with annotations calls validate_annotation without one: an SDK bug)
        assert interface.validate_task({"data": task["data"]})
        for annotation in task["annotations"]:
            assert interface.validate_annotation(annotation), interface._validate_object(annotation, True)
            Annotation.model_validate({"id": 1, "task": 1, **annotation})  # the SDK's own model
    r1, r2 = tasks[0]["annotations"], tasks[1]["annotations"]
    assert [a["completed_by"] for a in r1] == [1, 2] and r1[1]["result"] == []  # bob submitted r1 without spans
    [region] = r1[0]["result"]
    assert region["value"] == {"start": 23, "end": 27, "text": "Rome", "labels": [INTRINSIC[-1]]}
    summary, source, relation, note = r2[0]["result"]
    assert (summary["to_name"], source["to_name"]) == ("summary", "source")
    assert source["value"]["text"] == "noon" == TEXTS["r2"]["source"][source["value"]["start"]:source["value"]["end"]]
    assert relation == {"type": "relation", "from_id": summary["id"], "to_id": source["id"], "direction": "right",
                        "labels": ["evidence"]}
    assert note["type"] == "textarea" and note["id"] == summary["id"] and note["value"]["text"] == ["wrong time 🕛"]
    merged = merge_files(files, judged).records
    assert sum(len(a["result"]) > 0 for t in tasks for a in t["annotations"]) == sum(
        bool(r["annotations"]) for r in merged)


def test_offsets_are_utf16_as_label_studio_counts_them():
    from mercury_static.merge.write_label_studio import annotation_result

    record = {"summary": "🎉 Rome is big.", "source": "x"}
    a = {"label": INTRINSIC, "summary": {"start": 2, "end": 6, "text": "Rome"}, "source": None, "note": ""}
    [region] = annotation_result(record, [a])
    assert region["value"]["start"] == 3 and region["value"]["end"] == 7  # the emoji is two UTF-16 units


@pytest.mark.parametrize("fmt", ["label-studio"])
def test_a_file_in_the_way_is_one_line(judged, run, tmp_path, fmt):  # noqa: F811
    files = [export(tmp_path / "alice.json", judged, "alice", rec("r1", ann("a1", "r1", "Rome")))]
    (tmp_path / "taken").write_text("mine")
    result = run("merge", *files, "--bundle", judged.dir, "--format", fmt, "-o", tmp_path / "taken")
    assert result.exit_code == 2 and f"is a file; --format {fmt} writes a folder" in result.output
