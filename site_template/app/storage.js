/**
 * Persistence of an annotator's work in localStorage, one key per (bundle id, annotator).
 *
 * Work shape: {records: {RECORD_ID: {status, status_at, updated_at, annotations: {ID: annotation}}},
 * last_export_at}. A deleted annotation stays as a tombstone {id, deleted: true, updated_at} so that
 * merging never resurrects it. Every write first merges with what is stored (newest status per record,
 * newest version per annotation), so two tabs never overwrite each other's newer work.
 */

export const PREFIX = 'mercury-static:v1';

export function emptyWork() {
  return { records: {}, last_export_at: null };
}

const newer = (a, b) => ((a || '') >= (b || '') ? a : b);

/** Merge two record entries: newest status, newest version of each annotation. */
export function mergeRecord(a, b) {
  if (!a) return b;
  if (!b) return a;
  const statusFrom = (a.status_at || '') >= (b.status_at || '') ? a : b;
  const annotations = { ...a.annotations };
  for (const [id, ann] of Object.entries(b.annotations || {})) {
    const mine = annotations[id];
    if (!mine || (ann.updated_at || '') > (mine.updated_at || '')) annotations[id] = ann;
  }
  return {
    status: statusFrom.status,
    status_at: statusFrom.status_at,
    updated_at: newer(a.updated_at, b.updated_at),
    annotations,
  };
}

/** Merge two works; the result holds the newest of everything. Returns `a` itself when b adds nothing. */
export function mergeWork(a, b) {
  if (!b) return a;
  let changed = false;
  const records = { ...a.records };
  for (const [id, rec] of Object.entries(b.records || {})) {
    const merged = mergeRecord(records[id], rec);
    if (JSON.stringify(merged) !== JSON.stringify(records[id])) {
      records[id] = merged;
      changed = true;
    }
  }
  const last = newer(a.last_export_at, b.last_export_at);
  if (!changed && last === a.last_export_at) return a;
  return { records, last_export_at: last };
}

function parseWork(raw) {
  if (!raw) return null;
  try {
    const w = JSON.parse(raw);
    return w && typeof w === 'object' && w.records ? w : null;
  } catch {
    return null;
  }
}

export function isQuotaError(err) {
  return err && (err.name === 'QuotaExceededError' || err.name === 'NS_ERROR_DOM_QUOTA_REACHED' || err.code === 22);
}

/** Storage of one annotator's work on one bundle. */
export class WorkStorage {
  constructor(bundleId, annotator, ls = window.localStorage) {
    this.key = `${PREFIX}:${bundleId}:${annotator}`;
    this.ls = ls;
  }

  load() {
    return parseWork(this.ls.getItem(this.key)) || emptyWork();
  }

  /**
   * Merge `work` with the stored copy and write the result.
   * Returns {work: merged, error: null | Error} (error set when the browser refused the write).
   */
  save(work) {
    const merged = mergeWork(work, parseWork(this.ls.getItem(this.key)));
    try {
      this.ls.setItem(this.key, JSON.stringify(merged));
      return { work: merged, error: null };
    } catch (err) {
      return { work: merged, error: err };
    }
  }

  /** Call `cb(work)` whenever another tab writes this key. Returns an unsubscribe function. */
  watch(cb) {
    const handler = (ev) => {
      if (ev.key !== this.key || ev.storageArea !== this.ls) return;
      const w = parseWork(ev.newValue);
      if (w) cb(w);
    };
    window.addEventListener('storage', handler);
    return () => window.removeEventListener('storage', handler);
  }
}

/** Small per-browser settings (annotator name, client id, seen flags, view options). */
export const prefs = {
  get(name, fallback = null) {
    try {
      const v = window.localStorage.getItem(`${PREFIX}:pref:${name}`);
      return v === null ? fallback : JSON.parse(v);
    } catch {
      return fallback;
    }
  },
  set(name, value) {
    try {
      window.localStorage.setItem(`${PREFIX}:pref:${name}`, JSON.stringify(value));
      return true;
    } catch {
      return false;
    }
  },
};

/** Random id of this browser, created once (export field `client_id`). */
export function clientId() {
  let id = prefs.get('client_id');
  if (!id) {
    id = crypto.randomUUID();
    prefs.set('client_id', id);
  }
  return id;
}
