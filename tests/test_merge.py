"""`merge`: hand-written export files and Mercury dumps against a real (tiny) bundle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mercury_static.bundle.contents import load_bundle
from mercury_static.cli import app
from mercury_static.merge.pipeline import merge_files
from mercury_static.core.records import InputError

from pagedriver import annotate, export_file, open_page, own_annotations, wait_left

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
RECORDS = [
    {"id": "r1", "source": "The Eiffel Tower is in Paris. It was completed in 1889.",
     "summary": "The Eiffel Tower, completed in 1899, stands in Rome."},
    {"id": "r2", "source": "Alice met Bob 🎉 at noon. They had lunch.",
     "summary": "Alice met Bob 🎉 at midnight for dinner."},
    {"id": "r3", "source": "Nothing happened today.", "summary": "Nothing happened."},
]
TEXTS = {r["id"]: r for r in RECORDS}
INTRINSIC = ["Unwanted", "Unwanted.Intrinsic"]


@pytest.fixture(scope="module")
def tiny(build_bundle, tmp_path_factory):
    """A real bundle of three records (one with emoji), default labels."""
    data = tmp_path_factory.mktemp("tiny") / "tiny.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), encoding="utf-8")
    return load_bundle(build_bundle([data], name="tiny-merge", id_field="id"))


def span(record_id: str, side: str, quoted: str) -> dict:
    text = TEXTS[record_id][side]
    start = text.index(quoted)
    return {"start": start, "end": start + len(quoted), "text": quoted}


def ann(ident: str, record_id: str, summary: str, source: str | None = None, label=INTRINSIC, note="",
        updated_at="2026-11-29T10:00:00Z") -> dict:
    return {"id": ident, "label": list(label), "note": note, "summary": span(record_id, "summary", summary),
            "source": span(record_id, "source", source) if source else None,
            "created_at": "2026-11-29T09:00:00Z", "updated_at": updated_at}


def rec(record_id: str, *annotations, status="submitted", updated_at="2026-11-29T10:00:00Z") -> dict:
    return {"record_id": record_id, "status": status, "updated_at": updated_at, "annotations": list(annotations)}


def export(path: Path, bundle, annotator: str, *records, client="client-1", **override) -> Path:
    doc = {"format": "mercury-static/annotations", "version": 1, "bundle_id": bundle.manifest["bundle_id"],
           "title": "t", "annotator": annotator, "client_id": client, "exported_at": "2026-11-29T12:00:00Z",
           "tool_version": "0.1.0", "records": list(records), **override}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def by_record(result) -> dict[str, dict]:
    return {r["id"]: r for r in result.records}


def test_two_annotators_clean(tiny, tmp_path):
    a = export(tmp_path / "alice.json", tiny, "alice",
               rec("r1", ann("a1", "r1", "1899", "1889"), ann("a2", "r1", "Rome", "Paris", note="city")),
               rec("r2", ann("a3", "r2", "midnight", "noon")), rec("r3"))
    b = export(tmp_path / "bob.json", tiny, "bob", rec("r1", ann("b1", "r1", "1899", "1889")),
               rec("r2", ann("b2", "r2", "🎉 at midnight", label=["Benign"])), client="client-9")
    result = merge_files([a, b], tiny)
    assert result.exit_code == 0 and not result.problems
    assert vars(result.counts) == {"read": 5, "merged": 5, "duplicate": 0, "superseded": 0, "rejected": 0}
    out = by_record(result)
    assert list(out) == ["r1", "r2", "r3"]  # bundle order; r3 has no annotations and stays in
    assert out["r3"]["annotations"] == []
    assert out["r3"]["responses"] == [{"annotator": "alice", "status": "submitted",
                                       "updated_at": "2026-11-29T10:00:00Z"}]
    assert [x["annotator"] for x in out["r2"]["responses"]] == ["alice", "bob"]
    first = out["r1"]["annotations"][0]
    assert list(first) == ["source", "summary", "label", "annotator", "note", "id", "created_at", "updated_at"]
    for record in result.records:  # every merged span slices the bundle's texts (code points, emoji)
        for x in record["annotations"]:
            s = x["summary"]
            assert record["summary"][s["start"]:s["end"]] == s["text"]
            if x["source"]:
                assert record["source"][x["source"]["start"]:x["source"]["end"]] == x["source"]["text"]
    # deterministic: same bytes for the same inputs, in any order
    assert merge_files([b, a], tiny).output == result.output
    assert json.loads(result.output) == result.records
    # agreement: r1, r2 judged by both; r3 only by alice
    assert result.agreement["records"]["judged_by_2_or_more"] == 2
    (pair,) = result.agreement["pairwise"]
    assert pair["records"] == 2 and pair["observed_agreement"] == 0.5  # r2: bob said Benign only


CASES = {
    "wrong bundle id": (lambda t, p: export(p, t, "x", rec("r1", ann("x1", "r1", "Rome")), bundle_id="other"),
                        "field 'bundle_id'", None, 1),
    "unknown record": (lambda t, p: export(p, t, "x", dict(rec("r1", ann("x1", "r1", "Rome")), record_id="r9")),
                       "record r9: field 'record_id': unknown record id", None, 1),
    "offsets out of range": (lambda t, p: export(p, t, "x", rec("r1", dict(ann("x1", "r1", "Rome"), summary={
        "start": 48, "end": 60, "text": "Rome."}))), "record r1, annotation x1: field 'summary': offsets 48..60 "
        "out of range", "r1", 1),
    "quoted text differs": (lambda t, p: export(p, t, "x", rec("r1", dict(ann("x1", "r1", "Rome", "Paris"), source={
        "start": 23, "end": 28, "text": "Pariz"}))), "record r1, annotation x1: field 'source': quoted text 'Pariz'",
        "r1", 1),
    "unknown label": (lambda t, p: export(p, t, "x", rec("r1", ann("x1", "r1", "Rome", label=["Wrong"]))),
                      "record r1, annotation x1: field 'label': unknown label 'Wrong'", "r1", 1),
    "malformed JSON": (lambda t, p: (p.write_text('{"format": "mercury-static/annotations", '), p)[1],
                       "line 1 column", None, 0),
    "bad status": (lambda t, p: export(p, t, "x", rec("r1", ann("x1", "r1", "Rome"), status="done")),
                   "record r1: field 'status': 'done' is not one of", None, 1),
    "records not a list": (lambda t, p: export(p, t, "x", records={"r1": []}), "field 'records': expected a list",
                           None, 0),
    "annotation without id": (lambda t, p: export(p, t, "x", rec("r1", dict(ann("x1", "r1", "Rome"), id=None))),
                              "record r1, annotations[0]: field 'id'", "r1", 1),
    "unsupported version": (lambda t, p: export(p, t, "x", rec("r1", ann("x1", "r1", "Rome")), version=7),
                            "field 'version'", None, 1),
    "not an export": (lambda t, p: (p.write_text('{"hello": 1}'), p)[1], "nor a Mercury dump", None, 0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_validation(tiny, tmp_path, case):
    make, expected, record_with_response, rejected = CASES[case]
    bad = make(tiny, tmp_path / "bad.json")
    good = export(tmp_path / "good.json", tiny, "alice", rec("r1", ann("a1", "r1", "1899")))
    result = merge_files([good, bad], tiny)
    assert result.exit_code == 1
    (problem,) = result.problems
    line = str(problem)
    assert line.startswith(f"{bad}: ") and expected in line and "\n" not in line
    assert result.counts.rejected == rejected and result.counts.merged == 1  # the good file still merged
    assert result.counts.read == result.counts.merged + result.counts.rejected
    out = by_record(result)
    assert [a["id"] for a in out["r1"]["annotations"]] == ["a1"]
    # a record whose only problem is one annotation keeps its response (the annotator did submit it)
    expected_responders = ["alice"] + (["x"] if record_with_response else [])
    assert [r["annotator"] for r in out["r1"]["responses"]] == expected_responders
    assert line in result.report()["problems"]
    with pytest.raises(InputError) as raised:
        merge_files([good, bad], tiny, strict=True)
    assert str(raised.value) == line


def test_reexports_and_deletes(tiny, tmp_path):
    day1 = export(tmp_path / "day1.json", tiny, "alice",
                  rec("r1", ann("a1", "r1", "1899"), ann("a2", "r1", "Rome"), updated_at="2026-11-27T10:00:00Z"),
                  rec("r2", ann("a3", "r2", "midnight"), updated_at="2026-11-27T10:00:00Z"))
    # day 2: a1 edited, a2 deleted, a4 added on r1; r2 not touched again (still in the export, same version)
    day2 = export(tmp_path / "day2.json", tiny, "alice",
                  rec("r1", ann("a1", "r1", "1899", note="edited", updated_at="2026-11-28T10:00:00Z"),
                      ann("a4", "r1", "completed in 1899"), updated_at="2026-11-28T10:00:00Z"),
                  rec("r2", ann("a3", "r2", "midnight"), updated_at="2026-11-27T10:00:00Z"),
                  exported_at="2026-11-28T12:00:00Z")
    # day 3: r1 went back to in-progress, everything on it deleted
    day3 = export(tmp_path / "day3.json", tiny, "alice", rec("r1", status="in_progress",
                                                             updated_at="2026-11-29T08:00:00+01:00"))
    result = merge_files([day2, day1, day2], tiny)
    out = by_record(result)
    assert {a["id"]: a["note"] for a in out["r1"]["annotations"]} == {"a1": "edited", "a4": ""}
    assert [a["id"] for a in out["r2"]["annotations"]] == ["a3"]
    # read 2+1 (day1) + 3+3 (day2 twice) = 9: merged a1 a4 a3; a2 superseded; duplicates: a1 x2, a4, a3 x2
    assert vars(result.counts) == {"read": 9, "merged": 3, "duplicate": 5, "superseded": 1, "rejected": 0}
    assert result.exit_code == 0
    result = merge_files([day1, day2, day3], tiny)
    out = by_record(result)
    assert out["r1"]["annotations"] == []  # deletes stay deleted
    assert out["r1"]["responses"] == [{"annotator": "alice", "status": "in_progress",
                                       "updated_at": "2026-11-29T08:00:00+01:00"}]
    assert result.agreement["annotators"][0]["judged"] == 1  # r2 only: r1 is in progress


def test_two_clients(tiny, tmp_path):
    laptop = export(tmp_path / "laptop.json", tiny, "alice",
                    rec("r1", ann("a1", "r1", "1899"), updated_at="2026-11-28T10:00:00Z"),
                    rec("r3", updated_at="2026-11-28T10:00:00Z"), client="laptop")
    desktop = export(tmp_path / "desktop.json", tiny, " alice ",
                     rec("r1", ann("a9", "r1", "Rome"), updated_at="2026-11-29T10:00:00Z"),
                     rec("r2", ann("a8", "r2", "midnight"), updated_at="2026-11-29T10:00:00Z"), client="desktop")
    result = merge_files([laptop, desktop], tiny)
    out = by_record(result)
    assert [a["id"] for a in out["r1"]["annotations"]] == ["a9"]  # newest version of r1 (desktop)
    assert [a["id"] for a in out["r2"]["annotations"]] == ["a8"]
    assert [r["annotator"] for r in out["r3"]["responses"]] == ["alice"]  # laptop-only record kept
    notes = "\n".join(result.notes)
    assert "annotator 'alice' exported from 2 browsers (client ids desktop, laptop)" in notes
    assert "record r1" in notes and "laptop" in notes
    assert result.counts.superseded == 1 and result.exit_code == 0


def test_times_are_instants_and_a_future_one_is_clamped_and_noted(tiny, tmp_path):
    """"+09:00" 8 h before a Z time is older (as text it sorts after it); a version stamped 9999 (a wrong
    clock) counts as the merge's time, so it still wins over older ones but is named in a note."""
    tokyo = export(tmp_path / "tokyo.json", tiny, "alice",
                   rec("r1", ann("a1", "r1", "1899"), updated_at="2026-11-29T12:00:00+09:00"), client="tokyo")
    utc = export(tmp_path / "utc.json", tiny, "alice",
                 rec("r1", ann("a2", "r1", "Rome"), updated_at="2026-11-29T04:00:00.001Z"),
                 rec("r2", ann("a3", "r2", "midnight", updated_at="9999-01-01"), updated_at="9999-01-01"),
                 client="utc")
    result = merge_files([tokyo, utc], tiny)
    out = by_record(result)
    assert [a["id"] for a in out["r1"]["annotations"]] == ["a2"]  # 04:00:00.001Z is after 12:00+09:00 (03:00Z)
    assert [a["id"] for a in out["r2"]["annotations"]] == ["a3"]
    notes = "\n".join(result.notes)
    assert "2 time(s) are in the future (a computer with a wrong clock?), e.g. utc.json, record r2 '9999-01-01'" \
        in notes and result.exit_code == 0


