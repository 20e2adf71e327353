/**
 * Ranked sentences drawn on their elements: data-rank (1..k), data-score and data-level (1 weak ..
 * 3 strong). Only attributes whose value changes are written (a refined answer often keeps most of the
 * lit set): on a 3,900-sentence source every write costs a style invalidation.
 */

/**
 * Mark `results` ([{index, score}], best first) and unmark the elements of `lit` no longer among them;
 * `elOf(i)` gives sentence i's element. Returns the elements now lit.
 */
export function markRanked(lit, results, levelOf, elOf) {
  const next = new Map(); // element -> [rank, score, level]
  results.forEach((r, j) => {
    const el = elOf(r.index);
    if (el) next.set(el, [String(j + 1), r.score.toFixed(3), String(levelOf(r.score))]);
  });
  for (const el of lit) {
    if (next.has(el)) continue;
    el.removeAttribute('data-rank');
    el.removeAttribute('data-score');
    el.removeAttribute('data-level');
  }
  for (const [el, [rank, score, level]] of next) {
    if (el.dataset.rank !== rank) el.dataset.rank = rank;
    if (el.dataset.score !== score) el.dataset.score = score;
    if (el.dataset.level !== level) el.dataset.level = level;
  }
  return [...next.keys()];
}
