"""Input files -> records: CSV, JSON, JSONL, Mercury dumps and SummHay topic files.

Rules shared by every format:

- Bad input raises ``InputError`` (one line: file, ``line N`` or ``record N``, field, message).
  ``line N`` is a 1-based physical line (for CSV the line where the record starts); ``record N`` is the
  0-based index in a JSON list (jq's ``.[N]``). A UTF-8 BOM and CRLF line ends are accepted.
- Record ids come from ``id_field`` (looked up in the record, then in its nested ``metadata``), else an
  ``id`` field, else ``sample_id``, else the 0-based position. When several files are read, ids not
  chosen with ``id_field`` are prefixed with the file's stem (``batch_1:0``), because ``sample_id`` and
  positions restart in every file (FaithBench batches). Any remaining duplicate is an error naming both
  places. SummHay records are ``<subtopic_id>:<method>`` (see ``_read_summhay``; field options unused).
- Every field other than id, source, summary (and a Mercury dump's ``annotations``) is metadata; a nested
  ``metadata`` object is merged into it (top-level fields win on a name clash).
- A source may be a list of documents (strings or ``{"title"?, "id"?, "text"}``): they are joined as
  titled sections, see ``join_documents``.
- Mercury annotations become ``prior_annotations`` in the export annotation shape plus ``annotator``.
  Offsets must slice back to the span text; otherwise the span is looked up in the text and the offsets
  are fixed when it occurs exactly once, else the annotation is dropped (a bad *source* span only drops
  the source part). Each fix or drop is logged as a warning on the ``mercury_static`` logger.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import mercury, safeio
from .records import InputError, Record, Section

log = logging.getLogger("mercury_static")

FORMATS = ("auto", "csv", "json", "jsonl", "mercury", "summhay")
_COVERAGE_SCORE = {"FULL_COVERAGE": 100.0, "PARTIAL_COVERAGE": 50.0, "NO_COVERAGE": 0.0}


@dataclass(frozen=True)
class _Options:
    source_field: str
    summary_field: str
    id_field: str | None
    qualify_ids: bool


@dataclass
class _Item:
    """One record before the duplicate-id check, with the place it came from."""

    record: Record
    where: str
    id_key: str | None  # the field the id came from (None: position)


def read_records(
    paths: Iterable[str | Path] | str | Path,
    fmt: str = "auto",
    source_field: str = "source",
    summary_field: str = "summary",
    id_field: str | None = None,
) -> list[Record]:
    """Read every input file into records (see the module docstring for the rules)."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if fmt not in FORMATS:
        raise InputError(str(paths[0]) if paths else "-", None, None,
                         f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    opts = _Options(source_field, summary_field, id_field, qualify_ids=len(paths) > 1)
    records: list[Record] = []
    seen: dict[str, str] = {}
    for path in paths:
        for item in _read_file(Path(path), str(path), fmt, opts):
            rec = item.record
            safeio.check(rec.id, str(path), item.where, item.id_key or "id")  # e.g. a file stem not in UTF-8
            if rec.id in seen:
                raise InputError(str(path), item.where, item.id_key,
                                 f"duplicate id {rec.id!r} (first seen at {seen[rec.id]})")
            seen[rec.id] = f"{path}: {item.where}"
            records.append(rec)
    return records


# ---------------------------------------------------------------- files and formats

def _read_text(path: Path, name: str) -> str:
    text = safeio.read_text(path, name, safeio.INPUT_LIMIT)
    if not text.strip():
        raise InputError(name, None, None, "empty file")
    return text


def _read_file(path: Path, name: str, fmt: str, opts: _Options) -> Iterator[_Item]:
    text = _read_text(path, name)
    ext = path.suffix.lower()
    if fmt == "csv" or (fmt == "auto" and ext in (".csv", ".tsv")):
        yield from _read_csv(text, name, opts, delimiter="\t" if ext == ".tsv" else ",")
        return
    if fmt == "jsonl" or (fmt == "auto" and ext in (".jsonl", ".ndjson")):
        yield from _read_jsonl(text, name, opts)
        return
    if fmt == "auto" and ext != ".json" and text.lstrip()[:1] not in ("[", "{"):
        raise InputError(name, None, None,
                         "cannot tell the format (use .csv, .json or .jsonl, or pass --format)")
    data = _parse_json(text, name, allow_jsonl=fmt == "auto")
    if data is None:  # JSON Lines in a file named .json
        yield from _read_jsonl(text, name, opts)
        return
    kind = _json_kind(data) if fmt == "auto" else fmt
    if kind == "summhay":
        safeio.check(data, name, None)
        yield from _read_summhay(data, name, opts)
    elif kind == "mercury":
        samples = data.get("samples") if isinstance(data, dict) else data
        if isinstance(data, dict):
            safeio.check(data, name, None, skip=("samples",))
        if not isinstance(samples, list):
            raise InputError(name, None, "samples", "expected a list of samples")
        yield from _read_list(samples, name, opts, is_dump=True)
    elif isinstance(data, list):
        yield from _read_list(data, name, opts, is_dump=False)
    else:
        found = f"an object with keys: {', '.join(list(data)[:12])}" if isinstance(data, dict) \
            else f"a {safeio.json_kind(data)}"
        raise InputError(name, None, None,
                         "expected a JSON list of records, a Mercury dump {\"samples\": [...]} or a "
                         f"SummHay topic (found {found})")


def _parse_json(text: str, name: str, allow_jsonl: bool):
    try:
        return safeio.loads(text)
    except json.JSONDecodeError as e:
        if allow_jsonl and e.msg == "Extra data" and _first_line_is_object(text):
            return None
        raise InputError(name, f"line {e.lineno}", None,
                         f"invalid JSON ({e.msg} at column {e.colno})") from None
    except RecursionError:
        raise InputError(name, None, None, "invalid JSON (nested too deeply)") from None


def _first_line_is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text.lstrip().split("\n", 1)[0]), dict)
    except ValueError:
        return False


