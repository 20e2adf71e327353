/**
 * Renderer of one text pane (source or summary). It builds the DOM once per record — one element per
 * sentence, section headers, inert markers for bidi/zero-width characters — and afterwards only toggles
 * attributes (highlights) so a 3,500-sentence text never re-renders on a state change.
 *
 * Offsets here are UTF-16 indices into the text (data.js converts to/from code points).
 */

import { CONTROL, controlMarker } from './util.js';

const BLOCK_SENTENCES = 40; // sentences per layout block (blocks break only at newlines)

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
    this.sentenceEls = [];
    this.nodes = [];
    this.starts = [];
    this.lit = [];
    this.results = [];
  }

  /** Build the DOM of `view` (a data.js TextView), replacing the previous text. */
  render(view) {
    this.view = view;
    this.sentenceEls = new Array(view.sentences.length);
    this.nodes = [];
    this.starts = [];
    this.lit = [];
    this.results = [];
    const root = document.createElement('div');
    root.className = 'text';
    root.dataset.side = this.side;
    const { text, sentences } = view;
    const sections = view.sections || [];
    let sec = 0;
    let block = null;
    let pos = 0;
    let sinceBreak = 0;
    const current = () => block || (block = this._block(root, null));
    // Open every section starting before `limit`; its header goes at its start, clamped to [pos, maxAt].
    // A section opens at its title line when the text holds one just before it (the build's join of a
    // list of documents), else at its start.
    const opens = sections.map((section) => {
      const lineStart = text.lastIndexOf('\n', section.start - 2) + 1; // the line before its text
      const titled = Boolean(section.title) && lineStart < section.start
        && text.slice(lineStart, section.start).trim() === section.title.trim();
      return titled ? lineStart : section.start;
    });
    const headStarts = new Set(opens.filter((o, j) => o !== sections[j].start));
    const openSections = (limit, maxAt) => {
      while (sec < sections.length && opens[sec] < limit) {
        const at = Math.max(pos, Math.min(opens[sec], maxAt));
        if (at > pos) this._text(current(), pos, at);
        pos = at;
        block = this._block(root, sections[sec], opens[sec] !== sections[sec].start);
        sinceBreak = 0;
        sec += 1;
      }
    };
    for (let i = 0; i < sentences.length; i++) {
      const [s, e] = sentences[i];
      openSections(e, s);
      if (s > pos && sinceBreak >= BLOCK_SENTENCES) {
        const nl = pos + text.slice(pos, s).lastIndexOf('\n'); // only the gap: no long backward scans
        if (nl >= pos) {
          this._text(current(), pos, nl + 1);
          pos = nl + 1;
          block = this._block(root, null);
          sinceBreak = 0;
        }
      }
      if (s > pos) this._text(current(), pos, s);
      const el = document.createElement('span');
      el.className = headStarts.has(s) ? 's doc-head' : 's';
      el.dataset.side = this.side;
      el.dataset.sentence = String(i);
      this._text(el, Math.max(s, pos), e);
      current().append(el);
      this.sentenceEls[i] = el;
      pos = Math.max(pos, e);
      sinceBreak += 1;
    }
    openSections(Infinity, text.length);
    if (pos < text.length) this._text(current(), pos, text.length);
    this.scroller.scrollTop = 0; // before the swap: no forced layout of the new text
    this.scroller.replaceChildren(root);
    this.root = root;
    this.minimap.replaceChildren();
  }

  /** A layout block; a section's block starts with a label (its title unless the text holds it). */
  _block(root, section, titleInText = false) {
    const div = document.createElement('div');
    div.className = section ? 'block doc' : 'block';
    if (section) {
      div.dataset.doc = section.docId ?? '';
      const label = document.createElement('div');
      label.className = 'doc-title';
      label.textContent = titleInText ? `document ${section.docId ?? ''}` : section.title || section.docId || 'Document';
      div.append(label);
    }
    root.append(div);
    return div;
  }

  /** Append text[start:end] to parent as text nodes, control characters as inert marker elements. */
  _text(parent, start, end) {
    if (end <= start) return;
    const text = this.view.text;
    const chunk = text.slice(start, end);
    CONTROL.lastIndex = 0;
    let last = 0;
    let m;
    const add = (into, a, b) => {
      const node = document.createTextNode(text.slice(a, b));
      into.append(node);
      this.nodes.push(node);
      this.starts.push(a);
    };
    while ((m = CONTROL.exec(chunk))) {
      if (m.index > last) add(parent, start + last, start + m.index);
      const mark = controlMarker(chunk.charCodeAt(m.index));
      add(mark, start + m.index, start + m.index + 1);
      parent.append(mark);
      last = m.index + 1;
    }
    if (last < chunk.length) add(parent, start + last, end);
  }

  /** UTF-16 offset of a DOM boundary point inside this pane, or null when outside. */
  offsetOf(node, offset) {
    if (!this.root || !this.root.contains(node)) return null;
    if (node.nodeType === Node.TEXT_NODE) {
      const i = this._nodeIndex(node);
      return i < 0 ? null : this.starts[i] + Math.min(offset, node.length);
    }
    // An element boundary: the start of the first text node at or after the child `offset`.
    const walker = document.createTreeWalker(this.root, NodeFilter.SHOW_TEXT);
    const child = node.childNodes[offset];
    if (child) {
      walker.currentNode = child;
      const t = child.nodeType === Node.TEXT_NODE ? child : walker.nextNode();
      const i = t ? this._nodeIndex(t) : -1;
      if (i >= 0) return this.starts[i];
    } else {
      // After the last child of `node`: the end of its last text node (or of the preceding one).
      walker.currentNode = node;
      let t = node.lastChild;
      while (t && t.nodeType !== Node.TEXT_NODE) t = t.lastChild;
      if (!t) {
        walker.currentNode = node;
        t = walker.previousNode();
      }
      const i = t ? this._nodeIndex(t) : -1;
      if (i >= 0) return this.starts[i] + t.length;
    }
    return this.view.text.length;
  }

  _nodeIndex(node) {
    if (node._msIndex !== undefined && this.nodes[node._msIndex] === node) return node._msIndex;
    const i = this.nodes.indexOf(node);
    if (i >= 0) node._msIndex = i;
    return i;
  }

  /** Index of the text node holding UTF-16 position `pos` (the last node starting at or before it). */
  _nodeAt(pos) {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** A DOM Range over the UTF-16 span [start, end) of the text. */
  rangeFor(start, end) {
    const r = document.createRange();
    if (!this.nodes.length) return r;
    const a = this._nodeAt(start);
    const b = this._nodeAt(Math.max(start, end - 1));
    r.setStart(this.nodes[a], Math.min(start - this.starts[a], this.nodes[a].length));
    r.setEnd(this.nodes[b], Math.min(end - this.starts[b], this.nodes[b].length));
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
   * Only the previously and newly highlighted elements are touched.
   */
  setHighlights(results, levelOf) {
    for (const el of this.lit) {
      el.removeAttribute('data-rank');
      el.removeAttribute('data-score');
      el.removeAttribute('data-level');
    }
    this.lit = [];
    this.results = results;
    results.forEach((r, j) => {
      const el = this.sentenceEls[r.index];
      if (!el) return;
      el.dataset.rank = String(j + 1);
      el.dataset.score = r.score.toFixed(3);
      el.dataset.level = String(levelOf(r.score));
      this.lit.push(el);
    });
    this._drawMinimap(levelOf);
  }

  /** Scrollbar markers: one per highlighted sentence, placed where it is in the scrolled content. */
  _drawMinimap(levelOf) {
    const total = Math.max(1, this.scroller.scrollHeight);
    const origin = this.scroller.getBoundingClientRect().top - this.scroller.scrollTop;
    const marks = this.results.map((r, j) => {
      const top = this.sentenceEls[r.index].getBoundingClientRect().top - origin;
      const m = document.createElement('button');
      m.type = 'button';
      m.className = 'mm-mark';
      m.dataset.match = String(j + 1);
      m.dataset.level = String(levelOf(r.score));
      m.dataset.sentence = String(r.index);
      m.title = `match ${j + 1}: score ${r.score.toFixed(2)}`;
      m.style.top = `${Math.min(99, (100 * top) / total)}%`;
      return m;
    });
    this.minimap.replaceChildren(...marks);
  }

  /** Scroll so sentence `i` is visible (placed at a third of the pane when it was out of view). */
  scrollToSentence(i, force = false) {
    const el = this.sentenceEls[i];
    if (!el) return;
    const box = this.scroller.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    if (!force && r.top >= box.top && r.bottom <= box.bottom) return;
    this.scroller.scrollTop += r.top - box.top - this.scroller.clientHeight / 3;
  }

  /** Scroll so UTF-16 position `pos` is visible. */
  scrollToOffset(pos) {
    const [i] = this.view.sentencesIn(pos, pos + 1);
    if (i !== undefined) this.scrollToSentence(i);
  }
}
