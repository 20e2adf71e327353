/** Small helpers shared by the page modules. */

/** RFC 4122 v4 id; works outside secure contexts too (crypto.randomUUID needs one). */
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

/** Create an element with attributes and children (strings become text nodes: never HTML). */
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
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Shorten a string for a one-line preview. */
export function clip(text, n = 140) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}
