// similar.js against record_cells.py: generated clustered record vectors in k-means cells, written by
// record_cells_fixture.py at every run ($PYTHON, else the checkout's .venv, else python3), with the
// brute-force top 10. Probing every cell gives the brute-force answer exactly; the bundle's nprobe keeps
// most of it and reads its cells only; one cell is the exact scan (the requests are counted).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { runFixture, scratchDir } from './fixture.mjs';

import { SimilarIndex } from '../../site_template/app/assist/similar.js';

const dir = scratchDir('record-cells-');
const want = JSON.parse(runFixture('record_cells_fixture.py', dir));

/** The cells of bundle `name` (its manifest entry, with `nprobe` replaced when given) and its requests. */
function open(name, nprobe) {
  const requests = [];
  const fetchBytes = async (path) => {
    requests.push(path);
    const b = readFileSync(join(dir, name, path));
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  };
  const cells = { ...want[name], ...(nprobe ? { nprobe } : {}) };
  return { index: new SimilarIndex({ dim: want.dim, cells }, fetchBytes), requests };
}

const close = (a, b) => Math.abs(a - b) < 1e-12;

test('probing every cell gives the brute-force top 10, ties in bundle order', async () => {
  const [[a, sa], [b, sb]] = want.brute[2999];
  assert.deepEqual([a, b, sa === sb], [3000, 3001, true]); // the fixture's tie
  const { index } = open('many', want.many.count);
  for (const [pos, top] of Object.entries(want.brute)) {
    const got = await index.query(Number(pos), 10);
    assert.deepEqual(got.map((r) => r.index), top.map(([j]) => j), pos);
    got.forEach((r, k) => assert.ok(close(r.score, top[k][1]), pos));
  }
});

test("the bundle's nprobe reads its cells only and finds most of the brute-force top 10", async () => {
  assert.equal(want.many.count, 30);
  let found = 0;
  let total = 0;
  for (const [pos, top] of Object.entries(want.brute)) {
    const { index, requests } = open('many');
    const got = await index.query(Number(pos), 10);
    const cells = requests.filter((r) => r.startsWith('data/cells/cell-'));
    assert.deepEqual(requests.filter((r) => !cells.includes(r)), ['data/cells/of-0000.bin', 'data/cells/centroids.bin']);
    assert.equal(new Set(cells).size, want.many.nprobe, pos);
    const exact = new Set(top.map(([j]) => j));
    found += got.filter((r) => exact.has(r.index)).length;
    total += top.length;
    for (let k = 1; k < got.length; k++) assert.ok(got[k - 1].score >= got[k].score);
  }
  assert.ok(found / total >= 0.9, `recall@10 ${found / total}`);
  console.log(`# recall@10 with nprobe ${want.many.nprobe} of ${want.many.count} cells: ${found / total}`);
});

test('one cell: the exact scan, one request', async () => {
  assert.equal(want.one.count, 1);
  for (const [pos, top] of Object.entries(want.brute_one)) {
    const { index, requests } = open('one');
    const got = await index.query(Number(pos), 10);
    assert.deepEqual(got.map((r) => r.index), top.map(([j]) => j), pos);
    got.forEach((r, k) => assert.ok(close(r.score, top[k][1]), pos));
    assert.deepEqual(requests, ['data/cells/cell-0000.bin']);
  }
});
