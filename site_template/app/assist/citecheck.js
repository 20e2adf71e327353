/**
 * Checking a citation at a glance: when the summary sentence of a selection cites documents of
 * a sectioned source ("… [70][80]"), the page lights the best matches inside each cited document and,
 * apart and marked, the best match outside them, and says so in one line ("cited doc 70: 0.47 (p 0.62) —
 * best elsewhere: doc 6, 0.49 (p 0.70)"). The parsing and the split are citations.js's (twin of
 * citations.py); this module only connects them to a record of the page.
 */
import { citedDocuments, split } from './citations.js';

export const PER_DOC = 2; // matches shown inside each cited document
const docsOf = new WeakMap(); // a source's TextView -> the document of each sentence (-1: none)

/** The document (0-based section) of each sentence of `view`. */
function docOf(view) {
  if (!docsOf.has(view)) {
    const out = new Array(view.sentences.length).fill(-1);
    let d = 0;
    view.sentences.forEach(([s, e], i) => {
      while (d < view.sections.length && view.sections[d].end <= s) d++;
      if (d < view.sections.length && view.sections[d].start < e) out[i] = d;
    });
    docsOf.set(view, out);
  }
  return docsOf.get(view);
}

/**
 * The text whose markers a selection's citations are: the summary sentences it overlaps (`contextText`),
 * else, when they cite nothing, the rest of their line too (a bullet's markers close the bullet).
 */
function citingText(view, query, contextText) {
  const idx = view.sentencesIn(query.start, query.end);
  if (!idx.length) return contextText || '';
  const end = view.sentences[idx[idx.length - 1]][1];
  const after = view.slice(end, end + 2000);
  const nl = after.indexOf('\n');
  return `${contextText} ${nl < 0 ? after : after.slice(0, nl)}`;
}

const fmt = (r) => `${r.score.toFixed(2)} (p ${r.p.toFixed(2)})`;

/**
 * null, or {split(ranked, graded)}: `ranked` is the ranking of the source ([{index, score}] best first),
 * `graded(r)` the result with its grade probability `p`; split returns {results, text, complete}: the results
 * to light (cited matches with `cited` = the document's number, then the best match elsewhere with
 * `elsewhere` = its number), the line that says it, and whether `ranked` held all it needed (PER_DOC
 * matches in each cited document and one elsewhere: then the top of the ranking splits as the whole would).
 */
export function citedSplit(rec, query, contextText, patterns) {
  const source = rec.source;
  if (query.side !== 'summary' || !source.sections || !source.sections.length) return null;
  const view = rec.summary;
  let cited = citedDocuments(contextText || '', source.sections.length, patterns);
  if (!cited.length) cited = citedDocuments(citingText(view, query, contextText || ''), source.sections.length, patterns);
  if (!cited.length) return null;
  const docs = docOf(source);
  return {
    split(ranked, graded) {
      const s = split(ranked, docs, cited, PER_DOC);
      const complete = s.elsewhere !== null && s.cited.every((c) => c.results.length >= PER_DOC);
      const results = s.cited.flatMap((c) => c.results.map((r) => ({ ...graded(r), cited: c.doc + 1 })))
        .sort((a, b) => b.score - a.score || a.index - b.index);
      const parts = s.cited.map((c) => `cited doc ${c.doc + 1}: ${c.results.length ? fmt(graded(c.results[0])) : 'no sentence'}`);
      let text = parts.join(' · ');
      if (s.elsewhere) {
        results.push({
          ...graded({ index: s.elsewhere.index, score: s.elsewhere.score }), elsewhere: s.elsewhere.doc + 1,
        });
        const where = s.elsewhere.doc >= 0 ? `doc ${s.elsewhere.doc + 1}` : 'outside every document';
        text += ` — best elsewhere: ${where}, ${fmt(results[results.length - 1])}${s.outscored ? ' (above every cited match: check the citation)' : ''}`;
      }
      return { results, text, complete };
    },
  };
}
