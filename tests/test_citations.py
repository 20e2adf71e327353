"""Citation markers of a summary sentence and the documents they cite (citations.py), on the
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
    ("(?P<n>[0-9]+)", "named groups"), ("(?i)#([0-9]+)", "inline flags"), ("#([0-9]+", "unbalanced"),
    ("", "non-empty"),
    # read by one side only, or differently
    (r"#([0-9]+)\Z", r"\Z"), (r"\A#([0-9]+)", r"\A"), ("#([0-9]++)", "possessive"), ("(?>#)([0-9]+)", "atomic"),
    ("(?<=#)([0-9]+)", "lookbehind"), ("(?<!#)([0-9]+)", "lookbehind"), ("(?<n>[0-9]+)", "named groups"),
    ("(?s:#)([0-9]+)", "inline flags"), ("(?#c)#([0-9]+)", "(?#"), (r"#(\d+)", "[0-9]"), (r"#\s*([0-9]+)", r"\s"),
    (r"\b#([0-9]+)", r"\b"), (r"#(\w+)", r"\w"), ("#([0-9]+)$", "final newline"), ("#.([0-9]+)", "'.'"),
    ("x{,3}([0-9])", "{"), ("[]#]([0-9])", "empty class"), ("[[#]([0-9])", "set operation"), ("#([0-9]+)]", "']'"),
    (r"#\1([0-9])", r"\1"), (r"#\0([0-9])", r"\0"), (r"#\p{L}([0-9])", r"\p"),
    # exponential backtracking
    ("(a+)+#([0-9]+)", "nested repetition"), ("((?:a+)+)", "nested repetition"), ("(a*)*([0-9])", "nothing"),
    ("(?:a|ab)*([0-9])", "start alike"), ("(?:a|a)*([0-9])", "start alike"), ("([0-9]+,?)+", "nested repetition"),
    ("(?:[0-9]+[ ]?)*([0-9])", "nested repetition"), ("(?:x?)+([0-9])", "nothing"),
    ("(?:a{2,})*([0-9])", "nested repetition"),
    # what the language keeps: plain, non-capturing and lookahead groups, classes, escapes, bounded loops
    (r"\[([0-9]+(?:, ?[0-9]+)*)\]", None), (r"(?:doc|document)[ ]([0-9]+)(?![0-9])", None),
    (r"\^([0-9]+(?:,[0-9]+)*)", None), (r"ref\.[ \t]*([0-9]{1,3})", None), (r"\u00a7([0-9]+)", None),
    (r"[\-\u2013]([0-9]+)", None), ("(?:ab|cd)+([0-9])", None)])
def test_pattern_problem(pattern, problem):
    got = pattern_problem(pattern)
    assert got is None if problem is None else problem in got


def test_settings_citation_patterns_reach_the_manifest():
    from mercury_static.settings.manifest import manifest_settings
    from mercury_static.settings.model import MetadataRanges
    from mercury_static.settings.parse import parse_settings

    s = parse_settings({"citations": {"patterns": ["#([0-9]+)"]}}, "s.yaml")
    assert s.citation_patterns == ("#([0-9]+)",)
    assert manifest_settings(s, MetadataRanges())["citations"] == {"patterns": ["#([0-9]+)"]}
    assert "citations" not in manifest_settings(parse_settings({}, "s.yaml"), MetadataRanges())


@pytest.mark.parametrize("doc, where", [
    ({"citations": {"patterns": ["#[0-9]+"]}}, "field 'patterns[0]': needs exactly one group"),
    ({"citations": {"patterns": ["ok ([0-9]+)", "(?P<n>[0-9]+)"]}}, "field 'patterns[1]': named groups"),
    ({"citations": {"patterns": ["(a+)+([0-9])"]}}, "field 'patterns[0]': nested repetition"),
    ({"citations": {"patterns": [r"#([0-9]+)\Z"]}}, r"field 'patterns[0]': \Z"),
    ({"citations": {"patterns": "[([0-9]+)]"}}, "field 'patterns': expected a list"),
    ({"citations": {"pattern": []}}, "unknown key"),
])
def test_settings_bad_citation_patterns_are_one_line(doc, where):
    from mercury_static.core.records import InputError
    from mercury_static.settings.parse import parse_settings

    with pytest.raises(InputError) as e:
        parse_settings(doc, "s.yaml")
    assert "s.yaml" in str(e.value) and where in str(e.value) and "citations" in str(e.value)


PARITY = {
    "patterns": [r"#([0-9]+)", r"\[([0-9]+(?:, ?[0-9]+)*)\]", r"sk([0-9]+)", r"\u00e9tude ([0-9]+)",
                 r"ref[ \t\n]*([0-9]+)", r"(?:doc|document)[ ]([0-9]+)(?![0-9])", r"[^a-z ]([0-9])"],
    "texts": ["see #4 and #12", "[1, 2,3] [4,5]", "SK3 \u017fk4 s\u212a5 Sk6", "\u00c9TUDE 7 \u00e9tude 8",
              "ref\n9 ref\t10 ref\u00a011", "doc 12 document 13 doc 145", "\U0001f600x4 \u00e95 _6 \u212a7",
              "line\r\n#14\u2028#15"],
}


def test_accepted_patterns_match_alike_in_the_page(tmp_path):
    """Every accepted pattern finds the same numbers in Python and in the page's citations.js (node), on
    texts where the two engines could part: case folding beyond ASCII, astral characters, line breaks."""
    import shutil
    import subprocess

    from conftest import REPO

    if shutil.which("node") is None:
        pytest.skip("node not installed")
    assert [pattern_problem(p) for p in PARITY["patterns"]] == [None] * len(PARITY["patterns"])
    script = tmp_path / "parity.mjs"
    script.write_text(f"import {{ citedNumbers }} from {json.dumps((REPO / 'site_template/app/assist/citations.js').as_uri())};\n"
                      f"const c = {json.dumps(PARITY)};\n"
                      "console.log(JSON.stringify(c.patterns.map((p) => c.texts.map((t) => citedNumbers(t, [p])))));\n",
                      encoding="utf-8")
    js = json.loads(subprocess.run(["node", str(script)], capture_output=True, text=True, check=True, timeout=60).stdout)
    py = [[cited_numbers(t, [p]) for t in PARITY["texts"]] for p in PARITY["patterns"]]
    assert py == js
    assert py[2][2] == [3, 4, 5, 6]  # the long s and the Kelvin sign fold to s and k on both sides
