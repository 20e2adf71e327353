"""`merge --format parquet` and `gold --format parquet` read back by 🤗 datasets (`load_dataset("parquet", …)` and
the folder's own dataset card) and pandas: every annotation and sentence verdict, with typed columns."""

from __future__ import annotations

import json

import datasets
import pandas
from test_merge_sentences import judged, plain, two_annotators  # noqa: F401  (module fixtures)
from test_page_review_sentences import AT, sentence_round
from test_review import adjudication, decision, review_export

from mercury_static.merge.pipeline import merge_files
from mercury_static.merge.sentence_rows import COLUMNS


def load(folder, table: str) -> datasets.Dataset:
    return datasets.load_dataset("parquet", data_files=str(folder / f"{table}.parquet"), split="train")


def test_merge_writes_typed_tables_datasets_and_pandas_read(judged, run, tmp_path):  # noqa: F811
    files = two_annotators(judged, tmp_path)
    out = tmp_path / "out"
    result = run("merge", *files, "--bundle", judged.dir, "--format", "parquet", "-o", out)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [".mercury-static-merge", "README.md", "annotations.parquet",
                                                     "records.parquet", "sentences.parquet"]
    merged = merge_files(files, judged).records
    annotations = load(out, "annotations")
    assert len(annotations) == sum(len(r["annotations"]) for r in merged) == 2
    assert annotations.features["label"] == datasets.List(datasets.Value("string"))
    assert annotations.features["summary_start"] == datasets.Value("int64")
    assert [(x["record_id"], x["annotator"], x["label"], x["summary_text"], x["summary_start"], x["source_text"])
            for x in annotations] == [(r["id"], a["annotator"], a["label"], a["summary"]["text"],
                                       a["summary"]["start"], None) for r in merged for a in r["annotations"]]
    records = load(out, "records")
    assert records["record_id"] == ["r1", "r2", "r3"] and records["annotators"][0] == ["alice", "bob"]
    assert json.loads(records["responses"][0]) == json.loads(json.dumps(merged[0]["responses"], sort_keys=True))
    frame = pandas.read_parquet(out / "sentences.parquet")
    assert list(frame.columns) == list(COLUMNS)
    assert str(frame["sentence"].dtype) == "int64" and str(frame["given"].dtype) == "bool"
    rows = [(x.record_id, x.sentence, x.annotator, x.verdict, x.given, list(x.evidence), list(x.labels))
            for x in frame.itertuples(index=False)]
    assert rows == [("r1", 0, "alice", "unsupported", True, [], ["Unwanted.Intrinsic"]),
                    ("r1", 0, "bob", "unsupported", False, [], ["Unwanted.Extrinsic"]),
                    ("r1", 1, "alice", "supported", True, [1], []), ("r1", 1, "bob", "supported", True, [1], []),
                    ("r1", 2, "alice", "supported", True, [2, 0], []), ("r1", 2, "bob", "unsupported", True, [], []),
                    ("r2", 0, "alice", "not checked", False, [], []), ("r2", 1, "alice", "unverifiable", True, [], [])]
    # the folder as the Hub would hold it: its card names the tables
    assert datasets.load_dataset(str(out), "sentences", split="train")["verdict"] == list(frame["verdict"])
    assert len(datasets.load_dataset(str(out), split="train")) == 2  # annotations: the default


def test_without_sentence_verdicts_there_is_no_sentence_table(plain, run, tmp_path):  # noqa: F811
    files = two_annotators(plain, tmp_path)
    out = tmp_path / "out"
    result = run("merge", *files, "--bundle", plain.dir, "--format", "parquet", "-o", out)
    assert result.exit_code == 1, result.output  # the verdicts on a bundle without them: skipped, said
    assert not (out / "sentences.parquet").exists()
    assert "sentences" not in (out / "README.md").read_text(encoding="utf-8").split("---")[1]
    assert len(load(out, "annotations")) == 2


def test_a_file_in_the_way_is_one_line(judged, run, tmp_path):  # noqa: F811
    files = two_annotators(judged, tmp_path)
    (tmp_path / "taken").write_text("mine")
    result = run("merge", *files, "--bundle", judged.dir, "--format", "parquet", "-o", tmp_path / "taken")
    assert result.exit_code == 2 and "is a file; --format parquet writes a folder" in result.output


def test_gold_parquet_keeps_provenance_and_settled_verdicts(build_bundle, run, tmp_path):
    (tmp_path / "round").mkdir()
    review, _ = sentence_round(build_bundle, tmp_path / "round", tmp_path / "review-bundle")
    done = review_export(tmp_path / "rita.json", review, "rita", {**adjudication("r1", {
        "alice:a1": decision("accept"), "carol:c1": decision("accept")}), "sentences": [
        {"sentence": 1, "from": "bob", "updated_at": AT}]}, version=2)
    out = tmp_path / "gold"
    result = run("gold", done, "--bundle", review, "--format", "parquet", "-o", out)
    assert result.exit_code == 0, result.output
    gold = json.loads(run("gold", done, "--bundle", review, "-o", tmp_path / "gold.json").exit_code == 0
                      and (tmp_path / "gold.json").read_text(encoding="utf-8"))
    annotations = load(out, "annotations")
    assert len(annotations) == sum(len(r["annotations"]) for r in gold) == 1  # alice's and carol's alike: one
    assert [json.loads(p) for p in annotations["provenance"]] == [a["provenance"] for r in gold
                                                                   for a in r["annotations"]]
    sentences = load(out, "sentences")
    settled = [(x["sentence"], x["annotator"], x["verdict"], x["given"]) for x in sentences if x["given"]]
    assert settled == [(1, "rita", "supported", True)]
    assert sentences.features["evidence"] == datasets.List(datasets.Value("int64"))
