/**
 * Export (the contract with `mercury-static merge`, see docs/DESIGN.md) and import of annotations.
 * Offsets in files are Python code points; the work in storage already holds them that way.
 */
import { EXPORT } from '../data/formats.js';
import { acceptedAgents, answers, isEmpty, responseProblem } from './responses.js';
import { normalizeName } from './names.js';
import { pageSettings } from './settings.js';
import { recordAsShown } from './suggestions.js';
import { liveAnnotations } from './store.js';
import { instant } from './times.js';
import { MAX_MS, activeMs } from './timeontask.js';
import { exportedSentences, fittingVerdicts, importedSentences, verdictSettings } from './verdicts.js';
import { STATUSES } from './workmerge.js';
import { dict, withKey } from '../util.js';
import { labelPath } from './labels.js';


/**
 * The export object for the annotator's work, records in bundle order: `positions` maps the work's record
 * ids to their bundle positions (RecordIndex.positionsOf: the ids shards of the work's ids, never a full
 * id list); a record it lacks is not in this bundle and not exported. Version 2: each record also
 * carries its answered questions (`responses`) and `suggestions: {shown, accepted: {QUESTION: agent}}`
 * (shown is false when the annotator works blind). Version 3: a record's time on task `active_ms` and an
 * annotation's creation-to-save `elapsed_ms` (timeontask.js), each only when the page counted it. Version 4:
 * a record's summary sentences judged (`sentences`, verdicts.js), only when it has any.
 */
export function buildExport({ manifest, positions, annotator, clientId, work, exportedAt }) {
  const shown = !pageSettings(manifest, annotator).blind;
  const verdicts = verdictSettings(manifest);
  const recIds = Object.keys(work.records).filter((id) => positions.has(id))
    .sort((a, b) => positions.get(a) - positions.get(b));
  return {
    format: EXPORT.name,
    version: EXPORT.version,
    bundle_id: manifest.bundle_id,
    title: manifest.title ?? null,
    annotator,
    client_id: clientId,
    exported_at: exportedAt.replace(/\.\d{3}Z$/, 'Z'),
    tool_version: manifest.tool_version ?? null,
    records: recIds.map((id) => {
      const e = work.records[id];
      const active = activeMs(e);
      const sentences = exportedSentences(e, verdicts);
      return {
        record_id: id,
        status: e.status || 'in_progress',
        updated_at: e.updated_at,
        annotations: liveAnnotations(e).map((a) => ({
          id: a.id, label: a.label, note: a.note || '',
          summary: a.summary, source: a.source || null,
          created_at: a.created_at, updated_at: a.updated_at,
          ...(a.elapsed_ms === undefined ? {} : { elapsed_ms: a.elapsed_ms }),
        })),
        responses: answers(e),
        suggestions: { shown, accepted: acceptedAgents(e) },
        ...(active === null ? {} : { active_ms: active }),
        ...(sentences.length ? { sentences } : {}),
      };
    }),
  };
}

