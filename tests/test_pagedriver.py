"""Browser tests reach the page's internals only through tests/pagedriver.py.

The store's shape and action names are the page's to change; a test file that reads the page's window hook
or the store itself would pin them. This runs in the quick loop (no browser)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
DRIVER = "pagedriver.py"
HOOK = "mercury" + "Static"  # spelled in two so that a grep of the tests finds the driver only
REACHES = re.compile(rf"{HOOK}|\bstore\s*\.\s*(state|actions)\b|\bstore\s*\.\s*subscribe\s*\(")
KNOWN = frozenset[str]()  # files not converted yet: none


def reaching(path: Path) -> list[str]:
    return [f"{path.name}:{n}: {line.strip()}" for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if REACHES.search(line)]


def test_only_the_driver_reaches_the_page_store():
    found = [hit for path in sorted(TESTS.glob("*.py"))
             if path.name not in KNOWN | {DRIVER} for hit in reaching(path)]
    assert not found, "reach the page through tests/pagedriver.py:\n" + "\n".join(found)


def test_the_driver_holds_the_store_paths():
    """The check above would pass on an empty pattern: the driver, which does read the store, is caught by it."""
    assert reaching(TESTS / DRIVER)
    assert not KNOWN - {p.name for p in TESTS.glob("*.py")}  # an exception for a file gone is dropped
