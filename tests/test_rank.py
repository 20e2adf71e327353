"""The ranker's formula on small hand-made texts (rank.py; rank.js is held to it by test_rank_parity)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mercury_static.assist.rank import (DEFAULT_OPTIONS, TERMS, Sentence, key_tokens, prepare_sentences, rank_sentences,
                                  tokenize)

DIM = 4
ABSOLUTE = {"norm": "none", "w_bm25": 0.0, "w_context_bm25": 0.0, "w_entity": 0.0}  # fused-v3's terms only
COSINE = {**ABSOLUTE, "w_dense": 1.0, "w_context": 0.0, "w_lexical": 0.0, "w_context_lexical": 0.0, "neighbor": 0.0,
          "span_idf_mass": 0, "dense_idf_mass": 0}
LEXICAL = {**COSINE, "w_dense": 0.0, "w_lexical": 1.0, "prefix": 0}


def unit(*xs) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def sents(*items) -> list[Sentence]:
    """items: (text, [vectors]) pairs -> sentences 0..n-1."""
    return [Sentence(i, t, np.array(v, np.float32).reshape(len(v), DIM)) for i, (t, v) in enumerate(items)]


def test_tokenize():
    assert tokenize("It cost $181,674,817 (1.5 bn), in 2023!") == ["it", "cost", "181674817", "15", "bn", "in", "2023"]
    assert tokenize("Snake_case ÉCOLE naïve") == ["snake", "case", "école", "naïve"]
    assert tokenize("Universities announced", 5) == ["unive", "annou"]
    assert tokenize("𝒻𝒶𝓃𝒸𝓎𝓎 ok", 5) == ["𝒻𝒶𝓃𝒸𝓎", "ok"]  # code points, not UTF-16 units
    assert tokenize("  ,.; ") == []


def test_order_ties_and_k():
    v = unit(1, 0, 0, 0)
    text = sents(("a", [unit(0, 1, 0, 0)]), ("b", [v]), ("c", [v]), ("d", [unit(1, 1, 0, 0)]))
    ranked = rank_sentences(v, "", text, COSINE, None)
    assert [i for i, _ in ranked] == [1, 2, 3, 0]  # exact tie 1/2 broken by index
    assert ranked[0][1] == pytest.approx(1.0) and ranked[2][1] == pytest.approx(math.sqrt(0.5))
    assert rank_sentences(v, "", text, COSINE, 2) == ranked[:2]


def test_long_sentence_takes_its_best_window():
    q = unit(1, 0, 0, 0)
    text = sents(("short", [unit(1, 1, 0, 0)]), ("long", [unit(0, 1, 0, 0), unit(1, 0.1, 0, 0)]),
                 ("no rows", []))
    ranked = dict(rank_sentences(q, "", text, COSINE))
    assert ranked[1] == pytest.approx(float(unit(1, 0.1, 0, 0)[0]))
    assert ranked[1] > ranked[0] > ranked[2] == 0.0


def test_lexical_is_idf_weighted_coverage():
    z = [unit(1, 0, 0, 0)]
    text = sents(("the harbor opened", z), ("the harbor closed", z), ("the museum opened in 1932", z),
                 ("the museum", z))
    scores = dict(rank_sentences(None, "museum 1932", text, LEXICAL))
    n = 4
    idf = lambda df: math.log(1 + (n - df + 0.5) / (df + 0.5))  # noqa: E731
    assert scores[2] == pytest.approx(1.0)  # every query token found
    assert scores[3] == pytest.approx(idf(2) / (idf(2) + idf(1)))  # "museum" only (df 2) of museum + 1932
    assert scores[0] == scores[1] == 0.0
    # a token absent from the text still counts in the denominator: scores stay absolute
    assert dict(rank_sentences(None, "museum 1932 zebra", text, LEXICAL))[2] < 1.0


def test_context_weights_fall_back_when_absent():
    q, c = unit(1, 0, 0, 0), unit(0, 1, 0, 0)
    text = sents(("alpha beta", [unit(1, 0.2, 0, 0)]), ("gamma", [unit(0.2, 1, 0, 0)]), ("delta", [unit(0, 0, 1, 0)]))
    opts = {**ABSOLUTE, "w_dense": 0.5, "w_context": 0.3, "w_lexical": 0.2, "w_context_lexical": 0.0, "neighbor": 0.0,
            "span_idf_mass": 0, "dense_idf_mass": 0}
    without = rank_sentences(q, "beta", text, opts)
    same = rank_sentences(q, "beta", text, {**opts, "w_dense": 0.8, "w_context": 0.0})
    assert [i for i, _ in without] == [i for i, _ in same]
    assert [x for _, x in without] == pytest.approx([x for _, x in same])
    with_ctx = dict(rank_sentences(q, "beta", text, opts, context_vec=c))
    assert with_ctx[1] > dict(without)[1]  # the context pulls "gamma" up
    # context text feeds the context-lexical term
    lex = {**LEXICAL, "w_lexical": 0.5, "w_context_lexical": 0.5}
    assert dict(rank_sentences(None, "beta", text, lex, context_text="gamma"))[1] == pytest.approx(0.5)
    assert dict(rank_sentences(None, "beta", text, lex))[1] == 0.0


def test_span_weights_are_damped_by_the_span_idf_mass():
    q, c = unit(1, 0, 0, 0), unit(0, 1, 0, 0)
    text = sents(("alpha beta", [unit(1, 0.2, 0, 0)]), ("gamma beta", [unit(0.2, 1, 0, 0)]),
                 ("delta", [unit(0, 0, 1, 0)]), ("alpha", [unit(1, 1, 1, 0)]))
    base = {**ABSOLUTE, "w_dense": 0.3, "w_context": 0.2, "w_lexical": 0.3, "w_context_lexical": 0.2, "neighbor": 0.0,
            "prefix": 0, "span_idf_mass": 0, "dense_idf_mass": 0}
    mass = math.log(1 + (4 - 2 + 0.5) / (2 + 0.5))  # "beta": in 2 of the 4 sentences

    def scores(query, opts):
        return dict(rank_sentences(q, query, text, opts, context_vec=c, context_text="gamma"))

    damped = scores("beta", {**base, "span_idf_mass": 4 * mass, "dense_idf_mass": 2 * mass})
    by_hand = scores("beta", {**base, "w_lexical": 0.3 / 4, "w_dense": 0.3 / 2})
    assert damped == pytest.approx(by_hand)
    assert damped != pytest.approx(scores("beta", base))
    # a span with enough idf mass is not damped
    assert scores("beta", {**base, "span_idf_mass": mass, "dense_idf_mass": mass / 2}) == pytest.approx(scores("beta", base))
    # a span without tokens leaves only the context terms
    only_ctx = scores("—", {**base, "span_idf_mass": 1, "dense_idf_mass": 1})
    assert only_ctx == pytest.approx(scores("—", {**base, "w_dense": 0, "w_lexical": 0}))


def test_neighbour_smoothing():
    q = unit(1, 0, 0, 0)
    far = unit(0, 0, 0, 1)
    text = sents(("a", [q]), ("b", [far]), ("c", [q]), ("d", [far]))
    plain = dict(rank_sentences(q, "", text, COSINE))
    smooth = dict(rank_sentences(q, "", text, {**COSINE, "neighbor": 0.5}))
    assert smooth[1] == pytest.approx(0.5 * plain[1] + 0.5 * (plain[0] + plain[2]) / 2)
    assert smooth[3] == pytest.approx(0.5 * plain[3] + 0.5 * (plain[2] + plain[3]) / 2)  # no next: itself
    assert smooth[1] > smooth[3]


def test_prepared_text_is_reusable_and_defaults_are_complete():
    q = unit(1, 2, 3, 4)
    text = sents(("one two", [unit(1, 0, 0, 0)]), ("two three", [unit(0, 1, 1, 0)]), ("four", [unit(1, 1, 1, 1)]))
    prep = prepare_sentences(text)
    for query in ("two", "four two", ""):
        assert rank_sentences(q, query, text, prepared=prep) == rank_sentences(q, query, text)
    assert {f"w_{t}" for t in TERMS} | {"norm", "bm25_k1", "bm25_b", "neighbor", "prefix", "min_score"} <= set(
        DEFAULT_OPTIONS)


def test_position_prior_scales_by_distance_to_the_selection():
    q = unit(1, 0, 0, 0)
    # three equally similar sentences of lengths 2, 4, 2 code points (one astral): midpoints 1/8, 1/2, 7/8
    text = sents(("ab", [q]), ("c🎉de", [q]), ("fg", [q]))
    plain = dict(rank_sentences(q, "", text, COSINE))
    assert plain == dict(rank_sentences(q, "", text, {**COSINE, "position": 0.5}))  # no position: no prior
    near_end = rank_sentences(q, "", text, {**COSINE, "position": 0.5}, query_position=0.9)
    assert [i for i, _ in near_end] == [2, 1, 0]
    got = dict(near_end)
    for i, mid in ((0, 1 / 8), (1, 1 / 2), (2, 7 / 8)):
        assert got[i] == pytest.approx(plain[i] * (0.5 + 0.5 * (1 - abs(0.9 - mid))))
    assert dict(rank_sentences(q, "", text, {**COSINE, "position": 0}, query_position=0.9)) == plain


def test_key_tokens_are_numbers_and_the_words_after_them():
    assert key_tokens("It cost 3.2 million euros on 14 June, in 2023 Paris") == [
        "32", "million", "euros", "14", "june", "in", "2023", "paris"]
    assert key_tokens("The Mayor of Brenmouth") == []  # names alone are not key tokens
    assert key_tokens("") == []
    assert key_tokens("Prices fell. [7][36] and [2, 5]") == []  # citation markers are not numbers of the text


def test_bm25_is_bounded_and_saturates():
    z = [unit(1, 0, 0, 0)]
    text = sents(("euros euros euros here", z), ("euros", z), ("nothing at all today", z))
    bm25 = {**LEXICAL, "w_lexical": 0.0, "w_bm25": 1.0}
    got = dict(rank_sentences(None, "euros", text, bm25))
    k1, b, avg = 1.2, 0.75, 3.0  # sentence lengths 4, 1, 4 tokens

    def share(tf, dl):
        return tf / (tf + k1 * (1 - b + b * dl / avg))  # BM25 over its bound idf * (k1 + 1)

    assert got[0] == pytest.approx(share(3, 4)) and got[1] == pytest.approx(share(1, 1))
    assert got[2] == 0.0 and 0 < got[0] < 1 and 0 < got[1] < 1
    assert dict(rank_sentences(None, "euros", text, {**bm25, "bm25_b": 0.0}))[0] == pytest.approx(3 / (3 + k1))


def test_entity_term_matches_numbers_exactly():
    z = [unit(1, 0, 0, 0)]
    text = sents(("It cost 2.3 million euros", z), ("It cost 3.2 million euros", z), ("Tickets cost 6 euros", z))
    entity = {**LEXICAL, "w_lexical": 0.0, "w_entity": 1.0, "prefix": 5}
    got = dict(rank_sentences(None, "3.2 million euros", text, entity))
    assert got[1] == pytest.approx(1.0)  # "32", "million", "euros": whole tokens, not prefixes
    assert 0 < got[2] < got[0] < 1
    # with span damping on, the numbers get the weight the damping takes from the span's lexical terms:
    # all of it for a span without information, none for a rich one
    lex = {**LEXICAL, "prefix": 5}
    damped = {**lex, "w_entity": 1.0, "span_idf_mass": 1e9}
    assert dict(rank_sentences(None, "3.2 million euros", text, damped)) == pytest.approx(got, abs=1e-6)
    assert rank_sentences(None, "3.2 million euros", text, {**damped, "span_idf_mass": 1e-9}) == \
        rank_sentences(None, "3.2 million euros", text, {**lex, "span_idf_mass": 1e-9})
    # no key token: the term is absent (it does not dilute the others)
    assert rank_sentences(None, "million euros", text, {**lex, "w_entity": 1.0}) == \
        rank_sentences(None, "million euros", text, lex)


def test_normalised_fusion_ranks_by_shares_and_keeps_an_absolute_scale():
    q = unit(1, 0, 0, 0)
    # dense 1 / 0.9 / 0.5, and "beta" only in sentence 1 but a small share of a long query: weighted raw
    # scores prefer sentence 0, the per-query normalised fusion 1 (the lexical term's whole range is its)
    text = sents(("alpha", [q]), ("beta gamma", [unit(0.9, math.sqrt(0.19), 0, 0)]),
                 ("delta", [unit(0.5, math.sqrt(0.75), 0, 0)]))
    opts = {**ABSOLUTE, "w_dense": 0.5, "w_context": 0.0, "w_lexical": 0.5, "w_context_lexical": 0.0,
            "neighbor": 0.0, "prefix": 0, "span_idf_mass": 0, "dense_idf_mass": 0,
            "c_dense": 0.5, "c_context": 0.0, "c_lexical": 0.5, "c_context_lexical": 0.0}  # confidence: same
    query = "beta " + " ".join(f"zz{i}" for i in range(9))
    raw = dict(rank_sentences(q, query, text, opts))
    norm = rank_sentences(q, query, text, {**opts, "norm": "minmax"})
    assert max(raw, key=raw.get) == 0 and norm[0][0] == 1
    assert norm[0][1] == pytest.approx(max(raw.values()))  # the best score is the best absolute score
    assert norm[-1][1] == 0.0  # the worst sentence of the text gets 0
    # the confidence has weights of its own (c_*): they scale the scores, never the order
    other = rank_sentences(q, query, text, {**opts, "norm": "minmax", "c_dense": 1.0, "c_lexical": 0.0})
    assert [i for i, _ in other] == [i for i, _ in norm] and other[0][1] == pytest.approx(1.0)
    # an unrelated text stays low however it is normalised
    far = sents(("x", [unit(0, 0, 1, 0.1)]), ("y", [unit(0, 0, 0.1, 1)]))
    assert max(s for _, s in rank_sentences(q, "beta", far, {**opts, "norm": "zscore"})) < 0.1


def test_unknown_normalisation_is_an_error_not_a_guess():
    text = sents(("alpha", [unit(1, 0, 0, 0)]), ("beta", [unit(0, 1, 0, 0)]))
    with pytest.raises(ValueError, match="norm"):
        rank_sentences(unit(1, 0, 0, 0), "alpha", text, {"norm": "softmax"})


def test_grade_probability_per_length_band():
    """The grade is P(evidence) from the calibration row of the source's length band (the first
    whose bound is >= its sentence count, else the last); an empty table grades the score itself."""
    import math

    from mercury_static.assist.rank import grade, grade_probability

    table = [[10, 4.0, 2.0, -3.0], [300, 1.0, 0.0, 0.0]]
    sig = lambda z: 1 / (1 + math.exp(-z))  # noqa: E731
    assert grade_probability(0.4, 0.5, 10, {"calibration": table}) == pytest.approx(sig(1.6 + 1.6 - 3.0))
    assert grade_probability(0.4, 0.5, 11, {"calibration": table}) == pytest.approx(sig(0.4))
    assert grade_probability(0.4, 0.5, 5000, {"calibration": table}) == pytest.approx(sig(0.4))  # beyond: the last
    assert grade_probability(0.4, 0.0, 3, {"calibration": table}) == pytest.approx(sig(1.6 - 3.0))  # no best
    assert grade_probability(0.37, 0.5, 3, {"calibration": []}) == 0.37
    assert [grade(p) for p in (0.24, 0.25, 0.49, 0.5)] == [1, 2, 2, 3]  # default grades [0.25, 0.5]
    # the default table: the same score is a weaker grade on a short source than in a haystack
    assert grade_probability(0.3, 0.3, 8) < grade_probability(0.3, 0.3, 3931)


@pytest.mark.parametrize("value, message", [
    ([[10, 1, 1]], "rows [max sentences"), ([[300, 1, 1, 1], [10, 1, 1, 1]], "ascending"),
    ([[0, 1, 1, 1]], ">= 1"), ([[10.5, 1, 1, 1]], "integers"), ([[10, 1, 1, 1000]], "[-100, 100]"),
    ([[10, 1, 1, 1]] * 9, "at most 8")])
def test_calibration_option_is_checked(value, message):
    from mercury_static.assist import ranker_options
    from mercury_static.core.records import InputError

    with pytest.raises(InputError) as e:
        ranker_options.validate({"calibration": value})
    assert "calibration" in str(e.value) and message in str(e.value)
    assert ranker_options.validate({"calibration": [[10, 1, 1.5, -2]]})["calibration"] == [[10, 1, 1.5, -2]]
