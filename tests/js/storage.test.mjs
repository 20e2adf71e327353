// Merge rules of saved work (storage.js): what two tabs, an import or a reload combine must never lose the
// newer of anything, and never resurrect a deleted annotation.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { applyEntries } from '../../site_template/app/state/storage.js';
import { emptyWork, mergeRecord, mergeWork } from '../../site_template/app/state/workmerge.js';

const ann = (id, updated_at, extra = {}) => ({ id, updated_at, created_at: '2026-01-01T00:00:00Z', label: ['Benign'], ...extra });
const rec = (status, status_at, annotations = [], updated_at = status_at) => ({
  status, status_at, updated_at, annotations: Object.fromEntries(annotations.map((a) => [a.id, a])),
});

test('mergeRecord keeps the newest status and the newest version of each annotation', () => {
  const a = rec('submitted', '2026-01-02T00:00:00Z', [ann('x', '2026-01-02T00:00:00Z', { note: 'a' }), ann('y', '2026-01-01T00:00:00Z')]);
  const b = rec('in_progress', '2026-01-01T00:00:00Z', [ann('x', '2026-01-03T00:00:00Z', { note: 'b' }), ann('z', '2026-01-01T00:00:00Z')],
    '2026-01-03T00:00:00Z');
  for (const merged of [mergeRecord(a, b), mergeRecord(b, a)]) {
    assert.equal(merged.status, 'submitted');
    assert.equal(merged.status_at, '2026-01-02T00:00:00Z');
    assert.equal(merged.updated_at, '2026-01-03T00:00:00Z');
    assert.deepEqual(Object.keys(merged.annotations).sort(), ['x', 'y', 'z']);
    assert.equal(merged.annotations.x.note, 'b');
  }
});

test('a tombstone newer than the annotation wins; an older one does not', () => {
  const live = rec('in_progress', 't1', [ann('x', '2026-01-01T00:00:00Z')]);
  const deleted = rec('in_progress', 't1', [{ id: 'x', deleted: true, updated_at: '2026-01-02T00:00:00Z' }]);
  assert.equal(mergeRecord(live, deleted).annotations.x.deleted, true);
  assert.equal(mergeRecord(deleted, live).annotations.x.deleted, true);
  const edited = rec('in_progress', 't1', [ann('x', '2026-01-03T00:00:00Z', { note: 'after' })]);
  assert.equal(mergeRecord(deleted, edited).annotations.x.note, 'after');
});

test('equal times keep the first side (a re-save changes nothing)', () => {
  const a = rec('submitted', 't', [ann('x', 't', { note: 'mine' })]);
  const b = rec('discarded', 't', [ann('x', 't', { note: 'theirs' })]);
  const m = mergeRecord(a, b);
  assert.equal(m.status, 'submitted');
  assert.equal(m.annotations.x.note, 'mine');
});

test('mergeRecord with a missing side returns the other', () => {
  const a = rec('submitted', 't');
  assert.equal(mergeRecord(a, undefined), a);
  assert.equal(mergeRecord(undefined, a), a);
});

test('mergeWork returns the same object when the other adds nothing', () => {
  const a = { records: { r1: rec('submitted', 't2', [ann('x', 't2')]) }, last_export_at: 't1' };
  assert.equal(mergeWork(a, null), a);
  assert.equal(mergeWork(a, emptyWork()), a);
  assert.equal(mergeWork(a, structuredClone(a)), a);
  assert.equal(mergeWork(a, { records: { r1: rec('in_progress', 't0', [ann('x', 't0')]) }, last_export_at: 't0' }), a);
});

test('mergeWork unites records and keeps the latest export time, without changing its inputs', () => {
  const a = { records: { r1: rec('submitted', 't2') }, last_export_at: 't1' };
  const b = { records: { r2: rec('in_progress', 't3', [ann('y', 't3')]) }, last_export_at: 't4' };
  const before = structuredClone([a, b]);
  const m = mergeWork(a, b);
  assert.notEqual(m, a);
  assert.deepEqual(Object.keys(m.records).sort(), ['r1', 'r2']);
  assert.equal(m.last_export_at, 't4');
  assert.deepEqual([a, b], before);
  assert.deepEqual(mergeWork(b, a), m);
});

test('mergeWork is idempotent and order-free over three copies', () => {
  const w = (status, at, id) => ({ records: { r: rec(status, at, [ann(id, at)]) }, last_export_at: null });
  const copies = [w('submitted', 't3', 'a'), w('in_progress', 't1', 'b'), w('discarded', 't2', 'a')];
  const orders = [[0, 1, 2], [2, 1, 0], [1, 0, 2], [1, 2, 0]];
  const results = orders.map((o) => o.map((i) => copies[i]).reduce((acc, x) => mergeWork(acc, x), emptyWork()));
  for (const r of results) assert.deepEqual(r.records.r.annotations, results[0].records.r.annotations);
  for (const r of results) assert.equal(r.records.r.status, 'submitted');
  assert.equal(mergeWork(results[0], results[0]), results[0]);
});

test('a stored draft keeps the unit of its spans; no unit is an earlier page\'s UTF-16 draft; another unit is unreadable', () => {
  const draft = (extra) => ({ anchor: 'summary', summary: [3, 6], source: null, labels: [], note: 'n', editingId: null, updated_at: 't1', ...extra });
  const w = applyEntries(emptyWork(), [
    { kind: 'd', id: 'new', value: draft({ unit: 'cp' }) },
    { kind: 'd', id: 'old', value: draft({}) },
    { kind: 'd', id: 'odd', value: draft({ unit: 'bytes' }) }, // a later page's unit: never guessed
  ]);
  assert.equal(w.drafts.new.unit, 'cp');
  assert.equal('unit' in w.drafts.old, false);
  assert.deepEqual(w.drafts.old.summary, [3, 6]);
  assert.equal(w.drafts.odd, undefined);
});
