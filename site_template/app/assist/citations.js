// Citation markers of a summary sentence and what they cite: JavaScript twin of mercury_static/core/citations.py
// (the rules are documented there; both are tested on tests/citations_cases.json).

// The patterns, the margin and the marker the ranker leaves out: generated from citations.py (their
// meanings are documented there).
// [[[cog
// from mercury_static.core import citations
// from mercury_static.tools.twins import Regex, const
// cog.outl(const("DEFAULT_PATTERNS", citations.DEFAULT_PATTERNS, freeze=True))
// cog.outl(const("MARGIN", citations.MARGIN))
// cog.outl(const("MAX_RANGE", citations.MAX_RANGE))
// cog.outl(const("MARKER", Regex(citations.MARKER, "g")))
// ]]]
export const DEFAULT_PATTERNS = Object.freeze([
  '\\[\\s*(?:doc(?:ument)?s?\\.?\\s*)?([0-9]+(?:\\s*[-\\u2013,;]\\s*(?:doc(?:ument)?s?\\.?\\s*)?[0-9]+)*)\\s*\\]',
  '\\(\\s*(?:doc(?:ument)?s?\\.?\\s*)([0-9]+(?:\\s*[-\\u2013,;]\\s*(?:doc(?:ument)?s?\\.?\\s*)?[0-9]+)*)\\s*\\)',
  '\\^([0-9]+(?:,[0-9]+)*)',
]);
export const MARGIN = 0.1;
export const MAX_RANGE = 100;
export const MARKER = /\[[0-9][0-9,\s\u2013-]*\]/g;
// [[[end]]]
/** A citation of one document N of the other text, shown as a link to it (textlayout.js). */
export const LINK = /\[(\d{1,4})\]/g;
const PART = /[0-9]+|[-\u2013]/g;
const compiled = new Map();

/**
 * The patterns as global case-insensitive expressions with Unicode case folding (flag u: as Python matches
 * them, e.g. "K" (Kelvin) as "k"); one the page cannot compile is left out.
 */
function expressions(patterns) {
  const key = JSON.stringify(patterns);
  if (!compiled.has(key)) {
    const out = [];
    for (const p of patterns) {
      try {
        out.push(new RegExp(p, 'giu'));
      } catch {
        // checked at build time (citations.pattern_problem); a bundle edited by hand loses only this one
      }
    }
    compiled.set(key, out);
  }
  return compiled.get(key);
}

function numbers(group) {
  const parts = group.match(PART) || [];
  const out = [];
  parts.forEach((p, j) => {
    if (!/^[0-9]+$/.test(p)) return;
    const n = Number(p);
    const prev = j >= 2 && /^[-\u2013]$/.test(parts[j - 1]) && /^[0-9]+$/.test(parts[j - 2]) ? Number(parts[j - 2]) : null;
    if (prev !== null && n - prev > 0 && n - prev <= MAX_RANGE) for (let k = prev + 1; k <= n; k++) out.push(k);
    else out.push(n);
  });
  return out;
}

/** The distinct numbers `text` cites, in order of first citation. */
export function citedNumbers(text, patterns = DEFAULT_PATTERNS) {
  const found = [];
  for (const re of expressions(patterns)) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) found.push([m.index, numbers(m[1] || '')]);
  }
  found.sort((a, b) => a[0] - b[0]);
  return [...new Set(found.flatMap(([, nums]) => nums))];
}

/** 0-based positions of the source's documents `text` cites (numbers beyond them dropped). */
export function citedDocuments(text, nDocuments, patterns = DEFAULT_PATTERNS) {
  return citedNumbers(text, patterns).filter((n) => n >= 1 && n <= nDocuments).map((n) => n - 1);
}

/**
 * The best `perDoc` matches in each cited document and the best match outside them, from `ranked`
 * ([{index, score}] best first over the whole source); docOf[i]: the document of sentence i (-1: none);
 * outscored: the match elsewhere scores more than `margin` above every cited one.
 * @returns {{cited: {doc:number, results:{index:number, score:number}[]}[], elsewhere: ({doc:number,
 *   index:number, score:number}|null), outscored: boolean}}
 */
export function split(ranked, docOf, cited, perDoc = 2, margin = MARGIN) {
  const per = new Map(cited.map((d) => [d, []]));
  let elsewhere = null;
  for (const r of ranked) {
    const d = docOf[r.index];
    if (per.has(d)) {
      if (per.get(d).length < perDoc) per.get(d).push(r);
    } else if (elsewhere === null) elsewhere = { doc: d, index: r.index, score: r.score };
    if (elsewhere !== null && [...per.values()].every((v) => v.length >= perDoc)) break;
  }
  const scores = [...per.values()].flat().map((r) => r.score);
  const bestCited = scores.length ? Math.max(...scores) : null;
  return {
    cited: cited.map((d) => ({ doc: d, results: per.get(d) })),
    elsewhere,
    outscored: elsewhere !== null && (bestCited === null || elsewhere.score > bestCited + margin),
  };
}
