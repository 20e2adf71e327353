/**
 * The fields of a review export's record entry checked one by one, each the twin of gold's check of it
 * (review/exports.py, merge/checks.py), naming the same field: the checks importcheck.js reads an entry with.
 */
import { responseProblem } from '../state/responses.js';
import { labelPath } from '../state/labels.js';
import { instant } from '../state/times.js';

// The longest text answer in code points (merge/questions.py TEXT_LIMIT) and the name gold gives the span
// question (merge/adjudication.py SPANS).
// [[[cog
// from mercury_static.merge.questions import TEXT_LIMIT
// from mercury_static.merge.adjudication import SPANS
// from mercury_static.tools.twins import const
// cog.outl(const("TEXT_LIMIT", TEXT_LIMIT, export=False))
// cog.outl(const("SPANS", SPANS, export=False))
// ]]]
const TEXT_LIMIT = 10_000;
const SPANS = 'spans';
// [[[end]]]

/** A number the file writes as a float (`3.0`, `1e2`): gold reads it as no integer (review/reviewimport.js). */
export class JsonFloat {
  constructor(value) {
    this.value = value;
  }
}

/** A fault of one field: thrown by the checks, caught by importcheck.js `checkEntry`. */
export class Reject extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

export const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonFloat);
const isInt = (v) => typeof v === 'number' && Number.isInteger(v);
export const q = (v) => JSON.stringify(v instanceof JsonFloat ? v.value : v) ?? String(v);
const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'boolean'
  : typeof v === 'number' || v instanceof JsonFloat ? 'number' : typeof v === 'string' ? 'string' : 'object');

/** `value` as an object ({} when absent), else the fault of `name` (exports.py `_object`). */
export function object(value, name) {
  if (value === undefined || value === null) return {};
  if (!isObj(value)) throw new Reject(name, `expected an object, got ${kind(value)}`);
  return value;
}

/** `value` as a list ([] when absent), else the fault of `name` (exports.py `_list`). */
export function list(value, name) {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Reject(name, `expected a list, got ${kind(value)}`);
  return value;
}

/** An optional ISO-8601 time (checks.py `parse_time`): its instant, null when absent. */
export function time(value, name) {
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
export function annotation(a, texts, name, labels) {
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
export function answer(name, raw, questions, record) {
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
