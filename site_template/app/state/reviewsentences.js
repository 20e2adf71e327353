/**
 * The summary sentences in review (docs/review.md, "Sentence verdicts"): each judge's effective verdict and
 * evidence (the review data's `sentences`, review/sentences.py), and what the reviewer settled, kept in the
 * work entry as `review['s:INDEX'] = {from: JUDGE} | {verdict, evidence}` (null: unsettled). Pure.
 */

/** The effective verdict of a judge who neither judged a sentence nor put a span on it (merge's). */
export const NOT_CHECKED = 'not checked';

/** The settled verdict of sentence `i` of an entry: {from} | {verdict, evidence} | null. */
export const sentenceOf = (entry, i) => entry?.review?.[`s:${i}`]?.value ?? null;

/**
 * What a settled sentence holds: {verdict, evidence (source sentence indices, or null), judges (who gave the
 * same)} from the review record's sentence `s` and the settlement `d`; null when unsettled.
 */
export function settledVerdict(s, d) {
  if (!d) return null;
  const taken = 'from' in d ? s.verdicts.find((v) => v.annotator === d.from) : null;
  if ('from' in d && !taken) return null;
  const verdict = taken ? taken.verdict : d.verdict;
  const evidence = taken ? taken.evidence : d.evidence;
  const same = (v) => v.verdict === verdict && JSON.stringify(v.evidence) === JSON.stringify(evidence || []);
  return { verdict, evidence, judges: s.verdicts.filter(same).map((v) => v.annotator) };
}

/**
 * The sentences of review record `rec` whose judges agree (not disputed, at least one judge checked it) and
 * that `entry` has not settled yet, each `{sentence, from}`: `from` is the first judge who checked it, whose
 * verdict and evidence are every checker's, so gold names them all as its judges.
 */
export function agreedSentences(rec, entry) {
  return (rec?.sentences || []).filter((s) => !s.disputed && sentenceOf(entry, s.sentence) === null)
    .map((s) => ({ sentence: s.sentence, from: s.verdicts.find((v) => v.verdict !== NOT_CHECKED)?.annotator }))
    .filter((x) => x.from !== undefined);
}

/** The export's `sentences` of an entry, in sentence order (docs/review.md). */
export function exportSentences(entry) {
  return Object.entries(entry.review || {})
    .filter(([k, r]) => k.startsWith('s:') && r.value)
    .map(([k, r]) => ({
      sentence: Number(k.slice(2)),
      ...('from' in r.value ? { from: r.value.from } : { verdict: r.value.verdict, evidence: r.value.evidence ?? null }),
      updated_at: r.updated_at,
    }))
    .sort((a, b) => a.sentence - b.sentence);
}
