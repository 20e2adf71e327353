"""Parse a `merge --format argilla` folder with argilla's own classes (no server: its connection check is off)."""
import json, sys
from pathlib import Path
from argilla._api._client import APIClient
APIClient._validate_connection = lambda self: None
import argilla as rg
out = Path(sys.argv[1])
client = rg.Argilla(api_url="http://127.0.0.1:9", api_key="offline")
settings = rg.Settings.from_json(out / ".argilla" / "settings.json")
records = [rg.Record.from_dict(r) for r in json.loads((out / "records.json").read_text(encoding="utf-8"))]
from argilla._models import DatasetModel
DatasetModel(**json.loads((out / ".argilla" / "dataset.json").read_text(encoding="utf-8")))
print(json.dumps({"questions": [(q.name, type(q).__name__) for q in settings.questions],
                  "fields": [f.name for f in settings.fields], "metadata": [m.name for m in settings.metadata],
                  "vectors": [(v.name, v.dimensions) for v in settings.vectors],
                  "min_submitted": settings.distribution.min_submitted,
                  "records": [{"id": r.id, "responses": sorted((x.question_name, str(x.user_id), x.status.value if x.status else None) for x in r.responses),
                               "suggestions": [(s.question_name, s.value, s.score, s.agent) for s in r.suggestions],
                               "metadata": dict(r.metadata), "vector_dims": {k: len(v) for k, v in r.vectors.items()}} for r in records]}))
