/**
 * One record entry of a review export checked by the rules `gold` reads it with (review/exports.py
 * `read_entry`, merge/checks.py): the page must not keep a decision that gold would refuse, or every later
 * export of the reviewer is refused too. Each check here is the twin of one there, in the same order, and
 * names the same field. Pure: the review record and its texts are given (review/reviewimport.js loads them).
 */
import { findInvalid } from '../state/exportfile.js';
import { NOT_CHECKED } from '../state/reviewsentences.js';
import { annotation, answer, isObj, list, object, q, Reject, time } from './importfields.js';

// What gold reads (review/exports.py ACTIONS, EDITABLE).
// [[[cog
// from mercury_static.review.exports import ACTIONS, EDITABLE
// from mercury_static.tools.twins import const
// cog.outl(const("ACTIONS", ACTIONS))
// cog.outl(const("EDITABLE", EDITABLE))
// ]]]
export const ACTIONS = ['accept', 'reject', 'edit'];
export const EDITABLE = ['summary', 'source', 'label', 'note'];
// [[[end]]]

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
