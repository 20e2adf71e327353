"""Label trees (`--labels FILE`, or a span question's `labels` in the settings): parsed into the dotted
paths the page shows and the leaves an annotator picks."""

from __future__ import annotations

from pathlib import Path

from mercury_static.core import safeio, yaml_strict
from mercury_static.core.records import InputError

DEFAULT_LABELS: dict = {"Questionable": None, "Benign": None, "Unwanted": ["Intrinsic", "Extrinsic"]}


def read_label_tree(path: Path):
    """The label tree of a YAML or JSON file (JSON is YAML); InputError keeps pyyaml's line and column."""
    text = safeio.read_text(path, str(path), safeio.SMALL_LIMIT)
    return yaml_strict.load(text, str(path), lambda key, where: InputError(path, where, None,
                                                                          f"duplicate label {str(key)!r}"),
                            "invalid labels: nested too deeply")


def load_labels(path: Path | None) -> tuple[list[str], list[str]]:
    """Label tree (YAML/JSON) → (all dotted paths in display order, the leaves an annotator picks)."""
    return label_paths(DEFAULT_LABELS if path is None else read_label_tree(path), path or "labels")


def label_paths(tree, file) -> tuple[list[str], list[str]]:
    """A label tree (parsed) → (all dotted paths in display order, the leaves an annotator picks)."""
    paths: list[str] = []
    leaves: list[str] = []

    def walk(node, prefix: str, where: str):
        if isinstance(node, dict):
            items = list(node.items())
        elif isinstance(node, list):
            items = []
            for item in node:
                items.extend(item.items() if isinstance(item, dict) else [(item, None)])
        else:
            raise InputError(file, where or "top level", None, "expected a mapping or a list of labels")
        for name, children in items:
            if not isinstance(name, str) or not name.strip() or "." in name:
                raise InputError(file, where or "top level", None,
                                 f"invalid label name {name!r} (non-empty text without dots)")
            full = f"{prefix}.{name.strip()}" if prefix else name.strip()
            if full in paths:
                raise InputError(file, where or "top level", None, f"duplicate label {full!r}")
            paths.append(full)
            if children in (None, [], {}):
                leaves.append(full)
            else:
                walk(children, full, f"under {full!r}")

    try:
        walk(tree, "", "")
    except RecursionError:
        raise InputError(file, None, None, "invalid labels: nested too deeply") from None
    bad = safeio.find_invalid(paths)
    if bad is not None:
        raise InputError(file, None, None, f"invalid label name: {bad[1]}")
    if not leaves:
        raise InputError(file, None, None, "no labels defined")
    return paths, leaves
