/**
 * Persistence of an annotator's work in IndexedDB, one entry per record, per draft and one for the
 * export time, under a work key per (bundle id, annotator).
 *
 * Why IndexedDB: Chromium commits localStorage to disk in batches seconds later (a killed browser lost
 * the last changes), and rewriting one JSON value per change grew slow with thousands of annotations. A
 * `durability: "strict"` transaction is on disk when it completes, and a change writes one small entry.
 * The page says "saved" only after that completion.
 *
 * Work shape: {records: {RECORD_ID: {status, status_at, updated_at, annotations: {ID: annotation},
 * responses?, accepted? (responses.js), active? (the time on task's counters, timeontask.js)}},
 * drafts: {RECORD_ID: draft}, last_export_at}; every map has no prototype (`__proto__` and
 * `constructor` are ids like any other). A deleted annotation stays as a tombstone {id, deleted: true,
 * updated_at} so that merging never resurrects it. Every write merges with the stored entry inside its
 * transaction (newest status, newest version of each annotation, newest draft), so two tabs never
 * overwrite each other's newer work; the merged entries are broadcast to the other tabs.
 *
 * A change still in flight when the page goes away (a reload or a closed tab right after it) would be lost:
 * the browser aborts an IndexedDB transaction that has not completed when its page unloads. So at
 * `pagehide` the changes not yet on disk are written to localStorage (synchronous, kept across the
 * navigation), one journal per tab, and the next `open()` merges them in durably before it deletes them.
 *
 * What cannot be read is never overwritten: a work key holding an unreadable entry is kept aside as it
 * is, the readable part is carried to a fresh key (`KEY#2`, `#3`, …) and the caller is told (with the raw
 * value, for a download). Work of older versions of the page (one localStorage JSON value) is read the
 * same way and carried over.
 */

import { labelPath } from './labels.js';
import { readExtras } from './responses.js';
import { isAfter, later as newer } from './times.js';
import { isActive } from './timeontask.js';
import { PREFIX, prefs } from './prefs.js';
import { STATUSES, emptyWork, mergeDraft, mergeRecord, mergeWork } from './workmerge.js';
import { dict, hasOwn, withKey } from '../util.js';

const DB_NAME = 'mercury-static';
const STORE = 'entries';

// --- reading what is stored (never trusted) ---------------------------------------------------------

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isTime = (v) => v === null || v === undefined || typeof v === 'string';
const isSpan = (s) => isObj(s) && Number.isInteger(s.start) && Number.isInteger(s.end) && s.start >= 0
  && s.start < s.end && typeof s.text === 'string';
const isDraftSpan = (s) => Array.isArray(s) && s.length === 2
  && Number.isInteger(s[0]) && Number.isInteger(s[1]) && s[0] <= s[1];

/** A stored annotation's creation-to-save time (timeontask.js) as `{elapsed_ms}`, or {} when it has none. */
function readElapsed(ms, problems, where) {
  if (ms === undefined) return {};
  if (Number.isSafeInteger(ms) && ms >= 0) return { elapsed_ms: ms };
  problems.push(`${where}: field 'elapsed_ms': not a count of ms, left out`);
  return {};
}

/**
 * One stored annotation, or null when it cannot be read. `problems` collects what was not as expected
 * (a string label is read as its path; it still counts, so the stored value is kept aside).
 */
function readAnnotation(id, a, problems, where) {
  if (!isObj(a) || typeof a.id !== 'string' || a.id !== id || !isTime(a.updated_at)) {
    problems.push(`${where}: annotation ${JSON.stringify(id)}: not an annotation`);
    return null;
  }
  if (a.deleted === true) return { id, deleted: true, updated_at: a.updated_at || '' };
  let { label } = a;
  if (typeof label === 'string' && label) {
    problems.push(`${where}: annotation ${JSON.stringify(id)}: field 'label': a string, read as its path`);
    label = labelPath(label);
  }
  if (!Array.isArray(label) || !label.length || !label.every((l) => typeof l === 'string')
    || !isSpan(a.summary) || !(a.source === null || a.source === undefined || isSpan(a.source))
    || !isTime(a.created_at) || (a.note !== undefined && a.note !== null && typeof a.note !== 'string')) {
    problems.push(`${where}: annotation ${JSON.stringify(id)}: unreadable fields`);
    return null;
  }
  const elapsed = readElapsed(a.elapsed_ms, problems, `${where}: annotation ${JSON.stringify(id)}`);
  return {
    id, label: [...label], note: a.note || '',
    summary: { start: a.summary.start, end: a.summary.end, text: a.summary.text },
    source: a.source ? { start: a.source.start, end: a.source.end, text: a.source.text } : null,
    created_at: a.created_at || a.updated_at || '', updated_at: a.updated_at || '',
    ...elapsed,
  };
}

