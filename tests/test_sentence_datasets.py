"""Sentence-level datasets in: given sentence cuts, QAGS's layout (every worker's answer a prior sentence
verdict) and SummHay's coverage judgments (the evaluator's sentence suggestions), read and built."""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from mercury_static.pipeline.read_once import read_once
from mercury_static.bundle.contents import load_bundle
from mercury_static.core.records import InputError
from mercury_static.read.inputs import read_records
from mercury_static.read.sentences import check_cut
from mercury_static.settings.model import DATASET_VERDICTS, Settings
from mercury_static.settings.parse import parse_settings
from tests.test_read import summhay_topic

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


def qags_rows() -> list[dict]:
    """A QAGS-layout file: three workers a sentence, some disagreement, a worker answering one sentence
    twice, a response in other case and spacing, a sentence nobody answered, and a record with extra keys."""
    def r(*answers):
        return [{"worker_id": w, "response": a} for w, a in answers]

    return [
        {"article": "The council met on Monday. It approved the new park. Work starts in May.",
         "summary_sentences": [
             {"sentence": "The council approved a park.", "responses": r((0, "yes"), (1, "yes"), (2, "yes"))},
             {"sentence": "Work starts in June.", "responses": r((0, "no"), (1, "no"), (2, "yes"))}]},
        {"article": "Rain fell for three days. The river rose by two metres. No one was hurt.",
         "summary_sentences": [
             {"sentence": "The river rose.", "responses": r((0, "yes"), (1, "Yes "), (2, "yes"))},
             {"sentence": "  Two people were hurt. ", "responses": r((0, "no"), (1, "no"), (1, "yes"), (2, "no"))},
             {"sentence": "It rained for three days.", "responses": []}]},
        {"article": "The team won the final 3-1. Their striker scored twice.", "model": "bart", "split": "test",
         "summary_sentences": [
             {"sentence": "The team won 3-1.", "responses": r((3, "yes"), (4, "yes"), (5, "yes")),
              "annotated_by": "batch-2"},
             {"sentence": "The striker scored three goals.",
              "responses": [{"worker_id": 3, "response": "no", "seconds": 12}, {"worker_id": 4, "response": "no"},
                            {"worker_id": 5, "response": "yes"}]}]},
    ]


def raw_judgments(rows: list[dict]) -> int:
    return sum(len(s["responses"]) for row in rows for s in row["summary_sentences"])


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in rows), encoding="utf-8")
    return path


def cli(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-c", "from mercury_static.cli import app; app()", *map(str, args)],
                          capture_output=True, text=True, timeout=120, env=env)


# ---------------------------------------------------------------- given cuts

@pytest.mark.parametrize("cut, message", [
    ([[0, 3], [4, 8]], None),
    ("0-3", "field 'c': expected a non-empty list of [start, end] pairs, got string"),
    ([[0, 3], [3, 8]], "field 'c[1]': a sentence begins or ends with whitespace"),
    ([[0, 3]], "field 'c': text after the last sentence is in no sentence: 'efg.'"),
    ([[0, 3], [1, 8]], "field 'c[1]': [1, 8] is not a span after the previous one inside the text (8 characters)"),
    ([[0, 3], [5, 8]], "field 'c[1]': text before it is in no sentence: 'e'"),
    ([[0, True]], "field 'c[0]': expected [start, end], two integers"),
])
def test_a_given_cut_keeps_the_segmenters_promise(cut, message):
    if message is None:
        assert check_cut("Ab. efg.", cut, "f", "line 1", "c") == [(0, 3), (4, 8)]
        return
    with pytest.raises(InputError) as e:
        check_cut("Ab. efg.", cut, "f", "line 1", "c")
    assert str(e.value) == f"f: line 1: {message}"


# ---------------------------------------------------------------- QAGS

