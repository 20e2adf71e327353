/**
 * The one place where offsets change unit. Every offset the page keeps (the store, drafts, saved work,
 * the bundle's sentences) is a Python code-point index, the unit of every file; the DOM and JS strings
 * count UTF-16 units, so the panes convert here, and only at the DOM boundary: a selection becomes a
 * code-point span, a code-point span becomes a DOM range. Pure: no DOM (unit tests under node).
 */

const SURROGATE = /[\uD800-\uDFFF]/;

/** Offset maps of one string between Python code points and JS UTF-16 units. */
export class Offsets {
  constructor(text) {
    this.length16 = text.length;
    if (!SURROGATE.test(text)) {
      this.identity = true;
      this.lengthCp = text.length;
      return;
    }
    this.identity = false;
    const cpTo16 = [];
    const u16ToCp = new Int32Array(text.length + 1);
    let cp = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      u16ToCp[i] = cp;
      cpTo16.push(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i += 1;
          u16ToCp[i] = cp; // inside a pair: rounds down to the pair's start
        }
      }
      cp += 1;
    }
    u16ToCp[text.length] = cp;
    cpTo16.push(text.length);
    this.cpTo16 = Int32Array.from(cpTo16);
    this.u16ToCp = u16ToCp;
    this.lengthCp = cp;
  }

  /** Python code-point offset -> UTF-16 index (clamped). */
  to16(cp) {
    if (this.identity) return Math.max(0, Math.min(cp, this.length16));
    return this.cpTo16[Math.max(0, Math.min(cp, this.lengthCp))];
  }

  /** UTF-16 index -> Python code-point offset (an index inside a surrogate pair rounds down). */
  toCp(u16) {
    if (this.identity) return Math.max(0, Math.min(u16, this.length16));
    return this.u16ToCp[Math.max(0, Math.min(u16, this.length16))];
  }

  /** A code-point span [s, e] as a UTF-16 one. */
  span16([s, e]) {
    return [this.to16(s), this.to16(e)];
  }

  /** A UTF-16 span [s, e] as a code-point one (a boundary inside a pair rounds down). */
  spanCp([s, e]) {
    return [this.toCp(s), this.toCp(e)];
  }
}

/**
 * The UTF-16 span [s, e) of a DOM selection in `text`, trimmed of surrounding whitespace and widened so
 * that it never cuts a surrogate pair (an emoji is selected whole); null when nothing is left.
 */
export function trimSelection(text, s, e) {
  while (s < e && /\s/.test(text[s])) s += 1;
  while (e > s && /\s/.test(text[e - 1])) e -= 1;
  if (e <= s) return null;
  if (s > 0 && (text.charCodeAt(s) & 0xfc00) === 0xdc00) s -= 1;
  if (e < text.length && (text.charCodeAt(e) & 0xfc00) === 0xdc00) e += 1;
  return [s, e];
}

/**
 * A draft span as stored, in code points; null when it does not fit the text (a rebuilt bundle's shorter
 * text: never clamped into another span). Drafts stored before the page kept one unit carry no `unit` and
 * hold UTF-16 spans: they are converted with the record's text (the only step that knows both).
 */
export function storedSpanCp(span, unit, offsets) {
  if (!span) return null;
  if (unit === 'cp') return span[1] <= offsets.lengthCp ? [span[0], span[1]] : null;
  return span[1] <= offsets.length16 ? offsets.spanCp(span) : null;
}
