"""Browser tests and the benchmarks reach the page's internals only through tests/pagedriver.py.

The store's shape and action names are the page's to change; a test or benchmark file that reads the page's
window hook or the store itself would pin them (and a benchmark would break unseen: the suite does not run
them). This runs in the quick loop (no browser)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BENCHMARKS = TESTS.parent / "benchmarks"
DRIVER = TESTS / "pagedriver.py"
HOOK = "mercury" + "Static"  # spelled in two so that a grep of the tests finds the driver only
REACHES = re.compile(rf"{HOOK}|\bstore\s*\.\s*(state|actions)\b|\bstore\s*\.\s*subscribe\s*\(")
KNOWN = frozenset[Path]()  # files not converted yet: none


def sources() -> list[Path]:
    """The files that drive a page: the tests and the benchmarks (Python, and the benchmarks' Node scripts)."""
    return sorted([*TESTS.glob("*.py"), *BENCHMARKS.glob("*.py"), *BENCHMARKS.glob("*.mjs")])


def reaching(path: Path) -> list[str]:
    name = path.relative_to(TESTS.parent)
    return [f"{name}:{n}: {line.strip()}" for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if REACHES.search(line)]


def test_only_the_driver_reaches_the_page_store():
    found = [hit for path in sources() if path not in KNOWN | {DRIVER} for hit in reaching(path)]
    assert not found, "reach the page through tests/pagedriver.py:\n" + "\n".join(found)


def test_the_driver_holds_the_store_paths():
    """The check above would pass on an empty pattern: the driver, which does read the store, is caught by it."""
    assert reaching(DRIVER)
    assert not KNOWN - set(sources())  # an exception for a file gone is dropped


def test_the_benchmarks_are_looked_at():
    """The benchmarks drive the page too: the check above reads them (a moved folder would let it pass)."""
    assert any(path.parent == BENCHMARKS and path.suffix == ".py" for path in sources())
