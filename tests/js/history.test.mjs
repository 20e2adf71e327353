// The history of the annotator's changes (history.js): a step undone writes back only what it changed,
// stamped now; redo writes its result again; typing one text answer is one step.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { applyStep, changed, emptyHistory, pushStep } from '../../site_template/app/state/history.js';

const ann = (id, note, at = 't1') => ({ id, label: ['Benign'], note, summary: { start: 0, end: 3, text: 'abc' }, source: null, created_at: 't0', updated_at: at });

test('applyStep undoes an added, an edited and a deleted annotation and a status, nothing else', () => {
  const before = { status: 'in_progress', annotations: { a: ann('a', 'one'), b: ann('b', 'keep') } };
  const after = { status: 'submitted', status_at: 't2', annotations: { a: ann('a', 'two', 't2'), b: ann('b', 'keep'), c: ann('c', 'new', 't2') } };
  const now = { ...after, annotations: { ...after.annotations, d: ann('d', 'another tab', 't3') } };
  const undone = applyStep({ ...now, annotations: { ...now.annotations } }, after, before, 't9');
  assert.equal(undone.annotations.a.note, 'one');
  assert.equal(undone.annotations.a.updated_at, 't9'); // a new change: newest wins in every merge
  assert.deepEqual(undone.annotations.c, { id: 'c', deleted: true, updated_at: 't9' });
  assert.equal(undone.annotations.b, now.annotations.b); // untouched by the step: left as it is
  assert.equal(undone.annotations.d, now.annotations.d); // a change the step did not make stays
  assert.deepEqual([undone.status, undone.status_at], ['in_progress', 't9']);
  const redone = applyStep({ ...undone, annotations: { ...undone.annotations } }, before, after, 't10');
  assert.deepEqual([redone.annotations.a.note, redone.annotations.c.note, redone.status], ['two', 'new', 'submitted']);
});

test('applyStep undoes an answer; changed sees answers, not stamps', () => {
  const before = { annotations: {}, responses: { verdict: { value: 'consistent', updated_at: 't1' } } };
  const after = { annotations: {}, responses: { verdict: { value: 'hallucinated', updated_at: 't2' } } };
  assert.ok(changed(before, after));
  assert.ok(!changed(after, { ...after, updated_at: 't5', responses: { verdict: { value: 'hallucinated', updated_at: 't5' } } }));
  const undone = applyStep({ ...after, annotations: {} }, after, before, 't9');
  assert.deepEqual(undone.responses.verdict, { value: 'consistent', updated_at: 't9' });
});

test('pushStep: a text answer typed is one step; a new step drops the redo', () => {
  let h = emptyHistory();
  h = pushStep(h, { id: 'r', key: 'answer:comment', before: 0, after: 1 });
  h = pushStep(h, { id: 'r', key: 'answer:comment', before: 1, after: 2 });
  assert.deepEqual(h.past.map((s) => [s.before, s.after]), [[0, 2]]);
  h = pushStep(h, { id: 'r', key: null, before: 2, after: 3 });
  h = pushStep(h, { id: 'r', key: 'answer:comment', before: 3, after: 4 });
  assert.equal(h.past.length, 3);
  h = pushStep({ past: h.past, future: [{ id: 'r' }] }, { id: 'q', before: 4, after: 5 });
  assert.deepEqual(h.future, []);
});

const copy = (e) => structuredClone(e);
const dict = (o) => Object.assign(Object.create(null), o); // responses.js's maps (restoreAnswer writes them)

test('applyStep: a span suggestion accepted (no answer) is undone to no agent and redone as it was', () => {
  const acc = { agent: 'gpt', updated_at: 't2', annotations: ['s1'] };
  const before = { status: 'in_progress', annotations: {}, responses: {} };
  const after = { status: 'in_progress', annotations: { s1: ann('s1', '', 't2') }, responses: {}, accepted: { spans: acc } };
  const now = copy(after);
  const shared = now.accepted;
  const undone = applyStep(now, after, before, 't9');
  assert.deepEqual(undone.accepted, { spans: { agent: null, updated_at: 't9' } });
  assert.deepEqual(shared, { spans: acc }); // a new object: the entry's old one is not changed
  assert.deepEqual(undone.annotations.s1, { id: 's1', deleted: true, updated_at: 't9' });
  assert.deepEqual(undone.responses, {});
  assert.equal(undone.status_at, undefined);
  const redone = applyStep(copy(undone), before, after, 't10');
  assert.deepEqual(redone.accepted, { spans: { ...acc, updated_at: 't10' } });
  assert.deepEqual(redone.annotations.s1, { ...ann('s1', '', 't2'), updated_at: 't10' });
});

