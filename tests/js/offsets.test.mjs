// Offsets between Python code points (the bundle, exports) and JS UTF-16 units (the page), data.js.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Offsets } from '../../site_template/app/data.js';

const codePoints = (s) => Array.from(s).length;

test('a BMP-only text maps every offset to itself, clamped', () => {
  const o = new Offsets('Hello, Zürich — 東京');
  assert.equal(o.identity, true);
  for (let i = 0; i <= 18; i++) {
    assert.equal(o.to16(i), i);
    assert.equal(o.toCp(i), i);
  }
  assert.equal(o.to16(-3), 0);
  assert.equal(o.toCp(99), o.length16);
});

test('surrogate pairs: code point offsets round-trip and equal Python slicing', () => {
  const text = '🎉 a 𝒻𝒶𝓃𝒸𝓎 b 🍕🍣 end';
  const o = new Offsets(text);
  assert.equal(o.identity, false);
  assert.equal(o.lengthCp, codePoints(text));
  assert.equal(o.to16(o.lengthCp), text.length);
  const cps = Array.from(text);
  for (let s = 0; s <= cps.length; s++) {
    assert.equal(o.toCp(o.to16(s)), s);
    for (let e = s; e <= cps.length; e++) assert.equal(text.slice(o.to16(s), o.to16(e)), cps.slice(s, e).join(''));
  }
});

test('an index inside a surrogate pair rounds down to the pair start', () => {
  const o = new Offsets('x🎉y');
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => o.toCp(i)), [0, 1, 1, 2, 3]);
  assert.deepEqual([0, 1, 2, 3].map((c) => o.to16(c)), [0, 1, 3, 4]);
  assert.equal(o.to16(10), 4);
});

test('a lone surrogate counts as one code point (as Python reads it)', () => {
  const text = 'a\uD83Db\uDC00c';
  const o = new Offsets(text);
  assert.equal(o.lengthCp, 5);
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((c) => o.to16(c)), [0, 1, 2, 3, 4, 5]);
});
