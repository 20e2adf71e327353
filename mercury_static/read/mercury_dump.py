"""Mercury dump input: the dump's samples, and its annotations as prior annotations of the page.

Ids, annotators and labels come from mercury.py, so `merge` gives the same annotation the same identity.
"""

from __future__ import annotations

import logging

from mercury_static.core import mercury, safeio
from mercury_static.core.records import InputError

log = logging.getLogger("mercury_static")


def dump_samples(data, name: str) -> list:
    """The samples of a dump (a list, or ``{"samples": [...]}`` whose other fields are checked)."""
    samples = data.get("samples") if isinstance(data, dict) else data
    if isinstance(data, dict):
        safeio.check(data, name, None, skip=("samples",))
    if not isinstance(samples, list):
        raise InputError(name, None, "samples", "expected a list of samples")
    return samples


def prior_annotation(a, k: int, record_id: str, source: str, summary: str, label: str) -> dict | None:
    """A Mercury annotation in the export shape, or None (dropped, with a warning). Its id, annotator and
    label are what merge gives the same annotation (mercury.py)."""
    if not isinstance(a, dict):
        log.warning("%s: annotation %d: not an object, dropped", label, k)
        return None
    ann_id = mercury.annotation_id(a) or f"annotations[{k}]"
    try:
        labels = mercury.checked_label(a.get("label"))
    except ValueError as e:  # as merge and tune skip it
        log.warning("%s: annotation %s: field 'label': %s; dropped", label, ann_id, e)
        return None
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
        "label": labels,
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
