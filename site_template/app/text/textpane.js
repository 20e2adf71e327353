/**
 * One text pane (source or summary): it lays a text out (textlayout.js), answers offsets at the DOM
 * boundary (domoffsets.js), draws ranked sentences (rankmarks.js) and their minimap (minimap.js), and
 * scrolls. Every offset of its interface is a code-point index, as in the store.
 *
 * A width change (ResizeObserver) measures the blocks again and redraws the minimap; a restored scroll
 * position is held while the text is laid out, until the reader scrolls.
 */

import { rangeOf, spanOfRange } from './domoffsets.js';
import { Minimap } from './minimap.js';
import { markRanked } from './rankmarks.js';
import { TextLayout } from './textlayout.js';

const PIN_FRAMES = 12; // frames (at least) a restored scroll position is held while the text lays out

export class TextPane {
  /**
   * @param {HTMLElement} scroller  the scrolling element of the pane
   * @param {HTMLElement} minimap   the marker strip beside it
   * @param {'source'|'summary'} side
   */
  constructor(scroller, minimap, side) {
    this.scroller = scroller;
    this.minimap = minimap;
    this.side = side;
    this.marks = new Minimap(minimap, scroller);
    this.layout = null;
    this.root = null;
    this.view = null;
    this.lit = [];
    this.onMaterialize = null; // callback(block) after a block got its sentence elements
    this._width = 0;
    this._elOf = (i) => this.sentenceEl(i);
    this._topOf = (i) => this.layout.sentenceTop(i);
    new ResizeObserver(() => {
      const w = this.scroller.clientWidth;
      if (w === this._width) return;
      this._width = w;
      if (this.root && this.root.dataset.complete) this._measure();
      else this.marks.redraw(this._topOf);
    }).observe(this.scroller);
    const unpin = () => {
      this._pin = null; // the reader scrolls: a restored position is not held any longer
    };
    for (const type of ['wheel', 'pointerdown', 'keydown', 'touchstart']) this.scroller.addEventListener(type, unpin, { passive: true });
    // A document whose title opens its text shows its sticky header only once that line is scrolled away
    // (data-stuck): at the document's top the title is not read twice.
    let stuck = null;
    let queued = false;
    this.scroller.addEventListener('scroll', () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        const r = this.scroller.getBoundingClientRect();
        const doc = document.elementFromPoint(r.left + r.width / 2, r.top + 2)?.closest('.doc');
        const next = doc && this.scroller.contains(doc) && doc.getBoundingClientRect().top < r.top - 16 ? doc : null;
        if (next === stuck) return;
        if (stuck) delete stuck.dataset.stuck;
        if (next) next.dataset.stuck = '';
        stuck = next;
      });
    }, { passive: true });
  }

  /**
   * Build the DOM of `view` (a data.js TextView), replacing the previous text.
   * @param {{cites?: number}} options  cites: how many documents `[N]` citations may link to
   */
  render(view, { cites = 0 } = {}) {
    const layout = new TextLayout(view, this.side, cites, (b) => this.onMaterialize && this.onMaterialize(b));
    // before the swap: no forced layout of the new text; the first text needs none at all (the pane has
    // not scrolled, and writing scrollTop would lay out the whole page once more before its first paint)
    if (this.view) this.scroller.scrollTop = 0;
    this.layout = layout;
    this.view = view;
    this.root = layout.root;
    this.lit = [];
    this.scroller.replaceChildren(layout.root);
    this.marks.clear();
    layout.materializeRest(() => this.layout === layout, () => this._measure());
  }

  /** Measure the blocks' heights, keeping the view where it is, then place the minimap marks. */
  _measure() {
    const layout = this.layout;
    layout.measure(() => this.layout === layout, () => {
      const keep = this.topSentence();
      return () => {
        if (this._pin) this._placeTop(this._pin.i, this._pin.above);
        else if (keep) this._placeTop(keep[0], keep[1]);
      };
    }, () => this.marks.redraw(this._topOf));
  }

  /** The element of sentence i (materializing its block if needed). */
  sentenceEl(i) {
    return this.layout ? this.layout.sentenceEl(i) : undefined;
  }

  /** A DOM Range over the code-point span [start, end) (valid until its block materializes). */
  rangeFor(start, end) {
    return this.layout ? rangeOf(this.layout, start, end) : document.createRange();
  }

  /** The code-point span of a DOM Range inside this pane, trimmed of surrounding whitespace; or null. */
  spanOf(range) {
    return this.layout ? spanOfRange(this.layout, range) : null;
  }

  /**
   * Show ranked sentences ([{index, score}], best first) and their minimap marks (drawn at the next frame when
   * they move).
   */
  setHighlights(results, levelOf) {
    this.lit = markRanked(this.lit, results, levelOf, this._elOf);
    this.marks.show(results, levelOf, this._topOf);
  }

  /** Scroll so sentence `i` is visible (placed at a third of the pane when it was out of view). */
  scrollToSentence(i, force = false) {
    const el = this.sentenceEl(i);
    if (!el) return;
    this._pin = null; // the page scrolls elsewhere: a restored position is not held any longer
    const box = this.scroller.getBoundingClientRect();
    const r = el.getBoundingClientRect(); // the element itself: where the page scrolls to must be exact
    if (!force && r.top >= box.top && r.bottom <= box.bottom) return;
    this.scroller.scrollTop += r.top - box.top - this.scroller.clientHeight / 3;
  }

  /** 1-based number of the document (section) holding sentence i, or null (no sections). */
  docOf(i) {
    const layout = this.layout;
    const b = layout && layout.blocks[layout.sentBlock[i]];
    const docs = layout ? layout.docBlocks : [];
    if (!b || !docs.length) return null;
    let lo = 0;
    let hi = docs.length - 1;
    if (docs[0].start > b.start) return null;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (docs[mid].start <= b.start) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** Scroll so document n (1-based) starts at the top of the pane; false when there is no such one. */
  scrollToDoc(n) {
    const b = this.layout && this.layout.docBlocks[n - 1];
    if (!b) return false;
    this._pin = null;
    this.layout.materialize(b);
    this.scroller.scrollTop += b.el.getBoundingClientRect().top - this.scroller.getBoundingClientRect().top;
    return true;
  }

  /**
   * [sentence index, pixels above the pane's top] of the first sentence in view (scroll memory); read from
   * the elements, exactly: the view is restored from it while blocks above it are measured.
   */
  topSentence() {
    const n = this.view ? this.view.sentences.length : 0;
    if (!n) return null;
    const top = this.scroller.getBoundingClientRect().top + 1; // a sentence starting at the top is in view
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) { // the last sentence starting above the pane's top
      const mid = (lo + hi + 1) >> 1;
      if (this.sentenceEl(mid).getBoundingClientRect().top <= top) lo = mid;
      else hi = mid - 1;
    }
    return [lo, Math.round(top - 1 - this.sentenceEl(lo).getBoundingClientRect().top)];
  }

  /**
   * Scroll so sentence i starts `above` pixels above the pane's top (restores topSentence()). Blocks
   * coming into view are laid out in the next frames and measured later, which may move it: it is held
   * until the text is measured, unless the reader scrolls first.
   */
  scrollToTop(i, above = 0) {
    if (!this._placeTop(i, above)) return;
    const pin = { i, above, frames: PIN_FRAMES, view: this.view };
    this._pin = pin;
    const again = () => {
      if (this._pin !== pin || this.view !== pin.view) return;
      this._placeTop(i, above);
      if (--pin.frames > 0 || !this.root.dataset.measured) requestAnimationFrame(again);
      else this._pin = null;
    };
    requestAnimationFrame(again);
  }

  _placeTop(i, above) {
    const el = this.sentenceEl(i);
    if (!el) return false;
    this.scroller.scrollTop += el.getBoundingClientRect().top - this.scroller.getBoundingClientRect().top + above;
    return true;
  }

  /** Scroll so code-point position `pos` is visible. */
  scrollToOffset(pos) {
    const [i] = this.view.sentencesIn(pos, pos + 1);
    if (i !== undefined) this.scrollToSentence(i);
  }
}
