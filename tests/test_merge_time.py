"""Time on task (export version 3) through `merge`: the merged outputs, the report's `time_on_task`, older
exports as unknown times, and a bad time as one line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from mercury_static.cli import app
from mercury_static.merge.pipeline import merge_files
from test_merge import ann, by_record, export, rec, tiny  # noqa: F401  (tiny: the bundle fixture)
from test_write_argilla import argilla_reads


def timed(record: dict, active_ms: int | None, *elapsed: int) -> dict:
    """`record` as version 3 writes it: its active time and each annotation's elapsed time."""
    out = {**record, "annotations": [{**a, "elapsed_ms": ms} for a, ms in zip(record["annotations"], elapsed)]}
    return out if active_ms is None else {**out, "active_ms": active_ms}


def round_files(tiny, tmp_path):  # noqa: F811
    alice = export(tmp_path / "alice.json", tiny, "alice",
                   timed(rec("r1", ann("a1", "r1", "1899"), ann("a2", "r1", "Rome")), 30_000, 12_000, 3_500),
                   timed(rec("r2"), 10_500), version=3)
    bob = export(tmp_path / "bob.json", tiny, "bob", timed(rec("r1", ann("b1", "r1", "1899")), 61_250, 40_000),
                 version=3)
    old = export(tmp_path / "carol.json", tiny, "carol", rec("r1", ann("c1", "r1", "Rome")), rec("r3"), version=2)
    return [alice, bob, old]


def test_times_are_merged_and_summed_per_annotator(tiny, tmp_path):  # noqa: F811
    result = merge_files(round_files(tiny, tmp_path), tiny)
    assert result.exit_code == 0, [str(p) for p in result.problems]
    out = by_record(result)
    assert {r["annotator"]: r.get("active_ms") for r in out["r1"]["responses"]} == {
        "alice": 30_000, "bob": 61_250, "carol": None}
    assert {a["id"]: a.get("elapsed_ms") for a in out["r1"]["annotations"]} == {
        "a1": 12_000, "a2": 3_500, "b1": 40_000, "c1": None}
    report = json.loads(json.dumps(result.report()))
    assert report["time_on_task"] == {
        "idle_threshold_s": 60,
        "annotators": {"alice": {"active_s": 40.5, "records": 2, "median_record_s": 20.25},
                       "bob": {"active_s": 61.25, "records": 1, "median_record_s": 61.25}},
        "records": {"r1": {"alice": 30.0, "bob": 61.25}, "r2": {"alice": 10.5}},
        "annotations_elapsed_s": {"alice": [12.0, 3.5], "bob": [40.0]}}
    # merged again (a merged file read back as a dump), the times stay
    merged = tmp_path / "merged.json"
    merged.write_bytes(result.output)
    again = merge_files([merged], tiny)
    assert again.report()["time_on_task"] == report["time_on_task"]


def test_old_exports_alone_give_empty_maps_and_the_same_bytes(tiny, tmp_path):  # noqa: F811
    old = export(tmp_path / "old.json", tiny, "carol", rec("r1", ann("c1", "r1", "Rome")), version=2)
    result = merge_files([old], tiny)
    assert result.exit_code == 0
    assert result.report()["time_on_task"] == {"idle_threshold_s": 60, "annotators": {}, "records": {},
                                               "annotations_elapsed_s": {}}
    assert b"active_ms" not in result.output and b"elapsed_ms" not in result.output


def test_flat_and_argilla_outputs_carry_the_times(tiny, tmp_path):  # noqa: F811
    files = round_files(tiny, tmp_path)
    flat = json.loads(merge_files(files, tiny, fmt="mercury").output)
    r1 = next(s for s in flat["samples"] if s["sample_id"] == "r1")
    assert sorted(a.get("elapsed_ms", -1) for a in r1["annotations"]) == [-1, 3_500, 12_000, 40_000]
    assert {r["annotator"]: r.get("active_ms") for r in r1["responses"]}["bob"] == 61_250
    folder = merge_files(files, tiny, fmt="argilla").directory
    records = {r["id"]: r for r in json.loads(folder["records.json"])}
    assert records["r1"]["metadata"] == {"time_on_task_s": 91.25}
    assert records["r3"]["metadata"] == {}
    settings = json.loads(folder[".argilla/settings.json"])
    assert [(m["name"], m["settings"]["type"]) for m in settings["metadata"]] == [("time_on_task_s", "float")]