/** File name: <title-or-bundle>-<annotator>-<UTC stamp>.json (safe characters only). */
export function exportFileName(manifest, annotator, exportedAt) {
  const slug = (s) => String(s).normalize('NFKD').replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
  const stamp = exportedAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${slug(manifest.title || manifest.bundle_id) || 'bundle'}-${slug(annotator) || 'annotator'}-${stamp}.json`;
}

/** The text of an export file (Export's download and the upload are the same bytes). */
export const exportText = (obj) => `${JSON.stringify(obj, null, 1)}\n`;

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const LONE_SURROGATE = /\p{Surrogate}/u; // a pair is one code point under /u: only a lone half matches
const DUPLICATE = Symbol('the first key an object had twice');

/**
 * JSON.parse that also marks each object which had a key twice (JSON.parse keeps the last silently; merge
 * refuses such an object: which value is meant?). Throws SyntaxError as JSON.parse does; `reviver` as
 * JSON.parse's (it may replace numbers, not objects or arrays).
 */
export function parseJson(text, reviver = undefined) {
  const root = JSON.parse(text, reviver);
  const frames = []; // per open object or array: {keys, key, wantKey} or {index}
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = frames[frames.length - 1];
    if (c === '{') frames.push({ keys: new Set(), key: null, wantKey: true });
    else if (c === '[') frames.push({ index: 0 });
    else if (c === '}' || c === ']') frames.pop();
    else if (c === ',') {
      if (top.keys) top.wantKey = true;
      else top.index += 1;
    } else if (c === ':') top.wantKey = false;
    else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (top?.keys && top.wantKey) {
        const key = JSON.parse(text.slice(i, j + 1));
        if (top.keys.has(key)) {
          let obj = root; // the object of `top`: reached through the keys and indices of the frames above it
          for (const f of frames.slice(0, -1)) obj = obj[f.keys ? f.key : f.index];
          if (obj && obj[DUPLICATE] === undefined) Object.defineProperty(obj, DUPLICATE, { value: key });
        }
        top.keys.add(key);
        top.key = key;
      }
      i = j;
    }
  }
  return root;
}

/**
 * Where `value` (parseJson's) holds something JSON cannot carry faithfully, as merge finds it
 * (safeio.find_invalid): a lone surrogate in a text or a key, a number that is not finite (1e999), a key
 * twice in one object. Returns "field: problem" or null.
 */
export function findInvalid(value, skip = []) {
  const stack = [['', value, true]];
  const join = (where, k) => (where ? `${where}.${k}` : k);
  while (stack.length) {
    const [where, v, top] = stack.pop();
    if (typeof v === 'string') {
      const m = LONE_SURROGATE.exec(v);
      if (m) return `${where || 'value'}: lone surrogate U+${m[0].charCodeAt(0).toString(16).toUpperCase()} in the text (not valid Unicode)`;
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `${where || 'value'}: ${v} is not a JSON number`;
    } else if (Array.isArray(v)) {
      v.forEach((child, i) => stack.push([`${where}[${i}]`, child, false]));
    } else if (v && typeof v === 'object') {
      if (v[DUPLICATE] !== undefined) return `${join(where, v[DUPLICATE])}: duplicate key in one object (which one is meant?)`;
      for (const k of Object.keys(v)) {
        if (LONE_SURROGATE.test(k)) return `${join(where, k)}: lone surrogate in a key`;
        if (!(top && skip.includes(k))) stack.push([join(where, k), v[k], false]);
      }
    }
  }
  return null;
}

/**
 * The times of one import as the page stores them: each read as an instant (times.js, merge's grammar) and
 * written in the page's own form, so that every later comparison is of instants; a time after `now` (a
 * computer with a wrong clock) becomes `now` and is counted, or it would shadow every later edit here.
 */
function importTimes(now) {
  const nowMs = instant(now);
  const clock = { future: 0 };
  clock.read = (value) => {
    const t = instant(value);
    if (t === null) return null;
    if (t > nowMs) {
      clock.future += 1;
      return now;
    }
    return new Date(Math.floor(t)).toISOString();
  };
  return clock;
}

/** The responses and accepted suggestions of an exported record entry, stamped with its time (version 2). */
function importedExtras(r, at, leftOut, where) {
  const out = {};
  if (r.responses !== undefined && r.responses !== null && !isMap(r.responses)) leftOut(`${where}: field 'responses': expected an object {question: value}`);
  if (isMap(r.responses) && Object.keys(r.responses).length) {
    out.responses = dict();
    for (const q of Object.keys(r.responses)) out.responses[q] = { value: r.responses[q], updated_at: at };
  }
  const use = r.suggestions;
  if (use === undefined || use === null) return out;
  const accepted = isMap(use) && isMap(use.accepted) ? use.accepted : {};
  const names = Object.keys(accepted);
  if (!isMap(use) || typeof use.shown !== 'boolean') {
    leftOut(`${where}: field 'suggestions.shown': expected true or false`);
    return out;
  }
  if (use.accepted !== undefined && use.accepted !== null && !isMap(use.accepted)) leftOut(`${where}: field 'suggestions.accepted': expected an object {question: agent}`);
  if (!use.shown) {
    for (const q of names) leftOut(`${where}: field 'suggestions.accepted.${q}': accepted a suggestion that was not shown (suggestions.shown is false)`);
    return out;
  }
  if (names.length) {
    out.accepted = dict();
    for (const q of names) out.accepted[q] = { agent: accepted[q], updated_at: at };
  }
  return out;
}

/** A time on task as merge reads it: absent (unknown), else a whole number of ms ≥ 0. */
const isMs = (v) => v === undefined || v === null || (Number.isSafeInteger(v) && v >= 0 && v <= MAX_MS);
const MS_RULE = `expected a whole number of milliseconds from 0 to ${MAX_MS} (a day)`;
const isSpan = (s) => isMap(s) && Number.isInteger(s.start) && Number.isInteger(s.end) && typeof s.text === 'string';

/** Why an exported annotation cannot be read as merge reads it ("field 'x': problem"), or null. */
function annotationProblem(a, label) {
  if (!isMap(a)) return 'expected an object';
  const bad = findInvalid(a);
  if (bad) return `field '${bad.replace(/: /, "': ")}`;
  if (typeof a.id !== 'string' || !a.id) return "field 'id': missing or not a string";
  if (!Array.isArray(label) || !label.length || !label.every((l) => typeof l === 'string')) return "field 'label': expected a non-empty list of labels";
  if (a.note !== undefined && a.note !== null && typeof a.note !== 'string') return "field 'note': expected a string";
  if (a.created_at !== undefined && a.created_at !== null && typeof a.created_at !== 'string') return "field 'created_at': expected an ISO-8601 time string";
  if (a.updated_at !== undefined && a.updated_at !== null && instant(a.updated_at) === null) return "field 'updated_at': not an ISO-8601 time";
  if (!isSpan(a.summary)) return "field 'summary': expected an object {start, end, text}";
  if (a.source !== undefined && a.source !== null && !isSpan(a.source)) return "field 'source': expected an object {start, end, text}";
  if (!isMs(a.elapsed_ms)) return `field 'elapsed_ms': ${MS_RULE}`;
  return null;
}

