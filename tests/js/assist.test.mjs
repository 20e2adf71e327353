// The page's highlight grades (assist.js): without grades in the manifest they are rank.js's defaults,
// the thresholds `eval` and the build use. The instant answer and the model's: which one the pane shows when.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { makeLevelOf, Assistant, HOLD_MS, LIT_GAP, meanVector } from '../../site_template/app/assist/assist.js';
import { emptyAssist, relatedSlice } from '../../site_template/app/state/related.js';
import { emptyDraft } from '../../site_template/app/state/draft.js';
import { createStore } from '../../site_template/app/state/store.js';
import { DEFAULT_OPTIONS, rankSentences } from '../../site_template/app/assist/rank.js';
import { TextView } from '../../site_template/app/data/data.js';
import { blend, selectionVector } from '../../site_template/app/assist/tokens.js';

test('makeLevelOf: a manifest without grades grades with the default thresholds', () => {
  const [medium, strong] = DEFAULT_OPTIONS.grades;
  for (const manifest of [{}, { ranker: {} }, { ranker: { grades: null } }]) {
    const levelOf = makeLevelOf(manifest);
    assert.equal(levelOf(medium - 0.01), 1, JSON.stringify(manifest));
    assert.equal(levelOf(medium), 2);
    assert.equal(levelOf(strong - 0.01), 2);
    assert.equal(levelOf(strong), 3);
  }
});

test('makeLevelOf: the manifest\'s grades win', () => {
  const levelOf = makeLevelOf({ ranker: { grades: [0.5, 0.7] } });
  assert.deepEqual([0.49, 0.5, 0.69, 0.7].map(levelOf), [1, 2, 2, 3]);
});

// --- the instant answer and the model's --------------------------------------------------------------

const unit = (...xs) => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

/** A text of sentences with one stored vector each (a TextView as data.js makes it, vectors attached). */
function view(sentences, vectors) {
  const text = sentences.join(' ');
  let at = 0;
  const spans = sentences.map((s) => {
    const span = [at, at + s.length];
    at += s.length + 1;
    return span;
  });
  const v = new TextView({ id: 't', text, sentences: spans });
  v.sentenceVectors = vectors.map((x) => [unit(...x)]);
  v.hasVectors = true;
  return v;
}

const record = () => ({
  id: 'r',
  summary: view(['The bridge opened in 1932 after four years.', 'Tolls were dropped later.'], [[1, 0, 0, 0], [0, 1, 0, 0]]),
  source: view(['Work on the bridge began in 1928.', 'It opened to traffic in 1932.', 'A toll was charged until 1950.',
    'The river floods in spring.'], [[0.9, 0.1, 0, 0], [0.7, 0, 0.7, 0], [0, 1, 0, 0], [0, 0, 0, 1]]),
});

/** The store's part the assistant reads and writes (the assist slice's actions); `shown`: every assist state set. */
function fakeStore(rec, span) {
  const shown = [];
  const store = {
    state: { current: { record: rec }, draft: { anchor: 'summary', summary: span, source: null }, view: { k: 5, minScore: 0 } },
    update(part) {
      store.state = { ...store.state, ...part };
      shown.push(part.assist);
    },
  };
  store.actions = relatedSlice({ store });
  return { store, shown };
}

/** A ready model whose answer to each call is released by the test (`answer(vector)` or `fail()`). */
function fakeModel({ free = true } = {}) {
  const calls = [];
  return {
    calls, status: 'ready', free,
    embedLatest(text) {
      return new Promise((resolve, reject) => calls.push({ text, answer: resolve, fail: () => reject(new Error('x')) }));
    },
  };
}

const later = (ms) => new Promise((r) => setTimeout(r, ms));
const SPAN = [0, 19]; // "The bridge opened i": half of the first summary sentence
const MODEL_VEC = unit(0.6, 0, 0.8, 0);

/** The model's ranking as rankSentences gives it (the answer the page ends with, whichever answer comes first). */
function modelRanking(rec) {
  const ctxVec = meanVector(rec.summary.sentenceVectors[0]);
  return rankSentences({
    queryVec: MODEL_VEC, queryText: rec.summary.slice(...SPAN), contextVec: ctxVec,
    contextText: rec.summary.slice(...rec.summary.sentences[0]),
    queryPosition: (SPAN[0] + SPAN[1]) / 2 / rec.summary.length,
    sentences: rec.source.rankInput(), options: {}, k: 5,
  });
}

test('a free ready model: the pane says it is ranking, then shows the model\'s answer, never the instant one', async () => {
  const rec = record();
  const { store, shown } = fakeStore(rec, SPAN);
  const model = fakeModel();
  const a = new Assistant(store, { ranker: {} }, () => model);
  a.prefetch('summary', ...SPAN);
  a.run('summary', ...SPAN);
  assert.equal(model.calls.length, 1); // asked once (the prefetch), with the span's text
  assert.equal(model.calls[0].text, 'The bridge opened i');
  assert.deepEqual(shown.map((s) => [s.side, s.kind, s.pending, s.results.length]), [['source', null, true, 0]]);
  model.calls[0].answer(MODEL_VEC);
  await later(0);
  assert.deepEqual(shown.map((s) => s.kind), [null, 'model']);
  const final = shown.at(-1);
  assert.equal(final.pending, false);
  const want = modelRanking(rec);
  const near = want[0].score - LIT_GAP;
  assert.deepEqual(final.results.map(({ index, score }) => ({ index, score })),
    want.filter((r, i) => i < 2 || r.score >= near));
  await later(HOLD_MS + 30);
  assert.equal(shown.length, 2); // the instant answer never came after the model's
});

