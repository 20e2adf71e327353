/**
 * The reviewer's work on one record, kept in an ordinary work entry (storage.js) so that it is saved,
 * merged between tabs, journalled and kept aside when unreadable exactly like annotation work:
 *
 *   entry.status       'submitted' = adjudicated, else 'in_progress'
 *   entry.annotations  the reviewer's own annotations (the review export's `added`), tombstones as usual
 *   entry.review       {KEY: {value, updated_at}} (responses.js merges it per key, newest wins):
 *     d:ANNOTATION_KEY  {action: 'accept'|'reject'|'edit', summary?, source?, label?, note?} (null: undecided)
 *     q:QUESTION        {from: ANNOTATOR} | {value: V} (null: no answer)
 *     c:COMMENT_ID      {on: 'record'|ANNOTATION_KEY|ADDED_ID, author, time, text}
 *     s:SENTENCE        {from: JUDGE} | {verdict, evidence} (null: unsettled; reviewsentences.js)
 *
 * Pure functions over entries (no DOM); the review export (docs/review.md) is built here.
 */
import { liveAnnotations } from './entries.js';
import { compareTimes } from './times.js';
import { REVIEW } from '../data/formats.js';
import { exportSentences } from './reviewsentences.js';

export const { name: REVIEW_EXPORT_FORMAT, version: REVIEW_EXPORT_VERSION, reads: REVIEW_EXPORT_READS } = REVIEW;
const EDIT_FIELDS = ['summary', 'source', 'label', 'note'];

const stamp = (entry, key, value, at) => {
  const review = Object.create(null);
  for (const k of Object.keys(entry.review || {})) review[k] = entry.review[k];
  review[key] = { value, updated_at: at };
  return { ...entry, review };
};
const item = (entry, key) => entry?.review?.[key]?.value ?? null;

/** The decision on annotation `key` of an annotator: {action, …edited fields} or null. */
export const decisionOf = (entry, key) => item(entry, `d:${key}`);
/** `entry` with `key`'s decision set (`null`: back to undecided). An edit keeps the fields it was given. */
export const decide = (entry, key, decision, at) => stamp(entry, `d:${key}`, decision, at);

/** The gold answer of `question`: {from: ANNOTATOR} | {value: V} | null. */
export const answerOf = (entry, question) => item(entry, `q:${question}`);
export const setAnswer = (entry, question, answer, at) => stamp(entry, `q:${question}`, answer, at);

/** The comments of an entry, oldest first: [{id, on, author, time, text}]. */
export function commentsOf(entry) {
  return Object.entries(entry?.review || {})
    .filter(([k, v]) => k.startsWith('c:') && v.value)
    .map(([k, v]) => ({ id: k.slice(2), ...v.value }))
    .sort((a, b) => compareTimes(a.time, b.time) || (a.id < b.id ? -1 : 1));
}
/** `entry` with summary sentence `i` settled (`null`: unsettled again). */
export const settleSentence = (entry, i, value, at) => stamp(entry, `s:${i}`, value, at);
export const addComment = (entry, comment, at) => stamp(entry, `c:${comment.id}`,
  { on: comment.on, author: comment.author, time: comment.time, text: comment.text }, at);

export const isAdjudicated = (entry) => entry?.status === 'submitted';

/**
 * An annotator's annotation as gold would hold it after its decision: the original, or with the
 * edited fields replaced; null when rejected or undecided.
 */
export function goldOf(ann, decision) {
  if (!decision || decision.action === 'reject') return null;
  if (decision.action === 'accept') return ann;
  const out = { ...ann };
  for (const f of EDIT_FIELDS) if (f in decision) out[f] = decision[f];
  return out;
}

/** Whether the reviewer has decided anything on the record yet (the "unreviewed" filter). */
export const touched = (entry) => Boolean(entry) && (isAdjudicated(entry)
  || Object.values(entry.review || {}).some((r) => r.value) || liveAnnotations(entry).length > 0);

const span = (s) => (s ? { start: s.start, end: s.end, text: s.text } : null);

/** One record entry of the review export (docs/review.md). */
function exportRecord(id, e) {
  const decisions = {};
  const answers = {};
  for (const [k, r] of Object.entries(e.review || {})) {
    if (!r.value) continue;
    if (k.startsWith('d:')) {
      const d = { action: r.value.action, updated_at: r.updated_at };
      if (r.value.action === 'edit') {
        for (const f of EDIT_FIELDS) if (f in r.value) d[f] = f === 'summary' || f === 'source' ? span(r.value[f]) : r.value[f];
      }
      decisions[k.slice(2)] = d;
    } else if (k.startsWith('q:')) answers[k.slice(2)] = 'from' in r.value ? { from: r.value.from } : { value: r.value.value };
  }
  return {
    record_id: id,
    adjudicated: isAdjudicated(e),
    updated_at: e.updated_at,
    decisions,
    added: liveAnnotations(e).map((a) => ({
      id: a.id, label: a.label, note: a.note || '', summary: span(a.summary), source: span(a.source),
      created_at: a.created_at, updated_at: a.updated_at,
    })),
    answers,
    comments: commentsOf(e).map((c) => ({ id: c.id, on: c.on, author: c.author, time: c.time, text: c.text })),
    sentences: exportSentences(e),
  };
}

/**
 * The review export: every record entry the reviewer touched, in review order (`order`: id -> position,
 * ids it lacks after the others, by id: nothing stored is ever left out).
 */
export function buildReviewExport({ manifest, reviewer, clientId, work, order, exportedAt }) {
  const rank = (id) => (order.has(id) ? order.get(id) : Number.MAX_SAFE_INTEGER);
  const ids = Object.keys(work.records).filter((id) => touched(work.records[id]))
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const r = manifest.review;
  return {
    format: REVIEW_EXPORT_FORMAT,
    version: REVIEW_EXPORT_VERSION,
    bundle_id: manifest.bundle_id,
    review_id: r.review_id,
    merge_sha256: r.merge_sha256,
    reviewer,
    client_id: clientId,
    exported_at: exportedAt.replace(/\.\d{3}Z$/, 'Z'),
    tool_version: manifest.tool_version ?? null,
    records: ids.map((id) => exportRecord(id, work.records[id])),
  };
}
