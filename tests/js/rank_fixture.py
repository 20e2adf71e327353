"""Write the fixture of rank.test.mjs to stdout: ranking cases and the scores mercury_static/assist/rank.py gives.

Run by the Node test itself (with this checkout on PYTHONPATH), so the fixture always follows rank.py.
Hand-made sentences (seeded random unit vectors, several rows per sentence, a sentence without rows), the
tokenizer's edge cases (digit groups, case folding, non-BMP code points that shift the position prior) and
exact ties (duplicated sentences: index order decides).
"""

from __future__ import annotations

import json

import numpy as np

from mercury_static.assist.rank import DEFAULT_OPTIONS, Sentence, rank_sentences, tokenize, grade, grade_probability

DIM = 8
OPTION_SETS = [
    {},
    {"w_lexical": 0, "w_context_lexical": 0, "neighbor": 0, "w_context": 0, "dense_idf_mass": 0},
    {"span_idf_mass": 60, "dense_idf_mass": 30},
    {"w_dense": 0, "w_context": 0},
    {"neighbor": 0.9, "prefix": 0},
    {"position": 0.6, "prefix": 2},
]
TEXTS = [
    "It cost $181,674,817 — or 1.025 billion; 3,5 % (2.5) and 10,000.",
    "Ünïcödé ÉCOLE straße İstanbul ΣΟΦΙΑ naïve café",
    "東京は日本の首都です。 我喜欢读书",
    "under_score snake_case e-mail x86-64 🎉 emoji 𝒻𝒶𝓃𝒸𝓎 letters",
    "The committee published its report on the water supply.",
    "The mayor disputed the report's figures on Friday.",
    "",
    "Same sentence here.",
    "Same sentence here.",
]
QUERIES = ["1,025 billion cafe\u0301 CAFÉ", "straße ÉCOLE 東京", "same sentence", "snake_case emoji",
           "the report", "", "mayor Friday figures"]


def unit(rng, n):
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def main() -> None:
    rng = np.random.default_rng(14)
    sentences = [Sentence(i, t, unit(rng, 1 + i % 3)) for i, t in enumerate(TEXTS)]
    sentences[8].vectors = sentences[7].vectors.copy()  # an exact tie
    sentences.append(Sentence(len(sentences), "No rows at all", np.zeros((0, DIM), np.float32)))
    gapped = [s for s in sentences if s.index not in (2, 5)]  # neighbours missing from the list
    lists = [sentences, gapped]
    queries = unit(rng, len(QUERIES))
    cases = []
    for n, text in enumerate(QUERIES):
        for m, options in enumerate(OPTION_SETS):
            for k in (None, 3):
                with_ctx = (n + m) % 2 == 0
                case = {"text": (n + m) % 2, "queryVec": queries[n] if (n + m) % 3 else None, "queryText": text,
                        "contextVec": queries[(n + 1) % len(QUERIES)] if with_ctx else None,
                        "contextText": QUERIES[(n + 2) % len(QUERIES)] if with_ctx else None,
                        "queryPosition": (n + 0.5) / len(QUERIES) if m % 2 else None, "options": options, "k": k}
                want = rank_sentences(case["queryVec"], text, lists[case["text"]], options, k,
                                      context_vec=case["contextVec"], context_text=case["contextText"],
                                      query_position=case["queryPosition"])
                case["want"] = [[i, s] for i, s in want]
                cases.append(case)

    # the grade calibration: the default table, a hand-made one (band edges, the last band beyond its
    # bound, a zero best score) and none (the score itself)
    tables = [DEFAULT_OPTIONS["calibration"], [[10, 4.0, 1.5, -3.0], [300, 2.0, 3.0, -2.5], [5000, -1.0, 6.0, -4.0]], []]
    grades = []
    for table in tables:
        for score, best, n in ((0.47, 0.49, 3931), (0.2, 0.5, 10), (0.3, 0.5, 11), (0.3, 0.3, 300), (0.1, 0.0, 5),
                               (0.49, 0.49, 9000), (0.05, 0.6, 1)):
            p = grade_probability(score, best, n, {"calibration": table})
            grades.append({"args": [score, best, n], "calibration": table, "p": p,
                           "grade": grade(p, {"calibration": table})})

    def arr(v):
        return None if v is None else [float(x) for x in v]

    print(json.dumps({
        "tokens": [[t, tokenize(t), tokenize(t, 5), tokenize(t, 2)] for t in TEXTS + QUERIES],
        "texts": [[{"index": s.index, "text": s.text, "vectors": [arr(r) for r in s.vectors]} for s in lst]
                  for lst in lists],
        "grades": grades,
        "cases": [{**c, "queryVec": arr(c["queryVec"]), "contextVec": arr(c["contextVec"])} for c in cases],
    }, ensure_ascii=False))


if __name__ == "__main__":
    main()