test('a late model: the instant answer is shown after HOLD_MS, then replaced by the model\'s', async () => {
  const rec = record();
  const { store, shown } = fakeStore(rec, SPAN);
  const model = fakeModel();
  const a = new Assistant(store, { ranker: {} }, () => model);
  a.run('summary', ...SPAN); // no prefetch (a restored draft): run() asks the model itself
  await later(HOLD_MS / 2);
  assert.deepEqual(shown.map((s) => s.kind), [null]);
  await later(HOLD_MS);
  assert.deepEqual(shown.map((s) => s.kind), [null, 'precomputed']);
  assert.ok(shown[1].results.length && !shown[1].pending);
  model.calls[0].answer(MODEL_VEC);
  await later(0);
  assert.deepEqual(shown.map((s) => s.kind), [null, 'precomputed', 'model']);
  assert.deepEqual(shown[2].results.map((r) => r.index),
    modelRanking(rec).slice(0, shown[2].results.length).map((r) => r.index));
});

test('a model busy with another call, or one whose call fails: the instant answer is not held back for nothing', async () => {
  const rec = record();
  for (const [what, model] of [['busy', fakeModel({ free: false })], ['failing', fakeModel()]]) {
    const { store, shown } = fakeStore(rec, SPAN);
    const a = new Assistant(store, { ranker: {} }, () => model);
    a.prefetch('summary', ...SPAN);
    a.run('summary', ...SPAN);
    if (what === 'busy') assert.deepEqual(shown.map((s) => s.kind), ['precomputed'], what); // at once
    else {
      model.calls[0].fail();
      await later(HOLD_MS + 30);
      assert.deepEqual(shown.map((s) => s.kind), [null, 'precomputed'], what); // at HOLD_MS
    }
  }
});

test('a held instant answer is dropped with its selection', async () => {
  const rec = record();
  const { store, shown } = fakeStore(rec, SPAN);
  const model = fakeModel();
  const a = new Assistant(store, { ranker: {} }, () => model);
  a.run('summary', ...SPAN);
  store.state = { ...store.state, draft: { anchor: null, summary: null, source: null } }; // Esc
  a.reset();
  await later(HOLD_MS + 30);
  model.calls[0].answer(MODEL_VEC);
  await later(0);
  assert.deepEqual(shown.map((s) => s.kind), [null]);
});

// --- the selection's vector from its tokens in context -------------------------------------------------

/** The record with embedding rows (one per sentence) and a model that also runs rows (`tokenCalls`). */
function tokenSetup(options = {}) {
  const rec = record();
  for (const side of ['summary', 'source']) {
    const v = rec[side];
    v.rows = v.sentences.map(([s, e], i) => [i, s, e]);
    v.tokenRows = v.rows.map(() => null);
  }
  const { store, shown } = fakeStore(rec, SPAN);
  const model = fakeModel();
  model.tokenCalls = [];
  model.tokens = (texts) => new Promise((resolve) => model.tokenCalls.push({ texts, answer: resolve }));
  const a = new Assistant(store, { ranker: options }, () => model);
  return { rec, store, shown, model, a };
}

/** A row's answer from the worker: one token per word, each word's vector from its position. */
function runRow(text) {
  const spans = [];
  const re = /\S+/g;
  let m;
  while ((m = re.exec(text))) spans.push(m.index, m.index + m[0].length);
  const vectors = new Float32Array((spans.length / 2) * 4).map((_, j) => ((j * 7) % 5) - 1.5);
  return { spans: Int32Array.from(spans), vectors };
}

test('rows run, selection "tokens": a selection is answered at once from its tokens, the worker not asked', async () => {
  const { rec, shown, model, a } = tokenSetup({ selection: 'tokens' });
  const rows = a.loadTokens(rec.summary, [0, 1]);
  for (const c of model.tokenCalls) c.answer([runRow(c.texts[0])]);
  await rows;
  assert.ok(rec.summary.tokenRows.every(Boolean));
  a.prefetch('summary', ...SPAN);
  a.run('summary', ...SPAN);
  assert.equal(model.calls.length, 0);
  assert.deepEqual(shown.map((s) => [s.kind, s.pending, s.refined]), [['model', false, false]]);
  const want = selectionVector(rec.summary.rowsOf([0]).map((r) => rec.summary.tokenRows[r]), ...SPAN);
  assert.deepEqual(Array.from(a.last.vec), Array.from(want));
});

