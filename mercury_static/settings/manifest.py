"""The manifest's `settings` key (docs/DESIGN.md; the page's form, filters and suggestions read it): written
from `Settings` and the metadata ranges the data holds, and read back into `Settings` (merge: the questions).
"""

from __future__ import annotations

from mercury_static.settings.model import (MetadataProperty, MetadataRanges, Question, SentenceVerdicts, Settings,
                                           TextField)
from mercury_static.settings.parse import parse_settings


def _question_json(q: Question) -> dict:
    out = {"name": q.name, "type": q.type, "title": q.title, "description": q.description, "required": q.required}
    if q.options:
        out["options"] = [{"value": o.value, "text": o.text} for o in q.options]
    if q.type == "rating":
        out["values"] = list(q.values)
    if q.type == "text":
        out["markdown"] = q.markdown
    # Argilla's span and label settings, only when given (a bundle without them keeps its id)
    if q.label_texts:
        out["label_texts"] = {o.value: o.text for o in q.label_texts}
    if not q.allow_overlapping:
        out["allow_overlapping"] = False
    if q.visible_options is not None:
        out["visible_options"] = q.visible_options
    if q.options_order != "natural":
        out["options_order"] = q.options_order
    if q.granularity != "word":
        out["granularity"] = q.granularity
    return out


def _field_json(f: TextField, role: str | None) -> dict:
    """A text field in the manifest: the two texts' Argilla name, required and description only when they
    are not the defaults (today's bundles keep their ids)."""
    out: dict = {"title": f.title} if role else {"name": f.name, "title": f.title, "markdown": f.markdown,
                                           "required": f.required}
    if role and f.name != role:
        out["name"] = f.name
    if role and not f.required:
        out["required"] = False
    if f.description:
        out["description"] = f.description
    return out


def _metadata_json(p: MetadataProperty, ranges: MetadataRanges) -> dict:
    """A metadata property in the manifest: its values (or range) as declared, else as the data holds them
    (for the page's filter), and then `from_data` names those keys (Argilla's file keeps them unset)."""
    out = {"name": p.name, "title": p.title, "type": p.type, "visible": p.visible}
    if p.type == "terms":
        out["values"] = list(p.values) if p.values is not None else sorted(ranges.terms.get(p.name, ()))
        observed = ["values"] if p.values is None else []
    else:
        out["min"] = p.min if p.min is not None else ranges.low.get(p.name)
        out["max"] = p.max if p.max is not None else ranges.high.get(p.name)
        observed = [k for k in ("min", "max") if getattr(p, k) is None]
    if observed:
        out["from_data"] = observed
    return out


def manifest_settings(s: Settings, ranges: MetadataRanges) -> dict:
    """The manifest's `settings` key (docs/DESIGN.md; the page's form, filters and suggestions read it)."""
    return {
        "fields": {"source": _field_json(s.fields.source, "source"),
                   "summary": _field_json(s.fields.summary, "summary"),
                   "extra": [_field_json(f, None) for f in s.fields.extra]},
        "questions": [_question_json(q) for q in s.questions],
        "metadata": [_metadata_json(p, ranges) for p in s.metadata],
        "suggestions": {"blind": list(s.blind) if isinstance(s.blind, tuple) else s.blind},
        "vectors": {"similar_records": s.similar_records},
        **({"distribution": {"min_submitted": s.min_submitted}} if s.min_submitted is not None else {}),
        **({"keys": {a: list(k) for a, k in s.keys.items()}} if s.keys else {}),
        **({"citations": {"patterns": list(s.citation_patterns)}} if s.citation_patterns is not None else {}),
        **({"sentence_verdicts": sentence_verdicts_json(s.sentence_verdicts)} if s.sentence_verdicts else {}),
        **({"argilla": s.argilla} if s.argilla is not None else {}),
    }


def sentence_verdicts_json(v: SentenceVerdicts) -> dict:
    """The manifest's `settings.sentence_verdicts` (what the page reads; `parse_settings` reads it back)."""
    return {"mode": v.mode, "options": [{"value": o.value, "text": o.text} for o in v.options],
            "evidence": list(v.evidence), "flagged": v.flagged}


def from_manifest(doc: dict, file: str = "manifest.json") -> Settings:
    """The `Settings` of a bundle's manifest `settings` (merge checks responses against its questions). The
    span question's labels are the manifest's `labels`, not repeated here."""
    doc = {k: v for k, v in doc.items() if k != "argilla"}
    doc["metadata"] = [{k: v for k, v in m.items() if k != "from_data" and k not in m.get("from_data", ())
                        and not (k == "values" and not v)} for m in doc.get("metadata", [])]
    return parse_settings(doc, file)
