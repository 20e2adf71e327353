"""An Argilla 2.x `settings.json` (as `rg.Settings.to_json` / `rg.Dataset.to_disk` write it) translated to
this tool's settings document, for `settings.parse_settings` to check like any other.

Which text is which: the source is the field named `source`, else the first text field; the summary the
field named `summary`, else the first other text field (Argilla shows fields in order: context, then
answer); every other text field is an extra read-only field, and a span question must annotate the
summary. Without a span question, today's span question is added (last). What this product cannot show
or store (an image, chat or custom field, a span question over another field than the summary, a mapping
onto questions) is one line naming it, exit 2.
"""

from __future__ import annotations

import logging

from mercury_static.core.records import InputError
from mercury_static.core.safeio import json_kind

log = logging.getLogger("mercury_static")
QUESTION_TYPES = {"label_selection": "label", "multi_label_selection": "multi_label", "rating": "rating",
                  "ranking": "ranking", "text": "text", "span": "span"}
METADATA_TYPES = ("terms", "integer", "float")
# the keys of `rg.Settings.to_json` (argilla 2.x); another one is a file of another version or not Argilla's
KEYS = ("guidelines", "questions", "fields", "vectors", "metadata", "allow_extra_metadata", "distribution", "mapping")


def _settings(item: dict, file: str, where: str) -> dict:
    """An item's `settings` object ({} when absent)."""
    settings = item.get("settings")
    if settings is None:
        return {}
    if not isinstance(settings, dict):
        raise InputError(file, where, "settings", f"expected an object, got {json_kind(settings)}")
    return settings


def _kind(item: dict, file: str, where: str) -> str | None:
    settings = _settings(item, file, where)
    key = "settings.type" if "type" in settings else "type"
    kind = settings.get("type", item.get("type"))
    if kind is not None and not isinstance(kind, str):
        raise InputError(file, where, key, f"expected text, got {json_kind(kind)}")
    return kind


def _flag(item: dict, key: str, default: bool, file: str, where: str) -> bool:
    """A true/false key (absent or null: `default`); anything else would be read as true or false silently."""
    value = item.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InputError(file, where, key, f"expected true or false, got {json_kind(value)}")
    return value


def _where(item: dict, key: str, i: int) -> str:
    name = item.get("name")
    return f"{key}[{i}] ({name!r})" if isinstance(name, str) else f"{key}[{i}]"


def _list(doc: dict, key: str, file: str) -> list:
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
        raise InputError(file, None, key, "expected a list of objects (Argilla settings.json)")
    return value


def _name(item: dict, file: str, where: str) -> str:
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(file, where, "name", "missing")
    return name


def _texts(fields: list, file: str) -> list[dict]:
    for i, f in enumerate(fields):
        kind = _kind(f, file, _where(f, "fields", i))
        if kind is None:
            raise InputError(file, _where(f, "fields", i), "settings.type", "missing")
        if kind != "text":
            raise InputError(file, _where(f, "fields", i), "type",
                             f"{kind!r} fields are not supported (text fields only)")
    if len(fields) < 2:
        raise InputError(file, None, "fields", f"expected at least two text fields (the source and the summary), "
                         f"found {len(fields)}")
    return fields


def _roles(fields: list[dict]) -> tuple[dict, dict, list[dict]]:
    by_name = {f["name"]: f for f in fields}
    source = by_name.get("source") or next(f for f in fields if f is not by_name.get("summary"))
    summary = by_name.get("summary") or next(f for f in fields if f is not source)
    return source, summary, [f for f in fields if f is not source and f is not summary]


def _options(settings: dict, file: str, where: str) -> list[dict]:
    options = settings.get("options")
    if not isinstance(options, list) or not all(isinstance(o, dict) and "value" in o for o in options):
        raise InputError(file, where, "settings.options", "expected a list of {value, text}")
    for j, o in enumerate(options):
        if isinstance(o["value"], (bool, list, dict)) or o["value"] is None:
            raise InputError(file, where, f"settings.options[{j}].value",
                             f"expected text or a number, got {json_kind(o['value'])}")
    return options


def _question(q: dict, file: str, where: str, fields: dict) -> dict:
    kind = _kind(q, file, where)
    if kind not in QUESTION_TYPES:
        raise InputError(file, where, "type", f"{kind!r} questions are not supported")
    settings = _settings(q, file, where)
    name = _name(q, file, where)
    # Argilla's defaults: the title is the name, no description
    out = {"name": name, "type": QUESTION_TYPES[kind], "required": _flag(q, "required", True, file, where),
           "title": q.get("title") or name, "description": q.get("description") or ""}
    if kind in ("label_selection", "multi_label_selection", "span") and settings.get("visible_options") is not None:
        out["visible_options"] = settings["visible_options"]
    if kind == "multi_label_selection" and settings.get("options_order") is not None:
        out["options_order"] = settings["options_order"]
    if kind in ("label_selection", "multi_label_selection", "ranking"):
        out["options"] = [{"value": o["value"], "text": o.get("text") or o["value"]}
                          for o in _options(settings, file, where)]
    elif kind == "rating":
        out["values"] = [o["value"] for o in _options(settings, file, where)]
    elif kind == "text":
        out["markdown"] = _flag(settings, "use_markdown", False, file, where)
    else:
        if settings.get("field") not in (None, fields["summary"]):
            raise InputError(file, where, "settings.field", f"a span question over field {settings['field']!r} is "
                             f"not supported (spans are annotated on the summary, field {fields['summary']!r})")
        options = _options(settings, file, where)
        out["labels"] = {o["value"]: None for o in options}
        out["label_texts"] = {o["value"]: o.get("text") or o["value"] for o in options}
        out["allow_overlapping"] = bool(settings.get("allow_overlapping", False))  # Argilla's default
    return out


