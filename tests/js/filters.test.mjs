// The record list's metadata filters and sort (filters.js): terms by chosen values (a list value matches
// any of its terms), ranges inclusive (no value = not in a set range), stable sorts with missing values last.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { passes, sortOrder } from '../../site_template/app/filters.js';

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

test('sortOrder: by a property both ways, stable, missing values last; by status; none keeps the order', () => {
  const meta = [{ length: 5 }, { length: 2 }, {}, { length: 5 }, { length: 9 }];
  const status = ['submitted', 'todo', 'discarded', 'in_progress', 'todo'];
  assert.deepEqual(sortOrder(null, 5, 'meta:length', 1, { meta, status }), [1, 0, 3, 4, 2]);
  assert.deepEqual(sortOrder(null, 5, 'meta:length', -1, { meta, status }), [4, 0, 3, 1, 2]);
  assert.deepEqual(sortOrder([4, 3, 2], 5, 'meta:length', 1, { meta, status }), [3, 4, 2]);
  assert.deepEqual(sortOrder(null, 5, 'status', 1, { meta, status }), [1, 4, 3, 0, 2]);
  const order = [2, 0];
  assert.equal(sortOrder(order, 5, '', 1, { meta, status }), order);
});
