// The annotator's queue (queue.js) and the similar-records scan (similar.js), as pure functions.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { halfTable } from '../../site_template/app/data/data.js';
import { loadQueue, nextInQueue } from '../../site_template/app/io/queue.js';
import { topSimilar } from '../../site_template/app/assist/similar.js';

const ids = ['a', 'b', 'c', 'd', 'e'];
const done = (...rs) => ({ records: Object.fromEntries(rs.map((r) => [r, { status: 'submitted', annotations: {} }])) });

test('nextInQueue walks the queue in its order from the open record, wrapping; -1 when it is done', () => {
  const positions = [3, 0, 4]; // d, a, e
  const queue = { positions, ids: positions.map((i) => ids[i]) };
  assert.equal(nextInQueue(queue, done(), -1), 3);
  assert.equal(nextInQueue(queue, done(), 3, true), 0);
  assert.equal(nextInQueue(queue, done('a'), 3, true), 4);
  assert.equal(nextInQueue(queue, done('e'), 4, true), 3); // wraps
  assert.equal(nextInQueue(queue, done(), 1, true), 3); // b is not in the queue: from its start
  assert.equal(nextInQueue(queue, done('a', 'd', 'e'), 3, true), -1);
});

/** loadQueue over a queues file holding `doc` (fetch stubbed; every id placed at its index in `ids`). */
async function queueOf(doc, annotator = 'alice') {
  const bundle = {
    manifest: { queues: { path: 'data/queues-abc.json', annotators: ['alice', 'format'] } },
    url: (path) => `http://bundle/${path}`,
    recordIndex: { positionsOf: async (wanted) => new Map(wanted.map((id) => [id, ids.indexOf(id)])) },
  };
  const saved = globalThis.fetch;
  globalThis.fetch = async (url) => {
    assert.equal(url, 'http://bundle/data/queues-abc.json');
    return { ok: true, json: async () => doc };
  };
  try {
    return await loadQueue(bundle, annotator);
  } finally {
    globalThis.fetch = saved;
  }
}

test('loadQueue reads the queues file of version 2, and the bare one of earlier bundles as version 1', async () => {
  const want = { ids: ['c', 'a'], positions: [2, 0] };
  assert.deepEqual(await queueOf({ format: 'mercury-static/queues', version: 2, queues: { alice: ['c', 'a'] } }), want);
  assert.deepEqual(await queueOf({ alice: ['c', 'a'], format: ['b'] }), want); // an annotator named "format"
  assert.deepEqual(await queueOf({ alice: ['c'], format: ['b'] }, 'format'), { ids: ['b'], positions: [1] });
  await assert.rejects(queueOf({ format: 'mercury-static/queues', version: 3, queues: {} }),
    /^Error: data\/queues-abc.json: field 'version': unsupported version 3 of mercury-static\/queues \(this page reads versions 1 and 2\)$/);
  await assert.rejects(queueOf({ format: 'mercury-static/bundle', version: 1 }), /field 'format'/);
});

/** float16 bit patterns of float32 values (round toward zero: enough for a test of the scan). */
function toHalves(rows) {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  return Uint16Array.from(rows.flat(), (x) => {
    f[0] = x;
    const e = ((u[0] >> 23) & 0xff) - 112;
    return ((u[0] >> 16) & 0x8000) | (e <= 0 ? 0 : (e << 10) | ((u[0] >> 13) & 0x3ff));
  });
}

test('topSimilar: the k best cosines but the row itself, best first, equal scores in bundle order', () => {
  const rows = [[1, 0, 0], [0.6, 0.8, 0], [0, 1, 0], [0.6, 0.8, 0], [-1, 0, 0], [0.8, 0.6, 0]];
  const halves = toHalves(rows);
  const table = halfTable();
  const row = (i) => Float64Array.from([0, 1, 2], (d) => table[halves[i * 3 + d]]);
  const dot = (i, j) => [0, 1, 2].reduce((s, d) => s + table[halves[i * 3 + d]] * table[halves[j * 3 + d]], 0);
  const one = [{ positions: Uint32Array.from([0, 1, 2, 3, 4, 5]), halves }];
  const got = topSimilar(one, 3, row(0), 0, 3);
  assert.deepEqual(got.map((r) => r.index), [5, 1, 3]); // 1 and 3 tie: bundle order
  got.forEach((r) => assert.equal(r.score, dot(0, r.index)));
  assert.deepEqual(topSimilar(one, 3, row(0), 0, 10).map((r) => r.index), [5, 1, 3, 2, 4]); // k > n - 1
  assert.deepEqual(topSimilar(one, 3, row(2), 2, 2).map((r) => r.index), [1, 3]);
  // cells in any order: the tie still goes to the lower position
  const split = [{ positions: Uint32Array.from([3, 4]), halves: halves.slice(9, 15) },
    {
      positions: Uint32Array.from([0, 1, 2, 5]),
      halves: Uint16Array.from([...halves.slice(0, 9), ...halves.slice(15)]),
    }];
  assert.deepEqual(topSimilar(split, 3, row(0), 0, 3).map((r) => r.index), [5, 1, 3]);
});