/**
 * Parse an export file into work (storage shape), read with the rules `mercury-static merge` reads it
 * with, so that nothing is kept here that merge would drop later: a record entry or an annotation that
 * merge refuses is left out, and so is an answer or acceptance it drops; `left` names each one ("record
 * r1, annotation a1: field 'note': lone surrogate …"). Throws Error with a one-line message when the
 * file is not an export, belongs to another bundle, or to another annotator. Whether its records, spans,
 * labels and answers fit this bundle is checkAgainstBundle's part (through the ids shards). `now`: the
 * import's time, which no imported time may pass (`future` counts those brought back to it). A version-3 file's
 * time on task is kept as its browser's counter, unless that browser is this one (`clientId`): its time is here.
 */
export function parseImport(text, { manifest, annotator, clientId = null, now = new Date().toISOString() }) {
  let data;
  try {
    data = parseJson(text);
  } catch {
    throw new Error('This file is not JSON: nothing was imported.');
  }
  if (!data || data.format !== EXPORT.name || !Array.isArray(data.records)) {
    throw new Error('This file is not a mercury-static annotations export: nothing was imported.');
  }
  if (!EXPORT.reads.includes(data.version)) {
    throw new Error(`This export is of version ${JSON.stringify(data.version)}, which this page (versions ${EXPORT.reads.join(' and ')}) cannot read: nothing was imported.`);
  }
  const bad = findInvalid(data, ['records']);
  if (bad) throw new Error(`This file cannot be read as it is (${bad}): nothing was imported.`);
  if (data.bundle_id !== manifest.bundle_id) {
    throw new Error(`This export belongs to another bundle (${data.title || data.bundle_id}), not to this one (${manifest.title || manifest.bundle_id}): nothing was imported.`);
  }
  if (normalizeName(data.annotator) !== normalizeName(annotator)) {
    throw new Error(`This export is ${JSON.stringify(data.annotator)}'s work; you are ${JSON.stringify(annotator)}. Open the page with ?annotator=${encodeURIComponent(data.annotator)} to import it: nothing was imported.`);
  }
  const records = dict(); // record ids such as `__proto__` are plain keys here
  // a file's time on task is one counter, the file's browser's (this browser's own time it has already)
  const imported = (ms) => withKey(dict(), `file:${data.client_id}`, ms);
  const left = [];
  let skipped = 0;
  const leftOut = (why) => {
    skipped += 1;
    left.push(why);
  };
  let count = 0;
  const clock = importTimes(now);
  data.records.forEach((r, i) => {
    let where = `records[${i}]`;
    if (!isMap(r)) return leftOut(`${where}: expected an object`);
    if (typeof r.record_id === 'string') where = `record ${r.record_id}`;
    const invalid = findInvalid(r, ['annotations']);
    const at = clock.read(r.updated_at);
    const problem = invalid ? `field '${invalid.replace(/: /, "': ")}`
      : typeof r.record_id !== 'string' ? "field 'record_id': missing or not a string"
        : !STATUSES.includes(r.status) ? `field 'status': ${JSON.stringify(r.status)} is not one of ${STATUSES.join(', ')}`
          : at === null ? "field 'updated_at': missing or not an ISO-8601 time"
            : !Array.isArray(r.annotations) ? "field 'annotations': expected a list"
              : !isMs(r.active_ms) ? `field 'active_ms': ${MS_RULE}` : null;
    if (problem) return leftOut(`${where}: ${problem}`);
    const annotations = dict();
    r.annotations.forEach((a, j) => {
      const label = isMap(a) && typeof a.label === 'string' && a.label ? labelPath(a.label) : a?.label;
      const why = annotationProblem(a, label);
      if (why) {
        leftOut(`${where}, ${isMap(a) && typeof a.id === 'string' && a.id ? `annotation ${a.id}` : `annotations[${j}]`}: ${why}`);
        return;
      }
      const updated = clock.read(a.updated_at) || at;
      annotations[a.id] = {
        id: a.id, label: [...label], note: a.note || '',
        summary: { start: a.summary.start, end: a.summary.end, text: a.summary.text },
        source: a.source ? { start: a.source.start, end: a.source.end, text: a.source.text } : null,
        created_at: clock.read(a.created_at) || updated, updated_at: updated,
        ...(Number.isSafeInteger(a.elapsed_ms) ? { elapsed_ms: a.elapsed_ms } : {}),
      };
      count += 1;
    });
    records[r.record_id] = {
      // An exported status is at least as old as the record's updated_at.
      status: r.status, status_at: at, updated_at: at, annotations,
      ...(data.version >= 2 ? importedExtras(r, at, leftOut, where) : {}),
      ...(data.version >= 4 ? importedSentences(r.sentences, clock.read, leftOut, where) : {}),
      ...(Number.isSafeInteger(r.active_ms) && data.client_id !== clientId ? { active: imported(r.active_ms) } : {}),
    };
    return null;
  });
  const exportedAt = typeof data.exported_at === 'string' ? data.exported_at : null;
  return {
    work: { records, drafts: dict(), last_export_at: null }, records: Object.keys(records).length, annotations: count,
    skipped,
    left, future: clock.future, exportedAt,
  };
}

