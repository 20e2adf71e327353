// The page's citation check (citecheck.js) on a record shaped as data.js's TextViews: which text's markers
// count, the settings' own patterns, and the split it lights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { citedSplit } from '../../site_template/app/assist/citecheck.js';

/** A TextView-like text: ASCII (code points = UTF-16), sentences split at ". " and line ends. */
function view(text, sections = null) {
  const sentences = [];
  const re = /[^.\n]+(?:\.|$)/gm;
  let m;
  while ((m = re.exec(text))) {
    const s = m.index + (m[0].length - m[0].trimStart().length);
    if (m[0].trim()) sentences.push([s, m.index + m[0].length]);
  }
  return {
    text, sentences, sections,
    slice: (a, b) => text.slice(Math.max(0, a), Math.min(text.length, b)),
    sentencesIn: (a, b) => sentences.map((x, i) => [x, i])
      .filter(([[s, e]]) => s < Math.max(b, a + 1) && a < e).map(([, i]) => i),
  };
}

const source = view('Alpha one. Alpha two. Beta one. Beta two. Gamma one. Gamma two.',
  [{ start: 0, end: 21 }, { start: 22, end: 41 }, { start: 42, end: 63 }]);
const rec = (summary) => ({ source, summary: view(summary) });
const ranked = [[4, 0.9], [0, 0.5], [2, 0.45], [1, 0.4], [3, 0.3], [5, 0.2]]
  .map(([index, score]) => ({ index, score }));
const graded = (r) => ({ ...r, p: r.score });

test('a bullet whose markers close its line cites for each of its sentences', () => {
  const r = rec('- Gamma happened. It was big [1][2].\n- Other [3].');
  const q = { side: 'summary', start: 2, end: 16 };
  const c = citedSplit(r, q, 'Gamma happened.', undefined);
  const { results, text } = c.split(ranked, graded);
  assert.deepEqual(results.map((x) => [x.index, x.cited ?? `elsewhere ${x.elsewhere}`]), [[0, 1], [2, 2], [1, 1], [3, 2], [4, 'elsewhere 3']]);
  assert.equal(text, 'cited doc 1: 0.50 (p 0.50) · cited doc 2: 0.45 (p 0.45) — best elsewhere: doc 3, 0.90 (p 0.90) (above every cited match: check the citation)');
});

test('a split says whether the ranking it got held every match it needed (issue 29: the top first)', () => {
  const r = rec('- Gamma happened. It was big [1][2].\n- Other [3].');
  const q = { side: 'summary', start: 2, end: 16 };
  const c = citedSplit(r, q, 'Gamma happened.', undefined);
  assert.equal(c.split(ranked, graded).complete, true);
  assert.equal(c.split(ranked.slice(0, 5), graded).complete, true); // 2 per cited document and one elsewhere
  assert.equal(c.split(ranked.slice(0, 4), graded).complete, false); // document 2's second match is further down
  assert.deepEqual(c.split(ranked.slice(0, 5), graded), c.split(ranked, graded));
});

test('the settings\' patterns replace the defaults; no citation, no split', () => {
  const r = rec('Gamma grew #3 [1].');
  const q = { side: 'summary', start: 0, end: 10 };
  const custom = citedSplit(r, q, 'Gamma grew #3 [1].', ['#([0-9]+)']).split(ranked, graded);
  assert.deepEqual(custom.results.map((x) => x.index), [4, 5, 0]);
  assert.match(custom.text, /^cited doc 3: 0\.90 \(p 0\.90\) — best elsewhere: doc 1, 0\.50/);
  assert.ok(!custom.text.includes('check the citation'));
  assert.equal(citedSplit(r, q, 'Gamma grew #3 [1].', []), null);
  assert.equal(citedSplit(rec('Nothing cited here.'), q, 'Nothing cited here.', undefined), null);
  assert.equal(citedSplit({ source: view('No sections.'), summary: view('See [1].') }, q, 'See [1].', undefined), null);
});
