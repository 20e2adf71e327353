"""The layout: no package imports one that imports it back, and DESIGN.md maps every module."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mercury_static.tools.layout import APP, PACKAGE, cycles, js_graph, packages, python_graph

DESIGN = Path(__file__).resolve().parent.parent / "docs" / "DESIGN.md"


def test_the_package_graph_has_no_cycle():
    run = subprocess.run([sys.executable, "-m", "mercury_static.tools.layout"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout
    assert run.stdout.rstrip().endswith("no cycle")
    assert "core -> -" in run.stdout  # the shared rules need nothing of the steps


def test_a_cycle_is_found_between_modules_and_between_their_packages():
    graph = {"read/a.py": {"core/b.py"}, "core/b.py": {"core/c.py"}, "core/c.py": {"read/d.py"}, "read/d.py": set()}
    assert cycles(graph) == [] and cycles(packages(graph)) == [["core", "read"]]
    graph["read/d.py"].add("read/a.py")
    assert cycles(graph) == [["core/b.py", "core/c.py", "read/a.py", "read/d.py"]]


def test_lazy_imports_and_dynamic_imports_are_edges():
    assert "assist/embed.py" in python_graph()["pipeline/steps.py"]  # imported inside build()
    assert any(d.startswith("views/") for d in js_graph()["main.js"])


def _mapped(section: str) -> set[str]:
    """The modules named in the first column of a DESIGN.md table under the heading that starts with `section`."""
    text = DESIGN.read_text(encoding="utf-8")
    part = text.split(section, 1)[1].split("\n## ", 1)[0]
    return {m for row in part.splitlines() if row.startswith("| `")
            for m in re.findall(r"`([\w/.-]+\.(?:py|js))`", row.split(" | ", 1)[0])}


def test_design_maps_every_module_and_only_those():
    python = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if p.name != "__init__.py"}
    page = {p.relative_to(APP).as_posix() for p in APP.rglob("*.js")}
    assert _mapped("## Python package") == python
    assert _mapped("## Page") == page


RENDERER_FOLDERS = ("views", "review")
MAX_LINES = 150
"""The page's folders of renderers (and the review mode's modules), and the longest module they may hold."""


def _long_modules(app: Path) -> dict[str, int]:
    lines = {p.relative_to(app).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for folder in RENDERER_FOLDERS for p in (app / folder).glob("*.js")}
    return {name: n for name, n in lines.items() if n > MAX_LINES}


def test_the_renderers_are_small_modules(tmp_path):
    """Each renderer of the page and of the review mode is a module of its own, short enough to read at once
    (one thing drawn, mounted by views/mount.js or review/mount.js); a catch-all module fails here."""
    assert _long_modules(APP) == {}
    catch_all = tmp_path / "views" / "all.js"  # the check can fail
    catch_all.parent.mkdir()
    catch_all.write_text("x;\n" * (MAX_LINES + 1), encoding="utf-8")
    assert _long_modules(tmp_path) == {"views/all.js": MAX_LINES + 1}


ROOT = PACKAGE.parent
GENERATED = ("mercury_static/runtime", "mercury_static/model", "mercury_static/page")
"""Folders whose files `make` copies or exports (ignored by git, their README aside)."""


def _source_folders() -> list[Path]:
    return [d for top in (PACKAGE, ROOT / "site_template") for d in [top, *top.rglob("*")]
            if d.is_dir() and d.name != "__pycache__" and not d.relative_to(ROOT).as_posix().startswith(GENERATED)]


def test_git_ignores_no_source_file():
    """A new module in any folder of the package or the page is committed, not silently left out (an unanchored
    ignore rule once matched the package named like an output folder); no tracked file is an ignored one."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    new = [f"{d.relative_to(ROOT).as_posix()}/new_module.{ext}" for d in _source_folders() for ext in ("py", "js", "css", "html")]
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(new), cwd=ROOT,
                             capture_output=True, text=True)
    assert ignored.returncode == 1 and ignored.stdout == ""  # 1: none ignored
    tracked = subprocess.run(["git", "ls-files", "-ci", "--exclude-standard"], cwd=ROOT, capture_output=True,
                             text=True, check=True)
    assert tracked.stdout == ""
    for generated in GENERATED:  # and the generated copies stay out
        assert subprocess.run(["git", "check-ignore", "-q", "--no-index", f"{generated}/x.js"], cwd=ROOT).returncode == 0


def test_the_wheel_lists_every_package():
    """pyproject's explicit package list names every folder of the package that holds modules (a missing one
    works in the checkout and fails only when installed from the wheel)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")}
    assert found <= listed
