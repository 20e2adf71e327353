/**
 * Small per-browser settings in localStorage (annotator name, client id, seen flags, view options), under
 * the page's key prefix (storage.js's work keys share it).
 */

export const PREFIX = 'mercury-static:v1';

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
