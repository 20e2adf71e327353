"""The ranker's two implementations agree: Python (rank.py) and JavaScript (app/assist/rank.js in Chromium).

Fixtures: the demo bundle's real texts and stored vectors (decoded as the page does) (every summary sentence ranks its
source, with and without context and position, under several option sets), plus hand-made sentences for the
tokenizer's edge cases (non-BMP code points shift the position prior) and exact ties.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from mercury_static.bundle.contents import load_bundle, load_vectors
from mercury_static.assist.rank import (DEFAULT_OPTIONS, Sentence, grade_probability, key_tokens, rank_sentences,
                                 tokenize)

pytestmark = pytest.mark.browser

OPTION_SETS = [
    {},
    {"w_lexical": 0, "w_context_lexical": 0, "neighbor": 0, "w_context": 0, "dense_idf_mass": 0},  # plain cosine
    {"span_idf_mass": 60, "dense_idf_mass": 30},  # span damping on most of the demo's spans
    {"w_dense": 0, "w_context": 0},  # lexical only
    {"neighbor": 0.9, "prefix": 0},
    {"position": 0.6},
    {"norm": "minmax", "w_bm25": 0.3, "w_context_bm25": 0.2, "w_entity": 0.5},  # per-query normalised fusion
    {"norm": "zscore", "w_entity": 0.4, "w_bm25": 0.2, "bm25_k1": 0.9, "bm25_b": 0.4},
    {"norm": "none", "w_bm25": 0.5, "w_lexical": 0, "w_entity": 0.2, "prefix": 0},  # absolute, whole tokens
    {"c_dense": 0.0, "c_bm25": 0.3, "c_entity": 0.2, "c_context_bm25": 0.1},  # the confidence's own weights
    {"calibration": [[4, 2.0, 1.0, -1.0], [50, 6.0, -1.5, -2.0]], "grades": [0.4, 0.6]},  # grade bands
]

TOKEN_TEXTS = [
    "It cost $181,674,817 — or 1.025 billion; 3,5 % (2.5) and 10,000.",
    "E85 costs less [7][36] than 98 octane, per [2, 5] and [3–4]; 14 June 2024 at 9 pm.",
    "Ünïcödé ÉCOLE straße İstanbul ΣΟΦΙΑ naïve café",
    "東京は日本の首都です。 我喜欢读书",
    "under_score snake_case e-mail x86-64 🎉 emoji 𝒻𝒶𝓃𝒸𝓎 letters",
    "",
]


def _sentences(bundle_dir, stored, dim, shards) -> list[Sentence]:
    if stored.shard not in shards:
        shards[stored.shard] = load_vectors(bundle_dir, stored.shard, dim)
    vecs = shards[stored.shard]
    per = [[] for _ in stored.sentences]
    for r, (i, _, _) in enumerate(stored.rows):
        per[i].append(vecs[stored.row0 + r])
    return [Sentence(i, stored.text[s:e], np.array(v, np.float32).reshape(len(v), dim))
            for i, ((s, e), v) in enumerate(zip(stored.sentences, per))]


def _fixtures(demo_bundle) -> list[dict]:
    bundle = load_bundle(demo_bundle)
    dim = bundle.manifest["vectors"]["dim"]
    shards: dict = {}
    cases = []
    for rec in bundle.records:
        source = _sentences(demo_bundle, rec.source_text, dim, shards)
        summary = _sentences(demo_bundle, rec.summary_text, dim, shards)
        for j, s in enumerate(summary):
            words = s.text.split()
            span = " ".join(words[: max(1, len(words) // 2)])
            mean = s.vectors.astype(np.float64).mean(axis=0)
            ctx = (mean / np.linalg.norm(mean)).astype(np.float32)
            query = s.vectors[0]
            for options in OPTION_SETS:
                cases.append({"sentences": source, "query_vec": query, "query_text": span,
                              "context_vec": ctx if j % 2 == 0 else None,
                              "context_text": s.text if j % 2 == 0 else None,
                              "query_position": (j + 0.5) / len(summary) if j % 3 else None,
                              "options": options, "k": 5})
            cases.append({"sentences": source, "query_vec": None, "query_text": s.text, "query_position": 0.3,
                          "context_vec": None, "context_text": None, "options": {}, "k": 5})
    # ties and tokenizer edge cases: duplicated sentences score exactly the same -> index order
    rng = np.random.default_rng(7)
    vecs = rng.standard_normal((4, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    texts = TOKEN_TEXTS + ["Same sentence here.", "Same sentence here."]
    made = [Sentence(i, t, vecs[[0]] if i >= 5 else vecs[[i % 4, (i + 1) % 4]]) for i, t in enumerate(texts)]
    made.append(Sentence(len(made), "No rows at all", np.zeros((0, dim), np.float32)))
    for q in ["1,025 billion cafe\u0301 CAFÉ", "straße ÉCOLE 東京", "same sentence", "snake_case emoji",
              "2.5 and 10,000 or 3,5 % ok", "costs 98 octane [7] June"]:
        for options in OPTION_SETS:
            for k in (None, 3):  # the whole order (a sort), a top k (insertion): ties broken alike
                cases.append({"sentences": made, "query_vec": vecs[3], "query_text": q, "context_vec": None,
                              "context_text": None, "query_position": 0.55, "options": options, "k": k})
    return cases


def _arr(v):
    return None if v is None else [float(x) for x in v]


def _js_input(cases: list[dict]) -> dict:
    """Distinct sentence lists once (the page reuses one array per text), cases referring to them."""
    texts: dict[int, int] = {}
    for c in cases:
        texts.setdefault(id(c["sentences"]), len(texts))
    lists = {id(c["sentences"]): c["sentences"] for c in cases}
    return {"texts": [[{"index": s.index, "text": s.text, "vectors": [_arr(r) for r in s.vectors]}
                       for s in lists[key]] for key in texts],
            "cases": [{"text": texts[id(c["sentences"])], "queryVec": _arr(c["query_vec"]),
                       "queryText": c["query_text"], "contextVec": _arr(c["context_vec"]),
                       "contextText": c["context_text"], "queryPosition": c["query_position"],
                       "options": c["options"], "k": c["k"]} for c in cases]}


RUNNER = """async ({texts, cases}) => {
  const mod = await import('./app/assist/rank.js');
  const f32 = (v) => (v == null ? null : Float32Array.from(v));
  const lists = texts.map((t) => t.map((s) => ({index: s.index, text: s.text, vectors: s.vectors.map(f32)})));
  const out = cases.map((c) => mod.rankSentences({queryVec: f32(c.queryVec), queryText: c.queryText,
    contextVec: f32(c.contextVec), contextText: c.contextText, queryPosition: c.queryPosition,
    sentences: lists[c.text], options: c.options, k: c.k}));
  const grades = out.map((rs, j) => rs.map((r) => mod.gradeProbability(r.score, rs.length ? rs[0].score : 0,
    lists[cases[j].text].length, cases[j].options)));
  return {out, grades,
          tokens: ${TOKENS}.map((t) => [mod.tokenize(t), mod.tokenize(t, 5), mod.tokenize(t, 2)]),
          keys: ${TOKENS}.map((t) => mod.keyTokens(t))};
}"""


def test_python_and_js_rank_identically(demo_bundle, modules_server, browser):
    cases = _fixtures(demo_bundle)
    page = browser.new_page()
    try:
        page.goto(modules_server + "manifest.json")
        runner = RUNNER.replace("${TOKENS}", json.dumps(TOKEN_TEXTS))
        js = page.evaluate(runner, _js_input(cases))
    finally:
        page.close()
    assert js["tokens"] == [[tokenize(t), tokenize(t, 5), tokenize(t, 2)] for t in TOKEN_TEXTS]
    assert js["keys"] == [key_tokens(t) for t in TOKEN_TEXTS]
    assert len(js["out"]) == len(cases) > 40
    for n, (case, got) in enumerate(zip(cases, js["out"])):
        want = rank_sentences(case["query_vec"], case["query_text"], case["sentences"], case["options"], case["k"],
                              context_vec=case["context_vec"], context_text=case["context_text"],
                              query_position=case["query_position"])
        assert [r["index"] for r in got] == [i for i, _ in want], f"case {n}: {case['query_text']!r}"
        assert [r["score"] for r in got] == pytest.approx([s for _, s in want], abs=1e-9), f"case {n}"
        best = want[0][1] if want else 0.0
        assert js["grades"][n] == pytest.approx([grade_probability(s, best, len(case["sentences"]), case["options"])
                                                 for _, s in want], abs=1e-9), f"case {n}: grade probability"


def test_cached_cosines_follow_vectors_attached_later(modules_server, browser):
    """rank.js reuses a vector's cosines for the same sentences, but not once their vectors have arrived
    (the model can answer before a text's vectors are loaded; they are attached in place)."""
    page = browser.new_page()
    try:
        page.goto(modules_server + "manifest.json")
        got = page.evaluate("""async () => {
          const { rankSentences } = await import('./app/assist/rank.js');
          const v = (...xs) => { const a = Float32Array.from(xs); const n = Math.hypot(...xs); return a.map((x) => x / n); };
          const sentences = [0, 1, 2].map((index) => ({ index, text: `s${index}`, vectors: [] }));
          const q = v(1, 0, 0);
          const args = { queryVec: q, queryText: '', contextVec: q, contextText: '', sentences, k: 3, options: { neighbor: 0 } };
          const before = rankSentences(args).map((r) => r.score);
          sentences[0].vectors.push(v(0, 1, 0)); sentences[1].vectors.push(v(1, 0, 0)); sentences[2].vectors.push(v(1, 1, 0));
          const after = rankSentences(args);
          const fresh = rankSentences({ ...args, queryVec: Float32Array.from(q), contextVec: Float32Array.from(q) });
          return { before, after, fresh };
        }""")
    finally:
        page.close()
    assert got["before"] == [0, 0, 0]
    assert got["after"] == got["fresh"] and [r["index"] for r in got["after"]] == [1, 2, 0]


def test_bundle_manifest_carries_the_ranker_options(demo_bundle):
    manifest = json.loads((demo_bundle / "manifest.json").read_text(encoding="utf-8"))
    assert {k: manifest["ranker"][k] for k in DEFAULT_OPTIONS} == DEFAULT_OPTIONS
