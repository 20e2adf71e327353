/**
 * Export (the contract with `mercury-static merge`, see docs/DESIGN.md) and import of annotations.
 * Offsets in files are Python code points; the work in storage already holds them that way.
 */
import { acceptedAgents, answers, isEmpty, responseProblem } from './responses.js';
import { normalizeName } from './names.js';
import { pageSettings } from './settings.js';
import { dict, labelPath } from './storage.js';
import { liveAnnotations } from './store.js';

export const EXPORT_FORMAT = 'mercury-static/annotations';
export const EXPORT_VERSION = 2; // mercury_static/formats.py EXPORT_VERSION: the same number on both sides
/** Versions import reads: 1 (spans only) and 2 (+ responses and suggestions). */
const READABLE_VERSIONS = [1, 2];

/**
 * The export object for the annotator's work, records in bundle order: `positions` maps the work's record
 * ids to their bundle positions (RecordIndex.positionsOf: the ids shards of the work's ids, never a full
 * id list); a record it lacks is not in this bundle and not exported. Version 2: each record also
 * carries its answered questions (`responses`) and `suggestions: {shown, accepted: {QUESTION: agent}}`
 * (shown is false when the annotator works blind).
 */
export function buildExport({ manifest, positions, annotator, clientId, work, exportedAt }) {
  const shown = !pageSettings(manifest, annotator).blind;
  const recIds = Object.keys(work.records).filter((id) => positions.has(id)).sort((a, b) => positions.get(a) - positions.get(b));
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    bundle_id: manifest.bundle_id,
    title: manifest.title ?? null,
    annotator,
    client_id: clientId,
    exported_at: exportedAt.replace(/\.\d{3}Z$/, 'Z'),
    tool_version: manifest.tool_version ?? null,
    records: recIds.map((id) => {
      const e = work.records[id];
      return {
        record_id: id,
        status: e.status || 'in_progress',
        updated_at: e.updated_at,
        annotations: liveAnnotations(e).map((a) => ({
          id: a.id, label: a.label, note: a.note || '',
          summary: a.summary, source: a.source || null,
          created_at: a.created_at, updated_at: a.updated_at,
        })),
        responses: answers(e),
        suggestions: { shown, accepted: acceptedAgents(e) },
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

/** Trigger a download of `obj` as a JSON file (Blob + <a download>). */
export function downloadJson(obj, fileName) {
  const blob = new Blob([`${JSON.stringify(obj, null, 1)}\n`], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The responses and accepted suggestions of an exported record entry, stamped with its time (version 2). */
function importedExtras(r, at) {
  const out = {};
  if (isMap(r.responses) && Object.keys(r.responses).length) {
    out.responses = dict();
    for (const q of Object.keys(r.responses)) out.responses[q] = { value: r.responses[q], updated_at: at };
  }
  const accepted = isMap(r.suggestions) && isMap(r.suggestions.accepted) ? r.suggestions.accepted : null;
  if (accepted && Object.keys(accepted).length) {
    out.accepted = dict();
    for (const q of Object.keys(accepted)) out.accepted[q] = { agent: String(accepted[q]), updated_at: at };
  }
  return out;
}

const isSpan = (s) => s && Number.isInteger(s.start) && Number.isInteger(s.end) && typeof s.text === 'string';

/**
 * Parse an export file into work (storage shape). Throws Error with a one-line message when the file
 * is not an export, belongs to another bundle, or to another annotator. Whether its records are in
 * this bundle is checkAgainstBundle's part (through the ids shards).
 */
export function parseImport(text, { manifest, annotator }) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error('This file is not JSON: nothing was imported.');
  }
  if (!data || data.format !== EXPORT_FORMAT || !Array.isArray(data.records)) {
    throw new Error('This file is not a mercury-static annotations export: nothing was imported.');
  }
  if (!READABLE_VERSIONS.includes(data.version)) {
    throw new Error(`This export is of version ${JSON.stringify(data.version)}, which this page (versions ${READABLE_VERSIONS.join(' and ')}) cannot read: nothing was imported.`);
  }
  if (data.bundle_id !== manifest.bundle_id) {
    throw new Error(`This export belongs to another bundle (${data.title || data.bundle_id}), not to this one (${manifest.title || manifest.bundle_id}): nothing was imported.`);
  }
  if (normalizeName(data.annotator) !== normalizeName(annotator)) {
    throw new Error(`This export is ${JSON.stringify(data.annotator)}'s work; you are ${JSON.stringify(annotator)}. Open the page with ?annotator=${encodeURIComponent(data.annotator)} to import it: nothing was imported.`);
  }
  const records = dict(); // record ids such as `__proto__` are plain keys here
  let skipped = 0;
  let count = 0;
  for (const r of data.records) {
    if (!r || typeof r.record_id !== 'string' || !['submitted', 'discarded', 'in_progress'].includes(r.status)) {
      skipped += 1;
      continue;
    }
    const annotations = dict();
    for (const a of Array.isArray(r.annotations) ? r.annotations : []) {
      const label = a && typeof a.label === 'string' && a.label ? labelPath(a.label) : a?.label;
      if (!a || typeof a.id !== 'string' || !Array.isArray(label) || !label.length || !isSpan(a.summary) || (a.source && !isSpan(a.source))) {
        skipped += 1;
        continue;
      }
      annotations[a.id] = {
        id: a.id, label: label.map(String), note: String(a.note || ''),
        summary: { start: a.summary.start, end: a.summary.end, text: a.summary.text },
        source: a.source ? { start: a.source.start, end: a.source.end, text: a.source.text } : null,
        created_at: String(a.created_at || r.updated_at || ''), updated_at: String(a.updated_at || r.updated_at || ''),
      };
      count += 1;
    }
    const at = String(r.updated_at || '');
    records[r.record_id] = {
      // An exported status is at least as old as the record's updated_at.
      status: r.status, status_at: at, updated_at: at, annotations, ...importedExtras(r, at),
    };
  }
  const exportedAt = typeof data.exported_at === 'string' ? data.exported_at : null;
  return { work: { records, drafts: dict(), last_export_at: null }, records: Object.keys(records).length, annotations: count, skipped, exportedAt };
}

/**
 * Check imported work against this bundle's records, texts and labels, as `mercury-static merge` does: a
 * record this bundle lacks (its id is in no ids shard), and an annotation whose offsets are out of range,
 * whose quoted text differs from the text at its offsets, or whose label is unknown, are dropped
 * (counted in `skipped`). Returns {work, records, annotations, skipped}.
 */
export async function checkAgainstBundle(work, bundle) {
  const labels = new Set(bundle.manifest.labels || []);
  const questions = new Map(pageSettings(bundle.manifest, null).questions.map((q) => [q.name, q]));
  const fits = (view, span) => {
    if (!span) return true;
    const o = view.offsets;
    return span.start >= 0 && span.start < span.end && span.end <= o.toCp(view.text.length)
      && view.text.slice(o.to16(span.start), o.to16(span.end)) === span.text;
  };
  const records = dict();
  let skipped = 0;
  let count = 0;
  const positions = await bundle.recordIndex.positionsOf(Object.keys(work.records));
  for (const id of Object.keys(work.records)) {
    let rec;
    try {
      if (!positions.has(id)) throw new Error(`no record ${id}`);
      rec = await bundle.record(id, positions.get(id));
    } catch {
      skipped += 1;
      continue;
    }
    const entry = work.records[id];
    const annotations = dict();
    for (const aid of Object.keys(entry.annotations)) {
      const a = entry.annotations[aid];
      if (fits(rec.summary, a.summary) && fits(rec.source, a.source) && a.label.every((l) => labels.has(l))) {
        annotations[aid] = a;
        count += 1;
      } else skipped += 1;
    }
    records[id] = { ...entry, annotations };
    if (entry.responses) {
      // a response must answer a question of this bundle with a valid value, as merge checks it
      const responses = dict();
      for (const q of Object.keys(entry.responses)) {
        const question = questions.get(q);
        const { value } = entry.responses[q];
        if (question && (isEmpty(value) || !responseProblem(question, value))) responses[q] = entry.responses[q];
        else skipped += 1;
      }
      records[id].responses = responses;
    }
  }
  return { work: { ...work, records }, records: Object.keys(records).length, annotations: count, skipped };
}