test('rows not run yet: the usual answers first, then the answer from the tokens, refined', async () => {
  const { rec, shown, model, a } = tokenSetup({ selection: 'tokens' });
  a.run('summary', ...SPAN);
  assert.equal(model.tokenCalls.length, 1); // the touched row asked, behind the span's own call
  model.calls[0].answer(MODEL_VEC);
  await later(0);
  assert.deepEqual(shown.map((s) => [s.kind, s.refined]), [[null, false], ['model', false]]);
  model.tokenCalls[0].answer([runRow(model.tokenCalls[0].texts[0])]);
  await later(0);
  assert.deepEqual(shown.map((s) => [s.kind, s.refined]), [[null, false], ['model', false], ['model', true]]);
  assert.equal(rec.summary.tokenRows[0].start, 0);
});

test('blend (the default): the tokens answer at once, the span\'s vector refines it when it comes', async () => {
  const { rec, shown, model, a } = tokenSetup();
  const row = a.loadTokens(rec.summary, [0]);
  model.tokenCalls[0].answer([runRow(model.tokenCalls[0].texts[0])]);
  await row;
  a.run('summary', ...SPAN);
  assert.deepEqual(shown.map((s) => [s.kind, s.refined]), [['model', false]]);
  model.calls[0].answer(MODEL_VEC);
  await later(0);
  assert.deepEqual(shown.map((s) => [s.kind, s.refined]), [['model', false], ['model', true]]);
  const tokens = selectionVector([rec.summary.tokenRows[0]], ...SPAN);
  assert.deepEqual(Array.from(a.last.vec), Array.from(blend(tokens, MODEL_VEC)));
});

test('span: the option that turns the tokens off asks no row', () => {
  const { model, a } = tokenSetup({ selection: 'span' });
  a.run('summary', ...SPAN);
  assert.equal(model.tokenCalls.length, 0);
});

test('a selection made before the model existed is refined from its tokens once the model is ready', async () => {
  const { rec, shown, model, a } = tokenSetup();
  let ready = null;
  a.getEmbedder = () => ready; // no worker yet: the first paint comes before it
  a.run('summary', ...SPAN);
  assert.deepEqual(shown.map((s) => s.kind), ['precomputed']);
  ready = model;
  a.refine();
  model.calls[0].answer(MODEL_VEC);
  const row = model.tokenCalls.find((c) => c.texts[0] === rec.summary.slice(...rec.summary.sentences[0]));
  row.answer([runRow(row.texts[0])]);
  await later(0);
  assert.equal(shown.at(-1).kind, 'model');
  assert.equal(shown.at(-1).refined, true);
  const tokens = selectionVector([rec.summary.tokenRows[0]], ...SPAN);
  assert.deepEqual(Array.from(a.last.vec), Array.from(blend(tokens, MODEL_VEC)));
});

// --- the assistant follows the store: no controller calls it ----------------------------------------------

/** A real store (store.js createStore, the assist slice's actions) holding what the assistant observes. */
function followingStore(rec) {
  const store = createStore({
    current: { record: rec }, draft: emptyDraft(), query: null, view: { k: 5, minScore: 0 },
    model: { status: 'idle', message: '' }, assist: emptyAssist(),
  });
  store.actions = relatedSlice({ store });
  return store;
}

test('a new query is answered (its vector asked of the model first), a dropped one forgotten', async () => {
  const rec = record();
  const store = followingStore(rec);
  const model = fakeModel({ free: false });
  const a = new Assistant(store, { ranker: {} }, () => model);
  a.follow();
  const query = { side: 'summary', start: SPAN[0], end: SPAN[1] };
  store.update({ draft: { ...emptyDraft(), anchor: 'summary', summary: SPAN }, query });
  assert.equal(model.calls.length, 1); // asked as the update is notified (prefetch), before the answer
  assert.equal(store.state.assist.kind, null);
  await later(0);
  assert.equal(store.state.assist.kind, 'precomputed'); // a busy model: the instant answer at once
  assert.equal(model.calls.length, 1); // run() took the prefetched call
  model.calls[0].answer(MODEL_VEC);
  await later(0);
  assert.equal(store.state.assist.kind, 'model');
  assert.equal(a.last.kind, 'model');
  store.update({ draft: emptyDraft(), query: null });
  assert.equal(a.last, null); // forgotten: a late answer to it is dropped
});

test('a new view re-ranks the query, another record forgets it, a ready model refines it', async () => {
  const rec = record();
  const store = followingStore(rec);
  const a = new Assistant(store, { ranker: {} }, () => null);
  a.follow();
  const query = { side: 'summary', start: SPAN[0], end: SPAN[1] };
  store.update({ draft: { ...emptyDraft(), anchor: 'summary', summary: SPAN }, query });
  await later(0);
  assert.ok(store.state.assist.results.length > 1);
  store.update({ view: { k: 1, minScore: 0 } });
  await later(0);
  assert.equal(store.state.assist.results.length, 1);
  const model = fakeModel();
  a.getEmbedder = () => model;
  store.update({ model: { status: 'ready', message: '' } });
  await later(0);
  assert.equal(model.calls.length, 1); // the shown precomputed answer refined with the model's vector
  store.update({ current: { record: record() } });
  assert.equal(a.last, null);
});
