/**
 * The optional upload of the annotator's export to the team's own storage (docs/merge.md "Collect").
 * The coordinator's link (`mercury-static links`) carries it in its fragment, `#collect=…`, never sent to the
 * static host: read once, kept in this browser for this bundle and annotator, and taken off the address.
 * S3: a presigned POST policy for keys under PREFIX/ANNOTATOR/; this browser posts PREFIX/ANNOTATOR/CLIENT.json
 * (one key per browser: two devices never overwrite each other). WebDAV: a PUT of ANNOTATOR--CLIENT.json
 * into the folder. An upload never blocks annotating and never touches the stored work: a failure retries
 * with backoff, and the top bar says so.
 */
import { normalizeName } from '../state/names.js';

export const DEBOUNCE_MS = 2000;
export const BACKOFF_MS = [2000, 4000, 8000, 15000, 30000];
/** An upload that hangs longer than this is given up and retried (a storage that accepts and never answers). */
export const TIMEOUT_MS = 60_000;

const linkPref = (bundleId, annotator) => `collect:${bundleId}:${annotator}`;
const atPref = (bundleId, annotator) => `uploaded-at:${bundleId}:${annotator}`;

/** The link's payload from its fragment value (base64url JSON), or null when it is not one. */
export function decodeLink(value) {
  try {
    const b64 = value.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
    const link = JSON.parse(new TextDecoder().decode(bytes));
    const ok = link && (link.kind === 's3' || link.kind === 'webdav') && typeof link.url === 'string'
      && Number.isFinite(link.expires) && typeof link.annotator === 'string';
    return ok ? link : null;
  } catch {
    return null;
  }
}

/**
 * This bundle's upload link for `annotator`: a `#collect=` of the address (stored, then taken off the
 * address, the rest of the fragment kept), else the stored one. {link, problem}: problem names a link that
 * is not readable or is another annotator's.
 */
