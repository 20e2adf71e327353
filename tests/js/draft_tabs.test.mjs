// Which draft a tab shows when another tab writes a newer one of the same record (store.js replacesShown),
// and the banner of changes a page could not keep as it went away.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { lostText, replacesShown } from '../../site_template/app/state/store.js';

const draft = (extra = {}) => ({ anchor: null, summary: null, source: null, labels: [], note: '', editingId: null, ...extra });

test("another tab's new draft does not take the place of the shown one", () => {
  const mine = draft({ summary: [0, 3], id: 'x' });
  assert.equal(replacesShown(mine, draft({ summary: [4, 9], id: 'y' }), null), false);
  assert.equal(replacesShown(draft(), draft({ summary: [4, 9], id: 'y' }), null), false); // nothing shown: still not taken up
});

test('the same draft, or the shown one saved elsewhere, is replaced', () => {
  const mine = draft({ summary: [0, 3], id: 'x' });
  assert.equal(replacesShown(mine, draft({ summary: [0, 5], id: 'x' }), null), true);
  const entry = { annotations: Object.assign(Object.create(null), { x: { id: 'x' } }) };
  assert.equal(replacesShown(mine, draft(), entry), true);
  assert.equal(replacesShown(draft({ summary: [0, 3], editingId: 'e' }), draft({ editingId: 'e', note: 'n' }), null), true);
  assert.equal(replacesShown(draft({ summary: [0, 3], editingId: 'e' }), draft(), entry), false);
});

test('the lost banner names the records, a few of them', () => {
  assert.match(lostText(['r1']), /NOT saved \(record r1\)/);
  assert.match(lostText(['a', 'b', 'c', 'd', 'e', 'f']), /records a, b, c, d, e, …\)/);
});
