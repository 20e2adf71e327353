"""The page tests' FaithBench-like input with a dataset settings file, for real `build --settings` bundles: an
extra Markdown field (record 0's holds HTML), a required label question with HHEM-style suggestions from a
score column, a multi-label, a required rating, a ranking and a text question, two visible metadata filters
and a hidden detector score, a span suggestion from a JSONL file, queues and record vectors."""

from __future__ import annotations

import json
import random
from pathlib import Path

from page_fixtures import sentence

EVIL = '<img src=x onerror="window.__pwned=1">'
HHEM = [0.9, 0.41, 0.7, 0.2, 0.55, 0.3, 0.8, 0.1, 0.65, 0.45, 0.95, 0.05]


def settings_doc(blind=False, metadata=True, markdown=True) -> dict:
    doc = {
        "fields": {"source": {"title": "Source article"}, "summary": {"title": "Summary"},
                   "extra": [{"name": "question", "title": "Question", "markdown": True}]},
        "questions": [
            {"name": "spans", "type": "span", "title": "Spans", "description": "Mark what the source does not support"},
            {"name": "verdict", "type": "label", "title": "Verdict", "required": True,
             "description": "Is the summary consistent with the source?",
             "options": [{"value": "consistent", "text": "Consistent"}, {"value": "hallucinated", "text": "Hallucinated"}]},
            {"name": "topics", "type": "multi_label", "title": "Topics",
             "options": [{"value": "numbers", "text": "Numbers"}, {"value": "names", "text": "Names"},
                         {"value": "dates", "text": "Dates"}]},
            {"name": "quality", "type": "rating", "title": "Quality", "description": "1 = poor, 5 = excellent",
             "required": True, "values": [1, 2, 3, 4, 5]},
            {"name": "order", "type": "ranking", "title": "Order of the errors",
             "options": [{"value": "x", "text": "Omission"}, {"value": "y", "text": "Addition"},
                         {"value": "z", "text": "Contradiction"}]},
            {"name": "comment", "type": "text", "title": "Comment", "markdown": markdown},
        ],
        "metadata": [
            {"name": "summarizer", "title": "Model", "type": "terms", "visible": True},
            {"name": "length", "title": "Length", "type": "integer", "visible": True},
            {"name": "hhem", "title": "HHEM score", "type": "float", "column": "hhem-2.1", "visible": False},
        ],
        "suggestions": {"blind": blind, "file": "suggestions.jsonl", "columns": [
            {"question": "verdict", "agent": "HHEM-2.1", "score_from": "hhem-2.1", "threshold": 0.5,
             "at_or_above": "consistent", "below": "hallucinated"}]},
        "distribution": {"annotators": ["alice", "bob", "carol"], "overlap": 2},
        "vectors": {"similar_records": True},
    }
    if not metadata:
        del doc["metadata"]
    return doc


def faithbench_like(folder: Path, n: int = 6, blind=False, metadata=True, markdown=True) -> tuple[Path, Path]:
    """Write `data.jsonl`, `suggestions.jsonl` and `settings.json` into `folder`; returns (data, settings)."""
    rng = random.Random(7)
    rows, sugs = [], []
    for i in range(n):
        source = " ".join(sentence(rng, 10 * i + j) for j in range(8))
        summary = " ".join(sentence(rng, 10 * i + j) for j in (1, 4)) + f" Record {i} closes here."
        question = f"{EVIL} **Is** it right?" if i == 0 else f"Question {i}: is it *right*?"
        rows.append({"id": str(i), "source": source, "summary": summary, "question": question,
                     "summarizer": "model-a" if i % 2 else "model-b", "length": len(summary),
                     "hhem-2.1": HHEM[i % len(HHEM)]})
        if i == 1:
            word = summary.split()[1]
            s = summary.index(word)
            sugs.append({"record_id": str(i), "question": "spans", "agent": "prior-detector", "score": 0.7,
                         "value": [{"label": "Unwanted.Intrinsic", "summary": [s, s + len(word)], "source": None}]})
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "suggestions.jsonl").write_text("".join(json.dumps(s) + "\n" for s in sugs), encoding="utf-8")
    settings = folder / "settings.json"
    settings.write_text(json.dumps(settings_doc(blind, metadata, markdown)), encoding="utf-8")
    return data, settings
