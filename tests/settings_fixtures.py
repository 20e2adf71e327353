"""A real bundle built with a settings file (six question types, metadata, an extra field, HHEM-style
suggestions from a score column), for the merge and Argilla-output tests."""

from __future__ import annotations

import json
from pathlib import Path

RECORDS = [
    {"id": "r1", "source": "The Eiffel Tower is in Paris. It was completed in 1889.",
     "summary": "The Eiffel Tower, completed in 1899, stands in Rome.", "question": "Where is it?",
     "model": "gpt-4", "hhem": 0.1},
    {"id": "r2", "source": "Alice met Bob 🎉 at noon. They had lunch.",
     "summary": "Alice met Bob 🎉 at midnight for dinner.", "question": "When?", "model": "llama", "hhem": 0.6},
    {"id": "r3", "source": "Nothing happened today.", "summary": "Nothing happened.", "question": "What?",
     "model": "llama"},
]
JUDGE = {"record_id": "r1", "question": "verdict", "value": "consistent", "score": 0.2, "agent": "judge-llm"}
"""A second agent's suggestion for r1's verdict (from the --suggestions file the settings name)."""
SETTINGS = """\
fields:
  source: {title: Source}
  summary: {title: Summary}
  extra:
    - {name: question, title: Question, column: question}
questions:
  - {name: spans, type: span, title: Spans}
  - name: verdict
    type: label
    title: Verdict
    required: true
    options:
      - {value: consistent, text: Consistent}
      - {value: hallucinated, text: Hallucinated}
  - {name: topics, type: multi_label, title: Topics, options: [dates, places, people]}
  - {name: quality, type: rating, title: Quality, values: [1, 2, 3, 4, 5]}
  - {name: order, type: ranking, title: Order, options: [x, y, z]}
  - {name: comment, type: text, title: Comment}
guidelines: Read both texts.
metadata:
  - {name: model, title: Model, type: terms, visible: true}
  - {name: hhem, title: HHEM score, type: float, visible: false, min: 0, max: 1}
suggestions:
  blind: false
  file: suggestions.jsonl
  columns:
    - {question: verdict, agent: HHEM-2.1, score_from: hhem, threshold: 0.5, at_or_above: consistent,
       below: hallucinated}
distribution:
  annotators: [alice, bob]
  overlap: 2
vectors:
  similar_records: true
"""


def build_with_settings(build_bundle, directory: Path, name: str) -> Path:
    """Build RECORDS with SETTINGS for real (the test model, `build --settings`)."""
    data, settings = directory / "tiny.jsonl", directory / "settings.yaml"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), encoding="utf-8")
    (directory / "suggestions.jsonl").write_text(json.dumps(JUDGE) + "\n", encoding="utf-8")
    settings.write_text(SETTINGS, encoding="utf-8")
    return build_bundle([data], name=name, id_field="id", settings=settings)
