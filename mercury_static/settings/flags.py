"""What both the settings file and a build flag can give (the text columns, the span labels, the
guidelines, the suggestions file): the one given is used, and two that disagree are one line, so a
coordinator never wonders which of them the bundle holds."""

from __future__ import annotations

from pathlib import Path

from mercury_static.core import safeio
from mercury_static.core.records import InputError
from mercury_static.settings.labels import label_paths, load_labels
from mercury_static.settings.model import Settings


def text_columns(settings: Settings, source_field: str, summary_field: str) -> tuple[str, str]:
    """The input columns of the two texts: the settings' `fields.*.column`, else --source-field /
    --summary-field; both given and different is one line."""
    out = []
    for f, flag, given, default in ((settings.fields.source, "--source-field", source_field, "source"),
                                    (settings.fields.summary, "--summary-field", summary_field, "summary")):
        if f.column is not None and given not in (default, f.column):
            raise InputError(settings.file, f"fields.{default}", "column",
                             f"{f.column!r} and {flag} {given!r} disagree; give one of them")
        out.append(f.column or given)
    return out[0], out[1]


def span_labels(settings: Settings, labels: Path | None) -> tuple[list[str], list[str]]:
    """The span question's labels: its `labels` in the settings file, else --labels, else the default."""
    span = settings.span
    if span.labels is None:
        paths, leaves = load_labels(labels)
    elif labels is not None:
        raise InputError(settings.file, f"questions: {span.name}", "labels",
                         f"labels given twice (here and --labels {labels}); give one of them")
    else:
        paths, leaves = label_paths(span.labels, settings.file)
    stray = next((o.value for o in span.label_texts if o.value not in paths), None)
    if stray is not None:
        raise InputError(settings.file, f"questions: {span.name}", "label_texts",
                         f"{stray!r} is not a label (labels: {', '.join(paths)})")
    if span.visible_options is not None and span.visible_options > len(leaves):
        raise InputError(settings.file, f"questions: {span.name}", "visible_options",
                         f"{span.visible_options} is more than the {len(leaves)} labels")
    return paths, leaves


def load_guidelines(path: Path | None) -> dict | None:
    """Annotator guidelines: Markdown (.md) or plain text."""
    if path is None:
        return None
    text = safeio.read_text(path, str(path), safeio.SMALL_LIMIT)
    fmt = "markdown" if Path(path).suffix.lower() in (".md", ".markdown") else "text"
    return {"format": fmt, "text": text.replace("\r\n", "\n")}


def guidelines(settings: Settings, path: Path | None) -> dict | None:
    """The settings file's `guidelines` (Markdown), else --guidelines; both given is one line."""
    if settings.guidelines is None:
        return load_guidelines(path)
    if path is not None:
        raise InputError(settings.file, None, "guidelines",
                         f"guidelines given twice (here and --guidelines {path}); give one of them")
    return {"format": "markdown", "text": settings.guidelines.replace("\r\n", "\n")}


def suggestion_file(settings: Settings, path: Path | None) -> Path | None:
    """--suggestions FILE, else the settings' `suggestions.file` (relative to the settings file)."""
    if settings.suggestions_file is None:
        return path
    if path is not None:
        raise InputError(settings.file, "suggestions", "file",
                         f"a suggestions file given twice (here and --suggestions {path})")
    return Path(settings.file).parent / settings.suggestions_file
