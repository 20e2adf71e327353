// Options picked by typing their number (keys.js numberKeys): up to 9 options every digit at once; past 9,
// a digit that can begin a longer key waits NUMBER_MS for the next one, or is taken by flush().
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';

import { NUMBER_MS, numberKeys } from '../../site_template/app/keys/keys.js';

const upTo = (n, from = 1) => Array.from({ length: n - from + 1 }, (_, i) => String(from + i));

function typer(keys) {
  const picked = [];
  const n = numberKeys(() => keys, (i) => picked.push(keys[i]));
  return { n, picked };
}

test('up to 9 options: every digit at once, a digit no option has is no key', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const { n, picked } = typer(upTo(5));
  assert.equal(n.digit('3'), true);
  assert.equal(n.digit('1'), true);
  assert.equal(n.digit('7'), false);
  assert.equal(n.digit('0'), false);
  assert.deepEqual(picked, ['3', '1']);
  mock.timers.reset();
});

test('a 0 … 10 rating: 0 and 2 … 9 at once, 1 then 0 is 10, 1 alone after a pause', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const { n, picked } = typer(upTo(10, 0));
  n.digit('0');
  n.digit('7');
  n.digit('1');
  n.digit('0');
  assert.deepEqual(picked, ['0', '7', '10']);
  n.digit('1');
  mock.timers.tick(NUMBER_MS - 1);
  assert.deepEqual(picked, ['0', '7', '10']);
  mock.timers.tick(1);
  assert.deepEqual(picked, ['0', '7', '10', '1']);
  mock.timers.reset();
});

test('twelve options: 1 2 is 12, 1 5 is 1 then 5, flush takes a pending 1, reset drops it', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const { n, picked } = typer(upTo(12));
  n.digit('1');
  n.digit('2');
  n.digit('1');
  n.digit('5');
  assert.deepEqual(picked, ['12', '1', '5']);
  n.digit('1');
  n.flush();
  assert.deepEqual(picked, ['12', '1', '5', '1']);
  n.digit('1');
  n.reset();
  mock.timers.tick(NUMBER_MS);
  n.flush();
  assert.deepEqual(picked, ['12', '1', '5', '1']);
  assert.equal(n.digit('0'), false); // no option 0: 0 is left to the caller (it clears an answer)
  mock.timers.reset();
});
