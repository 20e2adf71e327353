"""Every name the docs give the code resolves: the module paths of DESIGN.md and docs/*.md exist, each
`module.symbol` they write is in that module (Python modules imported, the page's modules' exports or
members found), and each public API DESIGN.md's module table lists is in the module of its row. A rename
that leaves the docs stale fails here."""

from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE, APP, DOCS = REPO / "mercury_static", REPO / "site_template" / "app", REPO / "docs"
PAGES = [DOCS / "DESIGN.md", *sorted(p for p in DOCS.glob("*.md") if p.name != "DESIGN.md")]
PYTHON = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}
PAGE = {p.relative_to(APP).as_posix() for p in APP.rglob("*.js")}
ELSEWHERE = {p.relative_to(REPO).as_posix() for folder in ("tests", "benchmarks", "site_template")
             for p in (REPO / folder).rglob("*.[jp][sy]") if "node_modules" not in p.parts}
NOT_OURS = {"transformers.js", "Node.js"}
"""Names of other projects that look like module paths."""
FILE_SUFFIXES = {"json", "jsonl", "py", "js", "mjs", "md", "html", "css", "bin", "yaml", "yml", "csv", "tsv", "txt",
                 "toml", "sqlite", "whl", "onnx", "weights", "png", "svg", "f32", "gz", "parquet", "arrow", "xml"}
DATA_KEYS = {"manifest.ranker", "manifest.ranker_spec", "manifest.settings", "model.trained", "record_vectors.cells",
             "citations.patterns", "suggestions.blind", "suggestions.columns", "suggestions.file", "suggestions.shown",
             "responses.order", "responses.quality", "responses.verdict", "quality.agent_spans", "text.encode",
             "commands.items", "assist.pending", "ui.save", "ui.upload"}
"""Keys of the files (manifest.json, the settings, an export, a report), of the page's state and a Python
expression, written
like `module.symbol` where a module of that name exists: they name data, not code."""


def path_names(text: str) -> set[str]:
    """Every `*.py` / `*.js` path a page names (`a.js/b.js` is two)."""
    found = re.findall(r"(?<![\w/.-])([\w/.-]+?\.(?:py|js))(?![\w])", text)
    return {part for name in found for part in re.split(r"(?<=\.js)/|(?<=\.py)/", name) if part}


def exists(name: str) -> bool:
    bare = name.removeprefix("mercury_static/").removeprefix("site_template/app/").removeprefix("app/")
    if name in NOT_OURS or name.startswith("vendor/") or name in ELSEWHERE or bare in PYTHON or bare in PAGE:
        return True
    return "/" not in name and any(Path(p).name == name for p in PYTHON | PAGE | ELSEWHERE)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_module_path_the_docs_name_exists(page):
    missing = sorted(n for n in path_names(page.read_text(encoding="utf-8")) if not exists(n))
    assert not missing, f"{page.name} names modules that do not exist: {missing}"


@cache
def python_module(rel: str):
    return importlib.import_module("mercury_static." + rel.removesuffix(".py").replace("/", "."))


@cache
def page_source(rel: str) -> str:
    return (APP / rel).read_text(encoding="utf-8")


def page_has(rel: str, name: str) -> bool:
    """An export of the page module, or a member it defines (`store.update`, `embedder.free`)."""
    text, n = page_source(rel), re.escape(name)
    return bool(re.search(rf"export\s+(?:async\s+)?(?:function\*?|class|const|let|var)\s+{n}\b", text)
                or re.search(rf"export\s*\{{[^}}]*\b{n}\b", text)
                or re.search(rf"^\s*(?:async\s+|get\s+|static\s+)?{n}\s*(?:\(|:)|\bthis\.{n}\s*=", text, re.M))


def modules_named(stem: str) -> list[str]:
    """The modules a short name means: a module of that name, or every module of a package of that name."""
    python = [p for p in PYTHON if p != "__init__.py" and (Path(p).stem == stem or p.startswith(f"{stem}/"))
              and not p.endswith("__init__.py")]
    return python + [p for p in PAGE if Path(p).stem == stem]


def resolves(module: str, name: str) -> bool:
    for rel in modules_named(module):
        if rel in PAGE and page_has(rel, name) or rel in PYTHON and hasattr(python_module(rel), name):
            return True
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_module_symbol_the_docs_name_resolves(page):
    text = page.read_text(encoding="utf-8")
    stale = set()
    for module, name in re.findall(r"(?<![\w./-])(\w+)\.(\w+)\b(?!\.\w)", text):
        ref = f"{module}.{name}"
        if name in FILE_SUFFIXES or ref in DATA_KEYS or not modules_named(module):
            continue
        if not resolves(module, name):
            stale.add(ref)
    for dotted in re.findall(r"\bmercury_static(?:\.\w+)+", text):
        try:
            importlib.import_module(dotted)
        except ImportError:
            parent, _, name = dotted.rpartition(".")
            if not hasattr(importlib.import_module(parent), name):
                stale.add(dotted)
    assert not stale, f"{page.name} names what the code does not have: {sorted(stale)}"


def design_rows() -> list[tuple[list[str], str, str]]:
    """DESIGN.md's Python table: (the row's modules, its public API cell, the whole row)."""
    text = (DOCS / "DESIGN.md").read_text(encoding="utf-8")
    table = text.split("## Python package", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        cells = line.split(" | ")
        if line.startswith("| `") and len(cells) >= 3:
            modules = re.findall(r"`([\w/.-]+\.py)`", cells[0])
            if modules:
                rows.append((modules, " | ".join(cells[2:]), line))
    return rows


def test_every_public_api_of_the_design_table_is_in_its_module():
    """Each code span of a row's API cell that starts with a name (`write_index(…)`, `SPEC`, `Bundle.settings`)
    is in a module of the row or of the cell (`rank.py`, a twin's `rank.js`); `module.symbol` in that
    module; an expression (`text[s:e]`) is not a name."""
    stale = []
    for modules, api, row in design_rows():
        named = set(modules) | {p for p in PYTHON if Path(p).name in path_names(api)}
        owners = [python_module(m) for m in sorted(named) if m in PYTHON]
        twins = [p for p in PAGE if Path(p).name in {Path(n).name for n in path_names(row)}]
        for code in re.findall(r"`([^`]+)`", api):
            found = re.match(r"([A-Za-z_]\w*)(?:\.(\w+))?(.?)", code)
            if found is None or found.group(3) == "[" or found.group(1) == "JS":
                continue
            first, attr = found.group(1), found.group(2)
            if attr and modules_named(first) and not any(hasattr(m, first) for m in owners):
                ok = f"{first}.{attr}" in DATA_KEYS or resolves(first, attr)
            else:
                ok = any(hasattr(m, first) for m in owners) or any(page_has(p, first) for p in twins)
            if not ok:
                stale.append(f"{modules[0]}: {code}")
    assert not stale, f"DESIGN.md lists a public API its module does not have: {stale}"