def test_qags_records_keep_every_judgment(tmp_path, caplog):
    rows = qags_rows()
    path = write_jsonl(tmp_path / "mturk_cnndm.jsonl", rows)
    with caplog.at_level(logging.WARNING, logger="mercury_static"):
        recs = read_records(path)
    assert "1 responses by a worker who had already answered that sentence" in caplog.text
    assert [r.id for r in recs] == ["0", "1", "2"]
    assert sum(len(r.prior_sentences) for r in recs) == raw_judgments(rows) == 19
    second = recs[1]
    assert second.summary == "The river rose. Two people were hurt. It rained for three days."
    assert [second.summary[s:e] for s, e in second.summary_sentences] == [
        "The river rose.", "Two people were hurt.", "It rained for three days."]
    assert second.source == rows[1]["article"] and second.verdict_scale == "qags"
    assert [(p["annotator"], p["verdict"]) for p in second.prior_sentences if p["sentence"] == 1] == [
        ("worker-0", "no"), ("worker-1", "no"), ("worker-1#2", "yes"), ("worker-2", "no")]
    assert {p["verdict"] for p in second.prior_sentences} == {"yes", "no"}  # "Yes " is yes
    third = recs[2]
    assert third.metadata == {"model": "bart", "split": "test",
                              "sentence_metadata": [{"annotated_by": "batch-2"}, {}]}
    assert third.prior_sentences[3] == {"annotator": "worker-3", "sentence": 1, "verdict": "no",
                                        "metadata": {"seconds": 12}}
    assert read_records(path, fmt="qags")[0].summary == recs[0].summary
    listed = tmp_path / "qags.json"
    listed.write_text(json.dumps(rows), encoding="utf-8")
    assert [r.prior_sentences for r in read_records(listed)] == [r.prior_sentences for r in recs]


BAD_QAGS = [
    (lambda rows: rows[1].update(summary_sentences="The river rose."),
     "line 2: field 'summary_sentences': expected a non-empty list of {sentence, responses}, got string"),
    (lambda rows: rows[0]["summary_sentences"][1]["responses"][2].pop("response"),
     "line 1: field 'summary_sentences[1].responses[2].response': missing"),
    (lambda rows: rows[0]["summary_sentences"][0].pop("responses"),
     "line 1: field 'summary_sentences[0].responses': missing"),
    (lambda rows: rows[2]["summary_sentences"][0].update(sentence="  "),
     "line 3: field 'summary_sentences[0].sentence': empty sentence"),
    (lambda rows: rows[1]["summary_sentences"][0]["responses"][0].update(response="maybe"),
     "line 2: field 'summary_sentences[0].responses[0].response': 'maybe' is not one of the verdicts (yes, no)"),
    (lambda rows: rows[0]["summary_sentences"][0]["responses"][1].pop("worker_id"),
     "line 1: field 'summary_sentences[0].responses[1].worker_id': missing"),
    (lambda rows: rows[2].pop("article"),
     "line 3: field 'article': missing (fields: model, split, summary_sentences)"),
]


@pytest.mark.parametrize("spoil, message", BAD_QAGS, ids=[m for _, m in BAD_QAGS])
def test_a_bad_qags_record_is_one_line(tmp_path, spoil, message):
    rows = qags_rows()
    spoil(rows)
    path = write_jsonl(tmp_path / "q.jsonl", rows)
    with pytest.raises(InputError) as e:
        read_records(path, fmt="qags")
    assert str(e.value) == f"{path}: {message}"


def test_a_response_outside_the_settings_verdicts_stops_the_build(tmp_path):
    path = write_jsonl(tmp_path / "q.jsonl", qags_rows())
    settings = tmp_path / "settings.yaml"
    settings.write_text("sentence_verdicts:\n  options: [supported, unsupported]\n", encoding="utf-8")
    done = cli("build", path, "-o", tmp_path / "out", "--settings", settings)
    assert done.returncode == 2, done.stderr
    lines = [x for x in (done.stdout + done.stderr).splitlines() if x.strip()]
    assert lines == [f"error: {path}: line 1: field 'summary_sentences[0].responses[0].response': 'yes' is not one of "
                     "the verdicts (supported, unsupported)"]
    assert not (tmp_path / "out").exists()


