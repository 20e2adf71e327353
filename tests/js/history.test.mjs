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
