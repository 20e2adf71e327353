/**
 * One record entry of a review export checked by the rules `gold` reads it with (review/exports.py
 * `read_entry`, merge/checks.py): the page must not keep a decision that gold would refuse, or every later
 * export of the reviewer is refused too. Each check here is the twin of one there, in the same order, and
 * names the same field. Pure: the review record and its texts are given (review/reviewimport.js loads them).
 */
import { findInvalid } from '../state/exportfile.js';
import { responseProblem } from '../state/responses.js';
import { instant } from '../state/times.js';
import { NOT_CHECKED } from '../state/reviewsentences.js';
import { labelPath } from '../state/labels.js';

// What gold reads (review/exports.py ACTIONS, EDITABLE), the longest text answer in code points
// (merge/questions.py TEXT_LIMIT) and the name gold gives the span question (merge/adjudication.py SPANS).
// [[[cog
// from mercury_static.merge.questions import TEXT_LIMIT
// from mercury_static.merge.adjudication import SPANS
// from mercury_static.review.exports import ACTIONS, EDITABLE
// from mercury_static.tools.twins import const
// cog.outl(const("ACTIONS", ACTIONS))
// cog.outl(const("EDITABLE", EDITABLE))
// cog.outl(const("TEXT_LIMIT", TEXT_LIMIT, export=False))
// cog.outl(const("SPANS", SPANS, export=False))
// ]]]
export const ACTIONS = ['accept', 'reject', 'edit'];
export const EDITABLE = ['summary', 'source', 'label', 'note'];
const TEXT_LIMIT = 10_000;
const SPANS = 'spans';
// [[[end]]]

/** A number the file writes as a float (`3.0`, `1e2`): gold reads it as no integer (review/reviewimport.js). */
export class JsonFloat {
  constructor(value) {
    this.value = value;
  }
}

/** A fault of one field: thrown by the checks, caught by `entryProblem`. */
class Reject extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonFloat);
const isInt = (v) => typeof v === 'number' && Number.isInteger(v);
const q = (v) => JSON.stringify(v instanceof JsonFloat ? v.value : v) ?? String(v);
const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'boolean'
  : typeof v === 'number' || v instanceof JsonFloat ? 'number' : typeof v === 'string' ? 'string' : 'object');

/** `value` as an object ({} when absent), else the fault of `name` (exports.py `_object`). */
function object(value, name) {
  if (value === undefined || value === null) return {};
  if (!isObj(value)) throw new Reject(name, `expected an object, got ${kind(value)}`);
  return value;
}

/** `value` as a list ([] when absent), else the fault of `name` (exports.py `_list`). */
function list(value, name) {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Reject(name, `expected a list, got ${kind(value)}`);
  return value;
}

/** An optional ISO-8601 time (checks.py `parse_time`): its instant, null when absent. */
function time(value, name) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new Reject(name, 'expected an ISO-8601 time string');
  const t = instant(value);
  if (t === null) throw new Reject(name, `${q(value)} is not an ISO-8601 time`);
  return t;
}

/** A {start, end, text} span of `view` (a TextView: code points) quoting it exactly (checks.py `span`). */
function span(value, view, name) {
  if (!isObj(value)) throw new Reject(name, 'expected an object {start, end, text}');
  const { start, end, text } = value;
  if (!isInt(start) || !isInt(end)) throw new Reject(name, `start/end must be integers (got ${q(start)}, ${q(end)})`);
  if (!(start >= 0 && start < end && end <= view.length)) {
    throw new Reject(name, `offsets ${start}..${end} out of range (text has ${view.length} characters)`);
  }
  if (typeof text !== 'string') throw new Reject(name, 'quoted text missing');
  if (view.slice(start, end) !== text) throw new Reject(name, `quoted text ${q(text)} is not the text at ${start}..${end}`);
  return { start, end, text };
}

/** A label as its path of prefixes, checked against the bundle's labels (mercury.py `checked_label`). */
function label(raw, labels) {
  const path = typeof raw === 'string' ? (raw ? labelPath(raw) : []) : Array.isArray(raw) ? raw : [];
  if (!path.length) throw new Reject('label', 'expected a non-empty list of labels');
  const bad = path.find((x) => typeof x !== 'string' || !x);
  if (bad !== undefined) throw new Reject('label', `expected label texts, got ${bad === '' ? 'empty text' : kind(bad)} in the list`);
  const unknown = path.find((x) => !labels.includes(x));
  if (unknown !== undefined) throw new Reject('label', `unknown label ${q(unknown)} (bundle labels: ${labels.join(', ')})`);
  return [...path];
}

