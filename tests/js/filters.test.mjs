// The record list's metadata conditions and sort (listquery.js): terms by chosen values (a list value matches
// any of its terms), ranges inclusive (no value = not in a set range), stable sorts with missing values last.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { passes, sortOrder } from '../../site_template/app/state/listquery.js';

const terms = { name: 'model', type: 'terms' };
const range = { name: 'length', type: 'integer' };

test('terms: chosen values, lists match any of their values, nothing chosen passes all', () => {
  assert.equal(passes(terms, { chosen: new Set() }, 'a'), true);
  assert.equal(passes(terms, { chosen: new Set(['a']) }, 'a'), true);
  assert.equal(passes(terms, { chosen: new Set(['a']) }, 'b'), false);
  assert.equal(passes(terms, { chosen: new Set(['a']) }, ['b', 'a']), true);
  assert.equal(passes(terms, { chosen: new Set(['a']) }, undefined), false);
});

test('ranges: inclusive bounds, open ends, a record without a value is outside a set range', () => {
  assert.equal(passes(range, { lo: 3, hi: 5 }, 3), true);
  assert.equal(passes(range, { lo: 3, hi: 5 }, 5), true);
  assert.equal(passes(range, { lo: 3, hi: 5 }, 6), false);
  assert.equal(passes(range, { lo: null, hi: 5 }, -100), true);
  assert.equal(passes(range, { lo: 3, hi: null }, undefined), false);
  assert.equal(passes(range, { lo: null, hi: null }, undefined), true);
});

test('sortOrder: by a value both ways, stable, missing values last', () => {
  const meta = [{ length: 5 }, { length: 2 }, {}, { length: 5 }, { length: 9 }];
  const all = [0, 1, 2, 3, 4];
  const length = (p) => meta[p].length;
  assert.deepEqual([...sortOrder(all, length, 1)], [1, 0, 3, 4, 2]);
  assert.deepEqual([...sortOrder(all, length, -1)], [4, 0, 3, 1, 2]);
  assert.deepEqual([...sortOrder(Int32Array.of(4, 3, 2), length, 1)], [3, 4, 2]);
  const status = { 0: 2, 1: 0, 2: 3, 3: 1, 4: 0 };
  assert.deepEqual([...sortOrder(all, (p) => status[p], 1)], [1, 4, 3, 0, 2]);
});
