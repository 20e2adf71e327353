"""Issue 26 §1: citation markers of a summary sentence and the documents they cite (citations.py), on the
cases the page's citations.js is tested against (tests/citations_cases.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mercury_static.core.citations import DEFAULT_PATTERNS, cited_documents, cited_numbers, pattern_problem, split

CASES = json.loads((Path(__file__).parent / "citations_cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("text, patterns, want", CASES["numbers"])
def test_cited_numbers(text, patterns, want):
    assert cited_numbers(text, patterns or DEFAULT_PATTERNS) == want


@pytest.mark.parametrize("text, n, want", CASES["documents"])
def test_cited_documents(text, n, want):
    assert cited_documents(text, n) == want


@pytest.mark.parametrize("case", CASES["split"])
def test_split_cited_and_elsewhere(case):
    got = split([tuple(x) for x in case["ranked"]], case["doc_of"], case["cited"], case["per_doc"])
    want = case["want"]
    assert [[d, [list(x) for x in r]] for d, r in got["cited"]] == want["cited"]
    assert (list(got["elsewhere"]) if got["elsewhere"] else None) == want["elsewhere"]
    assert got["outscored"] == want["outscored"]


@pytest.mark.parametrize("pattern, problem", [
    ("#([0-9]+)", None), ("#[0-9]+", "exactly one group"), ("(#)([0-9]+)", "exactly one group"),
    ("(?P<n>[0-9]+)", "named groups"), ("(?i)#([0-9]+)", "inline flags"), ("#([0-9]+", "not a regular"),
    ("", "non-empty")])
def test_pattern_problem(pattern, problem):
    got = pattern_problem(pattern)
    assert got is None if problem is None else problem in got


def test_settings_citation_patterns_reach_the_manifest():
    from mercury_static.settings.schema import MetadataRanges, manifest_settings, parse_settings

    s = parse_settings({"citations": {"patterns": ["#([0-9]+)"]}}, "s.yaml")
    assert s.citation_patterns == ("#([0-9]+)",)
    assert manifest_settings(s, MetadataRanges())["citations"] == {"patterns": ["#([0-9]+)"]}
    assert "citations" not in manifest_settings(parse_settings({}, "s.yaml"), MetadataRanges())


@pytest.mark.parametrize("doc, where", [
    ({"citations": {"patterns": ["#[0-9]+"]}}, "field 'patterns[0]': needs exactly one group"),
    ({"citations": {"patterns": ["ok ([0-9]+)", "(?P<n>[0-9]+)"]}}, "field 'patterns[1]': named groups"),
    ({"citations": {"patterns": "[([0-9]+)]"}}, "field 'patterns': expected a list"),
    ({"citations": {"pattern": []}}, "unknown key"),
])
def test_settings_bad_citation_patterns_are_one_line(doc, where):
    from mercury_static.core.records import InputError
    from mercury_static.settings.schema import parse_settings

    with pytest.raises(InputError) as e:
        parse_settings(doc, "s.yaml")
    assert "s.yaml" in str(e.value) and where in str(e.value) and "citations" in str(e.value)
