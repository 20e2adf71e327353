"""Citation markers of a summary sentence, and what they cite: Python twin of ``site_template/app/assist/citations.js``
(the two are tested on one cases file, tests/citations_cases.json).

A summary that cites its source ("… rose 3% [3, 5].", "(Document 3)", "^3") names documents of a
sectioned source (SummHay's documents, a RAG answer's passages, a list-of-documents input): number N is
the source's N-th section (1-based, the order of the source's documents, as the page's ``[N]`` links).
Patterns are regular expressions with exactly one group holding the numbers ("3", "3, 5", "3-5"); they
are matched case-insensitively, in Python and in the page alike (JavaScript flags ``giu``: Unicode case
folding, as Python's), so a pattern of the settings (``citations.patterns``) must keep to the language both
read and match alike, and to shapes that cannot backtrack exponentially (``pattern_problem``).

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
MARKER = r"\[[0-9][0-9,\s\u2013-]*\]"
"""Any bracketed reference ("[7][36]", "[2, 5]", "[3–4]"): not a number of the claim, so the ranker's key tokens
leave it out (rank.py, rank.js)."""
MARGIN = 0.1
"""How far the best match outside the cited documents must score above every cited one to say "check the
citation": on SummHay's bullets, beyond 0.1 a flagged citation is wrong 56-69% of the time (5-10% of all
are) and 78-90% of the wrong ones are flagged; at 0 every second bullet is flagged, 9-16% of them wrongly
cited (benchmarks/RESULTS.md)."""
MAX_RANGE = 100  # "[1-100000]" is a typo, not a hundred thousand citations
_PART = re.compile(r"[0-9]+|[-\u2013]")
_ALPHABET = "".join(map(chr, range(32, 127))) + "\t\n\r\f\v\u00a0\u2013"


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a citation pattern (None: it can). A settings pattern runs in Python (eval)
    and in the page's JavaScript, so it must keep to the language both read and match alike (docs/settings.md,
    "Citations"), and must not take exponential time on a long summary, which would freeze the page."""
    if not isinstance(pattern, str) or not pattern:
        return "expected a non-empty regular expression"
    parser = _Parser(pattern)
    try:
        alts = parser.alternatives()
        if parser.i < len(pattern):
            raise _Bad("unbalanced parenthesis")
    except _Bad as e:
        return str(e)
    except IndexError:
        return "ends inside an escape or a group"
    try:
        re.compile(pattern)
    except re.error as e:
        return f"not a regular expression ({e})"
    alphabet = _ALPHABET + "".join(sorted({c for c in pattern if ord(c) > 126}))
    risk = _backtracking([(("group", alts), 1, 1)], alphabet)
    if risk is not None:
        return risk
    if parser.groups != 1:
        return f"needs exactly one group (the numbers), has {parser.groups}"
    return None


class _Bad(Exception):
    """A pattern outside the shared language (the message says what and what to write instead)."""


_META = set("\\^$.*+?()[]{}|/")
_CONTROL = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v"}
_INSTEAD = {"d": "[0-9]", "D": "[^0-9]", "w": "[A-Za-z0-9_]", "W": "[^A-Za-z0-9_]", "s": "[ \\t\\n]",
            "S": "[^ \\t\\n]", "b": "a lookahead such as (?![A-Za-z])", "B": "a lookahead",
            "A": "^ (at the start of the pattern)", "Z": "a lookahead such as (?![\\s\\S]) at the end",
            "z": "a lookahead at the end"}
"""Escapes Python and the page read differently (Unicode or ASCII classes) or only one of them reads."""


