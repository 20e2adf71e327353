/**
 * Suggested sentence verdicts (docs/sentence-verdicts.md, "Sentence-level datasets in"): a dataset's
 * verdicts on a summary sentence, people's (`prior_sentences`: each QAGS worker's yes / no) and agents'
 * (`sentence_suggestions`: SummHay's evaluator), as the verdict bar shows them and its accept key takes them.
 * Each name is one vote; the accepted verdict is the one with the most votes, none on a tie (which of two
 * halves is meant is the annotator's call, not the page's). Pure: the record given is the record as shown
 * (suggestions.js `recordAsShown`: none in blind mode).
 */

/** The votes on summary sentence `i` of `rec`: [{by: annotator or agent, verdict}], people's first. */
export function sentenceVotes(rec, i) {
  const votes = [];
  for (const [list, who] of [[rec?.prior_sentences, 'annotator'], [rec?.sentence_suggestions, 'agent']]) {
    for (const v of list || []) {
      if (v && v.sentence === i && typeof v[who] === 'string' && typeof v.verdict === 'string') {
        votes.push({ by: v[who], verdict: v.verdict });
      }
    }
  }
  return votes;
}

/**
 * The votes by verdict, the most voted first (equal counts in the order of `order`, the settings' verdicts,
 * then of the votes): [{verdict, by: [names]}].
 */
export function groupVotes(votes, order = []) {
  const groups = new Map();
  for (const v of votes) {
    if (!groups.has(v.verdict)) groups.set(v.verdict, { verdict: v.verdict, by: [] });
    const g = groups.get(v.verdict);
    if (!g.by.includes(v.by)) g.by.push(v.by);
  }
  const rank = (verdict) => (order.includes(verdict) ? order.indexOf(verdict) : order.length);
  return [...groups.values()].sort((a, b) => b.by.length - a.by.length || rank(a.verdict) - rank(b.verdict));
}

/**
 * What accepting takes: {verdict, by} (the verdict with the most votes, and who gave it), {tie: [verdicts]}
 * when two or more share the most, null without votes.
 */
export function suggestedVerdict(votes, order = []) {
  const groups = groupVotes(votes, order);
  if (!groups.length) return null;
  const top = groups.filter((g) => g.by.length === groups[0].by.length);
  return top.length > 1 ? { tie: top.map((g) => g.verdict) } : { verdict: groups[0].verdict, by: groups[0].by };
}

/**
 * The bar's line, `textOf(verdict)` the verdict as the annotator reads it: "suggested: Yes (worker-0,
 * worker-2), No (worker-1)", one verdict "suggested: Full — summhay-eval", a tie said ("a tie: none to
 * accept"); '' without votes. Names are dataset text: the caller shows it as text, never as HTML.
 */
export function suggestionText(votes, order = [], textOf = String) {
  const groups = groupVotes(votes, order);
  if (!groups.length) return '';
  if (groups.length === 1) return `suggested: ${textOf(groups[0].verdict)} — ${groups[0].by.join(', ')}`;
  const tie = suggestedVerdict(votes, order).tie ? ' — a tie: none to accept' : '';
  return `suggested: ${groups.map((g) => `${textOf(g.verdict)} (${g.by.join(', ')})`).join(', ')}${tie}`;
}

/**
 * Why an imported verdict's `suggested_by` (names) does not fit sentence `i` of `rec` (as shown) with
 * `verdict`, or null: each name must have given that verdict to that sentence, as merge checks it.
 */
export function suggestedByProblem(rec, i, verdict, names) {
  if (names === undefined) return null;
  const gave = new Set(sentenceVotes(rec, i).filter((v) => v.verdict === verdict).map((v) => v.by));
  const stray = names.find((n) => !gave.has(n));
  return stray === undefined ? null
    : `suggested_by: ${JSON.stringify(stray)} suggested no ${JSON.stringify(verdict)} for this sentence here`;
}

/** An export sentence entry's `suggested_by` as merge reads it: absent, else a non-empty list of distinct names. */
export const isSuggestedBy = (v) => v === undefined || (Array.isArray(v) && v.length > 0
  && v.every((n) => typeof n === 'string' && n.length > 0) && new Set(v).size === v.length);