def _metadata(m: dict, file: str, where: str) -> dict:
    kind = _kind(m, file, where)
    if kind not in METADATA_TYPES:
        raise InputError(file, where, "type", f"{kind!r} metadata is not supported (terms, integer, float)")
    settings = _settings(m, file, where)
    visible = _flag(settings, "visible_for_annotators", True, file, where)
    out = {"name": _name(m, file, where), "type": kind, "column": m["name"],
           "visible": _flag(m, "visible_for_annotators", visible, file, where)}
    out["title"] = m.get("title") or m["name"]  # Argilla's default title
    if kind == "terms" and settings.get("values") is not None:
        out["values"] = settings["values"]
    for key in ("min", "max"):
        if kind != "terms" and settings.get(key) is not None:
            out[key] = settings[key]
    return out


def _columns(mapping, names: set[str], file: str) -> dict[str, str]:
    """Argilla's `mapping` (incoming column → field or metadata name) as target → column."""
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise InputError(file, None, "mapping", "expected an object (incoming column → attribute)")
    out: dict[str, str] = {}
    for column, targets in mapping.items():
        for target in [targets] if isinstance(targets, str) else targets if isinstance(targets, list) else [None]:
            if not isinstance(target, str):
                raise InputError(file, "mapping", column, f"expected the name of a field or a metadata property "
                                 f"(or a list of names), got {json_kind(target)}")
            if target not in names:
                raise InputError(file, "mapping", column, f"mapping onto {target!r} is not supported (only onto a "
                                 "text field or a metadata property)")
            out[target] = column
    return out


def from_argilla(doc: dict, file: str) -> dict:
    """This tool's settings document for an Argilla 2.x settings.json (see the module docstring)."""
    unknown = [k for k in doc if k not in KEYS]
    if unknown:
        raise InputError(file, None, str(unknown[0]), "unknown key of an Argilla 2.x settings.json (expected one "
                         f"of: {', '.join(KEYS)}; Argilla 1.x's argilla.yaml is not read)")
    questions = _list(doc, "questions", file)
    spans = [q for i, q in enumerate(questions) if _kind(q, file, _where(q, "questions", i)) == "span"]
    fields = _texts(_list(doc, "fields", file), file)
    for i, f in enumerate(fields):
        _name(f, file, f"fields[{i}]")
    source, summary, extra = _roles(fields)
    meta = [_metadata(m, file, f"metadata[{i}]") for i, m in enumerate(_list(doc, "metadata", file))]
    columns = _columns(doc.get("mapping"), {f["name"] for f in fields} | {m["name"] for m in meta}, file)
    for m in meta:
        m["column"] = columns.get(m["name"], m["name"])
    names = {"source": source["name"], "summary": summary["name"]}
    out_questions = [_question(q, file, _where(q, "questions", i), names) for i, q in enumerate(questions)]
    if not spans:  # last, so that questions[i] in a message is the file's questions[i]
        out_questions.append({"name": "spans", "type": "span"})

    def text(f: dict, extra_field: bool) -> dict:
        where = _where(f, "fields", next(i for i, x in enumerate(fields) if x is f))
        t = {"name": f["name"], "title": f.get("title") or f["name"], "column": columns.get(f["name"], f["name"]),
             "required": _flag(f, "required", True, file, where), "description": f.get("description") or ""}
        if extra_field:
            t["markdown"] = _flag(_settings(f, file, where), "use_markdown", False, file, where)
        return t

    out = {"fields": {"source": text(source, False), "summary": text(summary, False),
                      "extra": [text(f, True) for f in extra]},
           "questions": out_questions, "metadata": meta,
           "vectors": {"similar_records": bool(_list(doc, "vectors", file))}}
    if doc.get("guidelines"):
        out["guidelines"] = doc["guidelines"]
    dist = doc.get("distribution")
    if isinstance(dist, dict) and dist.get("min_submitted") is not None:
        out["distribution"] = {"min_submitted": dist["min_submitted"]}
        if isinstance(dist["min_submitted"], int) and dist["min_submitted"] > 1:
            log.warning("%s: distribution min_submitted %d: give the annotators with `mercury-static assign "
                        "BUNDLE --annotators NAMES --overlap %d`", file, dist["min_submitted"], dist["min_submitted"])
    return out
