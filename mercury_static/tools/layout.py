"""The package graph of the code, for the Python package and for the page, and its cycles.

Why: the folders are meant to read as the pipeline of docs/DESIGN.md, and that holds only while no
package needs one that needs it back. `python -m mercury_static.tools.layout` prints both graphs and every
cycle, between packages and between modules (an import inside a function counts: it is a dependency all
the same), and exits 1 when there is one; tests/test_layout.py runs it.
"""

from __future__ import annotations

import ast
import posixpath
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mercury_static"
APP = ROOT / "site_template" / "app"
JS_IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}/[^'"]+\.js)['"]""")
"""A static import, a re-export or a dynamic import of one of our modules."""

Graph = dict[str, set[str]]
"""A module (its path under the package or the page's folder) -> the modules it imports."""


def package_of(module: str) -> str:
    """The folder of a module; a module at the top level is a package of its own."""
    return module.split("/")[0] if "/" in module else module.rsplit(".", 1)[0]


def packages(graph: Graph) -> Graph:
    """The same graph between packages."""
    out: Graph = {}
    for module, deps in graph.items():
        out.setdefault(package_of(module), set()).update(
            package_of(d) for d in deps if package_of(d) != package_of(module))
    return out


def python_graph(package: Path = PACKAGE) -> Graph:
    """Every import of one of our modules by every module of the package but the tools."""
    files = {p.relative_to(package).as_posix() for p in package.rglob("*.py")
             if p.name != "__init__.py" and "tools" not in p.relative_to(package).parts}
    graph: Graph = {}
    for rel in sorted(files):
        deps = graph.setdefault(rel, set())
        for node in ast.walk(ast.parse((package / rel).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                target = "/".join(parts[1:]) + ".py"
                if parts[0] == "mercury_static" and target in files and target != rel:
                    deps.add(target)
    return graph


def js_graph(app: Path = APP) -> Graph:
    """Every relative import between the page's modules."""
    graph: Graph = {}
    for path in sorted(app.rglob("*.js")):
        rel = path.relative_to(app).as_posix()
        deps = graph.setdefault(rel, set())
        for spec in JS_IMPORT.findall(path.read_text(encoding="utf-8")):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), spec))
            if (app / target).is_file():
                deps.add(target)
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = stack[stack.index(node):]
            del stack[stack.index(node):]
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def report() -> tuple[list[str], bool]:
    """The lines to print, and whether the code is free of cycles."""
    lines: list[str] = []
    clean = True
    for title, graph in (("mercury_static/", python_graph()), ("site_template/app/", js_graph())):
        between = packages(graph)
        lines.append(f"{title} (package -> the packages it imports)")
        lines += [f"  {p} -> {', '.join(sorted(d)) or '-'}" for p, d in sorted(between.items())]
        for kind, edges in (("package", between), ("module", graph)):
            for component in cycles(edges):
                clean = False
                lines.append(f"  {kind} cycle: {' <-> '.join(component)}")
    lines.append("no cycle" if clean else "cycles found")
    return lines, clean


def main() -> int:
    lines, clean = report()
    print("\n".join(lines))
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