class _Parser:
    """Reads a pattern of the shared language into items (node, min, max); max None: unbounded. A node is
    ("char", predicate), ("group", alternatives) or ("empty",) for an anchor or a lookahead."""

    def __init__(self, pattern: str):
        self.p, self.i, self.groups = pattern, 0, 0

    def peek(self, n: int = 1) -> str:
        return self.p[self.i:self.i + n]

    def alternatives(self) -> list[list[tuple]]:
        alts = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            alts.append(self.sequence())
        return alts

    def sequence(self) -> list[tuple]:
        items: list[tuple] = []
        while self.i < len(self.p) and self.peek() not in "|)":
            node = self.atom()
            items.append((node, *self.quantifier(node)))
        return items

    def atom(self) -> tuple:
        c = self.p[self.i]
        self.i += 1
        if c == "(":
            if self.peek(2) in ("?=", "?!"):
                self.i += 2
                self.alternatives()
                self.close()
                return ("empty",)
            if self.peek() == "?" and self.peek(2) != "?:":
                raise _Bad("named groups, atomic groups, lookbehind and inline flags differ between Python and the "
                           f"page ({self.p[self.i - 1:self.i + 3]!r}…): use only (…), (?:…), (?=…) and (?!…)")
            if self.peek(2) == "?:":
                self.i += 2
            else:
                self.groups += 1
            alts = self.alternatives()
            self.close()
            return ("group", alts)
        if c == "[":
            return ("char", self.klass())
        if c == "\\":
            return ("char", _one(self.escape(in_class=False)))
        if c == "^":
            return ("empty",)
        if c == "$":
            raise _Bad("'$' also matches before a final newline in Python, not in the page: leave it out or use "
                       "(?![\\s\\S])")
        if c == ".":
            raise _Bad("'.' differs between Python and the page (\\r, U+2028, U+2029): write the class, e.g. "
                       "[^\\n]")
        if c in "*+?{":
            raise _Bad(f"{c!r} repeats nothing: escape it (\\{c})")
        if c in "]}":
            raise _Bad(f"{c!r} unescaped: the page refuses it; write \\{c}")
        return ("char", _one(c))

    def close(self) -> None:
        if self.peek() != ")":
            raise _Bad("unbalanced parenthesis")
        self.i += 1

    def escape(self, in_class: bool) -> str:
        c = self.peek()
        self.i += 1
        if c in _META or (in_class and c == "-"):
            return c
        if c in _CONTROL:
            return _CONTROL[c]
        for letter, digits in (("u", 4), ("x", 2)):
            code = self.p[self.i:self.i + digits]
            if c == letter and len(code) == digits and all(h in "0123456789abcdefABCDEF" for h in code):
                self.i += digits
                return chr(int(code, 16))
        if c in _INSTEAD:
            raise _Bad(f"\\{c} is read differently by Python and the page (or by one only): write {_INSTEAD[c]}")
        raise _Bad(f"\\{c} is not an escape Python and the page read alike (\\t \\n \\r \\f \\v \\uHHHH \\xHH, or a "
                   "punctuation character escaped)")

    def klass(self):
        negated = self.peek() == "^"
        self.i += negated
        chars: list[tuple[str, str]] = []
        if self.peek() == "]":
            raise _Bad("'[]' or '[^]': Python reads the ']' as a character, the page as an empty class")
        while self.peek() != "]":
            if self.i >= len(self.p):
                raise _Bad("unterminated character class")
            if self.peek() == "[" or self.peek(2) in ("&&", "--", "||", "~~"):
                raise _Bad(f"{self.peek(2)!r} in a character class: escape it (Python may read it as a set "
                           "operation)")
            low = self.class_char()
            high = low
            if self.peek() == "-" and self.peek(2) != "-]":
                self.i += 1
                high = self.class_char()
                if high < low:
                    raise _Bad(f"bad range {low!r}-{high!r}")
            chars.append((low, high))
        self.i += 1
        return lambda x: any(lo <= y <= hi for lo, hi in chars for y in {x, x.lower(), x.upper()}) != negated

    def class_char(self) -> str:
        c = self.p[self.i]
        self.i += 1
        return self.escape(in_class=True) if c == "\\" else c

    def quantifier(self, node) -> tuple[int, int | None]:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.i += 1
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
        elif c == "{":
            m = re.match(r"\{([0-9]+)(,([0-9]*))?\}", self.p[self.i:])
            if m is None:
                raise _Bad("'{' that is not a repetition {n}, {n,} or {n,m}: write \\{")
            self.i += m.end()
            low = int(m[1])
            high = low if m[2] is None else (int(m[3]) if m[3] else None)
            if high is not None and high < low:
                raise _Bad(f"repetition {m[0]}: the largest count is below the smallest")
        else:
            return 1, 1
        if node[0] == "empty":
            raise _Bad("a repeated anchor or lookahead: Python and the page read it differently")
        if self.peek() == "?":
            self.i += 1
        elif self.peek() == "+":
            raise _Bad("possessive quantifier ('++', '*+', '?+'): the page does not read it")
        elif self.peek() in ("*", "{"):
            raise _Bad("a repetition of a repetition: put the inner one in a group")
        return low, high


def _one(c: str):
    folded = {c, c.lower(), c.upper()}
    return lambda x: x in folded or x.lower() in folded or x.upper() in folded


def _nullable(item) -> bool:
    node, low, _ = item
    if low == 0 or node[0] == "empty":
        return True
    return node[0] == "group" and any(all(_nullable(i) for i in alt) for alt in node[1])


def _repeats(item) -> bool:
    """True when `item` can match a run of any length by itself (a+, (a+), (?:a+b?))."""
    node, _, high = item
    if high is None or high > 1:
        return node[0] != "empty"
    return node[0] == "group" and any(_loose(alt) for alt in node[1])


def _loose(seq) -> bool:
    """A sequence that can match a run in several splits: one repeating item, the rest optional."""
    return any(_repeats(i) and all(_nullable(j) for j in seq if j is not i) for i in seq)


def _first(seq, alphabet: str) -> set[str]:
    """The characters (of `alphabet`) a match of `seq` can start with."""
    out: set[str] = set()
    for node, low, _ in seq:
        if node[0] == "char":
            out |= {x for x in alphabet if node[1](x)}
        elif node[0] == "group":
            for alt in node[1]:
                out |= _first(alt, alphabet)
        if low > 0 and not _nullable((node, low, 1)):
            break
    return out


def _backtracking(seq, alphabet: str) -> str | None:
    """Why matching `seq` may take exponential time on a long text (None: no such shape found): a repeated
    group whose body can match the empty string, or a run in several ways ((a+)+, (a*)*, (a+b?)+), or whose
    alternatives can start alike ((a|ab)*). Conservative: a pattern it flags may be harmless."""
    for node, _, high in seq:
        if node[0] != "group":
            continue
        for alt in node[1]:
            found = _backtracking(alt, alphabet)
            if found:
                return found
        if high is not None and high <= 1:
            continue
        for alt in node[1]:
            if all(_nullable(i) for i in alt):
                return "a repeated group that can match nothing (like (a*)*)"
            if _loose(alt):
                return "nested repetition (like (a+)+): a long text could make the page stop answering"
        firsts = [_first(alt, alphabet) for alt in node[1]]
        for j, a in enumerate(firsts):
            if any(a & b for b in firsts[j + 1:]):
                return "repeated alternatives that can start alike (like (a|ab)*): a long text could make the " \
                       "page stop answering"
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