def flat_dump(path: Path, samples: list[dict]) -> Path:
    path.write_text(json.dumps({"samples": samples}, ensure_ascii=False), encoding="utf-8")
    return path


def flat(annot_id, annotator, record_id, summary, source=None, label=INTRINSIC):
    s = span(record_id, "summary", summary)
    src = span(record_id, "source", source) if source else {"start": None, "end": None, "text": None}
    return {"annot_id": annot_id, "annotator_id": annotator.upper(), "annotator_name": annotator,
            "label": list(label), "note": "n", "summary_span": s["text"], "summary_start": s["start"],
            "summary_end": s["end"], "source_span": src["text"], "source_start": src["start"],
            "source_end": src["end"]}


def test_mercury_dump_input(tiny, tmp_path):
    r1, r2 = TEXTS["r1"], TEXTS["r2"]
    dump = flat_dump(tmp_path / "batch.json", [
        {"sample_id": "r1", **{k: r1[k] for k in ("source", "summary")}, "metadata": {},
         "annotations": [flat(1, "forrest", "r1", "1899", "1889"), flat(2, "renyi", "r1", "1899")]},
        {"sample_id": 7, "source": r2["source"], "summary": r2["summary"],  # id unknown: matched by texts
         "annotations": [flat(1, "forrest", "r2", "midnight", label=["Benign"])]},
        {"sample_id": "r3", "source": "another text", "summary": "Nothing happened.",
         "annotations": [flat(5, "renyi", "r3", "Nothing")]},
    ])
    # the original Mercury dump: nested spans, a string label, no ids
    nested = tmp_path / "mercury.json"
    nested.write_text(json.dumps([{"source": r1["source"], "summary": r1["summary"], "annotations": [
        {"source": None, "summary": span("r1", "summary", "Rome"), "label": "Unwanted.Extrinsic",
         "annotator": "old"}]}]), encoding="utf-8")
    page = export(tmp_path / "alice.json", tiny, "alice", rec("r1"), rec("r2"))
    result = merge_files([dump, nested, page], tiny)
    assert [str(p) for p in result.problems] == [
        f"{dump}: sample r3: field 'sample_id': its source/summary differ from the bundle record's texts"]
    assert vars(result.counts) == {"read": 5, "merged": 4, "duplicate": 0, "superseded": 0, "rejected": 1}
    out = by_record(result)
    assert [a["annotator"] for a in out["r1"]["annotations"]] == ["forrest", "renyi", "old"]
    old = next(a for a in out["r1"]["annotations"] if a["annotator"] == "old")
    assert old["label"] == ["Unwanted", "Unwanted.Extrinsic"] and old["id"].startswith("m")
    forrest = next(a for a in out["r1"]["annotations"] if a["annotator"] == "forrest")
    assert forrest["source"] == span("r1", "source", "1889") and forrest["id"] == "1"
    assert [a["id"] for a in out["r2"]["annotations"]] == ["1"]
    # judges: dump annotators that annotated + alice (submitted, no spans)
    assert result.agreement["records"]["judged_by_2_or_more"] == 2
    r1_pairs = {(p["a"], p["b"]) for p in result.agreement["pairwise"]}
    assert ("alice", "forrest") in r1_pairs and ("forrest", "renyi") in r1_pairs


