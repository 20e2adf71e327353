"""`merge` of export version 4: sentence verdicts checked against a real bundle, merged, carried into every
output format, their agreement figured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from schema_lite import errors

from mercury_static.bundle.contents import load_bundle
from mercury_static.merge.pipeline import merge_files

DOCS = Path(__file__).resolve().parent.parent / "docs"
MERGED_SCHEMA = json.loads((DOCS / "merged.schema.json").read_text(encoding="utf-8"))
RECORDS = [
    {"id": "r1", "source": "The Eiffel Tower is in Paris. It was completed in 1889. It is made of iron.",
     "summary": "The Eiffel Tower is in Rome. It was completed in 1889. It is iron."},
    {"id": "r2", "source": "Alice met Bob at noon. They had lunch. Then they left.",
     "summary": "Alice met Bob at midnight. They had dinner."},
    {"id": "r3", "source": "Nothing happened today. The sky was blue.", "summary": "Nothing happened."},
]
TEXTS = {r["id"]: r for r in RECORDS}
SETTINGS = """\
questions:
  - {name: spans, type: span, title: Spans}
  - name: verdict
    type: label
    title: Verdict
    options: [consistent, hallucinated]
sentence_verdicts: shown
"""
INTRINSIC = ["Unwanted", "Unwanted.Intrinsic"]
EXTRINSIC = ["Unwanted", "Unwanted.Extrinsic"]


def build(build_bundle, folder: Path, name: str, settings: str | None) -> Path:
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    options = {}
    if settings is not None:
        (folder / "settings.yaml").write_text(settings, encoding="utf-8")
        options["settings"] = folder / "settings.yaml"
    return build_bundle([data], name=name, id_field="id", **options)


@pytest.fixture(scope="module")
def judged(build_bundle, tmp_path_factory):
    """A real bundle whose settings ask a verdict per summary sentence (defaults: supported, unsupported,
    unverifiable; supported carries evidence; a flagged sentence counts as unsupported)."""
    return load_bundle(build(build_bundle, tmp_path_factory.mktemp("judged"), "judged", SETTINGS))


@pytest.fixture(scope="module")
def plain(build_bundle, tmp_path_factory):
    """The same records without settings: no sentence verdicts asked."""
    return load_bundle(build(build_bundle, tmp_path_factory.mktemp("plain"), "plain", None))


def cut(bundle, record_id: str, side: str) -> list[str]:
    record = bundle.record(record_id)
    stored = record.summary_text if side == "summary" else record.source_text
    return [stored.text[s:e] for s, e in stored.sentences]


def span(record_id: str, side: str, quoted: str) -> dict:
    text = TEXTS[record_id][side]
    start = text.index(quoted)
    return {"start": start, "end": start + len(quoted), "text": quoted}


def ann(ident: str, record_id: str, summary: str, label=INTRINSIC) -> dict:
    return {"id": ident, "label": list(label), "note": "", "summary": span(record_id, "summary", summary),
            "source": None, "created_at": "2026-12-06T09:00:00Z", "updated_at": "2026-12-06T10:00:00Z"}


def sv(index: int, verdict: str, evidence=None, at="2026-12-06T14:10:00.000Z", ms: int | None = 5400) -> dict:
    out: dict = {"index": index, "verdict": verdict}
    if evidence is not None:
        out["evidence"] = list(evidence)
    out["updated_at"] = at
    if ms is not None:
        out["elapsed_ms"] = ms
    return out


def rec(record_id: str, *annotations, sentences=None, responses=None, status="submitted",
        updated_at="2026-12-06T15:00:00Z") -> dict:
    out = {"record_id": record_id, "status": status, "updated_at": updated_at, "annotations": list(annotations)}
    if responses is not None:
        out["responses"] = responses
    if sentences is not None:
        out["sentences"] = list(sentences)
    return out


def export(path: Path, bundle, annotator: str, *records, version: int = 4) -> Path:
    doc = {"format": "mercury-static/annotations", "version": version, "bundle_id": bundle.manifest["bundle_id"],
           "title": "t", "annotator": annotator, "client_id": f"c-{annotator}", "exported_at": "2026-12-06T16:00:00Z",
           "tool_version": "0.1.0", "records": list(records)}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def test_sentence_cut(judged):
    """The cases below rely on this cut of the texts."""
    assert cut(judged, "r1", "summary") == ["The Eiffel Tower is in Rome.", "It was completed in 1889.", "It is iron."]
    assert cut(judged, "r1", "source") == ["The Eiffel Tower is in Paris.", "It was completed in 1889.",
                                           "It is made of iron."]
    assert judged.settings.sentence_verdicts is not None


def test_v4_keeps_every_verdict_and_evidence(judged, tmp_path):
    a = export(tmp_path / "alice.json", judged, "alice",
               rec("r1", ann("a1", "r1", "Rome"), sentences=[sv(0, "unsupported"), sv(1, "supported", [1]),
                                                              sv(2, "supported", [2, 0], ms=None)]),
               rec("r2", sentences=[sv(1, "unverifiable")]))
    b = export(tmp_path / "bob.json", judged, "bob",
               rec("r1", sentences=[sv(1, "supported", []), sv(2, "unsupported")]))
    result = merge_files([a, b], judged)
    assert not result.problems, result.problems
    r1, r2, r3 = result.records
    summary, source = cut(judged, "r1", "summary"), cut(judged, "r1", "source")
    text = TEXTS["r1"]["summary"]
    s1 = text.index(summary[1])
    assert r1["sentences"][1] == {
        "annotator": "alice", "sentence": 1, "summary": {"start": s1, "end": s1 + len(summary[1]), "text": summary[1]},
        "verdict": "supported",
        "evidence": [{"sentence": 1, "start": TEXTS["r1"]["source"].index(source[1]),
                      "end": TEXTS["r1"]["source"].index(source[1]) + len(source[1]), "text": source[1]}],
        "updated_at": "2026-12-06T14:10:00.000Z", "elapsed_ms": 5400}
    assert [(x["sentence"], x["annotator"], x["verdict"], [e["sentence"] for e in x.get("evidence", [])])
            for x in r1["sentences"]] == [(0, "alice", "unsupported", []), (1, "alice", "supported", [1]),
                                          (1, "bob", "supported", []), (2, "alice", "supported", [2, 0]),
                                          (2, "bob", "unsupported", [])]
    assert "evidence" not in r1["sentences"][0] and "elapsed_ms" not in r1["sentences"][3]
    assert [x["verdict"] for x in r2["sentences"]] == ["unverifiable"]
    assert "sentences" not in r3
    for record in result.records:  # every offset slices the bundle's texts
        for x in record.get("sentences", []):
            assert record["summary"][x["summary"]["start"]:x["summary"]["end"]] == x["summary"]["text"]
            for e in x.get("evidence", []):
                assert record["source"][e["start"]:e["end"]] == e["text"]
    assert errors(result.records, MERGED_SCHEMA) == []
    # the merged file, and the flat dump, merge again to the same records
    again = tmp_path / "merged.json"
    again.write_bytes(result.output)
    assert merge_files([again], judged).records == result.records
    flat = tmp_path / "flat.json"
    flat.write_bytes(merge_files([a, b], judged, fmt="mercury").output)
    assert [r.get("sentences") for r in merge_files([flat], judged).records] == \
        [r.get("sentences") for r in result.records]


def test_newest_version_wins_with_its_verdicts(judged, tmp_path):
    old = export(tmp_path / "old.json", judged, "alice",
                 rec("r1", sentences=[sv(0, "supported", [0])], updated_at="2026-12-06T10:00:00Z"))
    new = export(tmp_path / "new.json", judged, "alice",
                 rec("r1", sentences=[sv(1, "unverifiable")], updated_at="2026-12-06T11:00:00Z"))
    (r1, _, _) = merge_files([new, old], judged).records
    assert [(x["sentence"], x["verdict"]) for x in r1["sentences"]] == [(1, "unverifiable")]


@pytest.mark.parametrize("version", [1, 2, 3])
def test_older_versions_merge_without_sentences(judged, tmp_path, version):
    a = export(tmp_path / "alice.json", judged, "alice", rec("r1", ann("a1", "r1", "Rome")), version=version)
    result = merge_files([a], judged)
    assert not result.problems and all("sentences" not in r for r in result.records)
    assert result.records[0]["annotations"][0]["id"] == "a1"


BAD = {
    "index out of the cut": (sv(3, "supported", [0]), "field 'sentences[0].index': sentence 3 is not a sentence of "
                                                      "the summary (it has 3, 0 to 2)"),
    "index not a number": (sv("1", "supported"), "field 'sentences[0].index': expected a sentence index "
                                                  "(a whole number), got '1'"),  # type: ignore[arg-type]
    "verdict not an option": (sv(1, "maybe"), "field 'sentences[0].verdict': 'maybe' is not one of supported, "
                                              "unsupported, unverifiable"),
    "evidence out of the source": (sv(1, "supported", [1, 7]), "field 'sentences[0].evidence[1]': sentence 7 is not "
                                                               "a sentence of the source (it has 3, 0 to 2)"),
    "evidence on a verdict without": (sv(1, "unsupported", [1]), "field 'sentences[0].evidence': the verdict "
                                                                  "'unsupported' carries no evidence (only supported)"),
    "evidence twice": (sv(1, "supported", [1, 1]), "field 'sentences[0].evidence[1]': source sentence 1 is listed "
                                                   "twice"),
    "bad time": (sv(1, "supported", [1], at="yesterday"), "field 'sentences[0].updated_at': 'yesterday' is not an "
                                                          "ISO-8601 time"),
    "no time": (sv(1, "supported", [1], at=None), "field 'sentences[0].updated_at': missing"),  # type: ignore[arg-type]
    "bad elapsed": (sv(1, "supported", [1], ms=-5), "field 'sentences[0].elapsed_ms': expected a whole number of "
                                                    "milliseconds from 0 to 86400000 (a day), got -5"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_verdict_drops_only_itself(judged, tmp_path, case):
    bad, line = BAD[case]
    a = export(tmp_path / "alice.json", judged, "alice",
               rec("r1", ann("a1", "r1", "Rome"), sentences=[bad, sv(2, "unverifiable")]))
    result = merge_files([a], judged)
    assert [str(p) for p in result.problems] == [f"{a}: record r1: {line}"]
    r1 = result.records[0]
    assert [x["sentence"] for x in r1["sentences"]] == [2] and r1["annotations"][0]["id"] == "a1"
    assert result.answers_dropped == 1 and result.exit_code == 1


def test_repeated_index_refused(judged, tmp_path):
    a = export(tmp_path / "alice.json", judged, "alice",
               rec("r1", sentences=[sv(1, "supported", [1]), sv(1, "unsupported")]))
    result = merge_files([a], judged)
    assert [str(p) for p in result.problems] == [
        f"{a}: record r1: field 'sentences[1].index': sentence 1 is judged twice (also sentences[0], which is kept)"]
    assert [x["verdict"] for x in result.records[0]["sentences"]] == ["supported"]


def test_verdicts_on_a_bundle_without_them(plain, tmp_path):
    a = export(tmp_path / "alice.json", plain, "alice", rec("r1", ann("a1", "r1", "Rome"),
                                                            sentences=[sv(1, "supported", [1])]))
    result = merge_files([a], plain)
    assert [str(p) for p in result.problems] == [
        f"{a}: record r1: field 'sentences': 1 sentence verdict(s), but this bundle asks none (its settings have "
        "no sentence_verdicts)"]
    assert "sentences" not in result.records[0] and result.records[0]["annotations"]


def test_bad_verdict_in_a_merged_file(judged, tmp_path):
    a = export(tmp_path / "alice.json", judged, "alice", rec("r1", sentences=[sv(1, "supported", [1])]))
    merged = json.loads(merge_files([a], judged).output)
    merged[0]["sentences"][0]["summary"]["start"] += 1
    path = tmp_path / "merged.json"
    path.write_text(json.dumps(merged), encoding="utf-8")
    result = merge_files([path], judged)
    assert len(result.problems) == 1 and "sample r1: field 'sentences[0].summary': expected the bundle's " \
        "sentence" in str(result.problems[0])
    assert "sentences" not in result.records[0]


def two_annotators(bundle, folder: Path) -> list[Path]:
    """alice and bob on r1 (bob: a span on sentence 0, no verdict there) and r2 (alice only)."""
    a = export(folder / "alice.json", bundle, "alice",
               rec("r1", ann("a1", "r1", "Rome"), sentences=[sv(0, "unsupported"), sv(1, "supported", [1]),
                                                              sv(2, "supported", [2, 0])]),
               rec("r2", sentences=[sv(1, "unverifiable")]))
    b = export(folder / "bob.json", bundle, "bob",
               rec("r1", ann("b1", "r1", "Rome", EXTRINSIC), sentences=[sv(1, "supported", [1]), sv(2, "unsupported")]),
               rec("r3", status="in_progress", sentences=[sv(0, "supported", [0])]))
    return [a, b]


def test_every_format_carries_the_verdicts(judged, tmp_path):
    from test_write_argilla import argilla_reads, merge_argilla
    from mercury_static.merge.write_argilla import user_id

    files = two_annotators(judged, tmp_path)
    result = merge_files(files, judged)
    assert not result.problems, result.problems
    # jsonl: the same records; mercury: a flat per-sample list
    assert [json.loads(x) for x in merge_files(files, judged, fmt="jsonl").output.splitlines()] == result.records
    samples = json.loads(merge_files(files, judged, fmt="mercury").output)["samples"]
    flat = samples[0]["sentence_verdicts"]
    assert [(x["annotator"], x["sentence"], x["verdict"]) for x in flat] == [
        ("alice", 0, "unsupported"), ("alice", 1, "supported"), ("bob", 1, "supported"), ("alice", 2, "supported"),
        ("bob", 2, "unsupported")]
    assert list(flat[1]) == ["annotator", "sentence", "summary_start", "summary_end", "summary_span", "verdict",
                             "evidence", "updated_at", "elapsed_ms"]
    assert flat[1]["summary_span"] == "It was completed in 1889." and flat[1]["evidence"][0]["sentence"] == 1
    assert [x["annotator"] for x in samples[2]["sentence_verdicts"]] == ["bob"]  # a draft keeps its verdicts
    # argilla, read by argilla's own classes
    out = merge_argilla(tmp_path, judged, *files)
    doc = argilla_reads(out)
    assert doc["span_questions"]["sentence_verdicts"] == ["summary", ["supported", "unsupported", "unverifiable"],
                                                          False]
    field, labels, overlapping = doc["span_questions"]["sentence_evidence"]
    assert field == "source" and labels == ["sentence-0", "sentence-1", "sentence-2"] and overlapping
    r1 = doc["records"][0]["answers"]
    summary, source = TEXTS["r1"]["summary"], TEXTS["r1"]["source"]

    def at(text, part, label):
        return {"start": text.index(part), "end": text.index(part) + len(part), "label": label}
    assert r1[f"sentence_verdicts {user_id('alice')}"] == [
        at(summary, "The Eiffel Tower is in Rome.", "unsupported"), at(summary, "It was completed in 1889.", "supported"),
        at(summary, "It is iron.", "supported")]
    assert r1[f"sentence_evidence {user_id('alice')}"] == [
        at(source, "The Eiffel Tower is in Paris.", "sentence-2"), at(source, "It was completed in 1889.", "sentence-1"),
        at(source, "It is made of iron.", "sentence-2")]
    assert r1[f"sentence_verdicts {user_id('bob')}"][1] == at(summary, "It is iron.", "unsupported")
    # sentences: one row per summary sentence and submitter, read by pandas
    import pandas

    table = tmp_path / "sentences.csv"
    table.write_bytes(merge_files(files, judged, fmt="sentences").output)
    frame = pandas.read_csv(table, keep_default_na=False)
    assert list(frame.columns) == ["record_id", "sentence", "start", "end", "text", "annotator", "status", "verdict",
                                   "given", "evidence", "evidence_text", "labels", "updated_at"]
    rows = [tuple(x) for x in frame[["record_id", "sentence", "annotator", "verdict", "given", "evidence",
                                     "labels"]].itertuples(index=False)]
    assert rows == [("r1", 0, "alice", "unsupported", True, "", "Unwanted.Intrinsic"),
                    ("r1", 0, "bob", "unsupported", False, "", "Unwanted.Extrinsic"),  # flagged: a span, no verdict
                    ("r1", 1, "alice", "supported", True, "1", ""), ("r1", 1, "bob", "supported", True, "1", ""),
                    ("r1", 2, "alice", "supported", True, "2 0", ""), ("r1", 2, "bob", "unsupported", True, "", ""),
                    ("r2", 0, "alice", "not checked", False, "", ""), ("r2", 1, "alice", "unverifiable", True, "", "")]
    assert frame["given"].dtype == bool
    third = frame.iloc[4]
    assert third["evidence_text"] == "It is made of iron.\nThe Eiffel Tower is in Paris."
    assert TEXTS["r1"]["summary"][third["start"]:third["end"]] == third["text"] == "It is iron."
    assert third["updated_at"] == "2026-12-06T14:10:00.000Z" and frame.iloc[1]["updated_at"] == ""


def test_kappa_and_evidence_f1_by_hand(judged, tmp_path):
    """alice, bob (a span on sentence 0: flagged, so unsupported) and carol (sentence 0 not checked) on r1."""
    files = two_annotators(judged, tmp_path)
    files.append(export(tmp_path / "carol.json", judged, "carol",
                        rec("r1", sentences=[sv(1, "supported", [2]), sv(2, "supported", [2])])))
    result = merge_files(files, judged)
    assert not result.problems, result.problems
    s = result.report()["sentences"]
    assert s["verdicts"] == ["supported", "unsupported", "unverifiable", "not checked"]
    assert s["annotators"] == [
        {"annotator": "alice", "sentences": 5, "judged": 4, "flagged": 0, "not_checked": 1,
         "verdicts": {"supported": 2, "unsupported": 1, "unverifiable": 1, "not checked": 1}},
        {"annotator": "bob", "sentences": 3, "judged": 2, "flagged": 1, "not_checked": 0,
         "verdicts": {"supported": 1, "unsupported": 2, "unverifiable": 0, "not checked": 0}},
        {"annotator": "carol", "sentences": 3, "judged": 2, "flagged": 0, "not_checked": 1,
         "verdicts": {"supported": 2, "unsupported": 0, "unverifiable": 0, "not checked": 1}}]
    assert s["distribution"] == {"supported": 5, "unsupported": 3, "unverifiable": 1, "not checked": 2}
    assert (s["records"], s["sentences"], s["pairable"]) == (1, 3, 3)
    # units [U, U], [S, S, S], [S, U, S]: o_SS 4, o_UU 2, o_SU = o_US 1; n = 8; alpha = 1 - 7 * 2 / (2 * 5 * 3)
    assert s["alpha"] == round(1 - 7 * 2 / 30, 4)
    # alice-bob: (U,U), (S,S), (S,U): p_o 2/3, p_e (2·1 + 1·2) / 9; alice-carol all S: undefined; bob-carol: 0
    pairs = {(p["a"], p["b"]): p for p in s["pairwise"]}
    assert pairs["alice", "bob"]["kappa"] == 0.4 and pairs["alice", "bob"]["sentences"] == 3
    assert pairs["alice", "carol"]["kappa"] is None and pairs["alice", "carol"]["kappa_ci"] is None
    assert pairs["alice", "carol"]["observed_agreement"] == 1.0
    assert pairs["bob", "carol"]["kappa"] == 0.0 and pairs["bob", "carol"]["observed_agreement"] == 0.5
    # evidence: sentence 1 {1} {1} {2}: 1, 0, 0; sentence 2 alice {2, 0}, carol {2}: 2/3; mean of four pairs
    assert s["evidence"] == {"sentences": 2, "pairs": 4, "f1": round((1 + 0 + 0 + 2 / 3) / 4, 4),
                             "f1_ci": s["evidence"]["f1_ci"]}
    low, high = s["evidence"]["f1_ci"]
    assert 0 <= low <= high <= 1 and s["alpha_ci"] is not None


def test_evidence_nobody_gave_is_no_figure_and_one_side_empty_scores_zero(judged, tmp_path):
    """Two annotators confirming without evidence (a dataset judged without it) have nothing to compare: no
    evidence figure, never a perfect one; evidence on one side only is a pair that disagrees."""
    files = [export(tmp_path / "a.json", judged, "alice", rec("r1", sentences=[sv(1, "supported", [])])),
             export(tmp_path / "b.json", judged, "bob", rec("r1", sentences=[sv(1, "supported", [])]))]
    evidence = merge_files(files, judged).report()["sentences"]["evidence"]
    assert evidence == {"sentences": 0, "pairs": 0, "f1": None, "f1_ci": None}
    files.append(export(tmp_path / "c.json", judged, "carol", rec("r1", sentences=[sv(1, "supported", [2])])))
    evidence = merge_files(files, judged).report()["sentences"]["evidence"]
    assert (evidence["sentences"], evidence["pairs"], evidence["f1"]) == (1, 2, 0.0)


def test_alpha_matches_the_krippendorff_package(build_bundle, tmp_path):
    """Four annotators, random verdicts, spans and sentences left unchecked, on 15 records: merge's alpha is the
    `krippendorff` package's on the same effective verdicts."""
    import random

    import krippendorff
    import numpy as np

    rng = random.Random(7)
    records = []
    for i in range(15):
        sentences = [f"Record {i} says thing {k} happened." for k in range(rng.randint(2, 4))]
        records.append({"id": f"g{i}", "source": " ".join(f"Fact {k} of record {i}." for k in range(4)),
                        "summary": " ".join(sentences)})
    folder = tmp_path / "gen"
    folder.mkdir()
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (folder / "settings.yaml").write_text(SETTINGS, encoding="utf-8")
    bundle = load_bundle(build_bundle([folder / "data.jsonl"], name="generated", id_field="id",
                                      settings=folder / "settings.yaml"))
    values = ["supported", "unsupported", "unverifiable"]
    annotators = ["ann", "ben", "cat", "dan"]
    units = [(r["id"], k) for r in records for k in range(len(bundle.record(r["id"]).summary_text.sentences))]
    matrix = np.full((len(annotators), len(units)), np.nan)
    files = []
    for a, name in enumerate(annotators):
        entries = []
        for r in records:
            if rng.random() < 0.2:  # this annotator never saw the record
                continue
            b = bundle.record(r["id"])
            given, spans = [], []
            for k, (start, _end) in enumerate(b.summary_text.sentences):
                roll = rng.random()
                column = units.index((r["id"], k))
                if roll < 0.6:
                    v = rng.choice(values)
                    given.append(sv(k, v, [rng.randrange(4)] if v == "supported" else None))
                    matrix[a, column] = values.index(v)
                elif roll < 0.75:  # a span, no verdict: flagged, counts as unsupported
                    spans.append({"id": f"{name}-{r['id']}-{k}", "label": INTRINSIC, "note": "", "source": None,
                                  "summary": {"start": start, "end": start + 6, "text": b.summary[start:start + 6]},
                                  "created_at": None, "updated_at": "2026-12-06T10:00:00Z"})
                    matrix[a, column] = values.index("unsupported")
            entries.append(rec(r["id"], *spans, sentences=given))
        files.append(export(tmp_path / f"{name}.json", bundle, name, *entries))
    result = merge_files(files, bundle)
    assert not result.problems, result.problems
    mine = result.report()["sentences"]["alpha"]
    theirs = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert mine is not None and round(mine, 3) == round(float(theirs), 3)
    assert result.report()["sentences"]["pairable"] > 20


