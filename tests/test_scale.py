"""Scale: shared texts stored and embedded once, small shard limits, float16 vectors, a SummHay slice."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mercury_static.bundle.contents import ShardLimits, load_bundle, load_vectors, text_id
from mercury_static.bundle.record_index import read_columns

from conftest import SHARED_DATA

pytestmark = pytest.mark.slow  # builds that show how size grows with the records

DIM = 384
RECORD_FILES = ("records", "index", "ids", "terms")  # the record index: grows with the records
SOURCE = ("The council approved the new budget on Monday. It raises school funding by four percent. "
          "Road repairs get a smaller share than last year. The mayor called the vote historic.\n"
          "Opponents said the plan ignores rising rents. A second vote is planned for March.")


def stored_texts(bundle: Path) -> list[tuple[int, dict]]:
    return [(int(f.stem.split("-")[1]), t) for f in sorted((bundle / "data").glob("texts-*.json"))
            for t in json.loads(f.read_text(encoding="utf-8"))["texts"]]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_shared_source_is_stored_and_embedded_once(build_bundle, tmp_path):
    summaries = ["The budget raises school funding.", "Road repairs get more money.", "The vote was historic."]
    data = write_jsonl(tmp_path / "shared.jsonl", [{"id": f"r{i}", "source": SOURCE, "summary": summaries[i % 3]}
                                                  for i in range(9)])
    out = build_bundle([data], name="shared-once")
    manifest = json.loads((out / "manifest.json").read_text())
    texts = stored_texts(out)
    assert [t["id"] for _, t in texts].count(text_id(SOURCE)) == 1
    assert manifest["counts"]["texts"] == len(texts) == 4
    # one set of vector rows per distinct text: the rows of all texts tile each vector file exactly
    for shard in {s for s, _ in texts}:
        in_shard = sorted((t["row0"], len(t["rows"])) for s, t in texts if s == shard)
        assert [r0 for r0, _ in in_shard] == list(np.cumsum([0] + [n for _, n in in_shard])[:-1])
        assert load_vectors(out, shard, DIM).shape == (sum(n for _, n in in_shard), DIM)
    assert manifest["counts"]["rows"] == sum(len(t["rows"]) for _, t in texts)
    bundle = load_bundle(out)
    assert {r.source_text.id for r in bundle.records} == {text_id(SOURCE)}
    assert len({id(r.source_text) for r in bundle.records}) == 1


def test_text_data_grows_with_distinct_text_not_records(build_bundle, tmp_path):
    def data_files(n_records: int) -> dict[str, bytes]:
        rows = [{"id": f"r{i}", "source": SOURCE, "summary": "The budget raises school funding."}
                for i in range(n_records)]
        out = build_bundle([write_jsonl(tmp_path / f"n{n_records}.jsonl", rows)], name=f"grow-{n_records}")
        return {p.name: p.read_bytes() for p in (out / "data").iterdir() if not p.name.startswith(RECORD_FILES)}

    assert data_files(2) == data_files(60)


def test_small_shard_limits_load_every_record(build_bundle, tmp_path, embedder):
    sentences = SOURCE.replace("\n", " ").split(". ")
    rows = [{"id": f"rec-{i}", "source": f"Record {i} opens here. " + ". ".join(sentences[i % 4:]),
             "summary": f"Summary {i}: {sentences[i % 6]}.", "topic": f"t{i % 3}"} for i in range(13)]
    rows.append({"id": "long", "source": SOURCE * 3, "summary": "A long one."})  # longer than a text shard
    limits = ShardLimits(record_bytes=600, records=3, text_chars=300)
    out = build_bundle([write_jsonl(tmp_path / "many.jsonl", rows)], name="small-shards", shards=limits)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["shards"]["records"] >= 5 and manifest["shards"]["texts"] >= 5
    assert manifest["vectors"]["encoding"] == "float16"

    index = read_columns(out / "data")
    assert index["ids"] == [r["id"] for r in rows]
    for rid, shard, text_shards in zip(index["ids"], index["shard"], index["text_shards"]):
        shard_records = json.loads((out / "data" / f"records-{shard:04d}.json").read_text())["records"]
        assert len(shard_records) <= limits.records and rid in [r["id"] for r in shard_records]
        rec = next(r for r in shard_records if r["id"] == rid)
        assert text_shards == [rec["source_shard"], rec["summary_shard"]]  # texts load with the record

    texts = stored_texts(out)
    for shard in {s for s, _ in texts}:
        sizes = [len(t["text"]) for s, t in texts if s == shard]
        assert sum(sizes) <= limits.text_chars or len(sizes) == 1

    bundle = load_bundle(out)
    assert [(r.id, r.source, r.summary) for r in bundle.records] == [(r["id"], r["source"], r["summary"])
                                                                     for r in rows]
    for rec in bundle.records:
        assert rec.metadata.get("topic") == next(r.get("topic") for r in rows if r["id"] == rec.id)
        for t in (rec.source_text, rec.summary_text):
            assert t.text in {rec.source, rec.summary}
            got = load_vectors(out, t.shard, DIM)[t.row0:t.row0 + len(t.rows)]
            want = embedder.embed([t.text[s:e] for _, s, e in t.rows])
            assert np.abs(got - want).max() < 1e-3  # float16 of the embedder's vectors


@pytest.mark.shared_data
def test_summhay_slice_shares_one_haystack(build_bundle, tmp_path):
    topic = json.loads((SHARED_DATA / "summhay" / "topic_news1.json").read_text(encoding="utf-8"))
    subtopics = []
    for st in topic["subtopics"][:2]:
        methods = sorted(st["summaries"])[:3]
        subtopics.append({**st, "summaries": {m: st["summaries"][m] for m in methods},
                          "eval_summaries": {m: st["eval_summaries"].get(m, []) for m in methods}})
    path = tmp_path / "slice.json"
    path.write_text(json.dumps({**topic, "documents": topic["documents"][:8], "subtopics": subtopics}),
                    encoding="utf-8")
    out = build_bundle([path], name="summhay-slice")
    bundle = load_bundle(out)
    assert len(bundle.records) == 6
    haystacks = {r.source_text.id for r in bundle.records}
    assert len(haystacks) == 1
    hay = bundle.records[0].source_text
    assert [t["id"] for _, t in stored_texts(out)].count(hay.id) == 1
    assert len(hay.sections) == 8 and all(hay.text[s:e].strip() for s, e, _, _ in hay.sections)
    assert len(hay.sentences) > 200
    assert len(load_vectors(out, hay.shard, DIM)) >= hay.row0 + len(hay.rows)
