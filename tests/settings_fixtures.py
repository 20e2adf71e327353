"""A FaithBench-like bundle with dataset settings (issue 13), written to the bundle contract by hand: a real
build of `page_fixtures.faithbench_dump`, then `manifest.settings`, the records' `fields` / `meta` /
`suggestions`, `records.json` `meta`, `data/queues.json` and `data/record_vectors.bin` added as the
settings-build side writes them (docs/DESIGN.md, issue 13's contract)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

VERDICT = {"name": "verdict", "type": "label", "title": "Verdict", "required": True,
           "description": "Is the summary consistent with the source?",
           "options": [{"value": "consistent", "text": "Consistent"}, {"value": "hallucinated", "text": "Hallucinated"}]}
QUESTIONS = [
    {"name": "spans", "type": "span", "title": "Spans", "description": "Mark what the source does not support",
     "required": False},
    VERDICT,
    {"name": "topics", "type": "multi_label", "title": "Topics", "description": "", "required": False,
     "options": [{"value": "numbers", "text": "Numbers"}, {"value": "names", "text": "Names"},
                 {"value": "dates", "text": "Dates"}]},
    {"name": "quality", "type": "rating", "title": "Quality", "description": "1 = poor, 5 = excellent",
     "required": True, "values": [1, 2, 3, 4, 5]},
    {"name": "order", "type": "ranking", "title": "Order of the errors", "description": "", "required": False,
     "options": [{"value": "x", "text": "Omission"}, {"value": "y", "text": "Addition"}, {"value": "z", "text": "Contradiction"}]},
    {"name": "comment", "type": "text", "title": "Comment", "description": "", "required": False, "markdown": False},
]
METADATA = [
    {"name": "summary_model", "title": "Model", "type": "terms", "visible": True, "values": ["model-a", "model-b"]},
    {"name": "length", "title": "Length", "type": "integer", "visible": True, "min": 0, "max": 1000},
    {"name": "hhem", "title": "HHEM score", "type": "float", "visible": False, "min": 0.0, "max": 1.0},
]
EVIL = '<img src=x onerror="window.__pwned=1">'


def hhem(i: int) -> float:
    return round(0.05 + 0.9 * ((i * 37) % 11) / 10, 2)


def with_settings(src: Path, dst: Path, *, blind=False, overlap: int = 2, annotators=("alice", "bob", "carol")) -> Path:
    """Copy the built bundle `src` to `dst` and add the issue 13 parts to it."""
    shutil.copytree(src, dst)
    manifest = json.loads((dst / "manifest.json").read_text(encoding="utf-8"))
    index = json.loads((dst / "data/records.json").read_text(encoding="utf-8"))
    ids = index["ids"]
    manifest["settings"] = {
        "fields": {"source": {"title": "Source article"}, "summary": {"title": "Summary"},
                   "extra": [{"name": "question", "title": "Question", "markdown": True}]},
        "questions": QUESTIONS, "metadata": METADATA, "suggestions": {"blind": blind},
        "vectors": {"similar_records": True},
    }
    # queues: record i in the queues of annotators i, i+1 (mod n): every record in `overlap` queues
    queues = {a: [] for a in annotators}
    for i, rid in enumerate(ids):
        for k in range(overlap):
            queues[annotators[(i + k) % len(annotators)]].append(rid)
    (dst / "data/queues.json").write_text(json.dumps(queues, sort_keys=True), encoding="utf-8")
    manifest["queues"] = {"path": "data/queues.json", "overlap": overlap, "annotators": list(annotators)}
    dim = manifest["vectors"]["dim"]
    manifest["record_vectors"] = {"path": "data/record_vectors.bin", "encoding": "float16", "dim": dim}
    (dst / "manifest.json").write_text(json.dumps(manifest, sort_keys=True), encoding="utf-8")

    texts, vectors = {}, {}
    for p in sorted((dst / "data").glob("texts-*.json")):
        n = int(p.stem.split("-")[1])
        vectors[n] = np.frombuffer((dst / f"data/vectors-{n:04d}.bin").read_bytes(), dtype="<f2").reshape(-1, dim)
        for t in json.loads(p.read_text(encoding="utf-8"))["texts"]:
            texts[t["id"]] = (t, n)
    rows = {}
    metas = {}
    for p in sorted((dst / "data").glob("records-*.json")):
        shard = json.loads(p.read_text(encoding="utf-8"))
        for r in shard["records"]:
            i = ids.index(r["id"])
            t, n = texts[r["summary"]]
            summary = t["text"]
            r["fields"] = {"question": EVIL + " **Is** it right?" if i == 0 else f"Question {i}: is it *right*?"}
            r["meta"] = {"summary_model": r["metadata"]["summary_model"], "length": len(summary), "hhem": hhem(i)}
            metas[r["id"]] = [r["meta"]["summary_model"], r["meta"]["length"]]
            r["suggestions"] = [{"question": "verdict", "value": "hallucinated" if hhem(i) < 0.5 else "consistent",
                                 "score": hhem(i), "agent": "HHEM-2.1"}]
            if i == 1:
                word = summary.split()[1]
                s = summary.index(word)
                r["suggestions"].append({"question": "spans", "agent": "prior-mercury", "score": 0.7, "value": [
                    {"label": "Unwanted.Intrinsic", "summary": [s, s + len(word)], "source": None}]})
            # the record vector: the normalised mean of its summary's sentence rows
            vec = vectors[n][t["row0"]:t["row0"] + len(t["rows"])].astype(np.float32).mean(axis=0)
            rows[r["id"]] = (vec / np.linalg.norm(vec)).astype("<f2")
        p.write_text(json.dumps(shard, sort_keys=True), encoding="utf-8")
    index["meta"] = [metas[rid] for rid in ids]
    (dst / "data/records.json").write_text(json.dumps(index, sort_keys=True), encoding="utf-8")
    (dst / "data/record_vectors.bin").write_bytes(b"".join(rows[rid].tobytes() for rid in ids))
    return dst
