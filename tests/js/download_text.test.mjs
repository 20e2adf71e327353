import { test } from 'node:test';
import assert from 'node:assert/strict';
import { downloadText } from '../../site_template/app/views/wording.js';

const MB = 1e6;

test('the share and the bytes, and a time left from the rate so far', () => {
  const { short, long } = downloadText(5 * MB, 20 * MB, 2000);
  assert.equal(short, 'model: 25%');
  assert.equal(long, 'downloading the model: 5.0 of 20.0 MB · about 6 s left');
});

test('no time is guessed from the first bytes or the first second', () => {
  assert.equal(downloadText(0.5 * MB, 20 * MB, 5000).long, 'downloading the model: 0.5 of 20.0 MB');
  assert.equal(downloadText(10 * MB, 20 * MB, 900).long, 'downloading the model: 10.0 of 20.0 MB');
});

test('a slow link says minutes; a whole download says the model is starting', () => {
  assert.match(downloadText(1 * MB, 20 * MB, 10_000).long, /about 3 min left$/);
  assert.deepEqual(downloadText(20 * MB, 20 * MB, 4000),
    { short: 'model: 100%', long: 'downloading the model: 20.0 of 20.0 MB · starting it' });
  assert.equal(downloadText(25 * MB, 20 * MB, 4000).short, 'model: 100%'); // more than announced: never over
});

test('without the whole (an older bundle) the bytes so far', () => {
  assert.deepEqual(downloadText(3.25 * MB, null, 3000),
    { short: 'model: 3.3 MB…', long: 'downloading the model: 3.3 MB so far' });
});
