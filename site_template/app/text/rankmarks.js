/**
 * Ranked sentences drawn on their elements: data-rank (1..k), data-score, data-level (1 weak ..
 * 3 strong), data-cite (the cited document a match is in, or "elsewhere": the best match outside the
 * cited documents, citecheck.js) and a title saying the score and grade probability on hover. Only
 * attributes whose value changes are written (a refined answer often keeps most of the
 * lit set): on a 3,900-sentence source every write costs a style invalidation.
 */

/**
 * Mark `results` ([{index, score}], best first) and unmark the elements of `lit` no longer among them;
 * `elOf(i)` gives sentence i's element. Returns the elements now lit.
 */
export function markRanked(lit, results, levelOf, elOf) {
  const next = new Map(); // element -> [rank, score, level, cite, title]
  results.forEach((r, j) => {
    const el = elOf(r.index);
    if (!el) return;
    const cite = r.elsewhere !== undefined ? 'elsewhere' : r.cited !== undefined ? String(r.cited) : '';
    const where = r.elsewhere !== undefined ? ' · best match outside the cited documents'
      : r.cited !== undefined ? ` · in cited document ${r.cited}` : '';
    const p = r.p === undefined ? '' : ` · P(evidence) ${r.p.toFixed(2)}`;
    next.set(el, [String(j + 1), r.score.toFixed(3), String(levelOf(r.p ?? r.score)), cite,
      `related #${j + 1}: score ${r.score.toFixed(3)}${p}${where}`]);
  });
  for (const el of lit) {
    if (next.has(el)) continue;
    for (const a of ['data-rank', 'data-score', 'data-level', 'data-cite', 'title']) el.removeAttribute(a);
  }
  for (const [el, [rank, score, level, cite, title]] of next) {
    if (el.dataset.rank !== rank) el.dataset.rank = rank;
    if (el.dataset.score !== score) el.dataset.score = score;
    if (el.dataset.level !== level) el.dataset.level = level;
    if ((el.dataset.cite || '') !== cite) {
      if (cite) el.dataset.cite = cite;
      else el.removeAttribute('data-cite');
    }
    if (el.title !== title) el.title = title;
  }
  return [...next.keys()];
}