test('applyStep: an answer accepted from a suggestion goes back with its acceptance, once (as restoreAnswer writes it)', () => {
  const before = { annotations: {}, responses: { other: { value: 'kept', updated_at: 't0' } } };
  const after = {
    annotations: {}, responses: { other: { value: 'kept', updated_at: 't0' }, verdict: { value: 'x', updated_at: 't2' } },
    accepted: { verdict: { agent: 'gpt', updated_at: 't2', extra: 1 } },
  };
  const undone = applyStep(copy(after), after, before, 't9');
  assert.deepEqual(undone.responses.verdict, { value: null, updated_at: 't9' });
  assert.deepEqual(undone.responses.other, { value: 'kept', updated_at: 't0' }); // not part of the step
  assert.deepEqual(undone.accepted, dict({ verdict: { agent: null, updated_at: 't9' } }));
  const redone = applyStep(copy(undone), before, after, 't10');
  assert.deepEqual(redone.responses.verdict, { value: 'x', updated_at: 't10' });
  assert.deepEqual(redone.accepted, dict({ verdict: { agent: 'gpt', updated_at: 't10' } })); // restoreAnswer's, no `extra`
});

test('applyStep: the same answer, accepted on one side only, is written back with the acceptance', () => {
  const before = { annotations: {}, responses: { verdict: { value: 'x', updated_at: 't1' } } };
  const after = { annotations: {}, responses: { verdict: { value: 'x', updated_at: 't2' } },
    accepted: { verdict: { agent: 'gpt', updated_at: 't2' } } };
  const undone = applyStep(copy(after), after, before, 't9');
  assert.deepEqual(undone.responses.verdict, { value: 'x', updated_at: 't9' });
  assert.deepEqual(undone.accepted.verdict, { agent: null, updated_at: 't9' });
  const redone = applyStep(copy(undone), before, after, 't10');
  assert.deepEqual(redone.accepted.verdict, { agent: 'gpt', updated_at: 't10' });
});

test('applyStep: nothing changed is nothing written; tombstones and missing parts count as absent', () => {
  const a = { status: 'submitted', status_at: 't1', annotations: { a: ann('a', 'x') }, responses: { q: { value: 1, updated_at: 't1' } } };
  const entry = copy(a);
  assert.deepEqual(applyStep(entry, a, copy(a), 't9'), a);
  const gone = { annotations: { a: { id: 'a', deleted: true, updated_at: 't3' } } };
  assert.deepEqual(applyStep({ annotations: {} }, gone, {}, 't9'), { annotations: {} }); // deleted = absent
  assert.deepEqual(applyStep({ annotations: {} }, {}, { status: 'in_progress' }, 't9'), { annotations: {} });
  // a step of a record that had no entry before: undone, its annotation is a tombstone and its status the default
  const undone = applyStep(copy(a), a, undefined, 't9');
  assert.deepEqual(undone.annotations.a, { id: 'a', deleted: true, updated_at: 't9' });
  assert.deepEqual([undone.status, undone.status_at], ['in_progress', 't9']);
  assert.deepEqual(undone.responses.q, { value: null, updated_at: 't9' });
  // a deletion undone brings the annotation back as it was, stamped now; the tombstone's own stamp is not used
  const back = applyStep({ annotations: { a: gone.annotations.a } }, gone, { annotations: { a: ann('a', 'x') } }, 't9');
  assert.deepEqual(back.annotations.a, { ...ann('a', 'x'), updated_at: 't9' });
  // redone: the live annotation becomes a new tombstone
  assert.deepEqual(applyStep(copy(back), { annotations: { a: ann('a', 'x') } }, gone, 't10').annotations.a,
    { id: 'a', deleted: true, updated_at: 't10' });
});
