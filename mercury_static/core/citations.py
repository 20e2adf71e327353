"""Citation markers of a summary sentence, and what they cite: Python twin of ``site_template/app/assist/citations.js``
(the two are tested on one cases file, tests/citations_cases.json).

A summary that cites its source ("… rose 3% [3, 5].", "(Document 3)", "^3") names documents of a
sectioned source (SummHay's documents, a RAG answer's passages, a list-of-documents input): number N is
the source's N-th section (1-based, the order of the source's documents, as the page's ``[N]`` links).
Patterns are regular expressions with exactly one group holding the numbers ("3", "3, 5", "3-5"); they
are matched case-insensitively, in Python and in the page alike, so they keep to the syntax both share
(no named groups, no inline flags). The dataset settings may replace them (``citations.patterns``).

``split`` turns a ranking of the whole source into what an annotator checks a citation with: the best
matches inside each cited document, and, apart, the best match outside them (a citation-error signal
when it outscores every cited one).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_NUM = r"[0-9]+"
_DOC = r"(?:doc(?:ument)?s?\.?\s*)"
_LIST = rf"{_NUM}(?:\s*[-\u2013,;]\s*{_DOC}?{_NUM})*"
DEFAULT_PATTERNS: tuple[str, ...] = (
    rf"\[\s*{_DOC}?({_LIST})\s*\]",  # [3]  [3, 5]  [3-5]  [doc 3]  [Document 3, 5]
    rf"\(\s*{_DOC}({_LIST})\s*\)",  # (Document 3)  (doc 3; 5): "(3)" alone is too often a list item
    r"\^([0-9]+(?:,[0-9]+)*)",  # ^3  ^3,5 (footnote style)
)
MARGIN = 0.1
"""How far the best match outside the cited documents must score above every cited one to say "check the
citation": on SummHay's bullets, beyond 0.1 a flagged citation is wrong 56-69% of the time (5-10% of all
are) and 78-90% of the wrong ones are flagged; at 0 every second bullet is flagged, 9-16% of them wrongly
cited (benchmarks/RESULTS.md, issue 26)."""
MAX_RANGE = 100  # "[1-100000]" is a typo, not a hundred thousand citations
_PART = re.compile(r"[0-9]+|[-\u2013]")
_UNSHARED = re.compile(r"\(\?P|\(\?[a-zA-Z]+[:)]|\(\?<[a-zA-Z]")  # Python-only or JS-only group syntax


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a citation pattern (None: it can)."""
    if not isinstance(pattern, str) or not pattern:
        return "expected a non-empty regular expression"
    if _UNSHARED.search(pattern):
        return "named groups and inline flags differ between Python and the page: use a plain group"
    try:
        groups = re.compile(pattern).groups
    except re.error as e:
        return f"not a regular expression ({e})"
    if groups != 1:
        return f"needs exactly one group (the numbers), has {groups}"
    return None


def _numbers(group: str) -> list[int]:
    """The numbers of one marker's group, ranges ("3-5", "3–5") expanded up to MAX_RANGE."""
    parts = _PART.findall(group)
    out: list[int] = []
    for j, p in enumerate(parts):
        if p.isdigit():
            n = int(p)
            start = int(parts[j - 2]) if j >= 2 and parts[j - 1] in "-\u2013" and parts[j - 2].isdigit() else None
            if start is not None and 0 < n - start <= MAX_RANGE:
                out.extend(range(start + 1, n + 1))
            else:
                out.append(n)
    return out


def cited_numbers(text: str, patterns: Sequence[str] = DEFAULT_PATTERNS) -> list[int]:
    """The distinct numbers ``text`` cites, in order of first citation."""
    found: list[tuple[int, list[int]]] = []
    for pattern in patterns:
        for m in re.finditer(pattern, text, re.IGNORECASE):
            found.append((m.start(), _numbers(m.group(1) or "")))
    seen: dict[int, None] = {}
    for _, nums in sorted(found, key=lambda x: x[0]):
        for n in nums:
            seen.setdefault(n, None)
    return list(seen)


def cited_documents(text: str, n_documents: int, patterns: Sequence[str] = DEFAULT_PATTERNS) -> list[int]:
    """The 0-based positions of the source's documents ``text`` cites (numbers beyond them dropped)."""
    return [n - 1 for n in cited_numbers(text, patterns) if 1 <= n <= n_documents]


def split(ranked: Sequence[tuple[int, float]], doc_of: Sequence[int], cited: Sequence[int],
          per_doc: int = 2, margin: float = MARGIN) -> dict:
    """The best ``per_doc`` matches in each cited document (in citation order) and the best match
    outside them, from ``ranked`` = [(sentence, score)] best first over the whole source; ``doc_of[i]``
    is the document (0-based) of sentence i (-1: none). ``outscored``: the match outside scores more
    than ``margin`` above every cited one (the citation may be wrong)."""
    cited_set = set(cited)
    per: dict[int, list[tuple[int, float]]] = {d: [] for d in cited}
    elsewhere = None
    for i, score in ranked:
        d = doc_of[i]
        if d in cited_set:
            if len(per[d]) < per_doc:
                per[d].append((i, score))
        elif elsewhere is None:
            elsewhere = (d, i, score)
        if elsewhere is not None and all(len(v) >= per_doc for v in per.values()):
            break
    best_cited = max((s for v in per.values() for _, s in v), default=None)
    return {"cited": [(d, per[d]) for d in cited], "elsewhere": elsewhere,
            "outscored": elsewhere is not None and (best_cited is None or elsewhere[2] > best_cited + margin)}
