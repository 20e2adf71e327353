/**
 * A text with every annotator's spans on it, legible where they overlap: the text is cut at every span
 * boundary, and each piece is wrapped once per lane (annotator, or gold) that covers it; a lane draws its
 * underline at its own depth (CSS .rv-l0 … .rv-l8), so overlapping spans stack instead of hiding each
 * other. The text itself is only ever text nodes (never HTML). Offsets are code points (TextView.slice).
 */
import { h } from '../util.js';

/**
 * The pieces of [0, length) cut at the boundaries of `spans` ([{start, end, lane, key}]), each with the
 * spans covering it: [{start, end, cover: [span]}]. Pure (unit-tested under node).
 */
export function segments(length, spans) {
  const clamp = (x) => Math.max(0, Math.min(length, x));
  const cuts = new Set([0, length]);
  for (const s of spans) {
    cuts.add(clamp(s.start));
    cuts.add(clamp(s.end));
  }
  const xs = [...cuts].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i + 1 < xs.length; i++) {
    const [a, b] = [xs[i], xs[i + 1]];
    out.push({ start: a, end: b, cover: spans.filter((s) => s.start < b && a < s.end) });
  }
  return out;
}

/** Draws one text into `root` and answers the keys under a click and the code-point span of a selection. */
export class MarkedText {
  constructor(root) {
    this.root = root;
    this.view = null;
    this.pieces = []; // [{seg, el}]
  }

  /** Render `view` (a TextView) with `spans`; the piece elements keep their segment for clicks and focus. */
  render(view, spans) {
    this.view = view;
    this.pieces = [];
    const body = h('div', { class: 'rv-body' });
    for (const seg of segments(view.length, spans)) {
      const text = view.slice(seg.start, seg.end);
      if (!seg.cover.length) {
        body.append(text);
        continue;
      }
      let el = document.createTextNode(text);
      const lanes = [...new Set(seg.cover.map((s) => s.lane))].sort((a, b) => b - a);
      for (const lane of lanes) el = h('span', { class: `rv-u rv-l${lane}` }, el);
      el.dataset.piece = String(this.pieces.length);
      this.pieces.push({ seg, el });
      body.append(el);
    }
    this.root.replaceChildren(body);
  }

  /** The span keys under a DOM node (a click), [] outside every span. */
  keysAt(node) {
    const el = node instanceof Element ? node.closest('[data-piece]') : node?.parentElement?.closest('[data-piece]');
    if (!el || !this.root.contains(el)) return [];
    return this.pieces[Number(el.dataset.piece)].seg.cover.map((s) => s.key);
  }

  /** Mark the pieces of span `key` (the focused annotation); returns the first one (to scroll to). */
  focus(key) {
    let first = null;
    for (const { seg, el } of this.pieces) {
      const on = Boolean(key) && seg.cover.some((s) => s.key === key);
      el.classList.toggle('rv-focus', on);
      if (on && !first) first = el;
    }
    return first;
  }

  /** The code-point span [start, end) of a DOM Range inside this text (whitespace trimmed), or null. */
  spanOf(range) {
    if (!this.view || !this.root.contains(range.commonAncestorContainer)) return null;
    const at = (node, offset) => {
      const pre = document.createRange();
      pre.setStart(this.root, 0);
      pre.setEnd(node, offset);
      return pre.toString().length;
    };
    let s = at(range.startContainer, range.startOffset);
    let e = at(range.endContainer, range.endOffset);
    const t = this.view.text;
    while (s < e && /\s/.test(t[s])) s += 1;
    while (e > s && /\s/.test(t[e - 1])) e -= 1;
    if (e <= s) return null;
    return [this.view.offsets.toCp(s), this.view.offsets.toCp(e)];
  }
}
