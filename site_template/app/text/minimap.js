/**
 * The marker strip beside a pane: one mark per highlighted sentence, placed where the sentence is in the
 * scrolled content (so it is placed from the real layout: redrawn once the blocks are measured and on a
 * width change; a far sentence's place is its measured block's box plus its offset measured in it,
 * textlayout.js sentenceTop, so drawing lays out no block content-visibility skips). Marks are rebuilt only
 * when they move; a refined answer that keeps the same sentences and
 * levels only retitles them. A rebuild reads the layout, so it waits for the next frame, which lays the
 * page out anyway: in the selection's handler it forced a layout of its own (most of the handler's time on a
 * long source).
 */

/**
 * Marks are numbered in text order, as the pane's match counter and `.` / `,` count them: the annotator
 * sees the marks down the strip, and "match 3" is then the third one there (the best is marked apart).
 */
const byText = (results) => results.map((r, j) => ({ ...r, best: j === 0 })).sort((a, b) => a.index - b.index);
const markTitle = (pos, n, r) => `match ${pos + 1} of ${n}: score ${r.score.toFixed(2)}${r.best ? ' (the best)' : ''}`;

export class Minimap {
  /**
   * @param {HTMLElement} el        the strip
   * @param {HTMLElement} scroller  the pane's scrolling element
   */
  constructor(el, scroller) {
    this.el = el;
    this.scroller = scroller;
    this.results = [];
    this.levelOf = null;
    this._frame = 0;
  }

  /** A new text: no marks. */
  clear() {
    this.results = [];
    cancelAnimationFrame(this._frame);
    this._frame = 0;
    this.el.replaceChildren();
  }

  /** Show `results` ([{index, score}], best first); `topOf(i)` gives sentence i's viewport top. */
  show(results, levelOf, topOf) {
    const prev = this.results;
    const same = levelOf === this.levelOf && prev.length === results.length
      && results.every((r, j) => r.index === prev[j].index
        && levelOf(r.p ?? r.score) === levelOf(prev[j].p ?? prev[j].score));
    this.results = results;
    this.levelOf = levelOf;
    if (!same) this._drawSoon(topOf);
    else {
      byText(results).forEach((r, pos) => {
        const m = this.el.children[pos];
        const title = markTitle(pos, results.length, r);
        if (m && m.title !== title) m.title = title;
      });
    }
  }

  /** Place the marks again (the layout changed: measured blocks, another width). */
  redraw(topOf) {
    if (this.levelOf && this.results.length) this._drawSoon(topOf);
  }

  /** Rebuild the marks at the next frame (once, however many calls come before it). */
  _drawSoon(topOf) {
    if (this._frame) return;
    this._frame = requestAnimationFrame(() => {
      this._frame = 0;
      this._draw(topOf);
    });
  }

  _draw(topOf) {
    const total = Math.max(1, this.scroller.scrollHeight);
    const origin = this.scroller.getBoundingClientRect().top - this.scroller.scrollTop;
    const marks = byText(this.results).map((r, pos) => {
      const top = topOf(r.index) - origin;
      const m = document.createElement('button');
      m.type = 'button';
      m.className = 'mm-mark';
      m.dataset.match = String(pos + 1);
      if (r.best) m.dataset.best = 'true';
      m.dataset.level = String(this.levelOf(r.p ?? r.score));
      m.dataset.sentence = String(r.index);
      m.title = markTitle(pos, this.results.length, r);
      m.style.top = `${Math.min(99, (100 * top) / total)}%`;
      return m;
    });
    this.el.replaceChildren(...marks);
  }
}
