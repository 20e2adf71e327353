// Time on task (timeontask.js): the idle rule, the hidden tab, record switches, counters that only grow.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ActiveTime, IDLE_MS, activeAdds, activeMs, addActive, elapsedMs, isActive, mergeActive } from '../../site_template/app/state/timeontask.js';

test('gaps up to the idle threshold count, a longer gap not at all', () => {
  const t = new ActiveTime();
  t.open('r1', 0);
  t.activity(1_000);
  t.activity(1_000 + IDLE_MS); // exactly the threshold: counted
  t.activity(1_000 + IDLE_MS + IDLE_MS + 1); // one ms over: nothing of it
  t.activity(1_000 + 2 * IDLE_MS + 1 + 500);
  assert.equal(t.take('r1'), 1_000 + IDLE_MS + 500);
  assert.equal(t.take('r1'), 0, 'taken once');
});

test('nothing counts while the tab is hidden; the gap before hiding does', () => {
  const t = new ActiveTime();
  t.open('r1', 0);
  t.activity(2_000);
  t.hide(5_000); // 3 s before hiding count
  t.activity(20_000); // events of a hidden tab count nothing
  t.show(30_000);
  t.activity(31_000);
  assert.equal(t.take('r1'), 6_000);
});

test('opening another record ends the gap of the one left; no record open counts nothing', () => {
  const t = new ActiveTime();
  t.activity(0);
  t.activity(1_000);
  t.open('a', 2_000);
  t.activity(4_000);
  t.open('b', 7_000);
  t.activity(8_000);
  t.open(null, 9_000);
  t.activity(10_000);
  assert.deepEqual(t.ids().sort(), ['a', 'b']);
  assert.equal(t.take('a'), 5_000);
  assert.equal(t.take('b'), 2_000);
  assert.ok(!t.holds('a', 1));
});

test('counters merge by the larger value, never summed twice', () => {
  const mine = addActive(addActive(null, 's1', 1_000), 's1', 500);
  const theirs = addActive(null, 's2', 700);
  const merged = mergeActive(mine, theirs);
  assert.equal(activeMs({ active: merged }), 2_200);
  assert.equal(activeMs({ active: mergeActive(merged, mine) }), 2_200, 'a counter seen again adds nothing');
  assert.ok(activeAdds(mine, theirs));
  assert.ok(!activeAdds(merged, mine));
  assert.equal(activeMs({}), null, 'no counter: unknown, not zero');
  assert.equal(mergeActive(null, null), null);
  assert.ok(isActive(merged));
  assert.ok(!isActive({ s: -1 }) && !isActive({ s: 1.5 }) && !isActive([1]));
});

test('creation-to-save time: the draft\'s start to the save, an edit adding its own', () => {
  assert.equal(elapsedMs(null, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:12.250Z'), 12_250);
  assert.equal(elapsedMs({ elapsed_ms: 1_000 }, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:02.000Z'), 3_000);
  assert.equal(elapsedMs({}, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:02.000Z'), null, 'unknown stays unknown');
  assert.equal(elapsedMs(null, undefined, '2026-01-01T00:00:02.000Z'), null);
});