/** An annotation as edited or added, checked as gold checks it (exports.py `annotation`): the page's form. */
function annotation(a, texts, name, labels) {
  try {
    const summary = span(a.summary, texts.summary, 'summary');
    const source = a.source === undefined || a.source === null ? null : span(a.source, texts.source, 'source');
    const path = label(a.label, labels);
    if (a.note !== undefined && a.note !== null && typeof a.note !== 'string') throw new Reject('note', 'expected a string');
    if (a.created_at !== undefined && a.created_at !== null && typeof a.created_at !== 'string') {
      throw new Reject('created_at', 'expected an ISO-8601 time string');
    }
    time(a.updated_at, 'updated_at');
    return { summary, source, label: path, note: a.note ?? '' };
  } catch (err) {
    if (err instanceof Reject) throw new Reject(`${name}.${err.field}`, err.message);
    throw err;
  }
}

/** A gold answer to a question (exports.py, the `answers` loop): {from} an annotator who answered, or {value}. */
function answer(name, raw, questions, record) {
  const field = `answers.${name}`;
  const question = questions.find((x) => x.name === name);
  const a = object(raw, field);
  if (!question) throw new Reject(field, `unknown question${name === SPANS ? ' (the span question is decided by `decisions`)' : ''}`);
  const keys = Object.keys(a);
  if (keys.length === 1 && keys[0] === 'from') {
    const given = record.responses.find((r) => r.annotator === a.from)?.values || {};
    if (typeof a.from !== 'string' || !Object.hasOwn(given, name)) throw new Reject(`${field}.from`, `${q(a.from)} gave no answer to this question`);
    return { from: a.from };
  }
  if (keys.length === 1 && keys[0] === 'value') {
    const { value } = a;
    if (question.type === 'text' && typeof value === 'string' && [...value].length > TEXT_LIMIT) {
      throw new Reject(`${field}.value`, `${[...value].length} characters (at most ${TEXT_LIMIT})`);
    }
    const problem = value instanceof JsonFloat ? `${q(value)} is not an integer` : responseProblem(question, value);
    if (problem) throw new Reject(`${field}.value`, problem);
    return { value };
  }
  throw new Reject(field, 'expected {"from": ANNOTATOR} or {"value": VALUE}');
}

/**
 * The checked parts of record entry `entry` ({adjudicated, time, decisions, added, answers, comments, sentences}), or
 * {field, message}: its first fault as gold names it. `record`: the review record of its id (null: not in this
 * review), `texts`: its {summary, source} TextViews (needed only by edits and added annotations),
 * `labels`: the bundle's labels, `questions`: its non-span questions.
 */
export function checkEntry(entry, { record, texts, labels, questions, verdicts = null }) {
  try {
    return readEntry(entry, { record, texts, labels, questions, verdicts });
  } catch (err) {
    if (err instanceof Reject) return { field: err.field, message: err.message };
    throw err;
  }
}

function readEntry(entry, { record, texts, labels, questions, verdicts }) {
  if (!isObj(entry)) throw new Reject(null, 'expected an object');
  const bad = findInvalid(entry);
  if (bad) {
    const at = bad.indexOf(': ');
    throw new Reject(bad.slice(0, at) === 'value' ? null : bad.slice(0, at), bad.slice(at + 2));
  }
  if (!record) throw new Reject('record_id', 'unknown record id (not in the review bundle)');
  if (typeof entry.adjudicated !== 'boolean') throw new Reject('adjudicated', 'expected true or false');
  const at = time(entry.updated_at, 'updated_at');
  if (at === null) throw new Reject('updated_at', 'missing');
  const keys = new Map(record.annotations.map((a) => [a.key, a]));
  const decisions = {};
  for (const [key, raw] of Object.entries(object(entry.decisions, 'decisions'))) {
    const name = `decisions.${key}`;
    if (!keys.has(key)) throw new Reject(name, 'no annotation of this record has this key');
    const d = object(raw, name);
    if (!ACTIONS.includes(d.action)) throw new Reject(`${name}.action`, `${q(d.action)} is not one of ${ACTIONS.join(', ')}`);
    time(d.updated_at, `${name}.updated_at`);
    const out = { action: d.action, updated_at: d.updated_at ?? null };
    if (d.action === 'edit') {
      const given = Object.fromEntries(EDITABLE.filter((k) => Object.hasOwn(d, k)).map((k) => [k, d[k]]));
      const checked = annotation({ ...keys.get(key), ...given }, texts, name, labels);
      for (const k of Object.keys(given)) out[k] = checked[k];
    }
    decisions[key] = out;
  }
  const ids = new Map();
  const added = list(entry.added, 'added').map((raw, j) => {
    const a = object(raw, `added[${j}]`);
    if (typeof a.id !== 'string' || !a.id) throw new Reject(`added[${j}].id`, 'missing or not a string');
    if (ids.has(a.id)) {
      throw new Reject(`added[${j}].id`, `${q(a.id)} is the id of added[${ids.get(a.id)}] too (each annotation of yours needs its own id: one of the two would be lost)`);
    }
    ids.set(a.id, j);
    return {
      id: a.id, ...annotation(a, texts, `added[${j}]`, labels),
      created_at: a.created_at ?? null, updated_at: a.updated_at ?? null,
    };
  });
  const answers = {};
  for (const [name, raw] of Object.entries(object(entry.answers, 'answers'))) answers[name] = answer(name, raw, questions, record);
  const targets = new Set(['record', ...keys.keys(), ...added.map((a) => a.id)]);
  const comments = list(entry.comments, 'comments').map((raw, j) => {
    const c = object(raw, `comments[${j}]`);
    for (const k of ['id', 'on', 'author', 'time', 'text']) {
      if (typeof c[k] !== 'string') throw new Reject(`comments[${j}].${k}`, 'missing or not a string');
    }
    if (!targets.has(c.on)) throw new Reject(`comments[${j}].on`, `${q(c.on)} is neither the record, an annotation key nor an added annotation's id`);
    time(c.time, `comments[${j}].time`);
    return { id: c.id, on: c.on, author: c.author, time: c.time, text: c.text };
  });
  const sentences = settled(entry.sentences, record, texts, verdicts);
  return { adjudicated: entry.adjudicated, time: at, decisions, added, answers, comments, sentences };
}

