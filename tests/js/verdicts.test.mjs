// Sentence verdicts (verdicts.js, docs/sentence-verdicts.md): each summary sentence's state from the spans and
// the verdicts given, the counts; the verdicts kept as a stamped map merged per sentence (newest wins), read
// back from storage, undone; exported as version 4's `sentences` and imported as merge reads them; the slice's
// rules in a store under node (the walk, confirm with the top lit evidence, a selection as evidence, Submit).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TextView } from '../../site_template/app/data/data.js';
import { applyStep, changed } from '../../site_template/app/state/history.js';
import { readExtras } from '../../site_template/app/state/responses.js';
import { createAppStore, recordStatus } from '../../site_template/app/state/store.js';
import { countStates, countText, exportedSentences, fittingVerdicts, givenVerdicts, importedSentences, sentenceStates, verdictSettings } from '../../site_template/app/state/verdicts.js';
import { mergeRecord } from '../../site_template/app/state/workmerge.js';

const plain = (x) => JSON.parse(JSON.stringify(x));
const SETTINGS = {
  mode: 'required', evidence: ['supported'], flagged: 'unsupported',
  options: [{ value: 'supported', text: 'Supported' }, { value: 'unsupported', text: 'Not supported' },
    { value: 'unverifiable', text: 'Cannot tell' }],
};
const verdict = (v, evidence = [], at = 't1') => ({ value: v && { verdict: v, evidence }, updated_at: at });

test('a sentence is judged (a verdict given), else flagged (a span on it), else not checked; the counts', () => {
  const sentences = [[0, 10], [11, 20], [21, 30], [31, 40]];
  const given = givenVerdicts({ sentences: { 2: verdict('supported', [1]), 3: verdict(null) } });
  const states = sentenceStates(sentences, [[12, 14], [25, 26]], given);
  assert.deepEqual(states, ['unchecked', 'flagged', 'judged', 'unchecked']); // 3: cleared, 2: judged over its span
  assert.deepEqual(sentenceStates(sentences, [[10, 11]], {}), ['unchecked', 'unchecked', 'unchecked', 'unchecked']); // between two
  const n = countStates(states);
  assert.deepEqual(n, { judged: 1, flagged: 1, unchecked: 2, total: 4 });
  assert.equal(countText(n), '2 of 4 sentences judged (1 flagged by a span)');
  assert.equal(countText(countStates(['judged'])), '1 of 1 sentence judged');
});

test('the settings: off or absent is null; the manifest\'s block as given', () => {
  assert.equal(verdictSettings({ settings: {} }), null);
  assert.equal(verdictSettings({ settings: { sentence_verdicts: { ...SETTINGS, mode: 'off' } } }), null);
  assert.deepEqual(verdictSettings({ settings: { sentence_verdicts: SETTINGS } }), SETTINGS);
});

test('verdicts merge per sentence, newest wins, a newer clear stays; read back from storage, undone', () => {
  const a = { status: 'in_progress', annotations: {}, sentences: { 0: verdict('supported', [2], 't1'), 1: verdict('unsupported', [], 't3') } };
  const b = { status: 'in_progress', annotations: {}, sentences: { 0: verdict(null, [], 't2'), 1: verdict('supported', [0], 't2') } };
  const m = mergeRecord(a, b);
  assert.deepEqual(plain(m.sentences), { 0: verdict(null, [], 't2'), 1: verdict('unsupported', [], 't3') });
  const problems = [];
  const read = readExtras({ sentences: { 0: verdict('supported', [1]), 1: { value: { verdict: 'x', evidence: [-1] }, updated_at: 't' } } }, problems, 'record r');
  assert.deepEqual(plain(read.sentences), { 0: verdict('supported', [1]) });
  assert.deepEqual(problems, ["record r: field 'sentences.1': unreadable"]);
  assert.ok(changed(a, { ...a, sentences: { ...a.sentences, 0: verdict('unverifiable', [], 't5') } }));
  assert.ok(!changed(a, { ...a, sentences: { ...a.sentences, 0: verdict('supported', [2], 't5') } })); // a stamp only
  const undone = applyStep({ ...b }, b, a, 't9');
  assert.deepEqual(plain(undone.sentences), { 0: verdict('supported', [2], 't9'), 1: verdict('unsupported', [], 't9') });
});

