// The page's highlight grades (assist.js): without grades in the manifest they are rank.js's defaults,
// the thresholds `eval` and the build use.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { makeLevelOf } from '../../site_template/app/assist/assist.js';
import { DEFAULT_OPTIONS } from '../../site_template/app/assist/rank.js';

test('makeLevelOf: a manifest without grades grades with the default thresholds', () => {
  const [medium, strong] = DEFAULT_OPTIONS.grades;
  for (const manifest of [{}, { ranker: {} }, { ranker: { grades: null } }]) {
    const levelOf = makeLevelOf(manifest);
    assert.equal(levelOf(medium - 0.01), 1, JSON.stringify(manifest));
    assert.equal(levelOf(medium), 2);
    assert.equal(levelOf(strong - 0.01), 2);
    assert.equal(levelOf(strong), 3);
  }
});

test('makeLevelOf: the manifest\'s grades win', () => {
  const levelOf = makeLevelOf({ ranker: { grades: [0.5, 0.7] } });
  assert.deepEqual([0.49, 0.5, 0.69, 0.7].map(levelOf), [1, 2, 2, 3]);
});