/**
 * The settled sentences of an entry (exports.py `sentences`): {index: {from, updated_at} | {verdict, evidence,
 * updated_at}}; `verdicts`: the manifest's settings.sentence_verdicts (null: none asked).
 */
function settled(raw, record, texts, verdicts) {
  const known = new Map((record.sentences || []).map((x) => [x.sentence, x]));
  const out = {};
  list(raw, 'sentences').forEach((item, j) => {
    const name = `sentences[${j}]`;
    const d = object(item, name);
    const i = d.sentence;
    if (!Number.isInteger(i) || !known.has(i)) {
      throw new Reject(`${name}.sentence`, `${q(i)} is not a summary sentence of this record${known.size ? '' : ' (this review bundle has no sentence verdicts)'}`);
    }
    if (i in out) throw new Reject(`${name}.sentence`, `sentence ${i} is settled twice`);
    time(d.updated_at, `${name}.updated_at`);
    const rest = Object.keys(d).filter((k) => k !== 'sentence' && k !== 'updated_at');
    if (rest.length === 1 && rest[0] === 'from') {
      if (!known.get(i).verdicts.some((v) => v.annotator === d.from && v.verdict !== NOT_CHECKED)) {
        throw new Reject(`${name}.from`, `${q(String(d.from))} gave no verdict on this sentence`);
      }
      out[i] = { from: d.from, updated_at: d.updated_at ?? null };
      return;
    }
    const values = (verdicts?.options || []).map((o) => o.value);
    if (!verdicts || typeof d.verdict !== 'string' || !values.includes(d.verdict)) {
      throw new Reject(`${name}.verdict`, `${q(d.verdict)} is not a verdict of the settings (${verdicts ? values.join(', ') : 'none: the bundle asks no verdict'})`);
    }
    if (!verdicts.evidence.includes(d.verdict)) {
      if (d.evidence !== undefined && d.evidence !== null && !(Array.isArray(d.evidence) && !d.evidence.length)) {
        throw new Reject(`${name}.evidence`, `the verdict ${q(d.verdict)} carries no evidence`);
      }
      out[i] = { verdict: d.verdict, evidence: null, updated_at: d.updated_at ?? null };
      return;
    }
    if (!Array.isArray(d.evidence)) throw new Reject(`${name}.evidence`, 'expected a list of source sentence indices');
    const count = texts.source.sentences.length;
    d.evidence.forEach((e, k) => {
      if (!Number.isInteger(e) || e < 0 || e >= count || d.evidence.indexOf(e) < k) {
        throw new Reject(`${name}.evidence[${k}]`, `${q(e)} is not a source sentence (0 to ${count - 1}, each once)`);
      }
    });
    out[i] = { verdict: d.verdict, evidence: [...d.evidence], updated_at: d.updated_at ?? null };
  });
  return out;
}

/** Whether checking `entry` needs its record's texts: it edits or adds an annotation, or settles a sentence. */
export function needsTexts(entry) {
  return (isObj(entry?.decisions) && Object.values(entry.decisions).some((d) => isObj(d) && d.action === 'edit'))
    || (Array.isArray(entry?.added) && entry.added.length > 0)
    || (Array.isArray(entry?.sentences) && entry.sentences.length > 0);
}
