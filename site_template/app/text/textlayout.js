/**
 * Layout of one pane's text. The text is laid out in blocks (about 40 sentences, broken only at newlines,
 * and one block per document of a sectioned source). A block first holds its text as plain text nodes; it
 * is "materialized" — one element per sentence — when it is first shown, when one of its sentences is
 * needed (highlight, scroll), or in idle time after the first paint. Off-screen blocks skip layout and
 * paint (CSS content-visibility). After that, state changes only toggle attributes, so a 3,500-sentence
 * source paints like a short one and never re-renders.
 *
 * Bidi controls and invisible characters are wrapped in inert, visible marker elements; `[N]` citations
 * of the other text's documents (SummHay bullets) are wrapped in link elements around their own text.
 * Once every block is materialized, each block's true height is measured in idle time and becomes its
 * intrinsic size (content-visibility then estimates nothing).
 *
 * Offsets here are UTF-16 indices into the text (the DOM's unit): the view's code-point sentences and
 * sections are converted once, when the text is laid out.
 */

import { LINK } from '../assist/citations.js';
import { CONTROL, controlMarker } from '../util.js';

const BLOCK_SENTENCES = 40; // sentences per layout block (blocks break only at newlines)
const FIRST_SENTENCES = 80; // materialized at once, before the first paint
export const idle = window.requestIdleCallback || ((fn) => setTimeout(() => fn({ timeRemaining: () => 8 }), 16));

export class TextLayout {
  /**
   * Lay out `view` (a data.js TextView) into a new root element (not yet in the document).
   * @param {'source'|'summary'} side
   * @param {number} cites  how many documents `[N]` citations may link to
   * @param {?function} onMaterialize  callback(block) after a block got its sentence elements (not
   *   called for the blocks materialized here, before the first paint)
   */
  constructor(view, side, cites, onMaterialize) {
    this.view = view;
    this.side = side;
    this.cites = cites;
    this.onMaterialize = null; // the other pane may still show the previous record
    const o = view.offsets;
    this.sentences = view.sentences.map((s) => o.span16(s));
    this.sections = (view.sections || []).map((sec) => ({ ...sec, start: o.to16(sec.start), end: o.to16(sec.end) }));
    this.sentenceEls = new Array(view.sentences.length); // sparse until every block is materialized
    this.sentBlock = new Int32Array(view.sentences.length);
    const root = document.createElement('div');
    root.className = 'text';
    root.dataset.side = side;
    this.root = root;
    this.blocks = this._plan();
    this.index = this.blocks.filter((b) => b.items.length); // non-empty blocks in text order (offset lookups)
    for (const b of this.index) this._placeholder(b);
    let shown = 0;
    for (const b of this.index) {
      if (shown >= FIRST_SENTENCES) break;
      this.materialize(b);
      shown += b.sentences;
    }
    this.onMaterialize = onMaterialize;
  }

