// Offsets between Python code points (every file and the page's store) and JS UTF-16 units (the DOM),
// offsets.js: the one module where the unit changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Offsets, storedSpanCp, trimSelection } from '../../site_template/app/data/offsets.js';

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

test('combining marks are code points of their own in both units: offsets are unchanged', () => {
  const text = 'Cafe\u0301 Zu\u0308rich n\u0303'; // decomposed é, ü, ñ (not NFC-normalised)
  const o = new Offsets(text);
  assert.equal(o.identity, true);
  assert.equal(o.lengthCp, codePoints(text));
  assert.deepEqual(o.span16([0, 5]), [0, 5]);
  assert.equal(text.slice(...o.span16([0, 5])), 'Cafe\u0301'); // the mark stays with its letter
});

test('an emoji before a combining mark, a CRLF and the span: Python slicing is kept', () => {
  const text = '🎉 x\u0301\r\nline two 👩‍👩‍👧 three\r\nend';
  const o = new Offsets(text);
  const cps = Array.from(text);
  const start = cps.indexOf('t'); // "two", after one emoji, a combining mark and a CRLF
  const span = [start, start + 3];
  assert.equal(text.slice(...o.span16(span)), 'two');
  assert.deepEqual(o.spanCp(o.span16(span)), span);
  assert.equal(o.span16(span)[0], start + 1); // one surrogate pair before it
  // a ZWJ family is five code points (three emoji, two joiners) and eight UTF-16 units
  const fam = cps.indexOf('👩');
  assert.equal(text.slice(...o.span16([fam, fam + 5])), '👩‍👩‍👧');
  assert.equal(o.to16(fam + 5) - o.to16(fam), 8);
  // CRLF: two code points, two units (the DOM keeps \r in text nodes)
  const cr = cps.indexOf('\r');
  assert.deepEqual(cps.slice(cr, cr + 2), ['\r', '\n']);
  assert.equal(o.to16(cr + 2) - o.to16(cr), 2);
});

test('trimSelection drops surrounding whitespace (CRLF too) and never cuts an emoji', () => {
  const text = '\r\n ab🎉c \r\n';
  const at = text.indexOf('🎉');
  assert.deepEqual(trimSelection(text, 0, text.length), [3, text.length - 3]);
  assert.deepEqual(trimSelection(text, at + 1, at + 2), [at, at + 2]); // inside the pair: the whole emoji
  assert.deepEqual(trimSelection(text, 3, at + 1), [3, at + 2]);
  assert.equal(trimSelection(text, 0, 3), null);
});

test('storedSpanCp: a draft with unit cp is kept, one without (UTF-16, earlier pages) is converted', () => {
  const text = '🎉🎉 abc';
  const o = new Offsets(text);
  const u16 = [text.indexOf('abc'), text.indexOf('abc') + 3]; // [5, 8]
  assert.deepEqual(storedSpanCp(u16, undefined, o), [3, 6]);
  assert.equal(Array.from(text).slice(3, 6).join(''), 'abc');
  assert.deepEqual(storedSpanCp([3, 6], 'cp', o), [3, 6]);
  assert.equal(storedSpanCp(null, 'cp', o), null);
  // a span past the text's end (a rebuilt bundle's shorter text) is dropped, not clamped, in either unit
  assert.equal(storedSpanCp([3, 7], 'cp', o), null); // 6 code points
  assert.deepEqual(storedSpanCp([5, 8], undefined, o), [3, 6]);
  assert.equal(storedSpanCp([5, 9], undefined, o), null); // 8 UTF-16 units
});