def test_a_dump_annotators_spelling_is_the_key_that_names_them(tiny, tmp_path):
    """The spelling noted is the one of the key that names the annotator: an annotator_name of invisible
    characters only names nobody, so the next key's spelling (here NFC vs NFD of one name) counts."""
    r1 = TEXTS["r1"]
    invisible = {**flat(1, "x", "r1", "1899"), "annotator_name": "\u200b", "annotator_id": "Jos\u00e9"}
    decomposed = {**flat(2, "x", "r1", "Rome"), "annotator_name": "Jose\u0301", "annotator_id": None}
    dump = flat_dump(tmp_path / "batch.json", [{"sample_id": "r1", **{k: r1[k] for k in ("source", "summary")},
                                                "annotations": [invisible, decomposed]}])
    result = merge_files([dump], tiny)
    assert [a["annotator"] for a in by_record(result)["r1"]["annotations"]] == ["Jos\u00e9", "Jos\u00e9"]
    assert any("'Jose\\u0301', 'Jos\\xe9' are one annotator 'Jos\u00e9'" in n for n in result.notes), result.notes


def test_formats_round_trip(tiny, tmp_path):
    a = export(tmp_path / "alice.json", tiny, "alice",
               rec("r1", ann("a1", "r1", "1899", "1889"), ann("a2", "r1", "Rome")), rec("r2"))
    default = merge_files([a], tiny)
    lines = merge_files([a], tiny, fmt="jsonl").output.decode().splitlines()
    assert [json.loads(line) for line in lines] == default.records
    mercury = json.loads(merge_files([a], tiny, fmt="mercury").output)
    sample = mercury["samples"][0]
    assert sample["sample_id"] == "r1" and sample["source"] == TEXTS["r1"]["source"]
    first = sample["annotations"][0]
    assert first["summary_span"] == TEXTS["r1"]["summary"][first["summary_start"]:first["summary_end"]]
    assert {x["source_span"] for x in sample["annotations"]} == {"1889", None}
    # both outputs read back as Mercury dumps and give the same annotations again
    keys = ("id", "annotator", "label", "note", "summary", "source")
    for fmt in ("mercury", "mercury-static"):
        out = tmp_path / f"merged-{fmt}.json"
        out.write_bytes(merge_files([a], tiny, fmt=fmt).output)
        again = merge_files([out], tiny)
        assert again.exit_code == 0
        assert [[{k: x[k] for k in keys} for x in r["annotations"]] for r in again.records] == [
            [{k: x[k] for k in keys} for x in r["annotations"]] for r in default.records]
    assert again.records == default.records  # the default output (with responses) is a lossless input