/** One stored record entry (its readable annotations), or null when it is not a record entry at all. */
function readRecord(id, e, problems) {
  const where = `record ${JSON.stringify(id)}`;
  if (!isObj(e) || !(e.status === undefined || e.status === null || STATUSES.includes(e.status))
    || !isTime(e.status_at) || !isTime(e.updated_at) || !(e.annotations === undefined || isObj(e.annotations))) {
    problems.push(`${where}: not a record entry`);
    return null;
  }
  const annotations = dict();
  for (const aid of Object.keys(e.annotations || {})) {
    const a = readAnnotation(aid, e.annotations[aid], problems, where);
    if (a) annotations[aid] = a;
  }
  const active = isActive(e.active) ? e.active : null;
  if (e.active !== undefined && !active) problems.push(`${where}: field 'active': not a map of counts of ms, left out`);
  return {
    status: e.status || 'in_progress', status_at: e.status_at || null, updated_at: e.updated_at || null, annotations,
    ...readExtras(e, problems, where),
    ...(active ? { active: dict(active) } : {}),
  };
}

const absent = (v) => v === null || v === undefined;

/** Whether `d` has a stored draft's shape. */
const isDraft = (d) => isObj(d) && isTime(d.updated_at)
  && [d.summary, d.source].every((s) => absent(s) || isDraftSpan(s))
  && (d.unit === undefined || d.unit === 'cp') // no unit: UTF-16 spans of an earlier page (store.js converts)
  && Array.isArray(d.labels) && d.labels.every((l) => typeof l === 'string') && typeof d.note === 'string'
  && (absent(d.anchor) || d.anchor === 'summary' || d.anchor === 'source')
  && (absent(d.editingId) || typeof d.editingId === 'string')
  && (absent(d.id) || typeof d.id === 'string') // the annotation it will be saved as
  && isTime(d.started); // its first work (the creation-to-save time)

/** One stored draft, or null. */
function readDraft(id, d, problems) {
  if (!isDraft(d)) {
    problems.push(`draft of record ${JSON.stringify(id)}: unreadable`);
    return null;
  }
  return {
    anchor: d.anchor || null, summary: d.summary || null, source: d.source || null, labels: [...d.labels],
    note: d.note, editingId: d.editingId || null, ...(d.id ? { id: d.id } : {}), ...(d.unit ? { unit: d.unit } : {}),
    ...(d.started ? { started: d.started } : {}), updated_at: d.updated_at || '',
  };
}

/** Work of an older page version: one JSON value. Returns {work, problems} (work null: unreadable). */
function readLegacy(raw) {
  const problems = [];
  let w;
  try {
    w = JSON.parse(raw);
  } catch (err) {
    return { work: null, problems: [`invalid JSON (${err.message})`] };
  }
  if (!isObj(w) || !isObj(w.records) || !isTime(w.last_export_at)) return { work: null, problems: ['not a saved work (no records)'] };
  const work = emptyWork();
  for (const id of Object.keys(w.records)) {
    const r = readRecord(id, w.records[id], problems);
    if (r) work.records[id] = r;
  }
  work.last_export_at = w.last_export_at || null;
  return { work, problems };
}

export function isQuotaError(err) {
  return Boolean(err) && (err.name === 'QuotaExceededError' || err.name === 'NS_ERROR_DOM_QUOTA_REACHED' || err.code === 22);
}

// --- IndexedDB --------------------------------------------------------------------------------------

const done = (req) => new Promise((resolve, reject) => {
  req.onsuccess = () => resolve(req.result);
  req.onerror = () => reject(req.error);
});

function openDb(idb = window.indexedDB) {
  return new Promise((resolve, reject) => {
    if (!idb) {
      reject(new Error('IndexedDB is unavailable'));
      return;
    }
    const req = idb.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
    req.onblocked = () => reject(new Error('the storage is blocked by another tab of an older version'));
  });
}