def test_the_same_summary_cut_twice_otherwise_is_refused(tmp_path):
    rows = [{"id": "a", "article": "One. Two.", "summary_sentences": [{"sentence": "A b. C d.", "responses": []}]},
            {"id": "b", "article": "Three.", "summary_sentences": [{"sentence": "A b.", "responses": []},
                                                                  {"sentence": "C d.", "responses": []}]}]
    path = write_jsonl(tmp_path / "q.jsonl", rows)
    folder = tmp_path / "read"
    folder.mkdir()
    with pytest.raises(InputError) as e:
        read_once([path], folder, Settings(), fmt="auto", source_field="source", summary_field="summary",
                  id_field=None, keep_lengths=False)
    assert str(e.value) == ("q.jsonl:2: record b: field 'summary_sentences': its summary is a text q.jsonl:1 "
                            "(record a, summary) has too, cut into other sentences (a text is stored once: give "
                            "every use the same cut)")
    rows[1]["summary_sentences"] = rows[0]["summary_sentences"]  # the same cut: one stored text
    write_jsonl(path, rows)
    (folder / "scratch.sqlite").unlink()
    read = read_once([path], folder, Settings(), fmt="auto", source_field="source", summary_field="summary",
                     id_field=None, keep_lengths=False)
    assert read.count == 2 and read.settings.sentence_verdicts == DATASET_VERDICTS["qags"]


def test_two_datasets_verdicts_need_the_settings(tmp_path):
    qags = write_jsonl(tmp_path / "q.jsonl", qags_rows())
    topic = tmp_path / "topic.json"
    topic.write_text(json.dumps(summhay_topic()), encoding="utf-8")
    folder = tmp_path / "read"
    folder.mkdir()
    with pytest.raises(InputError, match="its verdicts are summhay's, q.jsonl:1's qags's"):
        read_once([qags, topic], folder, Settings(), fmt="auto", source_field="source", summary_field="summary",
                  id_field=None, keep_lengths=False)


def test_qags_built_carries_every_judgment_and_its_cut(tmp_path, build_bundle):
    rows = qags_rows()
    path = write_jsonl(tmp_path / "mturk_xsum.jsonl", rows)
    bundle = load_bundle(build_bundle([path], name="qags"))
    assert sum(len(r.prior_sentences) for r in bundle.records) == raw_judgments(rows)
    for r, recs in zip(bundle.records, read_records(path)):
        assert r.summary_text.sentences == recs.summary_sentences
        assert r.prior_sentences == recs.prior_sentences
    assert bundle.manifest["settings"]["sentence_verdicts"] == {
        "mode": "shown", "options": [{"value": "yes", "text": "Yes"}, {"value": "no", "text": "No"}],
        "evidence": ["yes"], "flagged": "no"}
    assert bundle.settings.sentence_verdicts == DATASET_VERDICTS["qags"]


def test_settings_verdicts_win_over_the_datasets(tmp_path, build_bundle):
    path = write_jsonl(tmp_path / "q.jsonl", qags_rows())
    settings = tmp_path / "s.yaml"
    settings.write_text("sentence_verdicts:\n  mode: required\n  options: ['Yes', 'No', unsure]\n", encoding="utf-8")
    bundle = load_bundle(build_bundle([path], name="qags-settings", settings=settings))
    sv = bundle.manifest["settings"]["sentence_verdicts"]
    assert (sv["mode"], [o["value"] for o in sv["options"]]) == ("required", ["Yes", "No", "unsure"])
    assert {p["verdict"] for r in bundle.records for p in r.prior_sentences} == {"Yes", "No"}


# ---------------------------------------------------------------- SummHay