def _json_kind(data) -> str:
    if isinstance(data, dict):
        if "samples" in data:
            return "mercury"
        if "documents" in data and "subtopics" in data:
            return "summhay"
        return "unknown"
    first = next((x for x in data if isinstance(x, dict)), None) if isinstance(data, list) else None
    if first is not None and "sample_id" in first and "annotations" in first:
        return "mercury"
    return "json"


def _read_csv(text: str, name: str, opts: _Options, delimiter: str) -> Iterator[_Item]:
    _allow_huge_csv_fields()
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
        duplicates = sorted({h for h in header if header.count(h) > 1})
        if duplicates:
            raise InputError(name, "line 1", duplicates[0], "duplicate column")
        for col in (opts.source_field, opts.summary_field, opts.id_field):
            if col is not None and col not in header:
                raise InputError(name, "line 1", col,
                                 f"missing column (available columns: {', '.join(header)})")
        position = 0
        prev_line = reader.line_num
        for row in reader:
            where = f"line {prev_line + 1}"
            prev_line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(name, where, None,
                                 f"{len(row)} values but the header has {len(header)} columns")
            yield _make_item(dict(zip(header, row)), position, where, name, opts, is_dump=False)
            position += 1
    except csv.Error as e:
        raise InputError(name, f"line {reader.line_num}", None, f"invalid CSV ({e})") from None
    if position == 0:
        raise InputError(name, None, None, "no records (only a header row)")


def _allow_huge_csv_fields() -> None:
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 2


def _read_jsonl(text: str, name: str, opts: _Options) -> Iterator[_Item]:
    position = 0
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        try:
            obj = safeio.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(name, where, None, f"invalid JSON ({e.msg} at column {e.colno})") from None
        except RecursionError:
            raise InputError(name, where, None, "invalid JSON (nested too deeply)") from None
        if not isinstance(obj, dict):
            raise InputError(name, where, None, f"expected a JSON object, got {safeio.json_kind(obj)}")
        yield _make_item(obj, position, where, name, opts, is_dump=False)
        position += 1


def _read_list(items: list, name: str, opts: _Options, is_dump: bool) -> Iterator[_Item]:
    if not items:
        raise InputError(name, None, None, "no records (empty list)")
    for i, obj in enumerate(items):
        where = f"record {i}"
        if not isinstance(obj, dict):
            raise InputError(name, where, None, f"expected a JSON object, got {safeio.json_kind(obj)}")
        yield _make_item(obj, i, where, name, opts, is_dump=is_dump)


# ---------------------------------------------------------------- one record