test('exported by index, evidence only for a verdict that carries it; imported as merge reads them', () => {
  const entry = { sentences: { 3: { value: { verdict: 'unverifiable', evidence: [], elapsed_ms: 40 }, updated_at: 't2' },
    0: verdict('supported', [4, 1]), 1: verdict(null) } };
  const out = exportedSentences(entry, SETTINGS);
  assert.deepEqual(out, [{ index: 0, verdict: 'supported', evidence: [4, 1], updated_at: 't1' },
    { index: 3, verdict: 'unverifiable', updated_at: 't2', elapsed_ms: 40 }]);
  const left = [];
  const read = (t) => (typeof t === 'string' ? t : null);
  const got = importedSentences([...out, { index: -1, verdict: 'supported', updated_at: 't' },
    { index: 2, verdict: 'supported', evidence: ['a'], updated_at: 't' }, { index: 2, verdict: 'x' }], read, (w) => left.push(w), 'record r');
  assert.deepEqual(plain(got.sentences), {
    0: { value: { verdict: 'supported', evidence: [4, 1] }, updated_at: 't1' },
    3: { value: { verdict: 'unverifiable', evidence: [], elapsed_ms: 40 }, updated_at: 't2' },
  });
  assert.deepEqual(left, ["record r, sentences[2]: field 'index': expected a sentence index ≥ 0",
    "record r, sentences[3]: field 'evidence': expected a list of source sentence indices",
    "record r, sentences[4]: field 'updated_at': missing or not an ISO-8601 time"]);
  const rec = { summary: { sentences: [[0, 1], [2, 3]] }, source: { sentences: [[0, 1], [2, 3]] } };
  const why = [];
  const fit = fittingVerdicts(got.sentences, SETTINGS, rec, (w) => why.push(w));
  assert.deepEqual(Object.keys(fit.sentences), []);
  assert.deepEqual(why, ["field 'sentences', sentence 0: evidence: the source has no such sentence",
    "field 'sentences', sentence 3: the summary has no sentence 3"]);
  assert.deepEqual(fittingVerdicts(undefined, SETTINGS, rec, () => {}), {});
});

// --- the slice's rules in a store ------------------------------------------------------------------------

const SUMMARY = 'Cats purr. Dogs bark. Birds sing.';
const SOURCE = 'A cat purrs. A dog barks loudly.';
const view = (id, t) => new TextView({ id, text: t, sentences: t.split(/(?<=\.) /).reduce((acc, s) => {
  const start = acc.length ? acc[acc.length - 1][1] + 1 : 0;
  return [...acc, [start, start + s.length]];
}, []) });

async function openStore(mode) {
  const bundle = {
    manifest: { bundle_id: 'b', labels: ['Benign'], settings: { sentence_verdicts: { ...SETTINGS, mode } } },
    recordIndex: {
      count: 1, row: () => ({ id: 'r0' }), rowAt: async () => ({ id: 'r0' }),
      positionsOf: async (ids) => new Map(ids.filter((id) => id === 'r0').map((id) => [id, 0])), positionOf: async () => 0,
    },
    record: async (id) => ({ id, summary: view('s', SUMMARY), source: view('src', SOURCE), prior_annotations: [] }),
    prefetch: () => {},
  };
  const storage = { write: async (c) => c, saveJournal: () => {} };
  const store = createAppStore({ bundle, annotator: 'ann', clientId: 'c1', storage, view: {}, questions: [] });
  await store.actions.goTo(0);
  return store;
}

test('the walk: the current sentence is the query; confirm takes the top lit source sentence; Submit required', async () => {
  const store = await openStore('required');
  const { actions } = store;
  actions.stepSentence(1);
  assert.equal(store.state.verdicts.current, 0);
  assert.deepEqual(store.state.query, { side: 'summary', start: 0, end: 10 });
  actions.showRelated({ side: 'source', results: [{ index: 0, score: 0.8 }, { index: 1, score: 0.3 }], kind: 'model', query: { side: 'summary', start: 0, end: 10 }, best: 0.8 });
  actions.confirmSentence();
  assert.deepEqual(plain(givenVerdicts(store.state.work.records.r0)[0]).evidence, [0]);
  assert.equal(actions.finish('submitted'), true); // two left: refused
  assert.match(store.state.verdicts.message, /^Not submitted: 2 sentences not checked/);
  actions.stepSentence(1);
  actions.pickVerdict(1); // Not supported: no evidence kept
  assert.deepEqual(plain(givenVerdicts(store.state.work.records.r0)[1]).evidence, []);
  actions.stepSentence(1);
  actions.sentenceEvidence(14, 20); // "dog barks": source sentence 1
  assert.deepEqual([givenVerdicts(store.state.work.records.r0)[2].verdict, givenVerdicts(store.state.work.records.r0)[2].evidence], ['supported', [1]]);
  actions.stepSentence(1);
  assert.equal(store.state.verdicts.current, 2); // the last stays the last
  assert.deepEqual(countStates(actions.sentenceStates()), { judged: 3, flagged: 0, unchecked: 0, total: 3 });
  assert.equal(actions.finish('submitted'), null);
  assert.equal(recordStatus(store.state.work, 'r0'), 'submitted');
});

test('Submit in `shown` mode asks once per record, then submits; a cleared verdict is not checked again', async () => {
  const store = await openStore('shown');
  const { actions } = store;
  actions.focusSentence(1);
  actions.pickVerdict(2);
  actions.clearVerdict();
  assert.deepEqual(actions.sentenceStates(), ['unchecked', 'unchecked', 'unchecked']);
  assert.equal(actions.finish('submitted'), true);
  assert.equal(store.state.verdicts.message, '3 sentences not checked — Submit again to submit anyway.');
  assert.equal(actions.finish('submitted'), null);
  assert.equal(recordStatus(store.state.work, 'r0'), 'submitted');
});
