"""Retrieval metrics on tiny hand-computed cases."""

import math

import pytest

from mercury_static.tune import metrics


def test_reciprocal_rank():
    assert metrics.reciprocal_rank([3, 1, 2], {3}) == 1.0
    assert metrics.reciprocal_rank([3, 1, 2], {2, 1}) == 0.5
    assert metrics.reciprocal_rank([3, 1, 2], {2}) == pytest.approx(1 / 3)
    assert metrics.reciprocal_rank([3, 1], {9}) == 0.0


def test_extended_reciprocal_rank():
    # |K| = 2: items within the top 2 count 1, an item at position n counts 1 / (n - 2 + 1).
    assert metrics.extended_reciprocal_rank([5, 7, 1, 2], {7, 5}) == 1.0
    assert metrics.extended_reciprocal_rank([5, 1, 2, 7], {5, 7}) == pytest.approx((1 + 1 / 3) / 2)
    assert metrics.extended_reciprocal_rank([1, 2, 5, 7], {5, 7}) == pytest.approx((1 / 2 + 1 / 3) / 2)
    # a single relevant item: plain reciprocal rank
    assert metrics.extended_reciprocal_rank([1, 2, 5], {5}) == pytest.approx(1 / 3)
    # an unranked relevant item contributes 0
    assert metrics.extended_reciprocal_rank([5, 1], {5, 9}) == 0.5


def test_precision_and_hit():
    ranking = [4, 2, 9, 1, 3, 8]
    relevant = {2, 3, 7}
    assert metrics.precision_at(ranking, relevant, 5) == pytest.approx(2 / 5)
    assert metrics.precision_at([2], relevant, 5) == pytest.approx(1 / 5)
    assert metrics.hit_at(ranking, relevant, 1) == 0.0
    assert metrics.hit_at(ranking, relevant, 2) == 1.0


def test_ndcg():
    # relevant at positions 2 and 4 of the top 5; ideal: positions 1 and 2.
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3)
    assert metrics.ndcg_at([0, 1, 2, 3, 4], {1, 3}, 5) == pytest.approx(dcg / idcg)
    assert metrics.ndcg_at([1, 3, 0], {1, 3}, 5) == 1.0
    # more relevant items than k: the ideal fills all k positions
    assert metrics.ndcg_at([0, 9, 1], {0, 1, 2, 3}, 2) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert metrics.ndcg_at([9, 8], {1}, 2) == 0.0
