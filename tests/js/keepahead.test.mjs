// The records kept for offline use as a record opens: the next ones along the annotator's queue, else in
// bundle order, at most KEEP_AHEAD, and the files each one needs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { KEEP_AHEAD, mountKeepAhead, positionsAhead } from '../../site_template/app/controllers/keepahead.js';
import { createStore } from '../../site_template/app/state/store.js';

test('bundle order: the positions after the open one, up to the last record', () => {
  assert.deepEqual(positionsAhead(null, 3, 7, 5), [4, 5, 6]);
  assert.deepEqual(positionsAhead(null, 0, 100).length, KEEP_AHEAD);
  assert.deepEqual(positionsAhead(null, 6, 7, 5), []);
});

test('a queue: the positions after the open record in the queue, from its start when it is not in it', () => {
  const queue = { ids: ['c', 'a', 'd', 'b'], positions: [2, 0, 3, 1] };
  assert.deepEqual(positionsAhead(queue, 0, 4, 2), [3, 1]);
  assert.deepEqual(positionsAhead(queue, 1, 4, 2), []);
  assert.deepEqual(positionsAhead(queue, 9, 4, 2), [2, 0]);
});

test('each record opened hands the files of the records ahead whose index rows are held, once per record', () => {
  const rows = [0, 1, 2, 3].map((p) => ({ id: `r${p}`, shard: p, textShards: [p, p + 10, p] }));
  const bundle = {
    recordIndex: { count: 5, row: (p) => rows[p] || null }, // position 4: its index shard not read
    rowFiles: (row) => [`data/records-${row.shard}.json`, ...new Set(row.textShards)].map(String),
  };
  const store = createStore({ current: { id: null, index: -1, record: null } });
  const kept = [];
  mountKeepAhead(store, bundle, null, (urls) => kept.push(urls));
  store.update({ current: { id: 'r1', index: 1, record: null } }); // loading: nothing yet
  store.update({ current: { id: 'r1', index: 1, record: { id: 'r1' } } });
  store.update({ current: { id: 'r1', index: 1, record: { id: 'r1' } } }); // the same record again
  assert.deepEqual(kept, [['data/records-2.json', '2', '12', 'data/records-3.json', '3', '13']]);
});
