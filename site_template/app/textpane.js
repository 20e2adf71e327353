/**
 * Renderer of one text pane (source or summary). The text is laid out in blocks (about 40 sentences,
 * broken only at newlines, and one block per document of a sectioned source). A block first holds its
 * text as plain text nodes; it is "materialized" — one element per sentence — when it is first shown,
 * when one of its sentences is needed (highlight, scroll), or in idle time after the first paint. Off-screen
 * blocks skip layout and paint (CSS content-visibility). After that, state changes only toggle attributes,
 * so a 3,500-sentence source paints like a short one and never re-renders.
 *
 * Offsets here are UTF-16 indices into the text (data.js converts to/from code points). Bidi controls
 * and invisible characters are wrapped in inert, visible marker elements; `[N]` citations of the other
 * text's documents (SummHay bullets) are wrapped in link elements around their own text.
 *
 * The minimap is placed from the real layout: once every block is materialized, each block's true
 * height is measured in idle time and becomes its intrinsic size (content-visibility then estimates
 * nothing), and the marks are redrawn; a width change (ResizeObserver) measures again.
 */

import { CONTROL, controlMarker } from './util.js';

const CITE = /\[(\d{1,4})\]/g; // a citation of document N of the other text

const BLOCK_SENTENCES = 40; // sentences per layout block (blocks break only at newlines)
const FIRST_SENTENCES = 80; // materialized at once, before the first paint
const PIN_FRAMES = 12; // frames (at least) a restored scroll position is held while the text lays out
const markTitle = (j, r) => `match ${j + 1}: score ${r.score.toFixed(2)}`;
const idle = window.requestIdleCallback || ((fn) => setTimeout(() => fn({ timeRemaining: () => 8 }), 16));

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
    this.root = null;
    this.view = null;
    this.sentenceEls = []; // sparse until every block is materialized: use sentenceEl(i)
    this.blocks = [];
    this.index = []; // non-empty blocks in text order (offset lookups)
    this.lit = [];
    this.results = [];
    this.onMaterialize = null; // callback(block) after a block got its sentence elements
    this.cites = 0; // documents of the other text that `[N]` may cite
    this._levelOf = null;
    this._width = 0;
    new ResizeObserver(() => {
      const w = this.scroller.clientWidth;
      if (w === this._width) return;
      this._width = w;
      if (this.root && this.root.dataset.complete) this._measure(this.view);
      else this._redrawMinimap();
    }).observe(this.scroller);
    const unpin = () => {
      this._pin = null; // the reader scrolls: a restored position is not held any longer
    };
    for (const type of ['wheel', 'pointerdown', 'keydown', 'touchstart']) this.scroller.addEventListener(type, unpin, { passive: true });
  }

  /**
   * Build the DOM of `view` (a data.js TextView), replacing the previous text.
   * @param {{cites?: number}} options  cites: how many documents `[N]` citations may link to
   */
  render(view, { cites = 0 } = {}) {
    this.view = view;
    this.cites = cites;
    this.sentenceEls = new Array(view.sentences.length);
    this.sentBlock = new Int32Array(view.sentences.length);
    this.lit = [];
    this.results = [];
    const root = document.createElement('div');
    root.className = 'text';
    root.dataset.side = this.side;
    this.root = root;
    this.blocks = this._plan(view, root);
    this.index = this.blocks.filter((b) => b.items.length);
    for (const b of this.index) this._placeholder(b);
    const notify = this.onMaterialize;
    this.onMaterialize = null; // the other pane may still show the previous record
    let shown = 0;
    for (const b of this.index) {
      if (shown >= FIRST_SENTENCES) break;
      this._materialize(b);
      shown += b.sentences;
    }
    this.onMaterialize = notify;
    this.scroller.scrollTop = 0; // before the swap: no forced layout of the new text
    this.scroller.replaceChildren(root);
    this.minimap.replaceChildren();
    this._materializeRest(view);
  }

  /** Plan the blocks: [{el, items: [[0, a, b] text | [1, a, b, i] sentence], start, sentences, done}]. */
  _plan(view, root) {
    const { text, sentences } = view;
    const sections = view.sections || [];
    const blocks = [];
    let block = null;
    let pos = 0;
    let sinceBreak = 0;
    this.docBlocks = []; // the block opening each section, in order (citations link to them)
    const open = (section = null, titled = false) => {
      block = { el: this._blockEl(root, section, titled, blocks.length), items: [], start: pos, sentences: 0, done: false };
      if (section) this.docBlocks.push(block);
      blocks.push(block);
      sinceBreak = 0;
    };
    const push = (item) => {
      if (!block) open();
      block.items.push(item);
    };
    // A section opens at its title line when the text holds one just before it (the build's join of a
    // list of documents), else at its start.
    const opens = sections.map((section) => {
      const lineStart = text.lastIndexOf('\n', section.start - 2) + 1; // the line before its text
      const titled = Boolean(section.title) && lineStart < section.start
        && text.slice(lineStart, section.start).trim() === section.title.trim();
      return titled ? lineStart : section.start;
    });
    const headStarts = new Set(opens.filter((o, j) => o !== sections[j].start));
    let sec = 0;
    // Open every section starting before `limit`, at its opening clamped to [pos, maxAt].
    const openSections = (limit, maxAt) => {
      while (sec < sections.length && opens[sec] < limit) {
        const at = Math.max(pos, Math.min(opens[sec], maxAt));
        if (at > pos) push([0, pos, at]);
        pos = at;
        open(sections[sec], opens[sec] !== sections[sec].start);
        sec += 1;
      }
    };
    for (let i = 0; i < sentences.length; i++) {
      const [s, e] = sentences[i];
      openSections(e, s);
      if (s > pos && sinceBreak >= BLOCK_SENTENCES) {
        const nl = pos + text.slice(pos, s).lastIndexOf('\n'); // only the gap: no long backward scans
        if (nl >= pos) {
          push([0, pos, nl + 1]);
          pos = nl + 1;
          open();
        }
      }
      if (s > pos) push([0, pos, s]);
      push([1, Math.max(s, pos), e, i, headStarts.has(s)]);
      this.sentBlock[i] = blocks.length - 1;
      block.sentences += 1;
      pos = Math.max(pos, e);
      sinceBreak += 1;
    }
    openSections(Infinity, text.length);
    if (pos < text.length) push([0, pos, text.length]);
    for (const b of blocks) if (b.items.length) b.start = b.items[0][1];
    return blocks;
  }

  /** A block element; a section's block carries a label (CSS-generated: no text nodes). */
  _blockEl(root, section, titleInText, n) {
    const div = document.createElement('div');
    div.className = section ? 'block doc' : 'block';
    div._msBlock = n;
    if (section) {
      div.dataset.doc = section.docId ?? '';
      const label = document.createElement('div');
      label.className = 'doc-title';
      label.dataset.label = section.title || (section.docId ? `document ${section.docId}` : 'Document');
      div.append(label);
    }
    root.append(div);
    return div;
  }

  /** The block's text as plain text nodes (selectable, find-in-page works) until it is materialized. */
  _placeholder(b) {
    b.nodes = [];
    b.starts = [];
    const first = b.items[0][1];
    const last = b.items[b.items.length - 1][2];
    this._text(b.el, first, last, b);
  }

  /** Give block `b` its sentence elements (idempotent). */
  _materialize(b) {
    if (b.done) return;
    b.done = true;
    const frag = document.createDocumentFragment();
    const nodes = [];
    const starts = [];
    const reg = { nodes, starts };
    for (const it of b.items) {
      if (it[0] === 0) {
        this._text(frag, it[1], it[2], reg);
        continue;
      }
      const el = document.createElement('span');
      el.className = it[4] ? 's doc-head' : 's';
      el.dataset.side = this.side;
      el.dataset.sentence = String(it[3]);
      this._text(el, it[1], it[2], reg);
      frag.append(el);
      this.sentenceEls[it[3]] = el;
    }
    for (const n of b.nodes) (n.parentNode.matches?.('.ctl, .cite') ? n.parentNode : n).remove();
    b.nodes = nodes;
    b.starts = starts;
    b.el.append(frag);
    if (this.onMaterialize) this.onMaterialize(b);
  }

  /** Materialize the remaining blocks in idle time, top to bottom (skipping one holding the selection). */
  _materializeRest(view) {
    let next = 0;
    const step = (deadline) => {
      if (this.view !== view) return;
      const sel = window.getSelection();
      const busy = sel.rangeCount && !sel.isCollapsed ? sel.anchorNode : null;
      while (next < this.index.length && deadline.timeRemaining() > 2) {
        const b = this.index[next];
        if (busy && b.el.contains(busy) && !b.done) break; // the user is selecting here: later
        this._materialize(b);
        next += 1;
      }
      if (next < this.index.length) idle(step);
      else {
        this.root.dataset.complete = 'true';
        this._measure(view);
      }
    };
    idle(step);
  }

  /**
   * Measure every block's real height in idle time (each one laid out alone: no long task) and make it
   * the block's intrinsic size, then redraw the minimap from the now real layout.
   */
  _measure(view) {
    const token = {};
    this._measuring = token;
    delete this.root.dataset.measured;
    let next = 0;
    const step = (deadline) => {
      if (this.view !== view || this._measuring !== token) return;
      const keep = this.topSentence(); // blocks above the view change height: the view must not move
      while (next < this.index.length && deadline.timeRemaining() > 2) {
        const el = this.index[next].el;
        el.style.contentVisibility = 'visible';
        const cs = getComputedStyle(el);
        const box = parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom) + parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth);
        const h = el.getBoundingClientRect().height - box; // the intrinsic size is the content box's
        el.style.containIntrinsicSize = `auto ${Math.round(h)}px`;
        el.style.contentVisibility = '';
        next += 1;
      }
      if (this._pin) this._placeTop(this._pin.i, this._pin.above);
      else if (keep) this._placeTop(keep[0], keep[1]);
      if (next < this.index.length) idle(step);
      else {
        this.root.dataset.measured = 'true';
        this._redrawMinimap();
      }
    };
    idle(step);
  }

  /** The element of sentence i (materializing its block if needed). */
  sentenceEl(i) {
    if (!this.sentenceEls[i] && this.blocks.length) this._materialize(this.blocks[this.sentBlock[i]]);
    return this.sentenceEls[i];
  }

  /**
   * Append text[start:end] to parent as text nodes, control characters as inert marker elements and
   * `[N]` citations (1 <= N <= this.cites) as link elements around their text.
   */
  _text(parent, start, end, reg) {
    if (end <= start) return;
    const text = this.view.text;
    const add = (into, a, b) => {
      const node = document.createTextNode(text.slice(a, b));
      into.append(node);
      reg.nodes.push(node);
      reg.starts.push(a);
    };
    const plain = (a, b) => {
      const chunk = text.slice(a, b);
      CONTROL.lastIndex = 0;
      let last = 0;
      let m;
      while ((m = CONTROL.exec(chunk))) {
        if (m.index > last) add(parent, a + last, a + m.index);
        const mark = controlMarker(chunk.charCodeAt(m.index));
        add(mark, a + m.index, a + m.index + 1);
        parent.append(mark);
        last = m.index + 1;
      }
      if (last < chunk.length) add(parent, a + last, b);
    };
    if (!this.cites) {
      plain(start, end);
      return;
    }
    const chunk = text.slice(start, end);
    CITE.lastIndex = 0;
    let last = 0;
    let m;
    while ((m = CITE.exec(chunk))) {
      const n = Number(m[1]);
      if (n < 1 || n > this.cites) continue;
      if (m.index > last) plain(start + last, start + m.index);
      const link = document.createElement('span');
      link.className = 'cite';
      link.dataset.doc = String(n);
      link.setAttribute('role', 'link');
      link.tabIndex = 0; // reachable with Tab; Enter follows it (main.js)
      link.title = `go to document ${n} of the source`;
      add(link, start + m.index, start + m.index + m[0].length);
      parent.append(link);
      last = m.index + m[0].length;
    }
    if (last < chunk.length) plain(start + last, end);
  }

  /** Start offset of a text node of this pane, or null. */
  _startOf(node) {
    const blockEl = node.parentNode && node.parentNode.closest('.block');
    const b = blockEl && this.blocks[blockEl._msBlock];
    if (!b || b.el !== blockEl) return null;
    const i = b.nodes.indexOf(node);
    return i < 0 ? null : b.starts[i];
  }

  /** UTF-16 offset of a DOM boundary point inside this pane, or null when outside. */
  offsetOf(node, offset) {
    if (!this.root || !this.root.contains(node)) return null;
    if (node.nodeType === Node.TEXT_NODE) {
      const s = this._startOf(node);
      return s === null ? null : s + Math.min(offset, node.length);
    }
    // An element boundary: the start of the first text node at or after the child `offset`.
    const walker = document.createTreeWalker(this.root, NodeFilter.SHOW_TEXT);
    const child = node.childNodes[offset];
    if (child) {
      walker.currentNode = child;
      const t = child.nodeType === Node.TEXT_NODE ? child : walker.nextNode();
      const s = t ? this._startOf(t) : null;
      if (s !== null) return s;
    } else {
      // After the last child of `node`: the end of its last text node (or of the preceding one).
      let t = node.lastChild;
      while (t && t.nodeType !== Node.TEXT_NODE) t = t.lastChild;
      if (!t) {
        walker.currentNode = node;
        t = walker.previousNode();
      }
      const s = t ? this._startOf(t) : null;
      if (s !== null) return s + t.length;
    }
    return this.view.text.length;
  }

  /** [block, node index] holding UTF-16 position `pos` (the last node starting at or before it). */
  _nodeAt(pos) {
    let lo = 0;
    let hi = this.index.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.index[mid].start <= pos) lo = mid;
      else hi = mid - 1;
    }
    const b = this.index[lo];
    lo = 0;
    hi = b.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (b.starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return [b, lo];
  }

  /** A DOM Range over the UTF-16 span [start, end) of the text (valid until its block materializes). */
  rangeFor(start, end) {
    const r = document.createRange();
    if (!this.index.length) return r;
    const [ba, a] = this._nodeAt(start);
    const [bb, b] = this._nodeAt(Math.max(start, end - 1));
    r.setStart(ba.nodes[a], Math.min(start - ba.starts[a], ba.nodes[a].length));
    r.setEnd(bb.nodes[b], Math.min(end - bb.starts[b], bb.nodes[b].length));
    return r;
  }

  /** The UTF-16 span of a DOM Range inside this pane, trimmed of surrounding whitespace; or null. */
  spanOf(range) {
    let s = this.offsetOf(range.startContainer, range.startOffset);
    let e = this.offsetOf(range.endContainer, range.endOffset);
    if (s === null || e === null) return null;
    const text = this.view.text;
    while (s < e && /\s/.test(text[s])) s += 1;
    while (e > s && /\s/.test(text[e - 1])) e -= 1;
    if (e <= s) return null;
    if (s > 0 && (text.charCodeAt(s) & 0xfc00) === 0xdc00) s -= 1;
    if (e < text.length && (text.charCodeAt(e) & 0xfc00) === 0xdc00) e += 1;
    return [s, e];
  }

  /**
   * Show ranked sentences: data-rank (1..k), data-score and data-level (1 weak .. 3 strong).
   * Only attributes whose value changes are written (a refined answer often keeps most of the lit set),
   * and the minimap is rebuilt only when its marks move: on a 3,900-sentence source every write costs a
   * style invalidation and every rebuild a forced layout.
   */
  setHighlights(results, levelOf) {
    const next = new Map(); // element -> [rank, score, level]
    results.forEach((r, j) => {
      const el = this.sentenceEl(r.index);
      if (el) next.set(el, [String(j + 1), r.score.toFixed(3), String(levelOf(r.score))]);
    });
    for (const el of this.lit) {
      if (next.has(el)) continue;
      el.removeAttribute('data-rank');
      el.removeAttribute('data-score');
      el.removeAttribute('data-level');
    }
    for (const [el, [rank, score, level]] of next) {
      if (el.dataset.rank !== rank) el.dataset.rank = rank;
      if (el.dataset.score !== score) el.dataset.score = score;
      if (el.dataset.level !== level) el.dataset.level = level;
    }
    this.lit = [...next.keys()];
    const prev = this.results;
    const same = levelOf === this._levelOf && prev.length === results.length
      && results.every((r, j) => r.index === prev[j].index && levelOf(r.score) === levelOf(prev[j].score));
    this.results = results;
    this._levelOf = levelOf;
    if (!same) this._drawMinimap(levelOf);
    else {
      results.forEach((r, j) => {
        const m = this.minimap.children[j];
        if (m && m.title !== markTitle(j, r)) m.title = markTitle(j, r);
      });
    }
  }

  /** Redraw the marks (the layout changed: measured blocks, another width). */
  _redrawMinimap() {
    if (this._levelOf && this.results.length) this._drawMinimap(this._levelOf);
  }

  /** Scrollbar markers: one per highlighted sentence, placed where it is in the scrolled content. */
  _drawMinimap(levelOf) {
    const total = Math.max(1, this.scroller.scrollHeight);
    const origin = this.scroller.getBoundingClientRect().top - this.scroller.scrollTop;
    const marks = this.results.map((r, j) => {
      const top = this.sentenceEl(r.index).getBoundingClientRect().top - origin;
      const m = document.createElement('button');
      m.type = 'button';
      m.className = 'mm-mark';
      m.dataset.match = String(j + 1);
      m.dataset.level = String(levelOf(r.score));
      m.dataset.sentence = String(r.index);
      m.title = markTitle(j, r);
      m.style.top = `${Math.min(99, (100 * top) / total)}%`;
      return m;
    });
    this.minimap.replaceChildren(...marks);
  }

  /** Scroll so sentence `i` is visible (placed at a third of the pane when it was out of view). */
  scrollToSentence(i, force = false) {
    const el = this.sentenceEl(i);
    if (!el) return;
    this._pin = null; // the page scrolls elsewhere: a restored position is not held any longer
    const box = this.scroller.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    if (!force && r.top >= box.top && r.bottom <= box.bottom) return;
    this.scroller.scrollTop += r.top - box.top - this.scroller.clientHeight / 3;
  }

  /** 1-based number of the document (section) holding sentence i, or null (no sections). */
  docOf(i) {
    const b = this.blocks[this.sentBlock[i]];
    if (!b || !this.docBlocks.length) return null;
    let lo = 0;
    let hi = this.docBlocks.length - 1;
    if (this.docBlocks[0].start > b.start) return null;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.docBlocks[mid].start <= b.start) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** Scroll so document n (1-based) starts at the top of the pane; false when there is no such one. */
  scrollToDoc(n) {
    const b = this.docBlocks[n - 1];
    if (!b) return false;
    this._pin = null;
    this._materialize(b);
    this.scroller.scrollTop += b.el.getBoundingClientRect().top - this.scroller.getBoundingClientRect().top;
    return true;
  }

  /** [sentence index, pixels above the pane's top] of the first sentence in view (scroll memory). */
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

  /** Scroll so UTF-16 position `pos` is visible. */
  scrollToOffset(pos) {
    const [i] = this.view.sentencesIn(pos, pos + 1);
    if (i !== undefined) this.scrollToSentence(i);
  }
}
