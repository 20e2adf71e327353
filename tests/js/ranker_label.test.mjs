// The line of the help panel saying which ranker options the page runs (data.js rankerLabel).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { rankerLabel } from '../../site_template/app/data/data.js';

const spec = [
  { name: 'algorithm', kind: 'choice', default: 'fused-v4' },
  { name: 'w_dense', kind: 'number', default: 0.25 },
  { name: 'grades', kind: 'thresholds', default: [0.3, 0.45] },
];

test('rankerLabel: tuned provenance first, then default or custom against the spec defaults', () => {
  const ranker = { algorithm: 'fused-v4', w_dense: 0.25, grades: [0.3, 0.45] };
  assert.equal(rankerLabel({ ranker, ranker_spec: spec, ranker_tuned: null }), 'ranker: fused-v4 (default)');
  assert.equal(rankerLabel({ ranker: { ...ranker, w_dense: 0.3 }, ranker_spec: spec }), 'ranker: fused-v4 (custom options)');
  assert.equal(rankerLabel({ ranker: { ...ranker, grades: [0.3, 0.5] }, ranker_spec: spec }), 'ranker: fused-v4 (custom options)');
  assert.equal(rankerLabel({ ranker: { ...ranker, algorithm: 'fused-v3' }, ranker_spec: spec }), 'ranker: fused-v3 (custom options)');
  const tuned = { pairs: 412, records: 80, date: '2026-12-03', from: ['a.json'] };
  assert.equal(rankerLabel({ ranker: { ...ranker, w_dense: 0.3 }, ranker_spec: spec, ranker_tuned: tuned }),
    'ranker: tuned on 412 pairs, 2026-12-03');
  assert.equal(rankerLabel({}), 'ranker: fused-v4 (default)'); // a bundle of an older build: no spec, no options
});
