"""A Label Studio labeling config (XML) translated to this tool's settings document, for
`settings.parse_settings` to check like any other.

What maps: two `Text` objects (the one named `summary`, else the second, is the summary; the one named `source`,
else the other, the source; their `value="$field"` names the data field), a `Labels` control on the summary
(its `Label` values are the label tree, a dotted value a path: `Unwanted.Intrinsic`), the same or fewer labels
on the source, `Relations` (a summary region paired with its source evidence) and a per-region `TextArea` on
the summary (the note). Layout tags (`View`, `Header`, `Style`, ...) are layout. Any other control
(`Choices`, `Rating`, a whole-task `TextArea`, ...) is one warning line naming it: the bundle has no place
for its answers, so it is left out, never silently. A config with no two Texts or no Labels on the summary
cannot map: one line, exit 2.

The config is untrusted XML: parsed by defusedxml with document types refused (the way to an entity-expansion
bomb; a labeling config never needs one).
"""

from __future__ import annotations

import logging
import xml.etree.ElementTree as ET

from mercury_static.core.records import InputError

log = logging.getLogger("mercury_static")
LAYOUT = ("View", "Header", "Style", "Filter", "Collapse", "Panel")
"""Tags that only arrange the page: read without a word."""
GRANULARITY = {"symbol": "character", "word": "word"}
"""Label Studio's `granularity` (its default: symbol) -> the span question's."""


def parse_xml(text: str, file: str) -> ET.Element:
    """The config's root element; an entity or document type declaration, or XML that does not parse, is one
    line."""
    import defusedxml.ElementTree as safe_et
    from defusedxml import DefusedXmlException

    try:
        return safe_et.fromstring(text, forbid_dtd=True)
    except DefusedXmlException:
        raise InputError(file, None, None, "a document type or entity declaration is not accepted in a "
                         "labeling config (untrusted XML)") from None
    except ET.ParseError as e:
        raise InputError(file, f"line {e.position[0]}", None, f"invalid XML ({e})") from None


def _tree(values: list[str], file: str, where: str) -> dict:
    """Dotted label values -> a label tree (a leaf is None), in the config's order."""
    tree: dict = {}
    for value in values:
        node = tree
        parts = value.split(".")
        if not all(p.strip() for p in parts):
            raise InputError(file, where, "value", f"label {value!r}: an empty part in its dotted path")
        for part in parts:
            node = node.setdefault(part, {})
    return _leaves_as_none(tree)


def _leaves_as_none(tree: dict) -> dict:
    return {k: _leaves_as_none(v) if v else None for k, v in tree.items()}


def from_label_studio(text: str, file: str) -> dict:
    """This tool's settings document for a Label Studio labeling config (see the module docstring)."""
    root = parse_xml(text, file)
    texts, labels, notes = [], [], []
    stack = [root]
    while stack:
        el = stack.pop()
        where = f"<{el.tag} name={el.get('name')!r}>" if el.get("name") else f"<{el.tag}>"
        if el.tag == "Text":
            texts.append(el)
        elif el.tag == "Labels":
            labels.append(el)
        elif el.tag == "TextArea" and el.get("perRegion") == "true":
            notes.append(el)
        elif el.tag in LAYOUT or el.tag in ("Relations", "Relation"):
            stack.extend(reversed(el))
        else:
            log.warning("%s: %s is not read (a bundle holds span annotations with labels, source pairs and notes "
                        "only); its answers are left out", file, where)
    if len(texts) != 2:
        raise InputError(file, None, "Text", f"expected two Text objects (the source and the summary), found "
                         f"{len(texts)}")
    names = [t.get("name") or "" for t in texts]
    summary = texts[names.index("summary")] if "summary" in names else texts[1]
    source = next(t for t in texts if t is not summary)
    columns = {}
    for role, el in (("source", source), ("summary", summary)):
        value = el.get("value") or ""
        if not value.startswith("$") or len(value) < 2:
            raise InputError(file, f"<Text name={el.get('name')!r}>", "value",
                             f"expected $field (the task's data field), got {value!r}")
        columns[role] = value[1:]
    on = {el.get("toName"): el for el in labels}
    stray = next((el for el in labels if el.get("toName") not in (source.get("name"), summary.get("name"))), None)
    if stray is not None:
        raise InputError(file, f"<Labels name={stray.get('name')!r}>", "toName",
                         f"{stray.get('toName')!r} is neither Text ({source.get('name')!r}, {summary.get('name')!r})")
    control = on.get(summary.get("name"))
    if control is None:
        raise InputError(file, None, "Labels", f"no Labels control on the summary Text {summary.get('name')!r} "
                         "(the spans are labelled on the summary)")
    values = [x.get("value") or "" for x in control.iter("Label")]
    where = f"<Labels name={control.get('name')!r}>"
    if not values:
        raise InputError(file, where, "Label", "no Label values")
    other = on.get(source.get("name"))
    if other is not None:
        extra = next((x.get("value") for x in other.iter("Label") if x.get("value") not in values), None)
        if extra is not None:
            raise InputError(file, f"<Labels name={other.get('name')!r}>", "value", f"source label {extra!r} is not "
                             "a summary label (a source region is the evidence of a summary span, labelled as it)")
    granularity = control.get("granularity", "symbol")
    if granularity not in GRANULARITY:
        raise InputError(file, where, "granularity", f"{granularity!r} is not one of {', '.join(GRANULARITY)}")
    for el in notes:
        if el.get("toName") != summary.get("name"):
            log.warning("%s: <TextArea name=%r> is on %r, not the summary: a note is a summary span's; left out",
                        file, el.get("name"), el.get("toName"))
    span = {"name": "spans", "type": "span", "labels": _tree(values, file, where),
            "granularity": GRANULARITY[granularity]}
    return {"fields": {"source": {"name": "source", "title": "Source", "column": columns["source"]},
                       "summary": {"name": "summary", "title": "Summary", "column": columns["summary"]}},
            "questions": [span]}