export function takeLink(prefs, bundleId, annotator, loc = window.location, history = window.history) {
  const m = /(?:^#|&)collect=([^&]*)/.exec(loc.hash);
  let problem = null;
  if (m) {
    const link = decodeLink(m[1]);
    if (!link) problem = 'This upload link is damaged (copy the whole link your coordinator sent): your work is saved in this browser only; Export still works.';
    else if (normalizeName(link.annotator) !== annotator) problem = `This upload link is ${JSON.stringify(link.annotator)}'s; you are ${JSON.stringify(annotator)}: it was not kept.`;
    else prefs.set(linkPref(bundleId, annotator), link);
    const rest = loc.hash.slice(1).split('&').filter((p) => !p.startsWith('collect=')).join('&');
    history.replaceState(history.state, '', `${loc.pathname}${loc.search}${rest ? `#${rest}` : ''}`);
  }
  return { link: prefs.get(linkPref(bundleId, annotator), null), problem };
}

/** The request that puts `text` at this browser's key: [url, fetch options]. */
export function uploadRequest(link, annotator, clientId, text) {
  const blob = new Blob([text], { type: 'application/json' });
  if (link.kind === 's3') {
    const form = new FormData();
    for (const [k, v] of Object.entries(link.fields || {})) form.append(k, v);
    form.append('key', `${link.prefix}${clientId}.json`);
    form.append('file', blob, `${clientId}.json`);
    return [link.url, { method: 'POST', body: form, mode: 'cors', credentials: 'omit', signal: AbortSignal.timeout(TIMEOUT_MS) }];
  }
  const headers = { 'Content-Type': 'application/json' };
  if (link.auth) headers.Authorization = `Basic ${link.auth}`;
  const name = encodeURIComponent(`${annotator}--${clientId}.json`);
  return [`${link.url}${name}`, { method: 'PUT', body: blob, headers, mode: 'cors', credentials: 'omit', signal: AbortSignal.timeout(TIMEOUT_MS) }];
}

const KEPT = 'Your work is saved in this browser; Export still works.';

/**
 * Why an upload that got an answer failed, when retrying cannot help: {cause (short, for the top bar),
 * reason (what to do)}; null when a retry may succeed (a server error, a timeout, too many requests).
 */
export function finalFailure(status, kind) {
  if (status < 400 || status >= 500 || status === 408 || status === 429) return null;
  if (status === 409 && kind === 'webdav') {
    return { cause: 'storage folder missing', reason: `The storage has no folder for uploads (HTTP 409): ask your coordinator to create it or send a new link. ${KEPT}` };
  }
  return { cause: `storage refused (HTTP ${status})`, reason: `The storage refused the upload (HTTP ${status}): ask your coordinator to check the storage and send a new link. ${KEPT}` };
}

const BLOCKED = {
  cause: 'page not allowed to reach the storage',
  reason: `This page is not allowed to reach the storage (its security policy blocks it; the page was rebuilt or copied after the links were made): ask your coordinator to run \`mercury-static links\` again. ${KEPT}`,
};

const WAITING = `Not uploaded: waiting for the network; it goes out when the network is back. ${KEPT}`;
const offline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

const expiredText = (link) => `The upload link expired on ${new Date(link.expires * 1000).toLocaleDateString()}: ask your coordinator for a new one. Your work is saved in this browser; Export still works.`;

/**
 * Upload the export whenever the work changes (debounced), retrying with backoff; `state(st)` gets each
 * state: {state: 'idle'|'uploading'|'uploaded'|'retrying'|'waiting'|'expired'|'refused'|'failed', at,
 * reason, cause?} ('failed': an answer no retry can change, or a request the page's security policy blocks:
 * uploads stop; 'waiting': the browser is offline, the upload goes when its online event comes). `at`: when
 * the last uploaded export was made. `exportText()` gives the export's text (as Export writes it).
 * Returns {changed(), stop()}.
 */
export function startUploads({
  link, annotator, clientId, bundleId, prefs, exportText, state, send = (u, o) => fetch(u, o), now = () => Date.now(),
}) {
  let timer = null;
  let busy = false;
  let dirty = false;
  let failures = 0;
  let stopped = false;
  let last = null; // the last retrying state, shown again while its retry runs
  let at = prefs.get(atPref(bundleId, annotator), null);
  // a request the page's security policy blocks fails as "Failed to fetch", like a server that is down:
  // the policy's own report tells them apart
  let blocked = false;
  const origin = (() => {
    try {
      return new URL(link.url).origin;
    } catch {
      return null;
    }
  })();
  const violation = (ev) => {
    if (origin && typeof ev.blockedURI === 'string' && ev.blockedURI.startsWith(origin)) blocked = true;
  };
  if (typeof document !== 'undefined') document.addEventListener('securitypolicyviolation', violation);
  const schedule = (ms) => {
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  };
  async function run() {
    if (stopped) return;
    if (busy) {
      dirty = true;
      return;
    }
    if (now() / 1000 > link.expires) {
      state({ state: 'expired', at, reason: expiredText(link) });
      return;
    }
    if (offline()) { // no request until the browser's online event (a retry's backoff would only spin)
      state({ state: 'waiting', at, reason: WAITING });
      return;
    }
    busy = true;
    dirty = false;
    if (failures) state({ ...last, state: 'retrying' });
    else state({ state: 'uploading', at, reason: '' });
    let outcome;
    let final = null;
    let detail = '';
    const started = new Date(now()).toISOString(); // the export holds every change up to here
    try {
      const text = await exportText();
      const res = await send(...uploadRequest(link, annotator, clientId, text));
      outcome = res.ok ? 'ok' : res.status === 401 || res.status === 403 ? `refused:${await res.text().catch(() => '')}` : `HTTP ${res.status}`;
      if (!res.ok && !outcome.startsWith('refused:')) final = finalFailure(res.status, link.kind);
    } catch (err) {
      await new Promise((r) => { setTimeout(r, 50); }); // the policy's report comes as a task of its own
      if (blocked) final = BLOCKED;
      outcome = offline() ? 'offline' : 'server unreachable';
      detail = err?.message ? ` (${err.message})` : '';
    }
    busy = false;
    if (outcome === 'ok') {
      failures = 0;
      at = started;
      prefs.set(atPref(bundleId, annotator), at);
      state({ state: 'uploaded', at, reason: '' });
      if (dirty) schedule(DEBOUNCE_MS);
    } else if (outcome.startsWith('refused:')) {
      const expired = /expired/i.test(outcome);
      state({ state: expired ? 'expired' : 'refused', at, reason: expired ? expiredText(link) : 'The storage refused this upload link: ask your coordinator for a new one. Your work is saved in this browser; Export still works.' });
    } else if (outcome === 'offline') {
      state({ state: 'waiting', at, reason: WAITING });
    } else if (final) {
      stopped = true; // it cannot succeed: retrying would only hide that
      state({ state: 'failed', at, ...final });
    } else {
      const wait = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)];
      failures += 1;
      last = { state: 'retrying', at, cause: outcome,
        reason: `Not uploaded: ${outcome}${detail}. Retrying in ${Math.round(wait / 1000)} s. ${KEPT}` };
      state(last);
      schedule(wait);
    }
  }
  state({ state: at ? 'uploaded' : 'idle', at, reason: '' });
  const online = () => schedule(0);
  window.addEventListener('online', online);
  return {
    changed() {
      if (failures === 0) schedule(DEBOUNCE_MS); // while retrying, the backoff's timer stands
      else dirty = true;
    },
    now: () => schedule(0),
    stop() {
      stopped = true;
      clearTimeout(timer);
      window.removeEventListener('online', online);
      if (typeof document !== 'undefined') document.removeEventListener('securitypolicyviolation', violation);
    },
  };
}

/** "3 min ago" from two instants in ms. */
export function ago(fromMs, nowMs) {
  const s = Math.max(0, Math.round((nowMs - fromMs) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const hrs = Math.round(m / 60);
  return hrs < 48 ? `${hrs} h ago` : `${Math.round(hrs / 24)} days ago`;
}