def test_cli_exit_codes(tiny, tmp_path):
    good = export(tmp_path / "alice.json", tiny, "alice", rec("r1", ann("a1", "r1", "1899")))
    bad = export(tmp_path / "bad.json", tiny, "bob", rec("r1", ann("b1", "r1", "Rome", label=["Nope"])))
    runner = CliRunner()
    out, report = tmp_path / "merged.json", tmp_path / "report.json"
    args = ["merge", str(good), "--bundle", str(tiny.dir), "-o", str(out), "--report", str(report)]
    run = runner.invoke(app, args)
    assert run.exit_code == 0, run.output
    assert json.loads(out.read_text())[0]["annotations"][0]["id"] == "a1"
    assert json.loads(report.read_text())["counts"]["merged"] == 1
    run = runner.invoke(app, args + [str(bad)])
    assert run.exit_code == 1
    assert f"{bad}: record r1, annotation b1: field 'label': unknown label 'Nope'" in run.output
    assert "Traceback" not in run.output
    out.unlink()
    run = runner.invoke(app, args + [str(bad), "--strict"])
    assert run.exit_code == 2 and not out.exists()
    run = runner.invoke(app, ["merge", str(good), "--bundle", str(tmp_path / "nope"), "-o", str(out)])
    assert run.exit_code == 2 and "Traceback" not in run.output


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.skipif(not (SHARED_DATA / "faithbench").is_dir(), reason="../shared/data/faithbench absent")
def test_faithbench_agreement(build_bundle, tmp_path):
    files = sorted((SHARED_DATA / "faithbench").glob("batch_*.json"))
    bundle = build_bundle(files, name="faithbench-merge")
    result = merge_files(files, bundle)
    counts, agreement = result.counts, result.agreement
    print("\nFaithBench merge:", vars(counts))
    print("records:", agreement["records"], "overall:", agreement["overall"])
    for p in agreement["pairwise"]:
        print(f"  {p['a']:>12} × {p['b']:<12} n={p['records']:3d} char-F1={p['char_f1']} "
              f"exact-F1={p['exact_f1']} kappa={p['kappa']}")
    for problem in result.problems:
        print("  skipped:", problem)
    assert counts.read == counts.merged + counts.rejected and counts.merged > 1000
    assert all("field 'label'" in str(p) for p in result.problems)  # two annotations without a label
    assert agreement["records"]["judged_by_2_or_more"] > 100
    assert 0 < agreement["overall"]["char_f1"] < 1 and -1 < agreement["overall"]["alpha"] < 1


