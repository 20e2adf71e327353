"""Gold extraction for Mercury dumps and SummHay topics, and the ``eval`` command end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mercury_static.bundle.contents import text_id

from mercury_static.tune.evaluate import evaluate, overlapping, query_position, record_queries
from mercury_static.read.inputs import read_records
from mercury_static.core.segment import split_sentences

from conftest import SHARED_DATA, TEST_CACHE

SOURCE = ("The bridge opened in 1932. It cost 4 million dollars. Engineers used steel from Ohio. "
          "The mayor cut the ribbon.")
SUMMARY = "The bridge, opened in 1932, cost 5 million dollars. The governor cut the ribbon."


def mercury_dump(path: Path) -> Path:
    cost = SOURCE.index("It cost 4 million")
    ribbon = SOURCE.index("The mayor")
    data = {"samples": [{
        "sample_id": 0, "source": SOURCE, "summary": SUMMARY, "metadata": {},
        "annotations": [
            # source span inside sentence 1
            {"annot_id": 1, "annotator_name": "A", "label": ["Unwanted", "Unwanted.Intrinsic"], "note": "",
             "summary_span": "5 million", "summary_start": SUMMARY.index("5 million"),
             "summary_end": SUMMARY.index("5 million") + 9,
             "source_span": "4 million", "source_start": cost + 8, "source_end": cost + 17},
            # the same pair from a second annotator: one query
            {"annot_id": 2, "annotator_name": "B", "label": ["Unwanted"], "note": "",
             "summary_span": "5 million", "summary_start": SUMMARY.index("5 million"),
             "summary_end": SUMMARY.index("5 million") + 9,
             "source_span": "4 million", "source_start": cost + 8, "source_end": cost + 17},
            # source span across sentences 2 and 3
            {"annot_id": 3, "annotator_name": "A", "label": ["Unwanted"], "note": "",
             "summary_span": "governor", "summary_start": SUMMARY.index("governor"),
             "summary_end": SUMMARY.index("governor") + 8,
             "source_span": SOURCE[ribbon - 10:ribbon + 9], "source_start": ribbon - 10, "source_end": ribbon + 9},
            # no source span: not a query
            {"annot_id": 4, "annotator_name": "A", "label": ["Benign"], "note": "",
             "summary_span": "The bridge", "summary_start": 0, "summary_end": 10,
             "source_span": None, "source_start": None, "source_end": None},
        ]}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


DOCS = [
    "Solar panels got cheaper in 2023. Prices fell by a third.",
    "Wind farms grew in the north sea. Ten new farms opened.",
    "Solar prices fell sharply last year. Installers were busy.",
]


def summhay_topic(path: Path) -> Path:
    data = {
        "topic_id": "t1", "topic": "energy",
        "documents": [{"document_id": f"d{i}", "document_text": t, "document_metadata": {},
                       "insights_included": ins, "idx": i}
                      for i, (t, ins) in enumerate(zip(DOCS, [["i1"], ["i2"], ["i1"]]))],
        "subtopics": [{
            "subtopic_id": "s1", "subtopic_name": "prices", "subtopic": "Energy prices", "query": "?",
            "insights": [{"insight_id": "i1", "insight_name": "solar", "insight": "Solar panel prices fell."},
                         {"insight_id": "i2", "insight_name": "wind", "insight": "Many wind farms opened."}],
            "summaries": {"summary_subtopic_m1": ["Here are insights:", "- Solar got cheaper. [1][3]",
                                                  "- Wind farms grew. [2]", "- Coal is back. [2]"],
                          "summary_subtopic_m2": ["- Wind power grew fast."]},
            "eval_summaries": {"summary_subtopic_m1": [
                {"coverage": "FULL_COVERAGE", "bullet_id": 2, "insight_id": "i1"},
                {"coverage": "PARTIAL_COVERAGE", "bullet_id": 3, "insight_id": "i2"},
                {"coverage": "NO_COVERAGE", "bullet_id": "NA", "insight_id": "i2"}],
                "summary_subtopic_m2": [{"coverage": "FULL_COVERAGE", "bullet_id": "1", "insight_id": "i2"}]},
        }],
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_overlapping_spans():
    spans = [(0, 5), (6, 10), (12, 20)]
    assert overlapping(spans, 2, 3) == [0]
    assert overlapping(spans, 4, 7) == [0, 1]
    assert overlapping(spans, 10, 12) == []  # the gap between sentences
    assert overlapping(spans, 7, 7) == [1]  # zero width: the sentence around it


def test_mercury_gold(tmp_path):
    [rec] = read_records([mercury_dump(tmp_path / "dump.json")])
    spans = split_sentences(rec.source)
    assert len(spans) == 4
    queries = record_queries(rec, spans, "dump")
    assert [(q.kind, q.text, sorted(q.relevant)) for q in queries] == [
        ("span", "5 million", [1]), ("span", "5 million", [1]), ("span", "governor", [2, 3])]
    assert queries[0].selection == (SUMMARY.index("5 million"), SUMMARY.index("5 million") + 9)
    assert queries[0].group == "dump · span"
    mid = SUMMARY.index("5 million") + 4.5
    assert query_position(queries[0], rec) == pytest.approx(mid / len(SUMMARY))  # single document: a position


def test_summhay_gold(tmp_path):
    records = read_records([summhay_topic(tmp_path / "topic.json")])
    rec = {r.id.split(":")[-1]: r for r in records}
    spans = split_sentences(records[0].source)
    doc_sentences = [[i for i, (s, e) in enumerate(spans) if sec.start <= s and e <= sec.end]
                     for sec in records[0].source_sections]
    assert [len(d) for d in doc_sentences] == [2, 2, 2]  # titles are separate sentences, outside sections
    m1 = record_queries(rec["m1"], spans, "topic")
    bullets = [q for q in m1 if q.kind == "bullet"]
    # only the FULL_COVERAGE bullet; its evidence = all sentences of documents 1 and 3 (insight i1)
    assert [(q.text, sorted(q.relevant)) for q in bullets] == [
        ("- Solar got cheaper. [1][3]", doc_sentences[0] + doc_sentences[2])]
    insights = [q for q in m1 if q.kind == "insight"]
    assert [(q.text, sorted(q.relevant)) for q in insights] == [
        ("Solar panel prices fell.", doc_sentences[0] + doc_sentences[2]),
        ("Many wind farms opened.", doc_sentences[1])]
    m2 = record_queries(rec["m2"], spans, "topic")
    assert [(q.kind, sorted(q.relevant)) for q in m2 if q.kind == "bullet"] == [("bullet", doc_sentences[1])]
    assert [query_position(q, rec["m1"]) for q in m1] == [None] * len(m1)  # sectioned source: no position prior


def test_evaluate_end_to_end(tmp_path, exported_model):
    dump = mercury_dump(tmp_path / "dump.json")
    topic = summhay_topic(tmp_path / "topic.json")
    report = evaluate([dump, topic], k=5, cache_dir=TEST_CACHE)
    groups = {g.group: g for g in report.groups}
    assert set(groups) == {"dump · span", "topic · bullet", "topic · insight"}
    assert groups["dump · span"].queries == 2  # duplicate annotation counted once
    assert groups["topic · bullet"].queries == 2  # one per summary method
    assert groups["topic · insight"].queries == 2  # once per topic, not per summary method
    # The bullet citing [1][3] (documents with its insight) is also scored with its citations
    cited = groups["topic · bullet"].cited
    assert cited["queries"] == 1 and cited["cited_right"] == 1.0 and groups["dump · span"].cited is None
    # "4 million" / "5 million": the lexical + vector ranker finds the cost sentence first
    for g in report.groups:
        assert 0 < g.mrr <= 1 and 0 <= g.ndcg <= 1 and g.latency_ms_p50 >= 0
        assert g.unrelated_shown is not None  # two distinct sources: the control ran
    data = report.to_dict()
    assert data["options"]["algorithm"] == "fused-v5" and set(data["groups"][0]["recall"]) == {"1", "3", "5"}


def test_eval_cli(tmp_path, exported_model, monkeypatch):
    from mercury_static.cli import app

    monkeypatch.setenv("MERCURY_STATIC_CACHE", str(TEST_CACHE))
    out = tmp_path / "report.json"
    result = CliRunner().invoke(app, ["eval", str(mercury_dump(tmp_path / "dump.json")), "--report", str(out),
                                      "--ranker-option", "neighbor=0"])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["options"]["neighbor"] == 0 and report["groups"][0]["queries"] == 2
    bad = CliRunner().invoke(app, ["eval", str(out), "--ranker-option", "nope=1"])
    assert bad.exit_code == 2 and "nope" in bad.output


@pytest.mark.slow
@pytest.mark.shared_data
def test_faithbench_beats_plain_cosine():
    files = sorted((SHARED_DATA / "faithbench").glob("batch_*.json"))
    if not files:
        pytest.skip("../shared/data absent")
    from mercury_static.tune.evaluate import load_eval_set, score_eval_set

    data = load_eval_set(files, cache_dir=TEST_CACHE)
    fused = score_eval_set(data, 5, aggregate=False)
    cosine = score_eval_set(data, 5, {"w_lexical": 0, "w_context": 0, "w_context_lexical": 0, "neighbor": 0,
                                      "position": 0, "dense_idf_mass": 0, "w_bm25": 0, "w_context_bm25": 0,
                                      "w_entity": 0, "norm": "none"},
                            aggregate=False)
    mrr = lambda r: sum(g.mrr * g.queries for g in r.groups) / sum(g.queries for g in r.groups)  # noqa: E731
    assert mrr(fused) > mrr(cosine) + 0.05


def test_eval_without_gold_is_one_clear_error(tmp_path, exported_model, monkeypatch):
    from mercury_static.cli import app

    monkeypatch.setenv("MERCURY_STATIC_CACHE", str(TEST_CACHE))
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"id": "a", "source": "One. Two.", "summary": "One."}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", str(plain)])
    assert result.exit_code == 2
    assert "plain.jsonl" in result.output and "no gold queries" in result.output
    assert "Traceback" not in result.output


# ---------------------------------------------------------------- cross-validation

def test_folds_hold_each_record_once_and_every_length():
    from mercury_static.tune.crossval import assign_folds

    lengths = [37, 5, 120, 8, 64, 64, 3, 900, 15, 41, 77, 2, 260, 19, 33, 58, 11, 7, 500, 90, 21, 13, 6]
    units = [(f"r{i}", n) for i, n in enumerate(lengths)]
    units += [(f"r{i}", n) for i, n in enumerate(lengths) if i % 3 == 0]  # more queries of some records
    folds = assign_folds(units, 5, seed=3)
    assert set(folds) == {f"r{i}" for i in range(len(lengths))} and set(folds.values()) == set(range(5))
    by_length = sorted(folds, key=lambda r: (lengths[int(r[1:])], r))
    for start in range(0, len(by_length), 5):  # each stratum of 5 neighbouring lengths: one record per fold
        block = [folds[r] for r in by_length[start:start + 5]]
        assert len(set(block)) == len(block)
    sizes = [list(folds.values()).count(f) for f in range(5)]
    assert max(sizes) - min(sizes) <= 1
    assert assign_folds(units, 5, seed=3) == folds  # deterministic
    with pytest.raises(ValueError):
        assign_folds(units, 1)


def test_interval_is_student_t_over_folds():
    from mercury_static.tune.crossval import interval

    got = interval([1.0, 2.0, 3.0])
    assert got.mean == 2.0 and got.high - 2.0 == pytest.approx(4.303 / 3 ** 0.5) == 2.0 - got.low
    assert interval([0.5]).low == interval([0.5]).high == 0.5


def test_learned_weights_rank_like_the_options_they_become(tmp_path, exported_model):
    """On a real eval set: every query's fold is its record's, the folds split the queries, and a learned
    weight vector ranks through ``rank_sentences`` exactly as the linear model it was fitted as."""
    from mercury_static.tune import crossval
    from mercury_static.tune.evaluate import load_eval_set, query_rows
    from mercury_static.assist.rank import DEFAULT_OPTIONS, TERMS, rank_sentences

    data = load_eval_set([mercury_dump(tmp_path / "dump.json"), summhay_topic(tmp_path / "topic.json")],
                         cache_dir=TEST_CACHE, embed_cache=tmp_path / "emb")
    [folds] = crossval.eval_folds([data], 3)
    fold_of: dict[str, set] = {}
    for (q, _), f in zip(data.queries, folds):
        fold_of.setdefault(q.record_id, set()).add(int(f))
    assert all(len(f) == 1 for f in fold_of.values()) and len(fold_of) >= 3
    parts = [len(query_rows(crossval.subset(data, folds == f), 5, controls=False)) for f in range(3)]
    assert sum(parts) == len(data.queries)

    options = {"norm": "minmax", "neighbor": 0.3, "position": 0.2}
    weights = crossval.learned_options([data], [np.full(len(folds), -1)], options)(0)
    assert set(weights) >= {f"w_{t}" for t in TERMS} and sum(weights[f"w_{t}"] for t in TERMS) > 0
    for i, ((q, r), (cvec, ctext)) in enumerate(zip(data.queries, data.contexts)):
        qvec = data.query_vector(i, {**DEFAULT_OPTIONS, **options})
        x, relevant = crossval.query_features(data, i, options)
        assert relevant.sum() == len(q.relevant)
        linear = x @ np.array([weights[f"w_{t}"] for t in TERMS])
        sents, _ = next(iter(v for (sid, _), v in data.prepared.items() if sid == text_id(r.source)))
        ranked = rank_sentences(qvec, q.text, sents, weights, context_vec=cvec, context_text=ctext,
                                query_position=query_position(q, r))
        scores = dict(ranked)
        order = np.argsort([-scores[j] for j in range(len(linear))], kind="stable")
        assert np.all(np.diff(linear[order]) <= 1e-12), f"query {i}: {q.text!r}"


def test_fit_weights_finds_the_informative_term():
    from mercury_static.tune.crossval import fit_weights

    rng = np.random.default_rng(0)
    groups = []
    for _ in range(60):
        x = rng.random((12, 3))
        relevant = np.zeros(12, dtype=bool)
        relevant[rng.integers(12)] = True
        x[relevant, 1] += 1.0  # term 1 marks the evidence, terms 0 and 2 are noise
        groups.append((x, relevant, 1.0))
    for loss in ("logistic", "softmax"):
        w = fit_weights(groups, loss)
        assert w.sum() == pytest.approx(1.0) and w[1] > 0.6 and (w >= 0).all(), loss


def test_the_shipped_gold_example_evaluates(tmp_path, exported_model, monkeypatch):
    """examples/gold.json (the project's own tiny gold dump) is what the README offers to try `eval` on."""
    from typer.testing import CliRunner

    from conftest import EXAMPLES, TEST_CACHE
    from mercury_static.cli import app

    monkeypatch.setenv("MERCURY_STATIC_CACHE", str(TEST_CACHE))
    out = tmp_path / "report.json"
    result = CliRunner().invoke(app, ["eval", str(EXAMPLES / "gold.json"), "--report", str(out)])
    assert result.exit_code == 0, result.output
    [group] = [g for g in json.loads(out.read_text())["groups"] if g["queries"]]
    assert group["queries"] == 5 and group["recall"]["5"] == 1.0


def test_cited_row_checks_the_citation_against_the_ranking():
    """A bullet's citations ([1][3] = documents 0 and 2) put their sentences first; the best match
    of the whole source outside them is the citation-error signal; the citation is right when a cited
    document holds gold evidence."""
    from mercury_static.tune.evaluate import Query, cited_figures, cited_row

    doc_of = [0, 0, 1, 1, 2, 2, -1]
    ranked = [(3, 0.9), (4, 0.8), (0, 0.7), (2, 0.6), (1, 0.5), (5, 0.4), (6, 0.1)]

    def q(text, relevant):
        return Query("t · bullet", "bullet", "r", text, frozenset(relevant), (0, 1))

    right = cited_row(q("- Solar got cheaper. [1][3]", {0, 1, 4, 5}), ranked, doc_of, 3, 5)
    # cited first: 4, 0, 1, 5 (docs 0 and 2 by score), then 3, 2 → P@5 4/5; MRR 1; best cited (4) is evidence
    assert right == {"cited_p": 0.8, "cited_rr": 1.0, "cited_found": 1.0, "cited_right": 1.0, "best_outside": 1.0,
                     "cited_gap": pytest.approx(0.1)}
    wrong = cited_row(q("- Wind grew. [doc 1]", {2, 3}), ranked, doc_of, 3, 5)
    assert wrong["cited_right"] == 0.0 and wrong["best_outside"] == 1.0 and wrong["cited_found"] == 0.0
    assert wrong["cited_gap"] == pytest.approx(0.2)  # 0.9 elsewhere, 0.7 in document 1: "check the citation"
    assert cited_row(q("- No citation here.", {0}), ranked, doc_of, 3, 5) == {}
    assert cited_row(q("- Beyond the documents [9].", {0}), ranked, doc_of, 3, 5) == {}
    rows = [{"p": 0.6, "rr": 1.0, **right}, {"p": 0.4, "rr": 1.0, **wrong}, {"p": 0.2, "rr": 0.5}]
    fig = cited_figures(rows)
    assert fig["queries"] == 2 and fig["share"] == pytest.approx(2 / 3) and fig["cited_p"] == pytest.approx(0.6) and fig["p"] == pytest.approx(0.5)
    assert fig["best_outside"] == 1.0 and fig["signal_precision"] == 1.0 and fig["signal_recall"] == 1.0
    assert cited_figures([{"p": 0.2, "rr": 0.5}]) is None


def test_fit_calibration_gives_each_band_its_hit_rate():
    """One score means a different chance of evidence on a short and on a long source; the
    fitted table's probability follows each band's hit rate (reliability), and a band without data takes
    its neighbour's row."""
    from mercury_static.tune import crossval
    from mercury_static.assist.rank import grade_probability

    rng = np.random.default_rng(1)
    n = np.concatenate([np.full(3000, 8), np.full(3000, 4000)])
    score = rng.uniform(0.2, 0.6, 6000)
    share = rng.uniform(0.5, 1.0, 6000)
    truth = np.where(n < 100, 1 / (1 + np.exp(-(10 * score - 4))), 1 / (1 + np.exp(-(8 * share - 6))))
    y = (rng.random(6000) < truth).astype(float)
    x = np.stack([score, share], axis=1)
    table = crossval.fit_calibration(n, x, y)
    assert [r[0] for r in table] == list(crossval.BANDS)
    assert table[1][1:] == table[0][1:] or table[1][1:] == table[2][1:]  # no 11–300 data: a neighbour's row
    for i in rng.integers(0, 6000, 50):
        p = grade_probability(score[i], score[i] / share[i], int(n[i]), {"calibration": table})
        assert abs(p - truth[i]) < 0.1, (i, p, truth[i])
    fold = rng.integers(0, 5, 6000)
    oof = crossval.calibrated_out_of_fold(n, x, y, fold, 5)
    for band in (n < 100, n >= 100):
        for lo, hi in ((0.0, 0.4), (0.4, 0.7), (0.7, 1.0)):
            m = band & (oof >= lo) & (oof < hi)
            if m.sum() > 100:
                assert abs(y[m].mean() - oof[m].mean()) < 0.05


def test_eval_cli_reports_the_citations(tmp_path, exported_model, monkeypatch):
    """`eval` on a SummHay topic prints the second table, for the bullets that cite documents."""
    from mercury_static.cli import app

    monkeypatch.setenv("MERCURY_STATIC_CACHE", str(TEST_CACHE))
    out = tmp_path / "report.json"
    result = CliRunner().invoke(app, ["eval", str(summhay_topic(tmp_path / "topic.json")), "--report", str(out)])
    assert result.exit_code == 0, result.output
    assert "cites documents" in result.output and "best elsewhere" in result.output
    [bullets] = [g for g in json.loads(out.read_text(encoding="utf-8"))["groups"] if g["group"] == "topic · bullet"]
    assert bullets["cited"]["queries"] == 1 and bullets["cited"]["cited_right"] == 1.0