/**
 * Check imported work against this bundle's records, texts, labels, questions and suggestions, as
 * `mercury-static merge` does: a record this bundle lacks (its id is in no ids shard), an annotation whose
 * offsets are out of range, whose quoted text differs from the text at its offsets, or whose label is
 * unknown, an answer that does not fit its question, an acceptance of an agent that made no suggestion
 * for that question on this record, are left out: counted in `skipped`, each named in `left`. Returns
 * {work, records, annotations, skipped, left}. `blind`: the suggestions are hidden from this annotator.
 */
export async function checkAgainstBundle(work, bundle, blind) {
  const labels = new Set(bundle.manifest.labels || []);
  const questions = new Map(pageSettings(bundle.manifest, null).questions.map((q) => [q.name, q]));
  const spanQuestion = bundle.spanQuestion;
  const verdicts = verdictSettings(bundle.manifest);
  const fits = (view, span) => {
    if (!span) return true;
    const o = view.offsets;
    return span.start >= 0 && span.start < span.end && span.end <= o.toCp(view.text.length)
      && view.text.slice(o.to16(span.start), o.to16(span.end)) === span.text;
  };
  const records = dict();
  const left = [];
  let count = 0;
  const positions = await bundle.recordIndex.positionsOf(Object.keys(work.records));
  for (const id of Object.keys(work.records)) {
    let rec;
    try {
      if (!positions.has(id)) throw new Error(`no record ${id}`);
      rec = recordAsShown(await bundle.record(id, positions.get(id)), { blind: Boolean(blind), spanQuestion });
    } catch {
      left.push(`record ${id}: not in this bundle`);
      continue;
    }
    const entry = work.records[id];
    const annotations = dict();
    for (const aid of Object.keys(entry.annotations)) {
      const a = entry.annotations[aid];
      const unknown = a.label.find((l) => !labels.has(l));
      const why = !fits(rec.summary, a.summary) ? "field 'summary': its offsets do not hold its text in this bundle"
        : !fits(rec.source, a.source) ? "field 'source': its offsets do not hold its text in this bundle"
          : unknown !== undefined ? `field 'label': unknown label ${JSON.stringify(unknown)}` : null;
      if (why) left.push(`record ${id}, annotation ${aid}: ${why}`);
      else {
        annotations[aid] = a;
        count += 1;
      }
    }
    records[id] = {
      ...entry, annotations, ...fittingVerdicts(entry.sentences, verdicts, rec, (why) => left.push(`record ${id}: ${why}`)),
    };
    if (entry.responses) {
      // a response must answer a question of this bundle with a valid value, as merge checks it
      const responses = dict();
      for (const q of Object.keys(entry.responses)) {
        const question = questions.get(q);
        const { value } = entry.responses[q];
        const why = !question ? 'unknown question' : isEmpty(value) ? null : responseProblem(question, value);
        if (why) left.push(`record ${id}: field 'responses.${q}': ${why}`);
        else responses[q] = entry.responses[q];
      }
      records[id].responses = responses;
    }
    if (entry.accepted) {
      // an accepted suggestion must be one this record has: that agent suggested for that question
      const suggested = [...(rec.suggestions || []), ...(rec.prior_annotations || [])];
      const accepted = dict();
      for (const q of Object.keys(entry.accepted)) {
        const { agent } = entry.accepted[q];
        const made = typeof agent === 'string' && suggested.some((sg) => sg && sg.question === q && sg.agent === agent);
        const why = !questions.has(q) && q !== spanQuestion ? 'unknown question'
          : !made ? `${JSON.stringify(agent)} made no suggestion for this question on this record` : null;
        if (why) left.push(`record ${id}: field 'suggestions.accepted.${q}': ${why}`);
        else accepted[q] = entry.accepted[q];
      }
      if (Object.keys(accepted).length) records[id].accepted = accepted;
      else delete records[id].accepted;
    }
  }
  return {
    work: { ...work, records }, records: Object.keys(records).length, annotations: count, skipped: left.length, left,
  };
}
