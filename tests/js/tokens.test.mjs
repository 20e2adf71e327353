// tokens.js against tokens.py: the word span of every token as Python's tokenizer gives it (the page has no
// offsets: it tokenizes word by word), and the same selection vectors from the same token rows (1e-6).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { repo, runFixture } from './fixture.mjs';
import { blend, selectionVector, tokenSpans, words } from '../../site_template/app/assist/tokens.js';

const fixture = JSON.parse(runFixture('tokens_fixture.py'));
const { Tokenizer } = await import(join(repo, 'js', 'node_modules', '@huggingface', 'tokenizers', 'dist', 'tokenizers.mjs'));
const read = (name) => JSON.parse(readFileSync(join(fixture.tokenizer, name), 'utf8'));
const tokenizer = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
const tokenize = (text) => tokenizer.tokenize(text);

test('each token gets the span of its word, as the Python tokenizer says', () => {
  assert.ok(fixture.words.length >= 12);
  for (const { text, tokens, spans } of fixture.words) {
    assert.deepEqual(tokenize(text), tokens, text);
    assert.deepEqual(Array.from(tokenSpans(text, tokens, tokenize, 5)), spans, text);
  }
});

test('pieces the words do not give are refused, not misplaced', () => {
  const pieces = tokenize('the cat sat');
  assert.equal(tokenSpans('the cat sat', [...pieces, 'extra'], tokenize), null);
  assert.equal(tokenSpans('the cat sat', pieces.slice(1), tokenize), null);
  assert.deepEqual(words('a\u00A0b'), [{ start: 0, end: 1, text: 'a' }, { start: 2, end: 3, text: 'b' }]);
});

test('a selection sums the tokens of the words it overlaps, as tokens.py', () => {
  const rows = fixture.rows.map((r) => ({
    ...r, spans: Int32Array.from(r.spans), vectors: Float32Array.from(r.vectors),
  }));
  assert.ok(fixture.cases.some((c) => c.want === null) && fixture.cases.filter((c) => c.want).length >= 6);
  for (const c of fixture.cases) {
    const got = selectionVector(rows, c.start, c.end);
    if (c.want === null) {
      assert.equal(got, null, `${c.start}:${c.end}`);
      continue;
    }
    got.forEach((x, j) => assert.ok(Math.abs(x - c.want[j]) <= 1e-6, `${c.start}:${c.end}`));
    blend(got, Float32Array.from(c.other)).forEach((x, j) => assert.ok(Math.abs(x - c.blend[j]) <= 1e-6));
  }
  assert.equal(selectionVector([rows[0], null], 0, 5), null); // a row not run yet: no answer from tokens
});