def _make_item(fields: dict, position: int, where: str, name: str, opts: _Options,
               is_dump: bool) -> _Item:
    safeio.check(fields, name, where)
    fields = dict(fields)
    names = ", ".join(fields) or "none"
    id_key = mercury.record_id_key(fields, opts.id_field)
    rec_id = mercury.record_id(fields, position, opts.id_field, name, where)
    nested = fields.pop("metadata", None) if isinstance(fields.get("metadata"), dict) else None
    nested = dict(nested) if nested else {}
    if id_key is not None:
        (fields if id_key in fields else nested).pop(id_key)
    if opts.qualify_ids and opts.id_field is None:
        rec_id = f"{Path(name).stem}:{rec_id}"

    sections = None
    for key in (opts.source_field, opts.summary_field):
        if key not in fields:
            raise InputError(name, where, key, f"missing (fields: {names})")
    raw_source = fields.pop(opts.source_field)
    if isinstance(raw_source, list):
        source, sections = join_documents(_documents(raw_source, name, where, opts.source_field))
    elif isinstance(raw_source, str):
        source = _text(raw_source, name, where, opts.source_field)
    else:
        raise InputError(name, where, opts.source_field,
                         f"expected a string or a list of documents, got {safeio.json_kind(raw_source)}")
    summary = _text(fields.pop(opts.summary_field), name, where, opts.summary_field)

    prior: list[dict] = []
    if is_dump and "annotations" in fields:
        anns = fields.pop("annotations")
        if anns is not None and not isinstance(anns, list):
            raise InputError(name, where, "annotations", f"expected a list, got {safeio.json_kind(anns)}")
        label = f"{name}: {where}"
        prior = [p for k, a in enumerate(anns or []) if (p := _prior(a, k, rec_id, source, summary, label))]

    metadata = {**nested, **fields}
    origin = f"{Path(name).name}:{where.split()[-1]}" if where.startswith("line") \
        else f"{Path(name).name}[{where.split()[-1]}]"
    record = Record(id=rec_id, source=source, summary=summary, metadata=metadata,
                    prior_annotations=prior, source_sections=sections, origin=origin)
    return _Item(record, where, id_key)


def _text(value, name: str, where: str, key: str) -> str:
    if not isinstance(value, str):
        raise InputError(name, where, key, f"expected a string, got {safeio.json_kind(value)}")
    if not value.strip():
        raise InputError(name, where, key, "empty text")
    return value


def _documents(items: list, name: str, where: str, key: str) -> list[tuple[str, str, str]]:
    """(title, doc_id, text) of each document of a list-valued source."""
    if not items:
        raise InputError(name, where, key, "empty list of documents")
    docs = []
    for i, doc in enumerate(items):
        label = f"document {i}"
        if isinstance(doc, str):
            title, doc_id, text = None, None, doc
        elif isinstance(doc, dict):
            if "text" not in doc:
                raise InputError(name, where, key, f"{label}: missing 'text'")
            title, doc_id, text = doc.get("title"), doc.get("id"), doc["text"]
        else:
            raise InputError(name, where, key,
                             f"{label}: expected a string or an object with 'text', got {safeio.json_kind(doc)}")
        if not isinstance(text, str) or not text.strip():
            raise InputError(name, where, key, f"{label}: empty text" if isinstance(text, str)
                             else f"{label}: expected a string text, got {safeio.json_kind(text)}")
        title = " ".join(str(title).split()) if title not in (None, "") else f"Document {i + 1}"
        docs.append((title, str(doc_id) if doc_id is not None else str(i + 1), text))
    return docs


def join_documents(docs: list[tuple[str, str, str]]) -> tuple[str, list[Section]]:
    """Join (title, doc_id, text) documents into one source text with one section per document.

    Each document is its title on one line, then its text (stripped); documents are separated by a blank
    line. A section's [start, end) covers the document's text only (the title line sits just before it).
    """
    parts: list[str] = []
    sections: list[Section] = []
    pos = 0
    for title, doc_id, text in docs:
        body = text.strip()
        if parts:
            parts.append("\n\n")
            pos += 2
        parts.append(f"{title}\n{body}")
        start = pos + len(title) + 1
        sections.append(Section(start, start + len(body), title, doc_id))
        pos = start + len(body)
    return "".join(parts), sections