def test_summhay_bullets_are_sentences_with_the_evaluators_suggestions(tmp_path, build_bundle):
    topic = summhay_topic()
    st = topic["subtopics"][0]
    st["summaries"]["summary_subtopic_oracle_model-x"][1] = "- Levees failed in May [1]. Repairs began."
    st["eval_summaries"]["summary_subtopic_oracle_model-x"].append(
        {"insight_id": "i2", "coverage": "PARTIAL_COVERAGE", "bullet_id": 2})
    path = tmp_path / "topic.json"
    path.write_text(json.dumps(topic), encoding="utf-8")
    recs = read_records(path)
    first = recs[0]
    assert [first.summary[s:e] for s, e in first.summary_sentences] == [
        "Here are the insights:", "- Levees failed in May [1]. Repairs began.", "- Rain doubled [3]."]
    assert [(s["sentence"], s["verdict"]) for s in first.sentence_suggestions] == [
        (0, "none"), (1, "full"), (2, "partial")]
    assert {s["agent"] for r in recs for s in r.sentence_suggestions} == {"summhay-eval"}
    assert [s["verdict"] for s in recs[1].sentence_suggestions] == ["full"]
    bundle = load_bundle(build_bundle([path], name="summhay-verdicts"))
    stored = bundle.records[0]
    assert stored.summary_text.sentences == first.summary_sentences
    assert stored.sentence_suggestions == first.sentence_suggestions
    assert [o["value"] for o in bundle.manifest["settings"]["sentence_verdicts"]["options"]] == [
        "full", "partial", "none"]


def test_summhay_verdicts_outside_the_settings_are_one_line(tmp_path):
    path = tmp_path / "topic.json"
    path.write_text(json.dumps(summhay_topic()), encoding="utf-8")
    settings = parse_settings({"sentence_verdicts": {"options": ["full", "partial"]}}, "s.yaml")
    with pytest.raises(InputError) as e:
        read_records(path, verdicts=settings.sentence_verdicts.values)
    assert str(e.value) == (f"{path}: subtopics[0].eval_summaries['summary_subtopic_oracle_model-x'], bullet 1: "
                            "field 'coverage': 'none' is not one of the verdicts (full, partial)")


@pytest.mark.shared_data
def test_real_summhay_bullets_get_the_evaluators_suggestions():
    path = SHARED_DATA / "summhay" / "topic_news1.json"
    if not path.exists():
        pytest.skip("../shared/data/summhay is absent")
    raw = json.loads(path.read_text(encoding="utf-8"))
    recs = read_records(path)
    for r in recs:
        bullets = [b for b in r.gold["bullets"] if b["text"]]
        assert [r.summary[s:e] for s, e in r.summary_sentences] == [b["text"] for b in bullets]
        assert [s["sentence"] for s in r.sentence_suggestions] == list(range(len(bullets)))
    full = sum(s["verdict"] == "full" for r in recs for s in r.sentence_suggestions)
    named = {(st["subtopic_id"], m.removeprefix("summary_subtopic_"), e["bullet_id"])
             for st in raw["subtopics"] for m in st["summaries"] for e in st["eval_summaries"].get(m, [])
             if e["coverage"] == "FULL_COVERAGE"}
    assert full == len(named) > 0


# ---------------------------------------------------------------- merge reads QAGS too

def many_qags_rows(seed: int = 7) -> list[dict]:
    """More QAGS objects, seeded: three of ten workers a sentence, who mostly agree with a hidden truth."""
    rng = random.Random(seed)
    rows = []
    for k in range(24):
        sentences = []
        for j in range(rng.randint(1, 4)):
            truth = rng.random() < 0.6
            workers = rng.sample(range(10), 3)
            sentences.append({"sentence": f"Claim {j} of story {k} holds.", "responses": [
                {"worker_id": w, "response": "yes" if (truth if rng.random() < 0.8 else not truth) else "no"}
                for w in workers]})
        rows.append({"article": f"Story {k}. " + " ".join(f"Fact {i} of story {k}." for i in range(5)),
                     "summary_sentences": sentences})
    return rows + qags_rows()


def raw_units(rows: list[dict]) -> tuple[list[list[str]], list[str], list[dict[str, str]]]:
    """From the raw file alone: each sentence's responses (case and spaces folded), the coders (a worker
    answering a sentence again is another coder), and each sentence's {coder: response}."""
    units, coders, by_coder = [], [], []
    for row in rows:
        for s in row["summary_sentences"]:
            unit: dict[str, str] = {}
            for r in s["responses"]:
                coder, n = str(r["worker_id"]), 1
                while coder in unit:
                    n += 1
                    coder = f"{r['worker_id']}#{n}"
                unit[coder] = r["response"].strip().lower()
                coders += [] if coder in coders else [coder]
            units.append(list(unit.values()))
            by_coder.append(unit)
    return units, coders, by_coder


