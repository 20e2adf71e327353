"""Comments and docstrings carry no issue numbers and no measured figures: both go stale as the code moves on
(the figures, each with its command, belong in benchmarks/RESULTS.md; the history, in git)."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from conftest import REPO

ISSUE = re.compile(r"\bissues?\s+#?\d+|\(#\d+\)|\bgh-\d+", re.IGNORECASE)
FIGURE = re.compile(
    r"\d[\d,.]*\s?(?:ms|µs|[kKMG]i?B)\b"  # a time or a size
    r"|\d[\d.]*\s?[x×]\s+(?:faster|slower|smaller|larger|bigger|quicker)\b"  # a speed-up
    r"|[+-]?\d[\d.]*\s?%\s+(?:faster|slower|smaller|larger|bigger|quicker|throughput|less|more)\b"  # a gain
    r"|\d[\d.]*\s?(?:→|->)\s?\d[\d.]*\s?(?:ms|s)\b",  # a before and after
)
ROOTS = ("mercury_static", "site_template/app", "tests")
JS_COMMENT = re.compile(r"/\*.*?\*/|(?:^|(?<=\s))//[^\n]*", re.DOTALL)


def python_comments(text: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring of a Python file."""
    found = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
             if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.append((first.lineno, first.value.value))
        # a string alone after an assignment documents it (the attribute docstrings of this codebase)
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for before, after in zip(body, body[1:]):
                if isinstance(before, (ast.Assign, ast.AnnAssign)) and isinstance(after, ast.Expr) \
                        and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str):
                    found.append((after.lineno, after.value.value))
    return found


def js_comments(text: str) -> list[tuple[int, str]]:
    """(line, text) of every `//` and `/* */` comment of a JS file (a `//` inside a string is taken for a
    comment only when a space precedes it, as in prose: a URL's does not)."""
    return [(text.count("\n", 0, m.start()) + 1, m.group()) for m in JS_COMMENT.finditer(text)]


def offending() -> list[str]:
    hits = []
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*")):
            rel = path.relative_to(REPO).as_posix()
            if path.suffix not in (".py", ".js", ".mjs") or not path.is_file() or "node_modules" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            if not (ISSUE.search(text) or FIGURE.search(text)):
                continue  # nothing to look for anywhere in the file: its comments need not be parsed
            comments = python_comments(text) if path.suffix == ".py" else js_comments(text)
            for line, comment in comments:
                for pattern in (ISSUE, FIGURE):
                    for m in pattern.finditer(comment):
                        hits.append(f"{rel}:{line + comment.count(chr(10), 0, m.start())}: {m.group()!r}")
    return hits


def test_no_issue_numbers_or_measured_figures_in_comments():
    assert offending() == []


def test_the_check_finds_what_it_looks_for():
    comments = python_comments('"""Faster (issue 37)."""\nX = 1\n"""26 MB on disk."""\n# 3x faster than before\n')
    assert [bool(ISSUE.search(c) or FIGURE.search(c)) for _, c in comments] == [True, True, True]
    js = js_comments("const a = 1; // 294 → 229 ms\n/* see (#12) */\nconst url = 'http://x/1ms';\n")
    assert [c for _, c in js] == ["// 294 → 229 ms", "/* see (#12) */"]
    assert not FIGURE.search("a 60 s idle threshold, 2 rows, version 3, 12 bytes")
