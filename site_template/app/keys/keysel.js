/**
 * Selecting text from the keyboard, in either pane: a word or a sentence at a time, extended and shrunk
 * with Shift (the end; with Alt+Shift the start); spans snapped to whole words (`snap`: a mouse
 * selection). The span becomes the page's selection (the same DOM selection a mouse makes) and is handed
 * to `onSpan(side, start, end)`, so the assistance runs on it as on a mouse selection. Each pane keeps a
 * caret at the end of its last selection: the next one starts after it.
 *
 * Words come from Intl.Segmenter (also for CJK), one sentence at a time (a long text is never segmented
 * whole). Offsets are code points, as in the store and the panes' interface.
 */

// Made at the first keyboard selection: creating it loads the word-break data (main-thread work
// which at module load was on the first paint's path).
let segmenter;
const wordSegmenter = () => {
  if (segmenter === undefined) segmenter = typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'word' }) : null;
  return segmenter;
};

/** The longest word (code points) a selection's end is snapped to the edge of. */
const SNAP_MAX = 200;

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

  /** The word holding code point `pos` ([start, end), start <= pos < end), or null (a space, punctuation). */
  _wordAt(side, pos) {
    const sents = this.view[side].sentences;
    let lo = 0;
    for (let hi = sents.length; lo < hi;) {
      const mid = (lo + hi) >> 1;
      if (sents[mid][1] <= pos) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= sents.length || sents[lo][0] > pos) return null;
    return this._wordsOf(side, lo).find(([s, e]) => s <= pos && pos < e) || null;
  }

  /**
   * [start, end) grown to whole words: an end inside a word is moved to that word's edge (a mouse
   * selection that began or ended mid-word, a typed phrase that stops within a word). A word longer than
   * SNAP_MAX (an unbroken run of thousands of letters) is no word to take whole: that end stays.
   */
  snap(side, start, end) {
    if (!this._sync(side) || end <= start) return [start, end];
    const whole = (w) => w && w[1] - w[0] <= SNAP_MAX;
    const first = this._wordAt(side, start);
    const last = this._wordAt(side, end - 1);
    return [whole(first) ? Math.min(first[0], start) : start, whole(last) ? Math.max(last[1], end) : end];
  }

  /**
   * Move the start of the selection of `side` by a word: dir -1 grows it back by the word before it,
   * dir 1 shrinks it by its first word (never to nothing).
   */
  stepStart(side, dir) {
    if (!this._sync(side)) return;
    const cur = this.getSpan(side);
    if (!cur) return;
    let start = cur[0];
    if (dir < 0) {
      const w = this._word(side, cur[0], -1);
      if (w) start = w[0];
    } else {
      const w = this._word(side, cur[0] + 1, 1);
      if (w && w[1] <= cur[1]) start = w[0];
    }
    if (start !== cur[0]) this.select(side, start, cur[1]);
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
      const within = inside && inside[0] >= cur[0] && inside[1] <= cur[1]
        && (inside[0] !== cur[0] || inside[1] !== cur[1]);
      span = within ? inside : dir > 0 ? find(cur[1], 1) : find(cur[0], -1);
    } else {
      span = dir > 0 ? find(this.caret[side], 1) : find(this.caret[side], -1);
    }
    if (!span) return;
    this.select(side, span[0], span[1]);
  }

  /** Make [start, end) the page's selection in `side` and hand it over (`scroll`: bring it into view). */
  select(side, start, end, { scroll = true } = {}) {
    this._sync(side);
    const pane = this.panes[side];
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(pane.rangeFor(start, end));
    if (scroll) pane.scrollToOffset(start);
    this.caret[side] = end;
    this.onSpan(side, start, end);
  }

  /**
   * A mouse selection's span grown to whole words (`snap`); when that changed it, the page's selection
   * shows the grown span (what the draft takes is what the annotator sees).
   */
  snapSelection(side, [start, end]) {
    const [s, e] = this.snap(side, start, end);
    if (s !== start || e !== end) {
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(this.panes[side].rangeFor(s, e));
    }
    return [s, e];
  }

  /** A selection made with the mouse moves the caret too. */
  moved(side, end) {
    this._sync(side);
    this.caret[side] = end;
  }
}