def _prior(a, k: int, record_id: str, source: str, summary: str, label: str) -> dict | None:
    """A Mercury annotation in the export shape, or None (dropped, with a warning). Its id, annotator and
    label are what merge gives the same annotation (mercury.py)."""
    if not isinstance(a, dict):
        log.warning("%s: annotation %d: not an object, dropped", label, k)
        return None
    ann_id = mercury.annotation_id(a) or f"annotations[{k}]"
    span = _locate(summary, a.get("summary_span"), a.get("summary_start"), a.get("summary_end"))
    if span is None:
        log.warning("%s: annotation %s: summary span %r not found in the summary, dropped",
                    label, ann_id, a.get("summary_span"))
        return None
    if span[0] != a.get("summary_start"):
        log.warning("%s: annotation %s: summary offsets fixed to [%d, %d)", label, ann_id, *span)
    src = None
    if a.get("source_span") not in (None, ""):
        src = _locate(source, a.get("source_span"), a.get("source_start"), a.get("source_end"))
        if src is None:
            log.warning("%s: annotation %s: source span not found in the source, source part dropped",
                        label, ann_id)
        elif src[0] != a.get("source_start"):
            log.warning("%s: annotation %s: source offsets fixed to [%d, %d)", label, ann_id, *src)
    note = a.get("note")
    annotator = mercury.annotator(a) or ""
    summary_span = {"start": span[0], "end": span[1], "text": summary[span[0]:span[1]]}
    source_span = None if src is None else {"start": src[0], "end": src[1], "text": source[src[0]:src[1]]}
    return {
        "id": mercury.annotation_id(a) or mercury.derived_id(record_id, annotator, a, summary_span, source_span),
        "label": [str(x) for x in mercury.label_path(a.get("label")) or []],
        "note": note if isinstance(note, str) else "",
        "summary": summary_span,
        "source": source_span,
        "annotator": annotator,
    }


def _locate(text: str, span, start, end) -> tuple[int, int] | None:
    """[start, end) of ``span`` in ``text``: as given if it slices back, else its only occurrence."""
    if not isinstance(span, str) or not span:
        return None
    if isinstance(start, int) and isinstance(end, int) and text[start:end] == span and start >= 0:
        return start, end
    first = text.find(span)
    if first < 0 or text.find(span, first + 1) >= 0:
        return None
    return first, first + len(span)


# ---------------------------------------------------------------- SummHay

def _read_summhay(data, name: str, opts: _Options) -> Iterator[_Item]:
    """One record per (subtopic, summary method) of a SummHay topic file; the source is the haystack.

    Documents become sections titled ``Document N (article source)`` (N = 1-based position, which is
    what the summaries' ``[N]`` citations refer to). ``gold`` holds the subtopic's insights with the ids
    of the documents that include them, and every summary line as a bullet with its offsets and the
    insights it covers; ``index`` is SummHay's ``bullet_id`` (the 1-based line number).
    """
    if not isinstance(data, dict) or not isinstance(data.get("documents"), list) \
            or not isinstance(data.get("subtopics"), list):
        raise InputError(name, None, None, "not a SummHay topic (needs 'documents' and 'subtopics' lists)")
    docs, insight_docs = [], {}
    for i, doc in enumerate(data["documents"]):
        where = f"documents[{i}]"
        if not isinstance(doc, dict):
            raise InputError(name, where, None, f"expected an object, got {safeio.json_kind(doc)}")
        doc_id = mercury.id_text(doc.get("document_id", str(i)), name, where, "document_id")
        text = _text(doc.get("document_text"), name, where, "document_text")
        meta = doc.get("document_metadata")  # SummHay writes [] for "none"
        origin = meta.get("article_source") if isinstance(meta, dict) else None
        if origin is not None and not isinstance(origin, str):
            raise InputError(name, where, "document_metadata.article_source",
                             f"expected a string, got {safeio.json_kind(origin)}")
        docs.append((f"Document {i + 1}" + (f" ({origin})" if origin else ""), doc_id, text))
        for k, insight_id in enumerate(_typed(doc, "insights_included", list, name, where) or []):
            key = mercury.id_text(insight_id, name, where, f"insights_included[{k}]")
            insight_docs.setdefault(key, []).append(doc_id)
    if not docs:
        raise InputError(name, None, "documents", "no documents")
    source, sections = join_documents(docs)
    stem = Path(name).name
    topic = {"topic": data.get("topic"), "topic_id": data.get("topic_id")}
    count = 0
    for j, st in enumerate(data["subtopics"]):
        where = f"subtopics[{j}]"
        if not isinstance(st, dict) or not isinstance(st.get("summaries"), dict):
            raise InputError(name, where, "summaries", "expected an object of method -> bullet list")
        subtopic_id = mercury.id_text(st.get("subtopic_id", str(j)), name, where, "subtopic_id")
        for key in ("subtopic_name", "subtopic", "query"):
            _typed(st, key, str, name, where)
        insights = []
        for k, ins in enumerate(_typed(st, "insights", list, name, where) or []):
            iwhere = f"{where}.insights[{k}]"
            if not isinstance(ins, dict):
                raise InputError(name, iwhere, None, f"expected an object, got {safeio.json_kind(ins)}")
            insight_id = mercury.id_text(ins.get("insight_id"), name, iwhere, "insight_id")
            insights.append({"id": insight_id, "name": _typed(ins, "insight_name", str, name, iwhere),
                             "text": _typed(ins, "insight", str, name, iwhere),
                             "documents": insight_docs.get(insight_id, [])})
        evals = _typed(st, "eval_summaries", dict, name, where) or {}
        for method, lines in st["summaries"].items():
            mwhere = f"{where}.summaries[{method!r}]"
            if isinstance(lines, str):
                lines = lines.split("\n")
            if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
                raise InputError(name, mwhere, None, "expected a list of strings")
            if not any(x.strip() for x in lines):
                log.warning("%s: %s: empty summary, skipped", name, mwhere)
                continue
            short = method.removeprefix("summary_subtopic_")
            retriever, _, summarizer = short.rpartition("_")
            judgments = _judgments(evals.get(method), name, f"{where}.eval_summaries[{method!r}]")
            summary, bullets = _bullets(lines, judgments)
            scores = [_COVERAGE_SCORE[e["coverage"]] for e in judgments
                      if e.get("coverage") in _COVERAGE_SCORE]
            metadata = {
                **topic,
                "title": f"{st.get('subtopic_name') or subtopic_id} · {short}",
                "subtopic_id": subtopic_id,
                "subtopic_name": st.get("subtopic_name"),
                "subtopic": st.get("subtopic"),
                "query": st.get("query"),
                "method": short,
                "retriever": retriever or "full-context",
                "summarizer": summarizer,
                "coverage": judgments,
                "coverage_score": round(sum(scores) / len(scores), 1) if scores else None,
            }
            rec_id = f"{subtopic_id}:{short}"
            record = Record(id=rec_id, source=source, summary=summary, metadata=metadata,
                            source_sections=list(sections), origin=f"{stem}:{rec_id}",
                            gold={"insights": insights, "bullets": bullets})
            count += 1
            yield _Item(record, mwhere, "subtopic_id")
    if count == 0:
        raise InputError(name, None, "subtopics", "no summaries")


