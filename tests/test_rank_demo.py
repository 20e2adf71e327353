"""The ranker on the demo bundle's real texts, stored vectors and model: a wrong number finds its number.

Selecting "3.2 million euros" in the harbor-lighthouse summary must light "The project cost 2.3 million
euros…" first, in Python and in the page's rank.js, once the model has embedded the exact span (the
instant answer, where the sentence's stored vector stands for the span, still prefers the sentence the
whole summary sentence paraphrases); fused-v3 put that reopening sentence first in both.
"""

from __future__ import annotations

import numpy as np
import pytest

from mercury_static.bundle.contents import load_bundle, load_vectors
from mercury_static.tune.evaluate import overlapping
from mercury_static.assist.rank import DEFAULT_OPTIONS, Sentence, rank_sentences

FUSED_V3 = {"algorithm": "fused-v3", "norm": "none", "w_dense": 0.25, "w_context": 0.1, "w_lexical": 0.25,
            "w_context_lexical": 0.4, "w_bm25": 0.0, "w_context_bm25": 0.0, "w_entity": 0.0}
SPAN = "3.2 million euros"


def _texts(bundle_dir, stored, dim):
    vecs = load_vectors(bundle_dir, stored.shard, dim)
    per = [[] for _ in stored.sentences]
    for r, (i, _, _) in enumerate(stored.rows):
        per[i].append(vecs[stored.row0 + r])
    return [Sentence(i, stored.text[s:e], np.array(v, np.float32).reshape(len(v), dim))
            for i, ((s, e), v) in enumerate(zip(stored.sentences, per))]


@pytest.fixture(scope="module")
def harbor(demo_bundle, embedder):
    bundle = load_bundle(demo_bundle)
    dim = bundle.manifest["vectors"]["dim"]
    rec = next(r for r in bundle.records if r.id == "harbor-lighthouse")
    source = _texts(demo_bundle, rec.source_text, dim)
    summary_text = rec.summary_text.text
    start = summary_text.index(SPAN)
    idx = overlapping(rec.summary_text.sentences, start, start + len(SPAN))
    summary = _texts(demo_bundle, rec.summary_text, dim)
    mean = np.concatenate([summary[i].vectors for i in idx]).astype(np.float64).mean(axis=0)
    context_vec = (mean / np.linalg.norm(mean)).astype(np.float32)
    s, e = rec.summary_text.sentences[idx[0]][0], rec.summary_text.sentences[idx[-1]][1]
    cost = next(s.index for s in source if "2.3 million euros" in s.text)
    return {"sentences": source, "span_vec": embedder.embed([SPAN])[0], "context_vec": context_vec,
            "context_text": summary_text[s:e], "position": (2 * start + len(SPAN)) / 2 / len(summary_text),
            "cost": cost}


def _rank(h, query_vec, options):
    return rank_sentences(query_vec, SPAN, h["sentences"], options, 3, context_vec=h["context_vec"],
                          context_text=h["context_text"], query_position=h["position"])


def test_wrong_number_ranks_its_number_first_in_python(harbor):
    ranked = _rank(harbor, harbor["span_vec"], DEFAULT_OPTIONS)
    assert ranked[0][0] == harbor["cost"], ranked
    assert ranked[0][1] >= DEFAULT_OPTIONS["min_score"]  # lit, not "nothing related"
    assert _rank(harbor, harbor["span_vec"], FUSED_V3)[0][0] != harbor["cost"]  # what the issue reported


@pytest.mark.browser
def test_wrong_number_ranks_its_number_first_in_the_page(harbor, modules_server, browser):
    page = browser.new_page()
    try:
        page.goto(modules_server + "manifest.json")
        got = page.evaluate("""async ({texts, span, ctx, ctxText, position, query}) => {
          const { rankSentences } = await import('./app/assist/rank.js');
          const sentences = texts.map((s) => ({ index: s.index, text: s.text,
                                                vectors: s.vectors.map((v) => Float32Array.from(v)) }));
          return rankSentences({ queryVec: Float32Array.from(span), queryText: query,
            contextVec: Float32Array.from(ctx), contextText: ctxText, queryPosition: position, sentences, k: 3 });
        }""", {"texts": [{"index": s.index, "text": s.text, "vectors": s.vectors.tolist()}
                         for s in harbor["sentences"]],
               "span": harbor["span_vec"].tolist(), "ctx": harbor["context_vec"].tolist(),
               "ctxText": harbor["context_text"], "position": harbor["position"], "query": SPAN})
    finally:
        page.close()
    assert got[0]["index"] == harbor["cost"]
    want = _rank(harbor, harbor["span_vec"], DEFAULT_OPTIONS)
    assert [r["score"] for r in got] == pytest.approx([s for _, s in want], abs=1e-9)