@pytest.mark.browser
def test_page_exports_round_trip(browser, bundle_server, demo_bundle, tmp_path):
    """Two annotators in real Chromium → Export → merge: spans slice the bundle texts (emoji, 𝔘), a
    deletion between two exports stays deleted, both annotators are judges of the shared record."""
    from test_page import block_model

    def session(annotator: str):
        ctx = browser.new_context(accept_downloads=True)
        page = ctx.new_page()
        block_model(page)
        return ctx, open_page(page, bundle_server, "space-exhibit", annotator=annotator)

    ctx_a, alice = session("alice")
    annotate(alice, "𝔘-shaped sleeping bag", "3", source="𝔘-shaped sleeping bag used by astronauts")
    alice.keyboard.press("s")  # submit space-exhibit
    wait_left(alice, 'space-exhibit')
    open_page(alice, bundle_server, "harbor-lighthouse", annotator="alice")
    annotate(alice, "3.2 million euros", "3", note="source says 2.3", source="2.3 million euros")
    first = export_file(alice, tmp_path / "a1")
    (deleted,) = own_annotations(alice, "harbor-lighthouse")
    alice.locator(f'#annotations li[data-annotation="{deleted["id"]}"] [data-action="delete"]').click()
    alice.keyboard.press("s")
    second = export_file(alice, tmp_path / "a2")
    ctx_a.close()

    ctx_b, bob = session("bob")
    annotate(bob, "𝔘-shaped sleeping bag", "4")
    bob.keyboard.press("s")
    wait_left(bob, 'space-exhibit')
    third = export_file(bob, tmp_path / "b1")
    ctx_b.close()

    paths = []
    for name, doc in (("alice-1", first), ("alice-2", second), ("bob", third)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    result = merge_files(paths, demo_bundle)
    assert result.exit_code == 0, [str(p) for p in result.problems]
    out = by_record(result)
    space = out["space-exhibit"]
    assert sorted((a["annotator"], a["summary"]["text"]) for a in space["annotations"]) == [
        ("alice", "𝔘-shaped sleeping bag"), ("bob", "𝔘-shaped sleeping bag")]
    for record in result.records:
        for a in record["annotations"]:
            assert record["summary"][a["summary"]["start"]:a["summary"]["end"]] == a["summary"]["text"]
            if a["source"]:
                assert record["source"][a["source"]["start"]:a["source"]["end"]] == a["source"]["text"]
    assert out["harbor-lighthouse"]["annotations"] == []  # deleted before the second export
    assert {r["annotator"]: r["status"] for r in out["harbor-lighthouse"]["responses"]} == {"alice": "submitted"}
    assert result.counts.superseded == 1
    (pair,) = result.agreement["pairwise"]
    assert (pair["a"], pair["b"], pair["records"], pair["exact_f1"]) == ("alice", "bob", 1, 1.0)