def test_argilla_reads_the_timed_folder(tiny, tmp_path):  # noqa: F811
    """argilla's own classes parse the folder with the time property (tests/argilla_read.py)."""
    out = tmp_path / "argilla"
    result = CliRunner().invoke(app, ["merge", *map(str, round_files(tiny, tmp_path)), "--bundle", str(tiny.dir),
                                      "--format", "argilla", "-o", str(out)])
    assert result.exit_code == 0, result.output
    parsed = argilla_reads(out)
    assert "time_on_task_s" in parsed["metadata"]
    assert {r["id"]: r["metadata"] for r in parsed["records"]}["r1"] == {"time_on_task_s": 91.25}


def test_a_bad_time_is_one_line_naming_file_record_and_field(tiny, tmp_path):  # noqa: F811
    day = 24 * 3600 * 1000
    for bad, shown in ((-5, "-5"), (1.5, "1.5"), ("10", "'10'"), (True, "True"), (day + 1, str(day + 1)),
                       (15 * 10 ** 307, "15000000000000000000…")):
        path = export(tmp_path / "bad.json", tiny, "alice",
                      timed(rec("r1", ann("a1", "r1", "1899")), bad, bad), version=3)
        result = merge_files([path], tiny)
        rule = f"expected a whole number of milliseconds from 0 to {day} (a day), got {shown}"
        assert [str(p) for p in result.problems] == [
            f"{path}: record r1: field 'active_ms': {rule}",
            f"{path}: record r1, annotation a1: field 'elapsed_ms': {rule}"]
        assert result.exit_code == 1
        (r1,) = [r for r in result.records if r["id"] == "r1"]
        assert [a["id"] for a in r1["annotations"]] == ["a1"] and "elapsed_ms" not in r1["annotations"][0]
        assert result.report()["time_on_task"]["annotators"] == {}
        strict = CliRunner().invoke(app, ["merge", str(path), "--bundle", str(tiny.dir), "-o",
                                          str(tmp_path / "m.json"), "--strict"])
        assert strict.exit_code == 2
        assert "field 'active_ms'" in strict.output and "Traceback" not in strict.output


def test_three_huge_times_are_skipped_lines_not_an_overflow(tiny, tmp_path):  # noqa: F811
    huge = 15 * 10 ** 307
    path = export(tmp_path / "huge.json", tiny, "alice", timed(rec("r1"), huge), timed(rec("r2"), huge),
                  timed(rec("r3"), huge), version=3)
    result = merge_files([path], tiny)
    assert len(result.problems) == 3 and all("field 'active_ms'" in str(p) for p in result.problems)
    assert result.report()["time_on_task"]["annotators"] == {}


def test_the_time_on_task_adds_up_across_browsers(tiny, tmp_path):  # noqa: F811
    """Each browser's newest time (a browser's time only grows) summed: the laptop's 10 s and the desktop's
    20 s are 30 s, whichever version wins the annotations; a browser's older export adds nothing."""
    laptop_old = export(tmp_path / "laptop-old.json", tiny, "alice", timed(rec("r1", updated_at="2026-11-29T09:00:00Z"),
                        4_000), version=3, client="laptop")
    laptop = export(tmp_path / "laptop.json", tiny, "alice", timed(rec("r1", updated_at="2026-11-29T10:00:00Z"), 10_000),
                    version=3, client="laptop")
    desktop = export(tmp_path / "desktop.json", tiny, "alice",
                     timed(rec("r1", updated_at="2026-11-29T11:00:00Z"), 20_000), version=3, client="desktop")
    result = merge_files([laptop_old, laptop, desktop], tiny)
    [response] = by_record(result)["r1"]["responses"]
    assert response["active_ms"] == 30_000 and response["updated_at"] == "2026-11-29T11:00:00Z"
    assert result.report()["time_on_task"]["records"]["r1"] == {"alice": 30.0}
