/**
 * The dataset settings of a bundle (manifest.settings) as the page uses them, with today's
 * behaviour as the default of every part: a bundle without settings has one span question, the fields
 * "Source" / "Summary", no metadata filters, suggestions shown, no similar records.
 */

import { normalizeName } from './names.js';

const DEFAULT_SPAN = { name: 'spans', type: 'span', title: 'Spans', description: '', required: false };
/** The record-level question types the form has a control for (a bundle of a later version may have more). */
const FORM_TYPES = ['label', 'multi_label', 'rating', 'ranking', 'text'];

/**
 * A name as blind mode compares it: normalised (names.js), and case folded, so that "Bob" typed in the
 * name dialog is as blind as the listed "bob" (a near miss must hide suggestions, not show them).
 */
function sameName(name) {
  return normalizeName(name).toLowerCase();
}

/**
 * {fields: {source, summary, extra}, span, questions (the non-span ones, in form order), all (every
 * question), metadata (visible properties only), blind, similar}.
 */
export function pageSettings(manifest, annotator) {
  const s = manifest.settings || {};
  const f = s.fields || {};
  const questions = Array.isArray(s.questions) ? s.questions : [];
  const span = questions.find((q) => q.type === 'span') || DEFAULT_SPAN;
  const blind = s.suggestions?.blind;
  return {
    fields: {
      source: { title: f.source?.title || 'Source' },
      summary: { title: f.summary?.title || 'Summary' },
      extra: Array.isArray(f.extra) ? f.extra : [],
    },
    span,
    questions: questions.filter((q) => FORM_TYPES.includes(q.type)),
    all: questions.length ? questions : [span],
    metadata: (Array.isArray(s.metadata) ? s.metadata : []).filter((m) => m.visible !== false),
    blind: blind === true || (Array.isArray(blind) && blind.some((name) => sameName(name) === sameName(annotator))),
    similar: Boolean(s.vectors?.similar_records && manifest.record_vectors),
  };
}
