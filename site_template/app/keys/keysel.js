/**
 * Selecting text from the keyboard, in either pane: a word or a sentence at a time, extended and shrunk
 * with Shift. The span becomes the page's selection (the same DOM selection a mouse makes) and is handed
 * to `onSpan(side, start, end)`, so the assistance runs on it as on a mouse selection. Each pane keeps a
 * caret at the end of its last selection: the next one starts after it.
 *
 * Words come from Intl.Segmenter (also for CJK), one sentence at a time (a long text is never segmented
 * whole). Offsets are code points, as in the store and the panes' interface.
 */

// Made at the first keyboard selection: creating it loads the word-break data (~15 ms of main thread,
// which at module load was on the first paint's path).
let segmenter;
const wordSegmenter = () => {
  if (segmenter === undefined) segmenter = typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'word' }) : null;
  return segmenter;
};

export class KeyboardSelection {
  /**
   * @param panes {source, summary} TextPane
   * @param getSpan (side) => the draft's [start, end] of that side, or null
   * @param onSpan (side, start, end) => void
   */
  constructor(panes, getSpan, onSpan) {
    this.panes = panes;
    this.getSpan = getSpan;
    this.onSpan = onSpan;
    this.caret = { source: 0, summary: 0 };
    this.view = { source: null, summary: null };
    this.words = { source: new Map(), summary: new Map() };
  }

  _sync(side) {
    const view = this.panes[side].view;
    if (view !== this.view[side]) {
      this.view[side] = view;
      this.words[side] = new Map();
      this.caret[side] = 0;
    }
    return view;
  }

  /** A new record: carets back to the start. */
  reset() {
    for (const side of ['source', 'summary']) this._sync(side);
  }

  /** The word spans of sentence i. */
  _wordsOf(side, i) {
    const cache = this.words[side];
    if (cache.has(i)) return cache.get(i);
    const view = this.view[side];
    const o = view.offsets;
    const [s, e] = o.span16(view.sentences[i]); // segments count UTF-16 units of the sentence's text
    const text = view.text.slice(s, e);
    const out = [];
    const word = (at, len) => out.push(o.spanCp([s + at, s + at + len]));
    const seg0 = wordSegmenter();
    if (seg0) {
      for (const seg of seg0.segment(text)) if (seg.isWordLike) word(seg.index, seg.segment.length);
    } else {
      for (const m of text.matchAll(/\S+/g)) word(m.index, m[0].length);
    }
    cache.set(i, out);
    return out;
  }

  /**
   * The first word starting at or after `pos` (dir 1) or the last one ending at or before it (dir -1).
   * `pos` may be in no sentence (before the first one: a summary starting with a space or a quote; in the
   * space after a sentence selected with ↓): the search starts from the nearest sentence on that side.
   */
  _word(side, pos, dir) {
    const sents = this.view[side].sentences;
    const n = sents.length;
    let lo = 0; // the first sentence ending after pos (binary search)
    for (let hi = n; lo < hi;) {
      const mid = (lo + hi) >> 1;
      if (sents[mid][1] <= pos) lo = mid + 1;
      else hi = mid;
    }
    let i = dir > 0 || (lo < n && sents[lo][0] < pos) ? lo : lo - 1; // back: the last one starting before pos
    for (; i >= 0 && i < n; i += dir) {
      const words = this._wordsOf(side, i);
      const w = dir > 0 ? words.find(([s]) => s >= pos) : [...words].reverse().find(([, e]) => e <= pos);
      if (w) return w;
    }
    return null;
  }

  /** The sentence starting at or after `pos` (dir 1) or ending at or before it (dir -1). */
  _sentence(side, pos, dir) {
    const sents = this.view[side].sentences;
    if (dir > 0) return sents.find(([s]) => s >= pos) || null;
    for (let i = sents.length - 1; i >= 0; i--) if (sents[i][1] <= pos) return sents[i];
    return null;
  }

  /**
   * Move (or with `extend`, grow / shrink the end of) the selection of `side` by one `unit`
   * ('word' | 'sentence') in direction `dir` (1 forward, -1 back). A selection of several units is
   * entered first (its first unit forward, its last back), so a paired sentence can be trimmed.
   */
  step(side, unit, dir, extend) {
    const view = this._sync(side);
    if (!view) return;
    const find = unit === 'word' ? (p, d) => this._word(side, p, d) : (p, d) => this._sentence(side, p, d);
    const cur = this.getSpan(side);
    let span;
    if (extend && cur) {
      if (dir > 0) {
        const w = find(cur[1], 1);
        span = w ? [cur[0], w[1]] : cur;
      } else {
        const w = find(cur[1] - 1, -1); // the unit before the last one
        span = w && w[1] > cur[0] ? [cur[0], w[1]] : cur;
      }
    } else if (cur) {
      // a span of several units (a paired sentence, say) is entered first: its first / last unit
      const inside = dir > 0 ? find(cur[0], 1) : find(cur[1], -1);
      const within = inside && inside[0] >= cur[0] && inside[1] <= cur[1] && (inside[0] !== cur[0] || inside[1] !== cur[1]);
      span = within ? inside : dir > 0 ? find(cur[1], 1) : find(cur[0], -1);
    } else {
      span = dir > 0 ? find(this.caret[side], 1) : find(this.caret[side], -1);
    }
    if (!span) return;
    this.select(side, span[0], span[1]);
  }

  /** Make [start, end) the page's selection in `side` and hand it over. */
  select(side, start, end) {
    this._sync(side);
    const pane = this.panes[side];
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(pane.rangeFor(start, end));
    pane.scrollToOffset(start);
    this.caret[side] = end;
    this.onSpan(side, start, end);
  }

  /** A selection made with the mouse moves the caret too. */
  moved(side, end) {
    this._sync(side);
    this.caret[side] = end;
  }
}
