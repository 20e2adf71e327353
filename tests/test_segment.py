"""Sentence segmentation: exact offsets, sensible boundaries, linear time; embedding windows."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mercury_static.core.segment import embedding_windows, split_sentences

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def check_spans(text: str, spans: list[tuple[int, int]]) -> None:
    """The contract: ordered, disjoint, stripped, no line break inside, all non-whitespace covered."""
    covered = [False] * len(text)
    prev_end = 0
    for s, e in spans:
        assert prev_end <= s < e <= len(text)
        piece = text[s:e]
        assert piece == piece.strip() and piece
        assert not any(ch in LINE_BREAKS for ch in piece)
        for i in range(s, e):
            covered[i] = True
        prev_end = e
    assert all(covered[i] or ch.isspace() for i, ch in enumerate(text))


ALPHABET = st.sampled_from(
    list("abcxyzABC019 .,!?;:'\"()-–—…") + ["\n", "\r\n", "\n\n", "\t", "  ", "\u2028", "\u00a0",
    "Dr. ", "U.S. ", "3.14", "$1.5 million", "e.g. ", "“", "”", "« ", " »", "。", "！", "东京", "日本語",
    "🚀", "👩‍🚀", "🇫🇷", "👍🏽", "𝔘", "𝕏", "\u200b", "\u202e", "\ufeff", "- ", "* ", "1. "])


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=80).map("".join))
def test_offsets_slice_back_and_cover_the_text(text):
    check_spans(text, split_sentences(text))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_offsets_on_arbitrary_unicode(text):
    check_spans(text, split_sentences(text))


SENTENCE = st.sampled_from([
    "The cat sat on the mat.", "Dr. Smith met the U.S. envoy.", "Prices rose 3.14% in May!",
    "Was it $1.5 million?", "“Yes,” she said.", "东京是日本的首都。", "The 🚀 launched.", "𝔘nusual text here.",
])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(SENTENCE, st.sampled_from([" ", "  ", "\n", "\r\n", "\n\n", " \n "])),
                min_size=1, max_size=12))
def test_known_sentences_are_recovered(parts):
    text = "".join(s + sep for s, sep in parts)
    assert sentences(text) == [s for s, _ in parts]


@pytest.mark.parametrize("text, expected", [
    ("Dr. Smith went to Washington. He met the U.S. president at 3 p.m. on Friday.",
     ["Dr. Smith went to Washington.", "He met the U.S. president at 3 p.m. on Friday."]),
    ("The firm earned $1.5 million in 2023. Pi is about 3.14. Sales grew 2.5% a year.",
     ["The firm earned $1.5 million in 2023.", "Pi is about 3.14.", "Sales grew 2.5% a year."]),
    ('She said, "I will come tomorrow." Then she left. "Really?" he asked.',
     ['She said, "I will come tomorrow."', "Then she left.", '"Really?" he asked.']),
    ("Mr. Jones and Mrs. Smith arrived at 5 a.m. yesterday. E.g. this works.",
     ["Mr. Jones and Mrs. Smith arrived at 5 a.m. yesterday.", "E.g. this works."]),
    ("Shopping list:\n- eggs\n- milk\n1. First item. Still first.\n2. Second item\n\n# Heading\nBody.",
     ["Shopping list:", "- eggs", "- milk", "1. First item.", "Still first.", "2. Second item",
      "# Heading", "Body."]),
    ("A title without a full stop\r\nThe first line of text.\r\n", ["A title without a full stop",
                                                                     "The first line of text."]),
    ("Repeat. Repeat. Repeat.", ["Repeat.", "Repeat.", "Repeat."]),
    ("Great launch! 🚀🚀 Next step. Done 👍🏽. Fine. ❤️ Love it.",
     ["Great launch! 🚀🚀", "Next step.", "Done 👍🏽.", "Fine. ❤️", "Love it."]),
    ("东京是日本的首都。它很大！ 𝔘nicode math.", ["东京是日本的首都。", "它很大！", "𝔘nicode math."]),
    ("   \n\t  ", []),
    ("", []),
])
def test_boundaries(text, expected):
    assert sentences(text) == expected
    check_spans(text, split_sentences(text))


def test_offsets_are_code_points():
    text = "𝔘𝔘 first one. 🚀 second one."
    (s1, e1), (s2, e2) = split_sentences(text)
    assert (s1, e1) == (0, 15)  # UTF-16 would say 17
    assert text[s1:e1] == "𝔘𝔘 first one. 🚀" and text[s2:e2] == "second one."


def test_long_line_is_segmented_in_windows_without_losing_sentences():
    pool = ["Dr. Ada Brown visited the U.S. office on Monday.", "Revenue rose to $1.5 million.",
            "“It works,” she said.", "The rate was 3.14 percent.", "Nobody knew why."]
    parts = [pool[i % len(pool)] for i in range(3000)]
    text = " ".join(parts)  # ~110,000 characters on one line
    assert sentences(text) == parts


def test_pathological_line_is_linear():
    text = "a. " * 20000  # pysbd alone needs about a minute on this (quadratic)
    start = time.perf_counter()
    spans = split_sentences(text)
    assert time.perf_counter() - start < 30
    assert len(spans) == 20000


@pytest.fixture(scope="module")
def count_tokens():
    """The model's real tokenizer, counting like Embedder.count_tokens (special tokens included)."""
    from tokenizers import Tokenizer

    from mercury_static.assist.model_export import default_model_path

    tok = Tokenizer.from_file(str(default_model_path() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return lambda texts: [len(e.ids) for e in tok.encode_batch(list(texts))]


def check_windows(text, spans, rows, count_tokens, max_tokens):
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    assert {r[0] for r in rows} == set(range(len(spans)))
    for i, (s, e) in enumerate(spans):
        mine = [(ws, we) for j, ws, we in rows if j == i]
        if len(mine) == 1 and mine[0] == (s, e):
            continue
        assert mine[0][0] == s and mine[-1][1] == e
        for (a, b), (c, d) in zip(mine, mine[1:]):
            assert a < c < b <= d  # moving forward, overlapping
        pieces = [text[ws:we] for ws, we in mine]
        assert all(piece == piece.strip() for piece in pieces)
        assert all(n <= max_tokens - 2 for n in count_tokens(pieces)), count_tokens(pieces)  # counted in one call


def test_short_sentences_get_one_row_each(count_tokens):
    text = "One short sentence. Another one here.\nA third."
    spans = split_sentences(text)
    rows = embedding_windows(text, spans, count_tokens, 256)
    assert rows == [(i, s, e) for i, (s, e) in enumerate(spans)]


def test_long_sentence_becomes_overlapping_windows(count_tokens):
    long = "The committee reviewed " + ", ".join(f"item number {i} of the budget" for i in range(150)) + "."
    text = f"Intro sentence. {long} Outro sentence."
    spans = split_sentences(text)
    assert len(spans) == 3 and count_tokens([long])[0] > 600
    rows = embedding_windows(text, spans, count_tokens, 256)
    assert sum(1 for r in rows if r[0] == 1) >= 3
    check_windows(text, spans, rows, count_tokens, 256)
    overlap = [(b - c) / (b - a) for (_, a, b), (_, c, d) in zip(rows[1:-2], rows[2:-1])]
    assert all(0.1 < x < 0.4 for x in overlap)


def test_a_word_longer_than_the_limit_is_cut_inside(count_tokens):
    text = "开始。" + "东京是日本的首都也是最大的城市" * 40 + "。"
    spans = split_sentences(text)
    rows = embedding_windows(text, spans, count_tokens, 64)
    assert len(rows) > 3
    check_windows(text, spans, rows, count_tokens, 64)


def test_no_sentences_no_rows(count_tokens):
    assert embedding_windows("  \n ", [], count_tokens, 256) == []


def test_huge_sentence_windows_fit_and_cover_in_linear_time(count_tokens):
    text = " ".join(f"token{i % 97}" for i in range(30000))  # one 240,000-character "sentence"
    spans = split_sentences(text)
    assert spans == [(0, len(text))]
    start = time.perf_counter()
    rows = embedding_windows(text, spans, count_tokens, 256)
    assert time.perf_counter() - start < 30  # quadratic probing took minutes here
    assert len(rows) > 100
    check_windows(text, spans, rows, count_tokens, 256)
