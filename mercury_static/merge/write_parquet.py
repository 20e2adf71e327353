"""`merge --format parquet -o DIR` and `gold --format parquet`: the dataset as Parquet tables with typed columns,
for pandas, 🤗 datasets and the Hub (docs/merge.md, "Parquet and the Hugging Face Hub"):

- `annotations.parquet`: one row per annotation (its record, annotator, labels, the two spans, note, times; gold's
  provenance as JSON text);
- `records.parquet`: one row per record (texts; metadata, responses and suggestions as JSON text, their shapes
  being the settings');
- `sentences.parquet`, when the bundle asks sentence verdicts: one row per summary sentence and annotator, the
  columns of `--format sentences` (sentence_rows.py) typed;
- `README.md`: a dataset card whose `configs` name the tables with rows, so `load_dataset(DIR, "sentences")` reads one
  and the folder can be uploaded to the Hub as it is.

Times stay the ISO text the page wrote (an export's clock is the annotator's: parsing would invent a zone).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from mercury_static.core import safeio
from mercury_static.merge.sentence_rows import SentenceRow
from mercury_static.read.parquet import pyarrow_modules

ANNOTATIONS, RECORDS, SENTENCES, CARD = "annotations.parquet", "records.parquet", "sentences.parquet", "README.md"
FILES = (ANNOTATIONS, RECORDS, SENTENCES, CARD)


def _schemas(pa) -> dict[str, object]:
    text, whole, texts = pa.string(), pa.int64(), pa.list_(pa.string())
    return {
        ANNOTATIONS: pa.schema([
            ("record_id", text), ("annotation_id", text), ("annotator", text), ("label", texts), ("note", text),
            ("summary_start", whole), ("summary_end", whole), ("summary_text", text),
            ("source_start", whole), ("source_end", whole), ("source_text", text),
            ("created_at", text), ("updated_at", text), ("elapsed_ms", whole), ("provenance", text)]),
        RECORDS: pa.schema([
            ("record_id", text), ("source", text), ("summary", text), ("annotators", texts), ("metadata", text),
            ("responses", text), ("suggestions", text)]),
        SENTENCES: pa.schema([
            ("record_id", text), ("sentence", whole), ("start", whole), ("end", whole), ("text", text),
            ("annotator", text), ("status", text), ("verdict", text), ("given", pa.bool_()),
            ("evidence", pa.list_(whole)), ("evidence_text", texts), ("labels", texts), ("updated_at", text)]),
    }


def _json(value) -> str | None:
    return None if value is None else safeio.dumps(value, sort_keys=True)


def _annotations_table(records: Sequence[dict]) -> list[dict]:
    rows = []
    for r in records:
        for a in r["annotations"]:
            source = a["source"] or {}
            rows.append({"record_id": r["id"], "annotation_id": a["id"], "annotator": a["annotator"],
                         "label": list(a["label"]), "note": a["note"], "summary_start": a["summary"]["start"],
                         "summary_end": a["summary"]["end"], "summary_text": a["summary"]["text"],
                         "source_start": source.get("start"), "source_end": source.get("end"),
                         "source_text": source.get("text"), "created_at": a.get("created_at"),
                         "updated_at": a.get("updated_at"), "elapsed_ms": a.get("elapsed_ms"),
                         "provenance": _json(a.get("provenance"))})
    return rows


def _records_table(records: Sequence[dict]) -> list[dict]:
    return [{"record_id": r["id"], "source": r["source"], "summary": r["summary"],
             "annotators": sorted({a["annotator"] for a in r["annotations"]}
                                  | {x["annotator"] for x in r["responses"]}),
             "metadata": _json(r["metadata"]), "responses": _json(r["responses"]),
             "suggestions": _json(r.get("suggestions") or None)} for r in records]


def _sentence_row(s: SentenceRow) -> dict:
    return {"record_id": s.record_id, "sentence": s.sentence, "start": s.start, "end": s.end, "text": s.text,
            "annotator": s.annotator, "status": s.status, "verdict": s.verdict, "given": s.given,
            "evidence": list(s.evidence), "evidence_text": list(s.evidence_text), "labels": list(s.labels),
            "updated_at": s.updated_at}


def card(tables: Sequence[str]) -> bytes:
    """The dataset card: one `configs` entry per table with rows (annotations the default; `datasets` reads no
    table of no rows, pandas and pyarrow do)."""
    lines = ["---", "configs:"] if tables else ["---"]
    for name in tables:
        lines += [f"- config_name: {name.removesuffix('.parquet')}", f"  data_files: {name}"]
        if name == ANNOTATIONS:
            lines.append("  default: true")
    lines += ["---", "", "Written by mercury-static: one row per annotation (`annotations`), per record (`records`)"
              " and, with sentence verdicts, per summary sentence and annotator (`sentences`).", ""]
    return "\n".join(lines).encode("utf-8")


def parquet_files(records: Sequence[dict], sentences: Sequence[SentenceRow] | None) -> dict[str, bytes]:
    """The folder's files (path relative to -o -> bytes); `sentences`: None when the bundle asks no verdicts."""
    pa, pq = pyarrow_modules()
    schemas = _schemas(pa)
    tables = {ANNOTATIONS: _annotations_table(records), RECORDS: _records_table(records)}
    if sentences is not None:
        tables[SENTENCES] = [_sentence_row(s) for s in sentences]
    out = {}
    for name, rows in tables.items():
        buffer = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(rows, schema=schemas[name]), buffer)
        out[name] = buffer.getvalue()
    out[CARD] = card([name for name, rows in tables.items() if rows])
    return out
