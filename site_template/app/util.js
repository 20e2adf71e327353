/** Small helpers shared by the page modules. */

/** Bidi controls and invisible characters shown as visible, inert markers. */
export const CONTROL = /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const CONTROL_NAMES = {
  0x00ad: 'SHY', 0x061c: 'ALM', 0x180e: 'MVS', 0x200b: 'ZWSP', 0x200c: 'ZWNJ', 0x200d: 'ZWJ',
  0x200e: 'LRM', 0x200f: 'RLM', 0x202a: 'LRE', 0x202b: 'RLE', 0x202c: 'PDF', 0x202d: 'LRO',
  0x202e: 'RLO', 0x2060: 'WJ', 0x2061: 'FA', 0x2062: 'IT', 0x2063: 'IS', 0x2064: 'IP',
  0x2066: 'LRI', 0x2067: 'RLI', 0x2068: 'FSI', 0x2069: 'PDI', 0xfeff: 'BOM',
};

/** An empty marker element for a control character; the character itself goes inside it. */
export function controlMarker(code) {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const mark = document.createElement('span');
  mark.className = 'ctl';
  mark.dataset.ctl = CONTROL_NAMES[code] || hex;
  mark.title = `invisible character ${hex}`;
  return mark;
}

/** Untrusted text as nodes: control characters wrapped in inert, visible markers. */
export function inert(text) {
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(text)) return document.createTextNode(text);
  const frag = document.createDocumentFragment();
  let last = 0;
  CONTROL.lastIndex = 0;
  let m;
  while ((m = CONTROL.exec(text))) {
    if (m.index > last) frag.append(text.slice(last, m.index));
    const mark = controlMarker(text.charCodeAt(m.index));
    mark.textContent = text[m.index];
    frag.append(mark);
    last = m.index + 1;
  }
  if (last < text.length) frag.append(text.slice(last));
  return frag;
}

/** RFC 4122 v4 id; works outside secure contexts too (crypto.randomUUID needs one). */
/** A short hash of a string (FNV-1a, 32 bits, hex): tells versions of a text apart in a preference key. */
export function shortHash(text) {
  let x = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    x ^= text.charCodeAt(i);
    x = Math.imul(x, 0x01000193) >>> 0;
  }
  return x.toString(16).padStart(8, '0');
}

export function uuid() {
  if (crypto.randomUUID) {
    try {
      return crypto.randomUUID();
    } catch { /* insecure context: fall through */ }
  }
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

let lastMs = 0;
/** ISO-8601 UTC timestamp, strictly increasing within this tab (orders two quick edits). */
export function nowIso() {
  const ms = Math.max(Date.now(), lastMs + 1);
  lastMs = ms;
  return new Date(ms).toISOString();
}

/** Create an element with attributes and children (strings become inert text nodes: never HTML). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : inert(String(c)));
  }
  return el;
}

/** Shorten a string for a one-line preview. */
export function clip(text, n = 140) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/**
 * Call `handle(file)` with each file chosen in a file input; the input is cleared first so that choosing
 * the same file again fires again, and a failure becomes a one-line `report(message)`.
 */
export function onFileChosen(input, handle, report) {
  input.addEventListener('change', async () => {
    const file = input.files[0];
    input.value = '';
    if (!file) return;
    try {
      await handle(file);
    } catch (err) {
      report(err.message);
    }
  });
}

/** A map without prototype, filled from `obj`'s own entries. */
export function dict(obj = null) {
  const d = Object.create(null);
  if (obj) for (const k of Object.keys(obj)) d[k] = obj[k];
  return d;
}

/** A copy of `map` with `key` set to `value`. */
export function withKey(map, key, value) {
  const d = dict(map);
  d[key] = value;
  return d;
}

export const hasOwn = (obj, key) => Boolean(obj) && Object.prototype.hasOwnProperty.call(obj, key);