def nominal_alpha(units: list[list[str]]) -> float:
    """Krippendorff's alpha, nominal, from the coincidences of pairable values (written apart from merge's)."""
    pairs = Counter()
    for values in units:
        m = len(values)
        if m < 2:
            continue
        for i, a in enumerate(values):
            for j, b in enumerate(values):
                if i != j:
                    pairs[a, b] += 1 / (m - 1)
    totals = Counter()
    for (a, _), w in pairs.items():
        totals[a] += w
    n = sum(totals.values())
    observed = sum(w for (a, b), w in pairs.items() if a != b)
    expected = (n * n - sum(v * v for v in totals.values())) / (n - 1)
    return 1 - observed / expected


def test_build_then_merge_qags_keeps_every_judgment_and_its_alpha(tmp_path, build_bundle):
    import krippendorff
    import numpy as np

    from mercury_static.merge.agreement_questions import alpha
    from mercury_static.merge.pipeline import merge_files

    rows = many_qags_rows()
    path = write_jsonl(tmp_path / "qags.jsonl", rows)
    bundle = build_bundle([path], name="qags-merge")
    result = merge_files([path], bundle)
    assert result.problems == [] and result.answers_dropped == 0
    merged = [v for r in result.records for v in r.get("sentences", [])]
    assert len(merged) == raw_judgments(rows) == sum(len(r.prior_sentences) for r in load_bundle(bundle).records)
    assert {v["updated_at"] for v in merged} == {None} and all("evidence" not in v for v in merged)
    units, coders, by_coder = raw_units(rows)
    reliability = np.array([[{"yes": 1.0, "no": 0.0}[u[c]] if c in u else np.nan for u in by_coder] for c in coders])
    expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
    assert round(nominal_alpha(units), 3) == round(expected, 3)
    per_sentence: dict[tuple[str, int], list[str]] = {}
    for r in result.records:
        for v in r.get("sentences", []):
            per_sentence.setdefault((r["id"], v["sentence"]), []).append(v["verdict"])
    assert round(alpha(list(per_sentence.values()), "nominal"), 3) == round(expected, 3)
    report = result.agreement["sentences"]  # merge's own figure, as its report gives it
    assert round(report["alpha"], 3) == round(expected, 3)
    assert report["pairable"] == sum(len(u) >= 2 for u in units)
    assert sorted(map(sorted, per_sentence.values())) == sorted(sorted(u) for u in units if u)

    out = tmp_path / "merged.json"
    done = cli("merge", path, "--bundle", bundle, "-o", out)
    assert done.returncode == 0, done.stdout + done.stderr
    again = merge_files([out], bundle)  # the merged file read back keeps every verdict
    assert again.problems == [] and sum(len(r.get("sentences", [])) for r in again.records) == len(merged)


def test_merge_skips_a_bad_qags_line_and_merges_the_rest(tmp_path, build_bundle):
    from mercury_static.merge.pipeline import merge_files

    rows = qags_rows()
    path = write_jsonl(tmp_path / "q.jsonl", rows)
    bundle = build_bundle([path], name="qags-bad-merge")
    rows[0]["summary_sentences"][1]["responses"][0]["response"] = "perhaps"
    rows[2]["article"] = "Another article altogether."
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(rows[0]) + "\nnot json\n" + "".join(json.dumps(x) + "\n" for x in rows[1:]),
                   encoding="utf-8")
    result = merge_files([bad], bundle)
    assert [str(p) for p in result.problems] == [
        f"{bad}: line 1: field 'summary_sentences[1].responses[0].response': 'perhaps' is not one of the "
        "verdicts (yes, no)",
        f"{bad}: line 2: invalid JSON (Expecting value at column 1)",
        f"{bad}: line 4: field 'article': its source/summary differ from the bundle record's texts"]
    assert result.answers_dropped == 6 + 6
    assert sum(len(r.get("sentences", [])) for r in result.records) == 7


