"""Parse a `merge --format argilla` folder with the `argilla` package's own classes (and records.json with
`datasets`, which argilla installs) and print what they read.

Run by test_write_argilla.py, and by test_argilla_roundtrip.py (`--settings FILE...`: each settings file as
`Settings.from_json` reads it), with the tests' Python (argilla==2.8.0 is in the `test` extra) or
$ARGILLA_PYTHON. argilla's client checks a server at creation; there is none, so that one check is skipped:
nothing here talks to a server, the classes only parse.
"""

import json
import sys
from pathlib import Path

import argilla as rg
import datasets
from argilla._api._client import APIClient
from argilla._models import DatasetModel


def main(out: Path) -> None:
    APIClient._validate_connection = lambda self: None
    rg.Argilla(api_url="http://127.0.0.1:9", api_key="offline")  # the default client the classes need
    settings = rg.Settings.from_json(out / ".argilla" / "settings.json")
    records = [rg.Record.from_dict(r) for r in json.loads((out / "records.json").read_text(encoding="utf-8"))]
    DatasetModel(**json.loads((out / ".argilla" / "dataset.json").read_text(encoding="utf-8")))
    rows = datasets.load_dataset("json", data_files=str(out / "records.json"), split="train")
    print(json.dumps({
        "questions": [(q.name, type(q).__name__) for q in settings.questions],
        "span_questions": {q.name: [q.field, list(q.labels), q.allow_overlapping] for q in settings.questions
                           if isinstance(q, rg.SpanQuestion)},
        "fields": [f.name for f in settings.fields], "metadata": [m.name for m in settings.metadata],
        "vectors": [(v.name, v.dimensions) for v in settings.vectors],
        "min_submitted": settings.distribution.min_submitted, "datasets_rows": rows.num_rows,
        "records": [{"id": r.id,
                     "responses": sorted([x.question_name, str(x.user_id), x.status.value if x.status else None]
                                         for x in r.responses),
                     "answers": {f"{x.question_name} {x.user_id}": x.value for x in r.responses},
                     "suggestions": [[s.question_name, s.value, s.score, s.agent] for s in r.suggestions],
                     "metadata": dict(r.metadata), "vectors": {k: len(v) for k, v in r.vectors.items()}}
                    for r in records]}))


def settings(paths: list[Path]) -> None:
    """Each settings.json as argilla's `Settings.from_json` reads it (`serialize()`), one JSON list."""
    APIClient._validate_connection = lambda self: None
    rg.Argilla(api_url="http://127.0.0.1:9", api_key="offline")
    print(json.dumps([rg.Settings.from_json(p).serialize() for p in paths], default=str))


if __name__ == "__main__":
    if sys.argv[1] == "--settings":
        settings([Path(p) for p in sys.argv[2:]])
    else:
        main(Path(sys.argv[1]))
