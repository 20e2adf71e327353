"""How the `settings.json` that `merge --format argilla` writes differs from the Argilla settings file the
bundle was built from (kept whole in the manifest): one line per difference, for the merge's `note:` lines.

Both sides are first read as Argilla 2.8's own models read them (`rg.Settings.from_json`): its defaults
filled in (a title is the name, a question is required, `visible_options` of 3 or more options is their
number, ...) and the server's ids left out, so that only what Argilla would hold differently is named.
"""

from __future__ import annotations

import json

SERVER_KEYS = ("id", "inserted_at", "updated_at", "dataset_id")
RESOURCES = ("questions", "fields", "vectors", "metadata")
MIN_VISIBLE_OPTIONS = 3
MAX_LINES = 20


def _settings(kind: str | None, settings: dict) -> dict:
    s = dict(settings)
    if kind in ("label_selection", "multi_label_selection", "span"):
        options = s.get("options") or []
        if s.get("visible_options") is None and len(options) >= MIN_VISIBLE_OPTIONS:
            s["visible_options"] = len(options)
        s.setdefault("visible_options", None)
    if kind in ("label_selection", "multi_label_selection", "span", "ranking"):
        s["options"] = [{**o, "text": o.get("text") or o.get("value")} for o in s.get("options") or []]
    if kind == "multi_label_selection":
        s.setdefault("options_order", "natural")
    if kind == "span":
        s.setdefault("allow_overlapping", False)
        s.setdefault("field", None)
    if kind == "text":
        s.setdefault("use_markdown", False)
    if kind == "terms":
        s.setdefault("values", None)
    if kind in ("integer", "float"):
        s.setdefault("min", None)
        s.setdefault("max", None)
    return s


def _resource(section: str, item: dict) -> dict:
    r = {k: v for k, v in item.items() if k not in SERVER_KEYS}
    r.setdefault("title", r.get("name"))
    if section in ("questions", "fields"):
        r.setdefault("required", True)
        r["description"] = r.get("description") or None
    settings = r.get("settings") if isinstance(r.get("settings"), dict) else None
    if settings is not None:
        r["settings"] = _settings(settings.get("type"), settings)
        if section == "metadata":
            r.setdefault("visible_for_annotators", settings.get("visible_for_annotators", True))
            r["settings"].pop("visible_for_annotators", None)  # the model's own key is the one Argilla keeps
    r.pop("type", None)  # a copy of settings.type
    return r


def normalized(doc: dict) -> dict:
    """An Argilla settings.json as its models read it (see the module docstring)."""
    out = {"guidelines": doc.get("guidelines") or None, "allow_extra_metadata": bool(doc.get("allow_extra_metadata")),
           "distribution": {"strategy": "overlap", "min_submitted": 1, **(doc.get("distribution") or {})},
           "mapping": doc.get("mapping") or None}
    for section in RESOURCES:
        out[section] = [_resource(section, x) for x in doc.get(section) or [] if isinstance(x, dict)]
    return out


def _show(value) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _walk(path: str, a, b, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            _walk(f"{path}.{key}" if path else key, a.get(key), b.get(key), out)
    elif a != b:
        out.append(f"{path}: {_show(a)} in the settings file, {_show(b)} written")


def differences(given: dict | None, written: dict) -> list[str]:
    """One line per difference of `written` from `given` (None: the bundle was not built from an Argilla
    file, nothing to compare); at most MAX_LINES, then a count of the others."""
    if not isinstance(given, dict):
        return []
    a, b = normalized(given), normalized(written)
    lines: list[str] = []
    for key in a:
        if key not in RESOURCES:
            _walk(key, a[key], b[key], lines)
            continue
        mine = {x.get("name"): x for x in a[key]}
        theirs = {x.get("name"): x for x in b[key]}
        for name, item in mine.items():
            if name not in theirs:
                lines.append(f"{key} {name!r}: in the settings file, not written")
            else:
                _walk(f"{key} {name!r}", item, theirs[name], lines)
        lines += [f"{key} {name!r}: written, not in the settings file" for name in theirs if name not in mine]
        both = [n for n in mine if n in theirs]
        if both != [n for n in theirs if n in mine]:
            lines.append(f"{key}: written in another order ({', '.join(map(str, theirs))})")
    lines = [f"settings.json differs from the bundle's Argilla settings file: {x}" for x in lines]
    return lines if len(lines) <= MAX_LINES else [*lines[:MAX_LINES], f"... and {len(lines) - MAX_LINES} more "
                                                  "differences of settings.json from the Argilla settings file"]