def test_a_summhay_judgment_naming_no_bullet_is_a_warning(tmp_path, caplog):
    topic = summhay_topic()
    topic["subtopics"][1]["eval_summaries"]["summary_subtopic_model-y"][0]["bullet_id"] = 4
    path = tmp_path / "topic.json"
    path.write_text(json.dumps(topic), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="mercury_static"):
        recs = read_records(path)
    assert "subtopics[1].eval_summaries['summary_subtopic_model-y']: bullet_id 4 names no bullet of the summary " \
           "(1 lines); its judgment suggests nothing" in caplog.text
    assert [s["verdict"] for s in recs[2].sentence_suggestions] == ["none"]


# ---------------------------------------------------------------- a suggested verdict accepted

def test_merge_keeps_an_accepted_suggested_verdict_and_refuses_a_stray_one(tmp_path, build_bundle):
    """An export's `suggested_by` (the page's accept key): kept when each name gave that verdict to that sentence,
    through the merged file and the flat dump read back; a name that did not, a repeated name, or suggestions not
    shown drop that verdict only, one line each."""
    from mercury_static.merge.pipeline import merge_files

    path = write_jsonl(tmp_path / "q.jsonl", qags_rows())
    bundle = build_bundle([path], name="qags-accepted")
    rid = load_bundle(bundle).records[0].id  # sentence 1 "Work starts in June.": no (worker-0, worker-1), yes (2)

    def export(name, shown, sentences):
        at = "2026-01-02T10:00:00Z"
        doc = {"format": "mercury-static/annotations", "version": 4, "bundle_id": load_bundle(bundle).manifest[
            "bundle_id"], "annotator": name, "client_id": f"c-{name}", "exported_at": at, "records": [
            {"record_id": rid, "status": "submitted", "updated_at": at, "annotations": [], "responses": {},
             "suggestions": {"shown": shown, "accepted": {}},
             "sentences": [{"index": i, "verdict": v, "updated_at": at, **extra} for i, v, extra in sentences]}]}
        return write_jsonl(tmp_path / f"{name}.json", [doc])

    good = export("ann", True, [(0, "yes", {"evidence": [1], "suggested_by": ["worker-0", "worker-1", "worker-2"]}),
                                (1, "no", {"suggested_by": ["worker-0", "worker-1"]})])
    bad = export("ben", True, [(0, "yes", {"suggested_by": ["worker-7"]}), (1, "no", {"suggested_by": ["worker-2"]}),
                               (1, "no", {"suggested_by": ["worker-0", "worker-0"]})])
    blind = export("cat", False, [(1, "no", {"suggested_by": ["worker-0"]})])
    result = merge_files([good, bad, blind], bundle)
    lines = sorted(str(p) for p in result.problems)
    assert len(lines) == 4 and result.answers_dropped == 4, lines
    assert "field 'sentences[0].suggested_by': 'worker-7' suggested no 'yes' for sentence 0 of this record" in lines[0]
    assert "field 'sentences[1].suggested_by': 'worker-2' suggested no 'no' for sentence 1" in lines[1]
    assert "field 'sentences[2].suggested_by': expected a list of distinct names" in lines[2]
    assert "field 'sentences[0].suggested_by': accepted a suggestion that was not shown" in lines[3]
    [rec] = [r for r in result.records if r["id"] == rid]
    kept = {(v["annotator"], v["sentence"]): v.get("suggested_by") for v in rec["sentences"]}
    assert kept == {("ann", 0): ["worker-0", "worker-1", "worker-2"], ("ann", 1): ["worker-0", "worker-1"]}
    for fmt, name in (("mercury-static", "merged.json"), ("mercury", "dump.json")):
        out = tmp_path / name
        out.write_bytes(merge_files([good], bundle, fmt=fmt).output)
        again = merge_files([out], bundle)
        assert again.problems == []
        [back] = [r for r in again.records if r["id"] == rid]
        assert [v.get("suggested_by") for v in back["sentences"]] == [["worker-0", "worker-1", "worker-2"],
                                                                      ["worker-0", "worker-1"]], fmt
