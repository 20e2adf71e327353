"""A real bundle given settings (questions, metadata, suggestions) to the issue-13 contract, for merge tests.

`with_settings` builds the bundle for real and then writes the manifest's `settings` and the record shards'
`fields` / `meta` / `suggestions` as build writes them with a settings file (docs/DESIGN.md), so merge is
tested against the shapes the page and build agree on.
"""

from __future__ import annotations

import json
from pathlib import Path

QUESTIONS = [
    {"name": "spans", "type": "span", "title": "Spans", "description": "", "required": False},
    {"name": "verdict", "type": "label", "title": "Verdict", "description": "", "required": True,
     "options": [{"value": "consistent", "text": "Consistent"}, {"value": "hallucinated", "text": "Hallucinated"}]},
    {"name": "topics", "type": "multi_label", "title": "Topics", "description": "", "required": False,
     "options": [{"value": "dates", "text": "Dates"}, {"value": "places", "text": "Places"},
                 {"value": "people", "text": "People"}]},
    {"name": "quality", "type": "rating", "title": "Quality", "description": "", "required": False,
     "values": [1, 2, 3, 4, 5]},
    {"name": "order", "type": "ranking", "title": "Order", "description": "", "required": False,
     "options": [{"value": "x", "text": "X"}, {"value": "y", "text": "Y"}, {"value": "z", "text": "Z"}]},
    {"name": "comment", "type": "text", "title": "Comment", "description": "", "required": False,
     "markdown": False},
]
METADATA = [
    {"name": "model", "title": "Model", "type": "terms", "visible": True, "values": ["gpt-4", "llama"]},
    {"name": "hhem", "title": "HHEM score", "type": "float", "visible": False, "min": 0.0, "max": 1.0},
]


def settings(questions=QUESTIONS, metadata=METADATA, blind=False) -> dict:
    return {"fields": {"source": {"title": "Source"}, "summary": {"title": "Summary"},
                       "extra": [{"name": "question", "title": "Question", "markdown": False}]},
            "questions": questions, "metadata": metadata, "suggestions": {"blind": blind},
            "vectors": {"similar_records": False}}


def with_settings(bundle_dir: Path, records: dict[str, dict], settings_json: dict | None = None) -> Path:
    """Give a built bundle `settings` and, per record id, `fields` / `meta` / `suggestions` (in place)."""
    manifest_path = bundle_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["settings"] = settings_json or settings()
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    for shard in sorted((bundle_dir / "data").glob("records-*.json")):
        doc = json.loads(shard.read_text(encoding="utf-8"))
        for r in doc["records"]:
            r.update(records.get(r["id"], {}))
        shard.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return bundle_dir
