/**
 * Import of a review export (the reviewer moves to another browser, or restores a cleared one), read by the
 * rules `gold` reads it with: the file (UTF-8, strict JSON), its header (format, bundle and review, merge: a
 * stale review of an older merge is refused as gold refuses it, reviewer) and every record entry
 * (review/importcheck.js, against the review record and its texts, loaded from their shards). The first fault
 * refuses the whole file with one line naming the entry and the field, and nothing is imported: a decision gold
 * would refuse must never enter the reviewer's work, or every later export of theirs is refused too. The
 * entries become work entries (review/work.js), merged like another tab's work: the newest of each decision,
 * answer and comment wins.
 */
import { normalizeName } from '../state/names.js';
import { pageSettings } from '../state/settings.js';
import { parseJson } from '../state/exportfile.js';
import { instant } from '../state/times.js';
import { dict, nowIso } from '../util.js';
import { checkEntry, needsTexts } from './importcheck.js';
import { JsonFloat } from './importfields.js';
import { importClock, workEntry } from './importwork.js';
import { REVIEW_EXPORT_FORMAT, REVIEW_EXPORT_READS, REVIEW_EXPORT_VERSION } from '../state/reviewentries.js';

/** The largest file gold reads (safeio.EXPORT_LIMIT). */
export const IMPORT_LIMIT = 512 * 1024 * 1024;
/** Deeper JSON than this is refused: Python's reader stops near 1,000 levels (RecursionError). */
const MAX_DEPTH = 500;

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const refuse = (name, text) => new Error(`${name}: ${text}: nothing was imported.`);

/** The text of a review export file as gold reads it (UTF-8, a BOM dropped), or a refusal naming the file. */
export async function readReviewFile(file) {
  if (file.size > IMPORT_LIMIT) throw refuse(file.name, `too large (${Math.round(file.size / 2 ** 20)} MB; at most 512 MB)`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    throw refuse(file.name, 'not UTF-8');
  }
}

/** A number written with a fraction or an exponent (3.0, 1e2) kept apart: Python reads it as no integer. */
function marked(key, value, context) {
  if (typeof value === 'number' && Number.isInteger(value) && context?.source && /[.eE]/.test(context.source)) {
    return new JsonFloat(value);
  }
  return value;
}

function depth(root) {
  let most = 0;
  const stack = [[root, 1]];
  while (stack.length) {
    const [v, d] = stack.pop();
    if (v && typeof v === 'object' && !(v instanceof JsonFloat)) {
      most = Math.max(most, d);
      for (const child of Object.values(v)) stack.push([child, d + 1]);
    }
  }
  return most;
}

/**
 * The header of a review export's text checked against this review bundle and reviewer: the document (its
 * `records` a list), or an Error whose message is the one line the page shows.
 */
export function parseReviewImport(text, { manifest, reviewer, name }) {
  let doc;
  try {
    doc = parseJson(text, marked);
  } catch (err) {
    throw refuse(name, `not JSON (${err.message})`);
  }
  if (depth(doc) > MAX_DEPTH) throw refuse(name, `invalid JSON: nested too deeply (more than ${MAX_DEPTH} levels)`);
  const r = manifest.review;
  if (!isObj(doc) || doc.format !== REVIEW_EXPORT_FORMAT) {
    throw refuse(name, `field 'format': not a review export (${REVIEW_EXPORT_FORMAT} version ${REVIEW_EXPORT_VERSION})`);
  }
  if (!REVIEW_EXPORT_READS.includes(doc.version)) {
    throw refuse(name, `field 'version': unsupported version ${JSON.stringify(doc.version)} (this page reads versions ${REVIEW_EXPORT_READS.join(' and ')})`);
  }
  if (doc.bundle_id !== manifest.bundle_id) {
    throw refuse(name, `field 'bundle_id': a review of another bundle (${JSON.stringify(doc.bundle_id)}; this one is ${JSON.stringify(manifest.bundle_id)})`);
  }
  if (doc.merge_sha256 !== r.merge_sha256 || doc.review_id !== r.review_id) {
    throw refuse(name, `field 'merge_sha256': a stale review, made on a review bundle of another merge (review ${JSON.stringify(doc.review_id)}, merge_sha256 ${String(doc.merge_sha256).slice(0, 12)}…; this bundle's are ${JSON.stringify(r.review_id)}, ${String(r.merge_sha256).slice(0, 12)}…)`);
  }
  if (typeof doc.reviewer !== 'string' || !normalizeName(doc.reviewer)) throw refuse(name, "field 'reviewer': missing or empty");
  if (normalizeName(doc.reviewer) !== normalizeName(reviewer)) {
    throw refuse(name, `the review of ${JSON.stringify(doc.reviewer)}, not yours (${JSON.stringify(reviewer)}): open the page as that reviewer to import it`);
  }
  if (doc.client_id !== undefined && doc.client_id !== null && typeof doc.client_id !== 'string') {
    throw refuse(name, "field 'client_id': expected a string");
  }
  if (!Array.isArray(doc.records)) throw refuse(name, "field 'records': expected a list of records");
  return doc;
}

/**
 * The work of a review export's document (parseReviewImport's), every record entry checked as gold checks it;
 * `lookup(recordId, withTexts)` resolves to {record, texts} (the review record and its {summary, source}
 * TextViews when asked) or null for a record not in this review. Throws an Error naming the file, the entry
 * and the field of the first fault; one record's entries keep the newest, as gold does. `future`: how many
 * times were later than `now` (each imported as `now`).
 */
export async function checkReviewImport(doc, { manifest, name, lookup, now = nowIso() }) {
  const clock = importClock(now);
  const labels = manifest.labels || [];
  const questions = pageSettings(manifest, null).all.filter((q) => q.type !== 'span');
  const verdicts = manifest.settings?.sentence_verdicts || null;
  const records = dict();
  const times = dict();
  for (const [i, entry] of doc.records.entries()) {
    const id = isObj(entry) && typeof entry.record_id === 'string' ? entry.record_id : null;
    const found = id === null ? null : await lookup(id, needsTexts(entry));
    const c = checkEntry(entry, {
      record: found?.record || null, texts: found?.texts || null, labels, questions, verdicts,
    });
    if ('message' in c) {
      throw refuse(name, `${id === null ? `records[${i}]` : `record ${id}`}: ${c.field ? `field '${c.field}': ` : ''}${c.message}`);
    }
    const time = Math.min(c.time, instant(now));
    if (!(id in times) || time >= times[id]) {
      records[id] = workEntry(entry, c, clock);
      times[id] = time;
    }
  }
  return { records, drafts: dict(), last_export_at: null, future: clock.future };
}
