// The store's pure parts (store.js): the observable every renderer subscribes to, and the helpers that
// derive labels, live annotations and the unexported counter from saved work.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { chosenLabels, createStore, labelPrefixes, liveAnnotations, recordStatus, unexportedCount, watch } from '../../site_template/app/state/store.js';

test('createStore: update merges a slice, notifies with (state, previous); unsubscribe stops it', () => {
  const store = createStore({ a: 1, b: { x: 1 } });
  const seen = [];
  const off = store.subscribe((state, prev) => seen.push([state, prev]));
  const b = store.state.b;
  store.update({ a: 2 });
  store.update((s) => ({ a: s.a + 1 }));
  assert.equal(store.state.a, 3);
  assert.equal(store.state.b, b); // untouched slices keep their identity: renderers skip them
  assert.deepEqual(seen.map(([s, p]) => [s.a, p.a]), [[2, 1], [3, 2]]);
  off();
  store.update({ a: 4 });
  assert.equal(seen.length, 2);
});

test('labelPrefixes and chosenLabels are inverse over a label tree', () => {
  const order = ['Questionable', 'Benign', 'Unwanted', 'Unwanted.Intrinsic', 'Unwanted.Extrinsic'];
  const choices = ['Questionable', 'Benign', 'Unwanted.Intrinsic', 'Unwanted.Extrinsic'];
  const stored = labelPrefixes(['Unwanted.Extrinsic', 'Benign'], order);
  assert.deepEqual(stored, ['Benign', 'Unwanted', 'Unwanted.Extrinsic']);
  assert.deepEqual(chosenLabels(stored, choices), ['Benign', 'Unwanted.Extrinsic']);
  assert.deepEqual(labelPrefixes(['Other.Sub'], order), ['Other', 'Other.Sub']); // unknown labels last
});

test('liveAnnotations drops tombstones and sorts by creation; recordStatus defaults', () => {
  const entry = { annotations: {
    b: { id: 'b', created_at: 't2' }, a: { id: 'a', created_at: 't1' }, c: { id: 'c', deleted: true, created_at: 't0' },
  } };
  assert.deepEqual(liveAnnotations(entry).map((a) => a.id), ['a', 'b']);
  assert.deepEqual(liveAnnotations(undefined), []);
  const work = { records: { r1: { status: 'submitted' }, r2: {} } };
  assert.deepEqual(['r1', 'r2', 'r3'].map((id) => recordStatus(work, id)), ['submitted', 'in_progress', 'todo']);
});

test('unexportedCount counts statuses and annotations (tombstones too) changed after the last export', () => {
  const work = {
    last_export_at: 't2',
    records: {
      r1: { status_at: 't3', annotations: { a: { updated_at: 't1' }, b: { updated_at: 't3' }, c: { deleted: true, updated_at: 't4' } } },
      r2: { status_at: 't1', annotations: {} },
    },
  };
  assert.equal(unexportedCount(work), 3);
  assert.equal(unexportedCount({ ...work, last_export_at: null }), 5);
  assert.equal(unexportedCount({ ...work, last_export_at: 't9' }), 0);
});

test('watch: draws now, then only when a picked slice changes identity; redraw() draws regardless', () => {
  const store = createStore({ a: { n: 1 }, b: { n: 1 } });
  const drawn = [];
  const redraw = watch(store, (s) => [s.a], (s) => drawn.push(s.a.n));
  assert.deepEqual(drawn, [1]); // at once, with the current state
  store.update({ b: { n: 2 } }); // a slice it does not show
  assert.deepEqual(drawn, [1]);
  store.update({ a: { n: 3 } });
  assert.deepEqual(drawn, [1, 3]);
  store.update({ a: store.state.a }); // same identity
  assert.deepEqual(drawn, [1, 3]);
  redraw();
  assert.deepEqual(drawn, [1, 3, 3]);
  store.update({ b: { n: 4 } }); // the redraw took the current picks as the last ones
  assert.deepEqual(drawn, [1, 3, 3]);
});
