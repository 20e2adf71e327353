"""Retrieval metrics for one ranked list against a set of relevant items.

Definitions follow the retrieval study in the project's seeds (MRR, extended MRR, nDCG with binary
gains ``2**rel - 1``). ``ranking`` is the full ranked list of item ids (best first); ``relevant`` the
non-empty set of relevant ids.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence


def reciprocal_rank(ranking: Sequence[int], relevant: Collection[int]) -> float:
    """1 / position of the first relevant item (0 when none is ranked)."""
    for pos, item in enumerate(ranking, 1):
        if item in relevant:
            return 1.0 / pos
    return 0.0


def extended_reciprocal_rank(ranking: Sequence[int], relevant: Collection[int]) -> float:
    """Mean over the relevant items K of 1 if its position n <= |K|, else 1 / (n - |K| + 1).

    A relevant item missing from the ranking contributes 0.
    """
    size = len(relevant)
    position = {item: pos for pos, item in enumerate(ranking, 1)}
    total = 0.0
    for item in relevant:
        n = position.get(item)
        if n is not None:
            total += 1.0 if n <= size else 1.0 / (n - size + 1)
    return total / size


def hit_at(ranking: Sequence[int], relevant: Collection[int], k: int) -> float:
    """1 when at least one relevant item is in the top k, else 0 (the report's "recall@k" is its mean)."""
    return 1.0 if any(item in relevant for item in ranking[:k]) else 0.0


def precision_at(ranking: Sequence[int], relevant: Collection[int], k: int) -> float:
    """Share of the top k that is relevant (divided by k even when fewer items are ranked)."""
    return sum(1 for item in ranking[:k] if item in relevant) / k


def ndcg_at(ranking: Sequence[int], relevant: Collection[int], k: int) -> float:
    """Binary-gain nDCG@k: DCG of the top k over the DCG of an ideal ranking."""
    dcg = sum(1.0 / math.log2(pos + 1) for pos, item in enumerate(ranking[:k], 1) if item in relevant)
    ideal = sum(1.0 / math.log2(pos + 1) for pos in range(1, min(k, len(relevant)) + 1))
    return dcg / ideal