def test_one_adjudication_order(judged, tmp_path):
    """The printout, report.html's table and the review bundle list the records in one order: r2, where alice and
    bob mark the same words Intrinsic and Extrinsic (and answer and judge its sentences apart), comes first,
    though its character F1 is perfect; r1 (spans that partly overlap) next; r3 (agreement) not at all."""
    from typer.testing import CliRunner

    from mercury_static.cli import app
    from mercury_static.report.sections import sections
    from mercury_static.review.write_bundle import review_bundle

    a = export(tmp_path / "alice.json", judged, "alice",
               rec("r1", ann("a1", "r1", "in Rome"), responses={"verdict": "hallucinated"}),
               rec("r2", ann("a2", "r2", "midnight"), responses={"verdict": "hallucinated"},
                   sentences=[sv(0, "unsupported"), sv(1, "supported", [1])]),
               rec("r3", responses={"verdict": "consistent"}))
    b = export(tmp_path / "bob.json", judged, "bob",
               rec("r1", ann("b1", "r1", "Tower is in Rome"), responses={"verdict": "hallucinated"}),
               rec("r2", ann("b2", "r2", "midnight", EXTRINSIC), responses={"verdict": "consistent"},
                   sentences=[sv(0, "unsupported"), sv(1, "unsupported")]),
               rec("r3", responses={"verdict": "consistent"}))
    result = merge_files([a, b], judged)
    assert not result.problems, result.problems
    listed = [c["record_id"] for c in result.report()["adjudication"]]
    assert listed == ["r2", "r1"]  # r2: spans 1 (label apart), verdict apart, 1 of 2 sentences apart
    assert result.report()["adjudication"][0]["score"] == round((1 + 1 + 0.5) / 3, 4)
    # the printout
    out = tmp_path / "merged.json"
    run = CliRunner().invoke(app, ["merge", str(a), str(b), "--bundle", str(judged.dir), "-o", str(out)],
                             env={"COLUMNS": "300"})
    assert run.exit_code == 0, run.output
    table = run.output[run.output.index("Most disagreement"):]
    assert [x for x in ("r1", "r2", "r3") if f" {x} " in table] == ["r1", "r2"]
    assert table.index(" r2 ") < table.index(" r1 ")
    assert "Sentence verdict agreement" in run.output
    # report.html's table
    (adjudication,) = [t for s in sections(result.report_model(), "review/") for t in s.tables if t.key == "adjudication"]
    assert [row[0].text for row in adjudication.rows] == listed
    # the review bundle
    reviewed = tmp_path / "review"
    review_bundle([a, b], judged.dir, reviewed)
    rows = json.loads((reviewed / "data" / "review-order-0000.json").read_text(encoding="utf-8"))["rows"]
    assert [r["id"] for r in rows] == ["r2", "r1", "r3"] and rows[2]["score"] == 0


