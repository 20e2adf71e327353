// Record-level responses (responses.js): merged per question, newest wins, never resurrected;
// validated as merge validates them; exported at the current version and imported from versions 1 and up.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { answer, answers, missingRequired, readExtras, responseProblem, restoreAnswer } from '../../site_template/app/state/responses.js';
import { unexportedCount } from '../../site_template/app/state/store.js';
import { EXPORT } from '../../site_template/app/data/formats.js';
import { buildExport, checkAgainstBundle, parseImport } from '../../site_template/app/state/exportfile.js';
import { mergeRecord, mergeWork } from '../../site_template/app/state/workmerge.js';

const plain = (x) => JSON.parse(JSON.stringify(x));
const QUESTIONS = [
  { name: 'spans', type: 'span', title: 'Spans', required: false },
  { name: 'verdict', type: 'label', title: 'Verdict', required: true,
    options: [{ value: 'consistent', text: 'Consistent' }, { value: 'hallucinated', text: 'Hallucinated' }] },
  { name: 'topics', type: 'multi_label', title: 'Topics', options: [{ value: 'a' }, { value: 'b' }] },
  { name: 'quality', type: 'rating', title: 'Quality', required: true, values: [1, 2, 3, 4, 5] },
  { name: 'order', type: 'ranking', title: 'Order', options: [{ value: 'x' }, { value: 'y' }, { value: 'z' }] },
  { name: 'comment', type: 'text', title: 'Comment' },
];
const manifest = (blind = false) => ({
  bundle_id: 'b1', title: 'T', tool_version: '0.1.0', labels: ['Benign'],
  settings: { questions: QUESTIONS, suggestions: { blind } },
});
const entry = (extra = {}) => ({ status: 'in_progress', status_at: 't0', updated_at: 't0', annotations: {}, ...extra });

test('each question merges on its own: the newest answer wins, a newer clear is not undone', () => {
  const a = answer(answer(entry(), 'verdict', 'consistent', null, 't1'), 'quality', 4, null, 't1');
  const b = answer(answer(entry(), 'verdict', 'hallucinated', null, 't2'), 'quality', null, null, 't0');
  for (const m of [mergeRecord(a, b), mergeRecord(b, a)]) {
    assert.deepEqual(answers(m), { verdict: 'hallucinated', quality: 4 });
  }
  const cleared = answer(entry(), 'quality', '', null, 't3'); // empty = cleared, a tombstone
  assert.deepEqual(answers(mergeRecord(a, cleared)), { verdict: 'consistent' });
  // mergeWork sees a newer response as a change (another tab's answer is not dropped)
  const w = { records: { r: a }, drafts: {}, last_export_at: null };
  assert.notEqual(mergeWork(w, { records: { r: answer(structuredClone(a), 'comment', 'hi', null, 't9') } }), w);
  assert.equal(mergeWork(w, { records: { r: structuredClone(a) } }), w);
});

test('accepting a suggestion records its agent; an answer by hand clears it; undo restores both', () => {
  const accepted = answer(entry(), 'verdict', 'hallucinated', 'HHEM-2.1', 't1');
  assert.equal(accepted.accepted.verdict.agent, 'HHEM-2.1');
  const byHand = answer(structuredClone(accepted), 'verdict', 'consistent', null, 't2');
  assert.equal(byHand.accepted.verdict.agent, null);
  const undone = restoreAnswer(structuredClone(byHand), accepted, 'verdict', 't3');
  assert.deepEqual([undone.responses.verdict.value, undone.accepted.verdict.agent], ['hallucinated', 'HHEM-2.1']);
  assert.equal(unexportedCount({ records: { r: undone }, last_export_at: 't2' }), 2);
});

test('the accepted answer given again by hand keeps its acceptance (a digit pressed twice, Enter on the order)', () => {
  const accepted = answer(entry(), 'order', ['y', 'x'], 'judge', 't1');
  const again = answer(structuredClone(accepted), 'order', ['y', 'x'], null, 't2');
  assert.deepEqual([again.accepted.order.agent, again.responses.order.updated_at], ['judge', 't2']);
  // an undo to the same value still takes the acceptance back
  const undone = restoreAnswer(structuredClone(accepted), entry(), 'order', 't3');
  assert.deepEqual([undone.responses.order.value, undone.accepted.order.agent], [null, null]);
});

test('stored responses are read back typed; anything else is reported (and kept aside by storage)', () => {
  const problems = [];
  const got = readExtras({ responses: { q: { value: ['a'], updated_at: 't' }, bad: { value: { x: 1 }, updated_at: 't' } },
    accepted: 'nope' }, problems, 'record "r"');
  assert.deepEqual(plain(got), { responses: { q: { value: ['a'], updated_at: 't' } } });
  assert.deepEqual(problems, ["record \"r\": field 'responses.bad': unreadable", "record \"r\": field 'accepted': not a map"]);
  assert.deepEqual(readExtras({}, [], 'x'), {});
});

test('responseProblem: the checks merge makes', () => {
  const q = Object.fromEntries(QUESTIONS.map((x) => [x.name, x]));
  assert.equal(responseProblem(q.verdict, 'consistent'), null);
  assert.match(responseProblem(q.verdict, 'maybe'), /not one of its options/);
  assert.equal(responseProblem(q.topics, ['b', 'a']), null);
  assert.ok(responseProblem(q.topics, ['a', 'a']));
  assert.ok(responseProblem(q.topics, ['c']));
  assert.equal(responseProblem(q.quality, 5), null);
  assert.ok(responseProblem(q.quality, 6));
  assert.ok(responseProblem(q.quality, '5'));
  assert.equal(responseProblem(q.order, ['z', 'x', 'y']), null);
  assert.ok(responseProblem(q.order, ['z', 'x']));
  assert.ok(responseProblem(q.order, ['z', 'x', 'x']));
  assert.equal(responseProblem(q.comment, 'fine'), null);
  assert.ok(responseProblem(q.comment, '\n '), 'blanks only: merge refuses it (expected a non-empty text)');
});