  /** Plan the blocks: [{el, items: [[0, a, b] text | [1, a, b, i] sentence], start, sentences, done}]. */
  _plan() {
    const { text } = this.view;
    const { sentences, sections } = this;
    const blocks = [];
    let block = null;
    let pos = 0;
    let sinceBreak = 0;
    this.docBlocks = []; // the block opening each section, in order (citations link to them)
    const open = (section = null, titled = false) => {
      block = {
        el: this._blockEl(section, titled, blocks.length), items: [], start: pos, sentences: 0, first: 0, done: false,
        tops: null, // its sentences' tops below its own top, once measured (sentenceTop)
      };
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
      if (!block.sentences) block.first = i;
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
  _blockEl(section, titleInText, n) {
    const div = document.createElement('div');
    div.className = section ? 'block doc' : 'block';
    div._msBlock = n;
    if (section) {
      div.dataset.doc = section.docId ?? '';
      const label = document.createElement('div');
      label.className = 'doc-title';
      label.dataset.label = section.title || (section.docId ? `document ${section.docId}` : 'Document');
      if (titleInText) label.dataset.inText = '';
      div.append(label);
    }
    this.root.append(div);
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
  materialize(b) {
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

  /** The element of sentence i (materializing its block if needed). */
  sentenceEl(i) {
    if (!this.sentenceEls[i] && this.blocks.length) this.materialize(this.blocks[this.sentBlock[i]]);
    return this.sentenceEls[i];
  }

  /**
   * Materialize the remaining blocks in idle time, top to bottom (skipping one holding the selection),
   * then mark the text complete and call `done()`. `live()` says whether this layout is still shown.
   */
  materializeRest(live, done) {
    let next = 0;
    const step = (deadline) => {
      if (!live()) return;
      const sel = window.getSelection();
      const busy = sel.rangeCount && !sel.isCollapsed ? sel.anchorNode : null;
      while (next < this.index.length && deadline.timeRemaining() > 2) {
        const b = this.index[next];
        if (busy && b.el.contains(busy) && !b.done) break; // the user is selecting here: later
        this.materialize(b);
        next += 1;
      }
      if (next < this.index.length) idle(step);
      else {
        this.root.dataset.complete = 'true';
        done();
      }
    };
    idle(step);
  }

  /**
   * The viewport top of sentence i, for the minimap. Once its block is measured, from the block's box and
   * the sentence's offset measured in it: reading an element inside a block content-visibility skips would
   * lay that block out for this one read (the minimap reads dozens of far sentences: a forced layout each,
   * in the frames that compete with the model's worker). Scrolling reads the elements.
   */
  sentenceTop(i) {
    const b = this.blocks[this.sentBlock[i]];
    if (b && b.tops) return b.el.getBoundingClientRect().top + b.tops[i - b.first];
    return this.sentenceEl(i).getBoundingClientRect().top;
  }

  /**
   * Measure every block's real height in idle time (each one laid out alone: no long task) and make it
   * the block's intrinsic size, and its sentences' offsets in it (sentenceTop). `hold()` is called before
   * each idle slice and returns what to call after
   * it (blocks above the view change height: the view must not move); `done()` once all are measured.
   * A later call cancels an unfinished one.
   */
  measure(live, hold, done) {
    const token = {};
    this._measuring = token;
    delete this.root.dataset.measured;
    let next = 0;
    const step = (deadline) => {
      if (!live() || this._measuring !== token) return;
      const restore = hold();
      while (next < this.index.length && deadline.timeRemaining() > 2) {
        const b = this.index[next];
        const el = b.el;
        el.style.contentVisibility = 'visible';
        const cs = getComputedStyle(el);
        const box = parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom)
          + parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth);
        const rect = el.getBoundingClientRect();
        const h = rect.height - box; // the intrinsic size is the content box's
        el.style.containIntrinsicSize = `auto ${Math.round(h)}px`;
        const tops = new Float64Array(b.sentences);
        for (let j = 0; j < b.sentences; j++) {
          tops[j] = this.sentenceEls[b.first + j].getBoundingClientRect().top - rect.top;
        }
        b.tops = tops;
        el.style.contentVisibility = '';
        next += 1;
      }
      restore();
      if (next < this.index.length) idle(step);
      else {
        this.root.dataset.measured = 'true';
        done();
      }
    };
    idle(step);
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
    LINK.lastIndex = 0;
    let last = 0;
    let m;
    while ((m = LINK.exec(chunk))) {
      const n = Number(m[1]);
      if (n < 1 || n > this.cites) continue;
      if (m.index > last) plain(start + last, start + m.index);
      const link = document.createElement('span');
      link.className = 'cite';
      link.dataset.doc = String(n);
      link.setAttribute('role', 'link');
      link.tabIndex = 0; // reachable with Tab; Enter follows it (controllers/selection.js)
      link.title = `go to document ${n} of the source`;
      add(link, start + m.index, start + m.index + m[0].length);
      parent.append(link);
      last = m.index + m[0].length;
    }
    if (last < chunk.length) plain(start + last, end);
  }
}