def test_report_section(judged, tmp_path):
    """report.html has a "Sentence verdicts" section: each chart with its table; a bundle without verdicts none."""
    from mercury_static.report.model import read_report
    from mercury_static.report.sections import sections

    result = merge_files(two_annotators(judged, tmp_path), judged)
    (section,) = [s for s in sections(result.report_model(), "review/") if s.key == "sentences"]
    assert section.title == "Sentence verdicts"
    tables = {c.table.key: c.table for c in section.charts}
    assert tables["sentences-annotators"].rows == [["alice", 5, 4, 0, 1], ["bob", 3, 2, 1, 0]]
    assert tables["sentences-verdicts"].rows == [["supported", 3], ["unsupported", 3], ["unverifiable", 1],
                                                 ["not checked", 1]]
    assert [row[0] for row in tables["sentences-agreement"].rows] == ["alpha (nominal)", "kappa alice / bob",
                                                                      "evidence F1"]
    assert tables["sentences-agreement"].rows[1][1] == 0.4
    from mercury_static.report.html import render_html

    page = render_html(result.report_model(), "review/", "round")  # the charts render (vl-convert)
    assert "Sentence verdicts" in page and page.count("<svg") >= 3
    plain = dict(result.report())
    del plain["sentences"]
    assert all(s.key != "sentences" for s in sections(read_report(plain), "review/"))


def test_a_sentence_judged_unsupported_flags_the_record_as_a_span_does(judged, tmp_path):
    """The record-level verdict (its κ, its α) of a round judged by sentences: alice's 'unsupported' sentence
    flags r1 as a span would, bob's support does not; the report says so."""
    files = [export(tmp_path / "a.json", judged, "alice", rec("r1", sentences=[sv(1, "unsupported")])),
             export(tmp_path / "b.json", judged, "bob", rec("r1", sentences=[sv(1, "supported", [1])]))]
    report = merge_files(files, judged).report()
    [pair] = report["pairwise"]
    assert (pair["records"], pair["observed_agreement"]) == (1, 0.0)
    assert report["verdict"].endswith("or a sentence judged 'unsupported'")