test('missingRequired names the required questions left unanswered (the span question needs an annotation)', () => {
  const e = answer(entry(), 'verdict', 'consistent', null, 't1');
  assert.deepEqual(missingRequired(QUESTIONS, e, 0), ['Quality']);
  assert.deepEqual(missingRequired(QUESTIONS, answer(e, 'quality', 3, null, 't2'), 0), []);
  assert.deepEqual(missingRequired([{ ...QUESTIONS[0], required: true }], entry(), 0), ['Spans']);
  assert.deepEqual(missingRequired([{ ...QUESTIONS[0], required: true }], entry(), 1), []);
});

test('the export (since version 2) carries the answered questions and the suggestions shown / accepted', () => {
  const at = '2026-12-01T09:00:00.000Z'; // an export's record time, read back as an instant (times.js)
  let e = answer(entry({ status_at: at, updated_at: at }), 'verdict', 'hallucinated', 'HHEM-2.1', 't1');
  e = answer(e, 'comment', 'checked', null, 't2');
  e = answer(e, 'quality', null, null, 't3');
  const work = { records: { r1: e }, last_export_at: null };
  const args = { positions: new Map([['r1', 0]]), annotator: 'alice', clientId: 'c', work, exportedAt: '2026-12-01T10:00:00.000Z' };
  const out = buildExport({ manifest: manifest(false), ...args });
  assert.equal(out.version, EXPORT.version);
  assert.deepEqual(out.records[0].responses, { verdict: 'hallucinated', comment: 'checked' });
  assert.deepEqual(out.records[0].suggestions, { shown: true, accepted: { verdict: 'HHEM-2.1' } });
  assert.equal(buildExport({ manifest: manifest(true), ...args }).records[0].suggestions.shown, false);
  assert.equal(buildExport({ manifest: manifest(['alice']), ...args }).records[0].suggestions.shown, false);
  assert.equal(buildExport({ manifest: manifest(['bob']), ...args }).records[0].suggestions.shown, true);
  // and back: the same answers and acceptance
  const back = parseImport(JSON.stringify(out), { manifest: manifest(), annotator: 'alice' });
  assert.deepEqual(answers(back.work.records.r1), { verdict: 'hallucinated', comment: 'checked' });
  assert.equal(back.work.records.r1.accepted.verdict.agent, 'HHEM-2.1');
});

test('import reads version 1 files (no responses) and drops responses this bundle cannot take', async () => {
  const v1 = { format: 'mercury-static/annotations', version: 1, bundle_id: 'b1', annotator: 'alice',
    records: [{ record_id: 'r1', status: 'submitted', updated_at: '2026-12-01T09:00:00Z', annotations: [] }] };
  const got = parseImport(JSON.stringify(v1), { manifest: manifest(), annotator: 'alice' });
  const at = '2026-12-01T09:00:00.000Z';
  assert.deepEqual(plain(got.work.records.r1), { status: 'submitted', status_at: at, updated_at: at, annotations: {} });
  const v2 = { ...v1, version: 2, records: [{ ...v1.records[0],
    responses: { verdict: 'maybe', quality: 4, ghost: 'x', order: ['x', 'y', 'z'] } }] };
  const parsed = parseImport(JSON.stringify(v2), { manifest: manifest(), annotator: 'alice' });
  const bundle = {
    manifest: manifest(), recordIndex: { positionsOf: async (ids) => new Map(ids.map((id, i) => [id, i])) },
    record: async () => ({ summary: { text: '' }, source: { text: '' } }) };
  const checked = await checkAgainstBundle(parsed.work, bundle);
  assert.deepEqual(answers(checked.work.records.r1), { quality: 4, order: ['x', 'y', 'z'] });
  assert.equal(checked.skipped, 2);
});

test('a span acceptance counts while one of the annotations copied from it is live', async () => {
  const { markAccepted, acceptedAgents: agents } = await import('../../site_template/app/state/responses.js');
  const a = (id, deleted = false) => (deleted ? { id, deleted: true, updated_at: 't' } : { id, label: ['Benign'], updated_at: 't' });
  let e = markAccepted(entry({ annotations: { x: a('x') } }), 'spans', 'det', 'x', 't1');
  e = markAccepted({ ...e, annotations: { ...e.annotations, y: a('y') } }, 'spans', 'det', 'y', 't2');
  assert.deepEqual(e.accepted.spans.annotations, ['x', 'y']);
  assert.deepEqual(agents(e), { spans: 'det' });
  assert.deepEqual(agents({ ...e, annotations: { x: a('x', true), y: a('y') } }), { spans: 'det' });
  assert.deepEqual(agents({ ...e, annotations: { x: a('x', true), y: a('y', true) } }), {});
  // read back from storage with its ids; a malformed list is reported
  const problems = [];
  assert.deepEqual(plain(readExtras(e, problems, 'r').accepted.spans.annotations), ['x', 'y']);
  readExtras({ accepted: { spans: { agent: 'det', updated_at: 't', annotations: [1] } } }, problems, 'r');
  assert.deepEqual(problems, ["r: field 'accepted.spans.annotations': unreadable"]);
});
