/**
 * Record-level responses: the answers to the settings' non-span questions and which machine
 * suggestions the annotator accepted, kept in the record's work entry beside its annotations:
 *
 *   entry.responses = {QUESTION: {value, updated_at}}   value null = cleared (a tombstone, like a deleted
 *   entry.accepted  = {QUESTION: {agent, updated_at, annotations?}}   annotation: merging never brings
 *                                                        an old answer back)
 * `annotations` (the span question): the ids of the annotations copied from that agent's suggestions; the
 * acceptance counts while one of them is live (deleting them takes it back).
 *
 *   entry.sentences = {INDEX: {value, updated_at}}     the summary sentences' verdicts (verdicts.js), value
 *                                                        {verdict, evidence, elapsed_ms?} or null = cleared
 * Each question (and sentence) merges on its own, newest `updated_at` winning, so two tabs answering different
 * questions of one record both keep their answers. No DOM: storage.js and store.js call it.
 */
import { isAfter } from './times.js';

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isTime = (v) => v === null || v === undefined || typeof v === 'string';
const blank = () => Object.create(null);
/**
 * The stamped maps of an entry: answers, acceptances, and a reviewer's decisions, answers and comments
 * (`review`: {KEY: {value: object|null, updated_at}}, review/work.js), which merge the same way.
 */
const EXTRAS = ['responses', 'accepted', 'review', 'sentences'];

const isIndex = (v) => Number.isSafeInteger(v) && v >= 0;
/** A sentence's verdict the page can hold: {verdict, evidence?: [source sentences], elapsed_ms?}, or null (cleared). */
const isVerdict = (v) => v === null || (isObj(v) && typeof v.verdict === 'string' && v.verdict !== ''
  && (v.evidence === undefined || (Array.isArray(v.evidence) && v.evidence.every(isIndex)))
  && (v.elapsed_ms === undefined || isIndex(v.elapsed_ms)));

/** A response value the page can hold: a string, a finite number, a list of strings, or null (cleared). */
const isValue = (v) => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
  || (Array.isArray(v) && v.every((x) => typeof x === 'string'));

/** Merge two stamped maps ({KEY: {…, updated_at}}): the newest version of each key; `a` on equal times. */
export function mergeStamped(a, b) {
  if (!b) return a;
  if (!a) return b;
  const out = blank();
  for (const k of Object.keys(a)) out[k] = a[k];
  for (const k of Object.keys(b)) {
    if (!out[k] || isAfter(b[k].updated_at, out[k].updated_at)) out[k] = b[k];
  }
  return out;
}

/** Whether merging stamped map `b` into `a` changes anything (times only). */
export function stampedAdds(a, b) {
  for (const k of Object.keys(b || {})) {
    const mine = a ? a[k] : undefined;
    if (!mine || isAfter(b[k].updated_at, mine.updated_at)) return true;
  }
  return false;
}

/**
 * The `responses` / `accepted` of a stored record entry as read back (never trusted): an entry that is
 * not of the shape is reported in `problems` (the stored value is then kept aside by storage.js).
 * Returns {responses?, accepted?}: keys only when present, so entries without them stay as they were.
 */
export function readExtras(e, problems, where) {
  const out = {};
  for (const [key, field, ok] of [['responses', 'value', isValue], ['accepted', 'agent', (v) => v === null || typeof v === 'string'],
    ['review', 'value', (v) => v === null || isObj(v)], ['sentences', 'value', isVerdict]]) {
    if (e[key] === undefined || e[key] === null) continue;
    if (!isObj(e[key])) {
      problems.push(`${where}: field '${key}': not a map`);
      continue;
    }
    const map = blank();
    for (const q of Object.keys(e[key])) {
      const r = e[key][q];
      if (!isObj(r) || !ok(r[field]) || !isTime(r.updated_at)) {
        problems.push(`${where}: field '${key}.${q}': unreadable`);
        continue;
      }
      if (r.annotations !== undefined && !(Array.isArray(r.annotations) && r.annotations.every((x) => typeof x === 'string'))) {
        problems.push(`${where}: field '${key}.${q}.annotations': unreadable`);
        continue;
      }
      map[q] = { [field]: Array.isArray(r[field]) ? [...r[field]] : r[field], updated_at: r.updated_at || '' };
      if (r.annotations) map[q].annotations = [...r.annotations];
    }
    if (Object.keys(map).length) out[key] = map;
  }
  return out;
}

/** The merged `responses` / `accepted` of two record entries (keys only when one side has them). */
export function mergeExtras(a, b) {
  const out = {};
  for (const key of EXTRAS) {
    const m = mergeStamped(a[key], b[key]);
    if (m) out[key] = m;
  }
  return out;
}

