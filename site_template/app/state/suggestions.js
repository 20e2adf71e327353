import { labelPath } from './labels.js';
/**
 * Machine suggestions of a record (record shard `suggestions`): what the form shows next to
 * each question, and span suggestions turned into the prior-annotation shape, so today's suggestions card
 * and its Accept serve them. data.js hands a record out as stored; `recordAsShown` is the page's view of it
(blind mode, settings.suggestions.blind: no suggestion reaches the store, hence the DOM).
 */

/** The suggestions of question `name`, best score first (unscored last). */
export function questionSuggestions(record, name) {
  return (record?.suggestions || []).filter((s) => s && s.question === name)
    .sort((a, b) => (typeof b.score === 'number' ? b.score : -1) - (typeof a.score === 'number' ? a.score : -1));
}

/** A suggested value as the annotator reads it: the options' texts, "1 › 3 › 2" for a ranking. */
export function valueText(question, value) {
  const text = (v) => (question.options || []).find((o) => o.value === v)?.text || String(v);
  if (Array.isArray(value)) return value.map(text).join(question.type === 'ranking' ? ' › ' : ', ');
  return question.type === 'label' ? text(value) : String(value);
}

/** "0.83" or '' (a suggestion may come without a score). */
export const scoreText = (s) => (typeof s.score === 'number' && Number.isFinite(s.score) ? s.score.toFixed(2) : '');

/**
 * The span suggestions of question `spanName` as prior annotations ({label path, note, summary, source,
 * annotator: agent, score, agent, question}), each span with its quoted text; `texts` = {summary,
 * source} TextViews (offsets in the shard are code points). Spans that do not fit the text are left out.
 */
export function spanSuggestionsAsPrior(suggestions, spanName, texts) {
  const out = [];
  const span = (side, sp) => {
    if (!Array.isArray(sp) || sp.length !== 2) return null;
    const t = texts[side];
    const [s, e] = sp;
    if (!Number.isInteger(s) || !Number.isInteger(e) || s < 0 || e <= s || e > t.offsets.lengthCp) return undefined;
    return { start: s, end: e, text: t.text.slice(t.offsets.to16(s), t.offsets.to16(e)) };
  };
  for (const sg of suggestions) {
    if (!sg || sg.question !== spanName || !Array.isArray(sg.value)) continue;
    for (const v of sg.value) {
      const summary = span('summary', v?.summary);
      const source = span('source', v?.source);
      if (!summary || source === undefined || typeof v.label !== 'string') continue;
      out.push({ label: labelPath(v.label), note: '', summary, source, annotator: sg.agent || '', agent: sg.agent || '',
        score: sg.score, question: spanName });
    }
  }
  return out;
}

/**
 * A record as the page shows it (the store's `current.record`, an import's check): in blind mode no
 * suggestion, no prior annotation and no prior or suggested sentence verdict; else the span suggestions of
 * question `spanQuestion` join the prior annotations (the suggestions card shows and accepts both) and
 * `suggestions` keeps the other questions'.
 */
export function recordAsShown(rec, { blind, spanQuestion }) {
  const suggestions = blind ? [] : rec.suggestions || [];
  const prior = blind ? []
    : [...(rec.prior_annotations || []), ...spanSuggestionsAsPrior(suggestions, spanQuestion, rec)];
  const others = suggestions.filter((sg) => sg && sg.question !== spanQuestion);
  const sentences = blind ? { prior_sentences: [], sentence_suggestions: [] } : {};
  return { ...rec, prior_annotations: prior, suggestions: others, ...sentences };
}

/** Whether a prior annotation / span suggestion is already among the annotator's own (same label and spans). */
const spanKey = (a) => JSON.stringify(
  [a.label, a.summary?.start, a.summary?.end, a.source?.start ?? null, a.source?.end ?? null]);
export function acceptedPriors(prior, own) {
  const keys = new Set(own.map(spanKey));
  return prior.map((p) => keys.has(spanKey(p)));
}
