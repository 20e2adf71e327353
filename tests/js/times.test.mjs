// Times as instants (times.js), on the cases merge's parse_time is tested with (tests/time_cases.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { compareTimes, instant, later } from '../../site_template/app/state/times.js';
import { repo } from './fixture.mjs';

const cases = JSON.parse(readFileSync(`${repo}/tests/time_cases.json`, 'utf8'));

test('instant reads the shared cases as merge does', () => {
  for (const [text, us] of cases.times) {
    const got = instant(text);
    if (us === null) assert.equal(got, null, text);
    else assert.ok(got !== null && Math.abs(got * 1000 - us) <= 64, `${text}: ${got} ms, expected ${us} µs`);
  }
});

test('compareTimes orders instants, not texts; no time is older than any time', () => {
  for (const [a, b, sign] of cases.order) {
    assert.equal(compareTimes(a, b), sign, `${a} vs ${b}`);
    assert.equal(compareTimes(b, a), 0 - sign || 0, `${b} vs ${a}`);
  }
  assert.equal(compareTimes(null, '2026-01-01'), -1);
  assert.equal(compareTimes('', null), 0);
  assert.equal(compareTimes('t2', 't1'), 1); // neither is a time: as text (values of older pages)
  assert.equal(later('2026-11-29T21:00:00+09:00', '2026-11-29T12:00:00.001Z'), '2026-11-29T12:00:00.001Z');
});