/** Whether entry `b` adds responses or acceptances to entry `a`. */
export const extrasAdd = (a, b) => EXTRAS.some((key) => stampedAdds(a[key], b[key]));

/** The answered questions of an entry: {QUESTION: value} (cleared ones left out). */
export function answers(entry) {
  const out = {};
  for (const [q, r] of Object.entries(entry?.responses || {})) if (!isEmpty(r.value)) out[q] = r.value;
  return out;
}

/** The accepted suggestions of an entry: {QUESTION: agent} (a span acceptance while one of its annotations is live). */
export function acceptedAgents(entry) {
  const out = {};
  const live = (id) => Boolean(entry.annotations?.[id] && !entry.annotations[id].deleted);
  for (const [q, r] of Object.entries(entry?.accepted || {})) {
    if (r.agent && (!r.annotations || r.annotations.some(live))) out[q] = r.agent;
  }
  return out;
}

/**
 * An answer that says nothing: null, blanks or an empty list (stored as a cleared response; merge refuses a
 * blank text).
 */
export const isEmpty = (v) => v === null || v === undefined || (typeof v === 'string' && !v.trim()) || (Array.isArray(v) && !v.length);

/** Stamps of an entry's responses newer than `since` (the unexported counter). */
export function changesSince(entry, since) {
  let n = 0;
  for (const key of EXTRAS) {
    for (const r of Object.values(entry?.[key] || {})) if (isAfter(r.updated_at, since)) n += 1;
  }
  return n;
}

/**
 * Why `value` is not a valid answer to `question` (settings.questions[i]), or null when it is. The same
 * rules as the merge's validation: a label in the set, a rating in the scale, a ranking a permutation.
 */
export function responseProblem(question, value) {
  const opts = (question.options || []).map((o) => o.value);
  switch (question.type) {
    case 'label':
      return opts.includes(value) ? null : `${JSON.stringify(value)} is not one of its options`;
    case 'multi_label':
      return Array.isArray(value) && value.length && value.every((v) => opts.includes(v))
        && new Set(value).size === value.length
        ? null : 'not a list of distinct options';
    case 'rating':
      return (question.values || []).includes(value) ? null : `${JSON.stringify(value)} is not on its scale`;
    case 'ranking':
      return Array.isArray(value) && value.length === opts.length && opts.every((o) => value.includes(o))
        ? null : 'not an order of all its options';
    case 'text':
      return typeof value === 'string' && value.trim() ? null : 'not a text';
    default:
      return `unknown question type ${JSON.stringify(question.type)}`;
  }
}

/**
 * The required questions a submit would leave unanswered: their titles (the span question counts as
 * answered with one annotation). `liveCount` = number of live annotations of the record.
 */
export function missingRequired(questions, entry, liveCount) {
  const given = answers(entry);
  return questions.filter((q) => q.required && (q.type === 'span' ? !liveCount : isEmpty(given[q.name])))
    .map((q) => q.title || q.name);
}

const withStamp = (map, key, value) => {
  const out = blank();
  for (const k of Object.keys(map || {})) out[k] = map[k];
  out[key] = value;
  return out;
};

/**
 * `entry` (a copy, changed in place and returned) with question `name` answered at `at`: an empty
 * value clears it; `agent` says it came from accepting that agent's suggestion, and another answer by hand
 * clears an earlier acceptance.
 */
export function answer(entry, name, value, agent, at, { undo = false } = {}) {
  // the answer given again by hand (its digit pressed twice, Enter on the order shown) keeps its acceptance
  const same = !agent && !undo && sameValue(entry.responses?.[name]?.value, value);
  entry.responses = withStamp(entry.responses, name, { value: isEmpty(value) ? null : value, updated_at: at });
  if (!same && (agent || entry.accepted?.[name]?.agent)) {
    entry.accepted = withStamp(entry.accepted, name, { agent: agent || null, updated_at: at });
  }
  return entry;
}

const sameValue = (a, b) => JSON.stringify(isEmpty(a) ? null : a) === JSON.stringify(isEmpty(b) ? null : b);

/** `entry` with question `name` as it was in `before` (undo), written as a new change at `at`. */
export function restoreAnswer(entry, before, name, at) {
  const old = before?.responses?.[name];
  return answer(entry, name, old ? old.value : null, before?.accepted?.[name]?.agent || null, at, { undo: true });
}

/** `entry` with `agent`'s span suggestion of question `name` copied in as annotation `id`, marked accepted. */
export function markAccepted(entry, name, agent, id, at) {
  const prev = entry.accepted?.[name];
  const ids = prev && prev.agent === agent && prev.annotations ? prev.annotations : [];
  entry.accepted = withStamp(entry.accepted, name, { agent, updated_at: at, annotations: [...ids, id] });
  return entry;
}
