"""Write the fixture of tokens.test.mjs to stdout: the word span of every token of hard texts as the Python
tokenizer gives it (tokens.word_spans), and selection vectors from seeded token rows (tokens.py).

Run by the Node test itself (with this checkout on PYTHONPATH), so the fixture follows tokens.py and the
model's tokenizer; the tokenizer folder is printed for the test to load the same tokenizer.json in Node.
"""

from __future__ import annotations

import json

import numpy as np
from tokenizers import Tokenizer

from mercury_static.assist.model_export import ensure_model
from mercury_static.assist.tokens import TokenRow, blend, selection_vector, word_spans

TEXTS = [
    "The cat sat on the mat.",
    "Revenue rose 12.5% to $4.3 billion, up from 3,200 units (Q3).",
    "Ünïcödé ÉCOLE straße İstanbul ΣΟΦΙΑ naïve café",
    "東京は日本の首都です。 我喜欢读书",
    "under_score snake_case e-mail x86-64 🎉 emoji 𝒻𝒶𝓃𝒸𝓎 letters",
    "\"I never said that,\" she replied — 'twice'…",
    "line one\nline two\ttabbed  double  spaces ",
    "Mr. Smith went to Washington D.C. in Jan. 2020; it's 10:30 a.m.",
    "हिन्दी สวัสดี العربية עברית",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "#hashtag @mention example.com/path?q=1&x=2 [7][36]",
    "x",
    "e\u0301cole a\u200bb zero\u200dwidth \u0301lead",
]


def main() -> None:
    model = ensure_model(None)
    tok = Tokenizer.from_file(str(model.dir / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    words = []
    for text in TEXTS:
        enc = tok.encode(text, add_special_tokens=False)
        words.append({"text": text, "tokens": enc.tokens,
                      "spans": word_spans(text, enc.offsets, enc.word_ids, 5).ravel().tolist()})
    rng = np.random.default_rng(7)
    dim = 6
    rows = []
    for start, end, n in ((0, 30, 5), (31, 60, 4), (50, 90, 6)):  # overlapping rows: a window of a long sentence
        edges = np.sort(rng.choice(np.arange(start, end), size=2 * n, replace=False)).reshape(n, 2)
        rows.append(TokenRow(start, end, edges, rng.normal(size=(n, dim)).astype(np.float32)))
    cases = []
    for s, e in ((0, 1), (3, 3), (0, 90), (10, 40), (29, 52), (55, 56), (88, 90), (91, 95), (31, 31)):
        vec = selection_vector(rows, s, e)
        other = rng.normal(size=dim).astype(np.float32)
        other /= np.linalg.norm(other)
        mixed = blend(vec, other)
        cases.append({"start": s, "end": e, "want": None if vec is None else vec.tolist(),
                      "other": other.tolist(), "blend": None if mixed is None else mixed.tolist()})
    print(json.dumps({"tokenizer": str(model.dir), "words": words, "cases": cases,
                      "rows": [{"start": r.start, "end": r.end, "spans": r.spans.ravel().tolist(),
                                "vectors": r.vectors.ravel().tolist()} for r in rows]}))


if __name__ == "__main__":
    main()
