"""The team's pairs as training examples: a summary span, a source sentence holding its gold evidence, and
another sentence as a hard negative.

The negative is another sentence of the same source (what the page must rank below the evidence), chosen
with a seeded generator so that the same pairs give the same examples; a source whose every sentence is
evidence borrows one from another record's source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mercury_static.bundle.contents import text_id
from mercury_static.tune.evaluate import EvalSet


@dataclass(frozen=True)
class Example:
    """One training triple and the record it came from (folds are drawn over records)."""

    record_id: str
    anchor: str
    positive: str
    negative: str


def make_examples(data: EvalSet, queries: Sequence[int], seed: int = 0) -> list[Example]:
    """The examples of the queries ``queries`` of ``data``: one per gold sentence of each query."""
    rng = np.random.default_rng(seed)
    pool = sorted({(tid, i) for q in queries for tid in [text_id(data.queries[q][1].source)]
                   for i in range(len(data.index[tid].spans))})
    out: list[Example] = []
    for q in queries:
        query, record = data.queries[q]
        source = data.index[text_id(record.source)]
        sentences = [source.text[s:e] for s, e in source.spans]
        others = [i for i in range(len(sentences)) if i not in query.relevant]
        for gold in sorted(query.relevant):
            if others:
                negative = sentences[others[int(rng.integers(len(others)))]]
            else:
                candidates = [p for p in pool if p[0] != text_id(record.source)]
                if not candidates:
                    continue
                tid, i = candidates[int(rng.integers(len(candidates)))]
                s, e = data.index[tid].spans[i]
                negative = data.index[tid].text[s:e]
            out.append(Example(query.record_id, query.text, sentences[gold], negative))
    return out

