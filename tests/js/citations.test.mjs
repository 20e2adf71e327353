// Citation markers (citations.js) against the cases mercury_static/assist/citations.py is tested against
// (tests/citations_cases.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_PATTERNS, citedDocuments, citedNumbers, split } from '../../site_template/app/assist/citations.js';

const CASES = JSON.parse(readFileSync(new URL('../citations_cases.json', import.meta.url), 'utf8'));

test('cited numbers', () => {
  for (const [text, patterns, want] of CASES.numbers) {
    assert.deepEqual(citedNumbers(text, patterns || DEFAULT_PATTERNS), want, text);
  }
});

test('cited documents', () => {
  for (const [text, n, want] of CASES.documents) assert.deepEqual(citedDocuments(text, n), want, text);
});

test('split: cited and elsewhere', () => {
  for (const c of CASES.split) {
    const got = split(c.ranked.map(([index, score]) => ({ index, score })), c.doc_of, c.cited, c.per_doc);
    assert.deepEqual(got.cited.map((x) => [x.doc, x.results.map((r) => [r.index, r.score])]), c.want.cited);
    assert.deepEqual(got.elsewhere && [got.elsewhere.doc, got.elsewhere.index, got.elsewhere.score], c.want.elsewhere);
    assert.equal(got.outscored, c.want.outscored);
  }
});

test('a pattern the page cannot compile is left out, the others still apply', () => {
  assert.deepEqual(citedNumbers('see #4 [2]', ['#([0-9]+', '\\[([0-9]+)\\]']), [2]);
});
