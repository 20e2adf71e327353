"""Sentence verdicts through `review` and `gold` (docs/review.md): the review data's sentences (each judge's
effective verdict and evidence, disputed ones marked), a review export settling them kept by gold with
provenance, and each bad settlement one line naming the file, the record and the field (exit 2)."""

from __future__ import annotations

import json
import time

import pytest
from test_page_review_sentences import AT, INTRINSIC, SUMMARY, sentence_round
from test_review import adjudication, review_export
from test_write_argilla import argilla_reads

from mercury_static.merge.checks import parse_time
from mercury_static.merge.write_argilla import user_id
from mercury_static.review.gold import GoldProblems, make_gold
from mercury_static.review.write_bundle import load_review


@pytest.fixture(scope="module")
def reviewed(build_bundle, tmp_path_factory):
    return sentence_round(build_bundle, tmp_path_factory.mktemp("sentences"),
                          tmp_path_factory.mktemp("review") / "review-bundle")


def test_the_review_data_holds_each_judges_verdict_and_evidence(reviewed):
    out, _ = reviewed
    header = json.loads((out / "data" / "review.json").read_text(encoding="utf-8"))
    assert header["version"] == 2
    r1 = next(r for r in load_review(out)[2] if r["id"] == "r1")
    s0, s1 = r1["sentences"]
    assert not s0["disputed"] and s1["disputed"]
    assert {v["annotator"]: (v["verdict"], v["given"], v["evidence"]) for v in s1["verdicts"]} == {
        "alice": ("unsupported", True, []), "bob": ("supported", True, [0]), "carol": ("unsupported", False, [])}
    assert r1["statuses"]["erin"] == "not_opened" and r1["statuses"]["bob"] == "consistent"


@pytest.mark.parametrize("settle, field, message", [
    ({"sentence": 7}, "sentences[0].sentence", "7 is not a summary sentence of this record"),
    ({"sentence": 1, "from": "dave"}, "sentences[0].from", "'dave' gave no verdict on this sentence"),
    ({"sentence": 1, "verdict": "maybe"}, "sentences[0].verdict", "'maybe' is not a verdict of the settings"),
    ({"sentence": 0, "verdict": "supported", "evidence": [3]}, "sentences[0].evidence[0]",
     "3 is not a source sentence (0 to 2, each once)"),
    ({"sentence": 0, "verdict": "unsupported", "evidence": [1]}, "sentences[0].evidence",
     "the verdict 'unsupported' carries no evidence"),
])
def test_a_bad_settled_sentence_is_one_line(reviewed, tmp_path, settle, field, message):
    out, _ = reviewed
    bad = review_export(tmp_path / "rita.json", out, "rita",
                        {**adjudication("r1"), "sentences": [{**settle, "updated_at": AT}]}, version=2)
    with pytest.raises(GoldProblems) as raised:
        make_gold([bad], out)
    [problem] = raised.value.problems
    assert str(problem).startswith(f"{bad}: record r1: field '{field}': {message}")


def test_gold_keeps_the_settled_verdicts_and_a_version_1_export_still_reads(reviewed, tmp_path):
    out, r1 = reviewed
    done = review_export(tmp_path / "rita.json", out, "rita", {**adjudication("r1"), "sentences": [
        {"sentence": 1, "from": "bob", "updated_at": AT}]}, version=2)
    [gold] = make_gold([done], out).records
    [s1] = gold["sentences"]
    start, end = r1.source_text.sentences[0]
    assert s1["verdict"] == "supported" and s1["evidence"] == [
        {"sentence": 0, "start": start, "end": end, "text": r1.source[start:end]}]
    assert s1["provenance"]["judges"] == ["bob"] and s1["provenance"]["action"] == "accepted"
    assert gold["review"]["unsettled_sentences"] == [0]
    old = review_export(tmp_path / "old.json", out, "rita", adjudication("r1"))  # version 1: no sentences
    [gold] = make_gold([old], out).records
    assert gold["sentences"] == [] and gold["review"]["unsettled_sentences"] == [0, 1]