/** Every stored entry of `key`: [{kind, id, value}]. */
async function readEntries(db, key) {
  const os = db.transaction(STORE, 'readonly').objectStore(STORE);
  const range = IDBKeyRange.bound([key], [key, []]);
  const [keys, values] = await Promise.all([done(os.getAllKeys(range)), done(os.getAll(range))]);
  return keys.map((k, i) => ({ kind: k[1], id: k[2], value: values[i] }));
}

/** Work from stored entries: {work, problems}. */
function readWork(entries) {
  const work = emptyWork();
  const problems = [];
  for (const { kind, id, value } of entries) {
    if (kind === 'r') {
      const r = readRecord(id, value, problems);
      if (r) work.records[id] = r;
    } else if (kind === 'd') {
      const d = readDraft(id, value, problems);
      if (d) work.drafts[id] = d;
    } else if (kind === 'm' && isObj(value) && isTime(value.last_export_at)) {
      work.last_export_at = value.last_export_at || null;
    } else problems.push(`entry ${JSON.stringify([kind, id])}: unknown`);
  }
  return { work, problems };
}

/** The entries that turn `work` into what is stored (a fresh key's first write). */
function entriesOf(work) {
  const out = [];
  for (const id of Object.keys(work.records)) out.push({ kind: 'r', id, value: work.records[id] });
  for (const id of Object.keys(work.drafts)) out.push({ kind: 'd', id, value: work.drafts[id] });
  if (work.last_export_at) out.push({ kind: 'm', id: 'meta', value: { last_export_at: work.last_export_at } });
  return out;
}

/** Storage of one annotator's work on one bundle. */
export class WorkStorage {
  constructor(bundleId, annotator, { idb = window.indexedDB, ls = window.localStorage } = {}) {
    this.base = `${PREFIX}:${bundleId}:${annotator}`;
    this.key = this.base;
    this.idb = idb;
    this.ls = ls;
    this.db = null;
    this.channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(PREFIX) : null;
    /** Changes written but not yet on disk, by `kind:id` (the newest value of each). */
    this.pending = new Map();
    const tab = Math.random().toString(36).slice(2);
    this.journalKey = `${this.base}:unload:${tab}`;
    this.lostKey = `${this.base}:lost:${tab}`;
  }

  /**
   * A small note of the records whose changes are not on disk yet (kept while a write is in flight):
   * if the page goes away before they are, and its journal cannot hold them (too large, localStorage
   * full, or no `pagehide` at all), the next load finds the note and says they were not saved.
   */
  _notePending() {
    if (!this.ls) return;
    const records = [...this.pending.values()].filter((c) => c.kind === 'r')
      .map((c) => [c.id, c.value?.updated_at || '']);
    try {
      if (records.length) this.ls.setItem(this.lostKey, JSON.stringify({ at: new Date().toISOString(), records }));
      else this.ls.removeItem(this.lostKey);
    } catch {
      // no room even for the note: the indicator still says "saving" until the write completes
    }
  }

  /**
   * At `pagehide`: the changes not yet on disk into this tab's localStorage journal. Returns whether every
   * change is kept (on disk or in the journal); when not, the pending note stays for the next load.
   */
  saveJournal() {
    if (!this.pending.size) return true;
    if (!this.ls) return false;
    try {
      this.ls.setItem(this.journalKey, JSON.stringify([...this.pending.values()].map((c) => [c.kind, c.id, c.value])));
      this.ls.removeItem(this.lostKey);
      return true;
    } catch {
      try {
        this.ls.removeItem(this.journalKey); // an older, smaller journal of this tab is not what was lost
      } catch {
        // nothing else can be done while the page unloads
      }
      this._notePending();
      return false;
    }
  }

  /**
   * The records of the pending notes left by pages that went away whose changes are still not stored
   * (in `work`, after the journals were merged): [record id]. The notes are removed as they are read.
   */
  _lostRecords(work) {
    const lost = new Set();
    if (!this.ls) return [];
    try {
      const prefix = `${this.base}:lost:`;
      const keys = [];
      for (let i = 0; i < this.ls.length; i++) {
        const k = this.ls.key(i);
        if (k && k.startsWith(prefix)) keys.push(k);
      }
      for (const k of keys) {
        let note = null;
        try {
          note = JSON.parse(this.ls.getItem(k));
        } catch {
          note = null;
        }
        for (const r of Array.isArray(note?.records) ? note.records : []) {
          if (!Array.isArray(r) || typeof r[0] !== 'string') continue;
          const stored = hasOwn(work.records, r[0]) ? work.records[r[0]] : null;
          if (!stored || isAfter(r[1], stored.updated_at)) lost.add(r[0]);
        }
        this.ls.removeItem(k);
      }
    } catch {
      return [...lost];
    }
    return [...lost];
  }

