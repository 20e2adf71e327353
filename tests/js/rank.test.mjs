// rank.js against rank.py: the same cases, the same order and scores (1e-9). The fixture is written by
// rank_fixture.py at every run ($PYTHON, else the checkout's .venv, else python3), so it follows rank.py.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { runFixture } from './fixture.mjs';

import { rankSentences, prepareQuery, tokenize, gradeProbability } from '../../site_template/app/assist/rank.js';
import { makeLevelOf } from '../../site_template/app/assist/assist.js';

const fixture = JSON.parse(runFixture('rank_fixture.py'));

const f32 = (v) => (v == null ? null : Float32Array.from(v));
const lists = fixture.texts.map((t) => t.map((s) => ({ index: s.index, text: s.text, vectors: s.vectors.map(f32) })));

test('the tokenizer splits, folds and cuts alike', () => {
  for (const [text, whole, five, two] of fixture.tokens) {
    assert.deepEqual([tokenize(text), tokenize(text, 5), tokenize(text, 2)], [whole, five, two], text);
  }
});

test('every case ranks the same sentences in the same order with the same scores', () => {
  assert.ok(fixture.cases.length >= 60);
  fixture.cases.forEach((c, n) => {
    const got = rankSentences({ queryVec: f32(c.queryVec), queryText: c.queryText, contextVec: f32(c.contextVec),
      contextText: c.contextText, queryPosition: c.queryPosition, sentences: lists[c.text], options: c.options,
      k: c.k });
    assert.deepEqual(got.map((r) => r.index), c.want.map(([i]) => i), `case ${n}: ${JSON.stringify(c.queryText)}`);
    got.forEach((r, j) => assert.ok(Math.abs(r.score - c.want[j][1]) <= 1e-9, `case ${n}: ${r.score} vs ${c.want[j][1]}`));
  });
});

test('reusing the same sentence array (the prepared cache) gives the same answer', () => {
  const c = fixture.cases.find((x) => x.queryVec && x.k === 3);
  const run = () => rankSentences({ queryVec: f32(c.queryVec), queryText: c.queryText, sentences: lists[c.text],
    options: c.options, k: 3 });
  assert.deepEqual(run(), run());
});

test('a case ranked right after the same words with another vector and options still ranks as rank.py', () => {
  // the instant answer and the model's rank the same text with two vectors: its lexical terms are kept
  // between the two calls (rank.js lexicalTerms); nothing of the first call may leak into the second
  fixture.cases.forEach((c, n) => {
    const o = fixture.cases[(n + 1) % fixture.cases.length];
    rankSentences({ queryVec: f32(o.queryVec), queryText: c.queryText, contextVec: f32(o.contextVec),
      contextText: c.contextText, sentences: lists[c.text], options: { ...o.options, bm25_k1: 2, bm25_b: 0.3 }, k: 2 });
    rankSentences({ queryVec: f32(o.queryVec), queryText: c.queryText, contextVec: f32(o.contextVec),
      contextText: c.contextText, sentences: lists[c.text], options: o.options, k: 2 });
    const got = rankSentences({ queryVec: f32(c.queryVec), queryText: c.queryText, contextVec: f32(c.contextVec),
      contextText: c.contextText, queryPosition: c.queryPosition, sentences: lists[c.text], options: c.options,
      k: c.k });
    assert.deepEqual(got.map((r) => r.index), c.want.map(([i]) => i), `case ${n}`);
    got.forEach((r, j) => assert.ok(Math.abs(r.score - c.want[j][1]) <= 1e-9, `case ${n}: ${r.score} vs ${c.want[j][1]}`));
  });
});

test('every case prepared ahead (prepareQuery, as while the model embeds) still ranks as rank.py', () => {
  // The lexical terms and the context's cosines are computed before the query's vector exists;
  // the ranking then reuses them (same vector object, same texts) and must give rank.py's numbers; a
  // preparation of other words or another context vector in between must not leak into it
  fixture.cases.forEach((c, n) => {
    const o = fixture.cases[(n + 1) % fixture.cases.length];
    const contextVec = f32(c.contextVec);
    prepareQuery({ queryText: c.queryText, contextVec, contextText: c.contextText, sentences: lists[c.text],
      options: c.options });
    prepareQuery({ queryText: o.queryText, contextVec: f32(o.contextVec), contextText: o.contextText,
      sentences: lists[o.text], options: o.options });
    const got = rankSentences({ queryVec: f32(c.queryVec), queryText: c.queryText, contextVec,
      contextText: c.contextText, queryPosition: c.queryPosition, sentences: lists[c.text], options: c.options,
      k: c.k });
    assert.deepEqual(got.map((r) => r.index), c.want.map(([i]) => i), `case ${n}`);
    got.forEach((r, j) => assert.ok(Math.abs(r.score - c.want[j][1]) <= 1e-9, `case ${n}: ${r.score} vs ${c.want[j][1]}`));
  });
});

test('the grade probability and the grade are rank.py\'s', () => {
  assert.ok(fixture.grades.length >= 21);
  for (const g of fixture.grades) {
    const [score, best, n] = g.args;
    const p = gradeProbability(score, best, n, { calibration: g.calibration });
    assert.ok(Math.abs(p - g.p) <= 1e-12, `${JSON.stringify(g)}: ${p}`);
    assert.equal(makeLevelOf({ ranker: { calibration: g.calibration } })(p), g.grade, JSON.stringify(g));
  }
});
