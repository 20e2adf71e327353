/**
 * Import of a review export (the reviewer moves to another browser, or restores a cleared one): the file is
 * checked against this review bundle — its format, its bundle and review, its merge (a stale review of an older
 * merge is refused, as `gold` refuses it), its reviewer — and turned back into work entries (review/work.js),
 * merged like another tab's work: the newest of each decision, answer and comment wins.
 */
import { dict } from '../state/storage.js';
import { REVIEW_EXPORT_FORMAT, REVIEW_EXPORT_VERSION } from './work.js';

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isSpan = (s) => isObj(s) && Number.isInteger(s.start) && Number.isInteger(s.end) && s.start < s.end && typeof s.text === 'string';

const objectOr = (v) => (isObj(v) ? v : {});
const listOr = (v) => (Array.isArray(v) ? v : []);

/** The entry's decisions into `review` (d:KEY), or the reason one is bad. */
function readDecisions(r, review) {
  for (const [key, d] of Object.entries(objectOr(r.decisions))) {
    if (!isObj(d) || !['accept', 'reject', 'edit'].includes(d.action)) return `decision ${JSON.stringify(key)}: unknown action`;
    const { action, updated_at: at, ...fields } = d;
    if (action === 'edit' && !(isSpan(fields.summary) && Array.isArray(fields.label))) return `decision ${JSON.stringify(key)}: an edit needs a summary span and a label`;
    review[`d:${key}`] = { value: action === 'edit' ? { action, ...fields } : { action }, updated_at: at || r.updated_at };
  }
  return null;
}

/** The entry's gold answers into `review` (q:QUESTION), or the reason one is bad. */
function readAnswers(r, review) {
  for (const [q, a] of Object.entries(objectOr(r.answers))) {
    if (!isObj(a) || !('from' in a || 'value' in a)) return `answer ${JSON.stringify(q)}: neither from nor value`;
    review[`q:${q}`] = { value: 'from' in a ? { from: a.from } : { value: a.value }, updated_at: r.updated_at };
  }
  return null;
}

/** The entry's comments into `review` (c:ID), or the reason one is bad. */
function readComments(r, review) {
  for (const c of listOr(r.comments)) {
    if (!isObj(c) || typeof c.id !== 'string' || typeof c.text !== 'string' || typeof c.time !== 'string') return 'a comment without id, text or time';
    review[`c:${c.id}`] = { value: { on: c.on, author: c.author, time: c.time, text: c.text }, updated_at: c.time };
  }
  return null;
}

/** The reviewer's own annotations (the entry's `added`) into `annotations`, or the reason one is bad. */
function readAdded(r, annotations) {
  for (const a of listOr(r.added)) {
    if (!isObj(a) || typeof a.id !== 'string' || !isSpan(a.summary) || !Array.isArray(a.label)) return 'an added annotation without id, summary span or label';
    annotations[a.id] = {
      id: a.id, label: [...a.label], note: a.note || '', summary: a.summary, source: isSpan(a.source) ? a.source : null,
      created_at: a.created_at || a.updated_at || r.updated_at, updated_at: a.updated_at || r.updated_at,
    };
  }
  return null;
}

/** One record entry of the file as a work entry, or the reason it is left out (its first bad part). */
function entryOf(r) {
  if (!isObj(r) || typeof r.record_id !== 'string' || typeof r.updated_at !== 'string') return 'not a record entry';
  const review = dict();
  const annotations = dict();
  const reason = readDecisions(r, review) || readAnswers(r, review) || readComments(r, review)
    || readAdded(r, annotations);
  if (reason) return reason;
  return {
    status: r.adjudicated === true ? 'submitted' : 'in_progress', status_at: r.updated_at, updated_at: r.updated_at, annotations, review,
  };
}

/**
 * The work of a review export's text: {work, left: [reasons]}; throws an Error whose message is the one line
 * the page shows when the file is not a review of this bundle by this reviewer.
 */
export function parseReviewImport(text, { manifest, reviewer, name }) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`${name}: not JSON (${err.message}).`, { cause: err });
  }
  const r = manifest.review;
  if (!isObj(doc) || doc.format !== REVIEW_EXPORT_FORMAT || doc.version !== REVIEW_EXPORT_VERSION) {
    throw new Error(`${name}: not a review export (${REVIEW_EXPORT_FORMAT} version ${REVIEW_EXPORT_VERSION}).`);
  }
  if (doc.bundle_id !== manifest.bundle_id || doc.review_id !== r.review_id) {
    throw new Error(`${name}: a review of another bundle (review ${JSON.stringify(doc.review_id)}; this one is ${JSON.stringify(r.review_id)}).`);
  }
  if (doc.merge_sha256 !== r.merge_sha256) {
    throw new Error(`${name}: a stale review, made on a review bundle of another merge (merge_sha256 ${String(doc.merge_sha256).slice(0, 12)}…, this bundle's is ${String(r.merge_sha256).slice(0, 12)}…).`);
  }
  if (doc.reviewer !== reviewer) {
    throw new Error(`${name}: the review of ${JSON.stringify(doc.reviewer)}, not yours (${JSON.stringify(reviewer)}): open the page as that reviewer to import it.`);
  }
  const records = dict();
  const left = [];
  for (const rec of Array.isArray(doc.records) ? doc.records : []) {
    const e = entryOf(rec);
    if (typeof e === 'string') left.push(`record ${JSON.stringify(rec?.record_id)}: ${e}`);
    else records[rec.record_id] = e;
  }
  return { work: { records, drafts: dict(), last_export_at: null }, left };
}