  /** The unload journals of this annotator's work on this bundle: [[key, raw]]. */
  _journals() {
    const out = [];
    try {
      const prefix = `${this.base}:unload:`;
      for (let i = 0; i < this.ls.length; i++) {
        const k = this.ls.key(i);
        if (k && k.startsWith(prefix)) out.push([k, this.ls.getItem(k)]);
      }
    } catch {
      return [];
    }
    return out;
  }

  /**
   * Read the work. Returns {work, aside: [{where, problems, raw}], lost: [record id]}: `aside` lists
   * stored values that could not be read as they are; they are left untouched and this storage writes to a
   * fresh key. `lost`: ids of records whose changes a page kept neither on disk nor in its journal.
   */
  async open() {
    this.db = await openDb(this.idb);
    const aside = [];
    let work;
    for (let n = 1; ; n++) {
      const key = n === 1 ? this.base : `${this.base}#${n}`;
      const entries = await readEntries(this.db, key);
      const read = readWork(entries);
      if (!read.problems.length) {
        this.key = key;
        work = entries.length ? read.work : null;
        break;
      }
      aside.push({ where: `IndexedDB ${DB_NAME}, key ${key}`, problems: read.problems,
        raw: JSON.stringify(entries.map((e) => [e.kind, e.id, e.value])), salvaged: read.work });
    }
    work = work || emptyWork();
    const carried = aside.reduce((w, a) => mergeWork(w, a.salvaged), emptyWork());
    let legacy = null;
    const raw = this._legacyRaw();
    if (raw !== null) {
      legacy = readLegacy(raw);
      if (legacy.problems.length) aside.push({ where: `localStorage ${this.base}`, problems: legacy.problems, raw, salvaged: null });
    }
    let add = mergeWork(mergeWork(emptyWork(), carried), legacy?.work || null);
    const journals = this.ls ? this._journals() : [];
    const readable = [];
    for (const [k, text] of journals) {
      let entries = null;
      try {
        const parsed = JSON.parse(text);
        if (Array.isArray(parsed) && parsed.every((e) => Array.isArray(e) && e.length === 3)) entries = parsed;
      } catch {
        entries = null;
      }
      const read = entries ? readWork(entries.map(([kind, id, value]) => ({ kind, id, value }))) : null;
      if (!read || read.problems.length) {
        aside.push({ where: `localStorage ${k}`, problems: read ? read.problems : ['not a journal of entries'], raw: text, salvaged: null });
        continue;
      }
      add = mergeWork(add, read.work);
      readable.push(k);
    }
    const merged = mergeWork(work, add);
    if (merged !== work) await this.write(entriesOf(add));
    if (raw !== null && legacy.work && !legacy.problems.length) this.ls.removeItem(this.base); // carried over, durably
    for (const k of readable) this.ls.removeItem(k); // merged in, durably
    for (const a of aside) delete a.salvaged;
    return { work: merged, aside, lost: this._lostRecords(merged) };
  }

  _legacyRaw() {
    try {
      return this.ls ? this.ls.getItem(this.base) : null;
    } catch {
      return null;
    }
  }

  /**
   * Write changed entries ([{kind: 'r'|'d'|'m', id, value}]), each merged with the stored one, in one
   * durable transaction. Resolves with the merged entries once they are on disk.
   */
  write(changes) {
    for (const c of changes) this.pending.set(`${c.kind}:${c.id}`, c); // until on disk: the unload journal's
    this._notePending();
    return this._write(changes).catch(async (err) => {
      if (err?.name !== 'InvalidStateError' || !this.db) throw err;
      // the browser closed the connection (it does after a failed write to a full disk): open it again, once
      this.db = await openDb(this.idb);
      return this._write(changes);
    });
  }