def test_a_review_stamped_in_the_future_is_gold_as_of_golds_start(reviewed, tmp_path):
    """A reviewer's wrong clock (2999): every time of the export is written as gold's start, with a note; the
    gold never states a decision made in the future."""
    out, r1 = reviewed
    late = "2999-01-01T00:00:00Z"
    rome = {"start": SUMMARY.index("Rome"), "end": SUMMARY.index("Rome") + 4, "text": "Rome"}
    entry = {**adjudication("r1", updated_at=late),
             "decisions": {"alice:a1": {"action": "accept", "updated_at": late}},
             "added": [{"id": "g1", "label": INTRINSIC, "note": "", "summary": rome, "source": None,
                        "created_at": late, "updated_at": late}],
             "comments": [{"id": "m1", "on": "record", "author": "rita", "time": late, "text": "late"}],
             "sentences": [{"sentence": 1, "from": "alice", "updated_at": late}]}
    path = review_export(tmp_path / "rita.json", out, "rita", entry, version=2)
    before = time.time()
    result = make_gold([path], out)
    [gold] = result.records
    assert "2999" not in json.dumps(gold)
    start = gold["review"]["adjudicated_at"]
    assert before - 1 <= parse_time(start, "start") <= time.time()
    assert {gold["responses"][0]["updated_at"], gold["review"]["comments"][0]["time"],
            gold["sentences"][0]["updated_at"]} == {start}
    times = {(a["provenance"]["action"], a["created_at"], a["updated_at"], a["provenance"]["decided_at"])
             for a in gold["annotations"]}
    assert times == {("accepted", AT, AT, start), ("added", start, start, start)}
    assert [n for n in result.notes if "in the future" in n] == [
        f"6 time(s) are in the future (a computer with a wrong clock?), e.g. rita.json, record r1 {late!r}: each "
        "counted as the time of this gold"]


def settled_r1(reviewed, tmp_path):
    """rita adjudicates r1: sentence 0 her own (supported by source sentences 1 and 2), sentence 1 alice's."""
    out, _ = reviewed
    return review_export(tmp_path / "rita.json", out, "rita", {**adjudication("r1"), "sentences": [
        {"sentence": 0, "verdict": "supported", "evidence": [1, 2], "updated_at": AT},
        {"sentence": 1, "from": "alice", "updated_at": AT}]}, version=2)


def test_the_quality_report_scores_each_annotators_sentence_verdicts(reviewed, tmp_path):
    """Against the gold's settled sentences, each judge's effective verdicts (carol's on sentence 1: her span):
    judged, verdict accuracy, and the evidence F1 where right on a verdict that carries evidence."""
    out, _ = reviewed
    result = make_gold([settled_r1(reviewed, tmp_path)], out)
    got = {a["annotator"]: a["sentences"] for a in result.quality["annotators"]}
    third = round(2 * 1 / (1 + 2), 4)  # their evidence [1] against the gold's [1, 2]
    assert got == {"alice": {"judged": 2, "verdict_accuracy": 1.0, "evidence_f1": third},
                   "bob": {"judged": 2, "verdict_accuracy": 0.5, "evidence_f1": third},
                   "carol": {"judged": 2, "verdict_accuracy": 1.0, "evidence_f1": third}}


def test_argilla_holds_the_settled_sentences_beside_the_judges_verdicts(reviewed, tmp_path, run):
    """`gold --format argilla`: the reviewer's settled sentences and each judge's given verdicts as the two span
    questions merge writes, read back by argilla's own parser."""
    out, r1 = reviewed
    folder = tmp_path / "gold-argilla"
    result = run("gold", settled_r1(reviewed, tmp_path), "--bundle", out, "--format", "argilla", "-o", folder)
    assert result.exit_code == 0, result.output
    assert "Sentence verdicts against the gold" in " ".join(result.output.split())  # the quality printed
    doc = argilla_reads(folder)
    assert doc["span_questions"]["sentence_verdicts"][0] == "summary"
    answers = next(r for r in doc["records"] if r["id"] == "r1")["answers"]
    summary, source = r1.summary_text.sentences, r1.source_text.sentences

    def at(cut, k, label):
        return {"start": cut[k][0], "end": cut[k][1], "label": label}
    assert answers[f"sentence_verdicts {user_id('rita')}"] == [at(summary, 0, "supported"),
                                                               at(summary, 1, "unsupported")]
    assert answers[f"sentence_evidence {user_id('rita')}"] == [at(source, 1, "sentence-0"), at(source, 2, "sentence-0")]
    assert answers[f"sentence_verdicts {user_id('bob')}"] == [at(summary, 0, "supported"), at(summary, 1, "supported")]
    assert answers[f"sentence_evidence {user_id('bob')}"] == [at(source, 0, "sentence-1"), at(source, 1, "sentence-0")]
    assert answers[f"sentence_verdicts {user_id('carol')}"] == [at(summary, 0, "supported")]  # given, not her span's
