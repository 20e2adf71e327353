"""The layout: no package imports one that imports it back, and DESIGN.md maps every module."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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
    assert "assist/embed.py" in python_graph()["build/pipeline.py"]  # imported inside build()
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