  _write(changes) {
    const db = this.db;
    return new Promise((resolve, reject) => {
      if (!db) {
        reject(new Error('storage not open'));
        return;
      }
      let tx;
      try {
        tx = db.transaction(STORE, 'readwrite', { durability: 'strict' });
      } catch (err) {
        reject(err);
        return;
      }
      const os = tx.objectStore(STORE);
      const out = [];
      for (const c of changes) {
        const k = [this.key, c.kind, c.id];
        const req = os.get(k);
        req.onsuccess = () => {
          const problems = [];
          let value = c.value;
          if (req.result !== undefined && c.kind !== 'm') {
            const stored = c.kind === 'r' ? readRecord(c.id, req.result, problems) : readDraft(c.id, req.result, problems);
            if (problems.length) {
              // written by something else since we opened: leave it, say so
              tx.abort();
              return;
            }
            value = c.kind === 'r' ? mergeRecord(stored, c.value) : mergeDraft(stored, c.value);
          } else if (c.kind === 'm' && req.result) {
            value = { last_export_at: newer(c.value.last_export_at, req.result.last_export_at) };
          }
          os.put(value, k);
          out.push({ kind: c.kind, id: c.id, value });
        };
      }
      tx.oncomplete = () => {
        for (const c of changes) { // on disk, unless a newer change of the same entry is still in flight
          if (this.pending.get(`${c.kind}:${c.id}`) === c) this.pending.delete(`${c.kind}:${c.id}`);
        }
        this._notePending();
        if (this.channel) this.channel.postMessage({ key: this.key, changes: out });
        resolve(out);
      };
      tx.onabort = () => {
        if (tx.error) reject(tx.error);
        else reject(Object.assign(new Error('an entry in storage cannot be read: not overwritten'), { name: 'NotOverwrittenError' }));
      };
    });
  }

  /**
   * Work of this annotator saved elsewhere in this browser: on other bundles with the same title (the
   * coordinator rebuilt the bundle), and under `spellings`, the names as this annotator gave them before
   * names were normalised (names.js), on this bundle or those: [{key, bundleId, spelling, work}] (`key`
   * names the offer; `spelling` is null for this name). Bundle titles are remembered as bundles are opened.
   */
  async earlierBundles(bundleId, title, annotator, spellings = []) {
    const known = dict(prefs.get('bundles', null));
    if (known[bundleId] !== title) prefs.set('bundles', withKey(known, bundleId, title));
    const out = [];
    if (!this.db) return out;
    const ids = [bundleId, ...Object.keys(known).filter((id) => id !== bundleId && title && known[id] === title)];
    const names = [annotator, ...new Set(spellings.filter((n) => n && n !== annotator))];
    for (const id of ids) {
      for (const name of names) {
        const key = name === annotator ? id : `${id} ${JSON.stringify(name)}`;
        if ((id === bundleId && name === annotator) || prefs.get(`earlier-done:${bundleId}:${key}`)) continue;
        const { work } = readWork(await readEntries(this.db, `${PREFIX}:${id}:${name}`));
        if (Object.keys(work.records).length) {
          out.push({ key, bundleId: id, spelling: name === annotator ? null : name, work });
        }
      }
    }
    return out;
  }

  /** Call `cb(work)` with the entries another tab wrote under this key. Returns an unsubscribe function. */
  watch(cb) {
    if (!this.channel) return () => {};
    const handler = (ev) => {
      const msg = ev.data;
      if (!msg || msg.key !== this.key || !Array.isArray(msg.changes)) return;
      cb(applyEntries(emptyWork(), msg.changes));
    };
    this.channel.addEventListener('message', handler);
    return () => this.channel.removeEventListener('message', handler);
  }
}

/** `work` with stored entries applied over it (as read: unreadable entries are ignored). */
export function applyEntries(work, entries) {
  const problems = [];
  const out = { records: dict(work.records), drafts: dict(work.drafts), last_export_at: work.last_export_at };
  for (const { kind, id, value } of entries) {
    if (kind === 'r') {
      const r = readRecord(id, value, problems);
      if (r) out.records[id] = r;
    } else if (kind === 'd') {
      const d = readDraft(id, value, problems);
      if (d) out.drafts[id] = d;
    } else if (kind === 'm' && isObj(value)) out.last_export_at = newer(out.last_export_at, value.last_export_at);
  }
  return out;
}