def _typed(obj: dict, key: str, kind: type, name: str, where: str):
    """obj[key] when it is absent, null or of `kind`; else InputError naming the field."""
    value = obj.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        expected = {str: "a string", list: "a list", dict: "an object"}[kind]
        raise InputError(name, where, key, f"expected {expected}, got {safeio.json_kind(value)}")
    return value


def _judgments(value, name: str, where: str) -> list[dict]:
    """The coverage judgments of one summary: objects with a text `coverage` and a line `bullet_id`."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(name, where, None, f"expected a list of judgments, got {safeio.json_kind(value)}")
    for k, e in enumerate(value):
        if not isinstance(e, dict):
            raise InputError(name, f"{where}[{k}]", None, f"expected an object, got {safeio.json_kind(e)}")
        _typed(e, "coverage", str, name, f"{where}[{k}]")
        if "insight_id" in e:
            mercury.id_text(e["insight_id"], name, f"{where}[{k}]", "insight_id")
        bullet = e.get("bullet_id")
        if bullet is not None and (isinstance(bullet, bool) or not isinstance(bullet, (int, str))):
            raise InputError(name, f"{where}[{k}]", "bullet_id",
                             f"expected a line number, got {safeio.json_kind(bullet)}")
    return value


def _bullets(lines: list[str], judgments: list[dict]) -> tuple[str, list[dict]]:
    """The summary text (one line per bullet, as given) and the gold bullets with their offsets."""
    covered: dict[int, list[dict]] = {}
    for e in judgments:
        bullet = e.get("bullet_id")
        if isinstance(bullet, str) and bullet.isdigit():
            bullet = int(bullet)
        if isinstance(bullet, int) and not isinstance(bullet, bool):
            covered.setdefault(bullet, []).append(
                {"insight_id": str(e.get("insight_id")), "coverage": e.get("coverage")})
    bullets, pos = [], 0
    for n, line in enumerate(lines, 1):
        body = line.strip()
        start = pos + (len(line) - len(line.lstrip()))
        bullets.append({"index": n, "text": body, "start": start, "end": start + len(body),
                        "covered_insights": covered.get(n, [])})
        pos += len(line) + 1
    return "\n".join(lines), bullets
