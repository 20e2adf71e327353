/**
 * The DOM boundary of a pane's offsets: a selection's boundary points become a code-point span, a
 * code-point span becomes a DOM Range over the layout's text nodes (textlayout.js, whose nodes are
 * indexed by UTF-16 start). The unit changes only here, through offsets.js.
 */
import { trimSelection } from '../data/offsets.js';

/** Start (UTF-16) of a text node of the layout, or null. */
function startOf(layout, node) {
  const blockEl = node.parentNode && node.parentNode.closest('.block');
  const b = blockEl && layout.blocks[blockEl._msBlock];
  if (!b || b.el !== blockEl) return null;
  const i = b.nodes.indexOf(node);
  return i < 0 ? null : b.starts[i];
}

/** UTF-16 offset of a DOM boundary point inside the layout, or null when outside. */
function pointOffset(layout, node, offset) {
  const root = layout.root;
  if (!root.contains(node)) return null;
  if (node.nodeType === Node.TEXT_NODE) {
    const s = startOf(layout, node);
    return s === null ? null : s + Math.min(offset, node.length);
  }
  // An element boundary: the start of the first text node at or after the child `offset`.
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const child = node.childNodes[offset];
  if (child) {
    walker.currentNode = child;
    const t = child.nodeType === Node.TEXT_NODE ? child : walker.nextNode();
    const s = t ? startOf(layout, t) : null;
    if (s !== null) return s;
  } else {
    // After the last child of `node`: the end of its last text node (or of the preceding one).
    let t = node.lastChild;
    while (t && t.nodeType !== Node.TEXT_NODE) t = t.lastChild;
    if (!t) {
      walker.currentNode = node;
      t = walker.previousNode();
    }
    const s = t ? startOf(layout, t) : null;
    if (s !== null) return s + t.length;
  }
  return layout.view.text.length;
}

/** [block, node index] holding UTF-16 position `pos` (the last node starting at or before it). */
function nodeAt(layout, pos) {
  const index = layout.index;
  let lo = 0;
  let hi = index.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (index[mid].start <= pos) lo = mid;
    else hi = mid - 1;
  }
  const b = index[lo];
  lo = 0;
  hi = b.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (b.starts[mid] <= pos) lo = mid;
    else hi = mid - 1;
  }
  return [b, lo];
}

/** A DOM Range over the code-point span [start, end) of the text (valid until its block materializes). */
export function rangeOf(layout, start, end) {
  const r = document.createRange();
  if (!layout.index.length) return r;
  const [s, e] = layout.view.offsets.span16([start, end]);
  const [ba, a] = nodeAt(layout, s);
  const [bb, b] = nodeAt(layout, Math.max(s, e - 1));
  r.setStart(ba.nodes[a], Math.min(s - ba.starts[a], ba.nodes[a].length));
  r.setEnd(bb.nodes[b], Math.min(e - bb.starts[b], bb.nodes[b].length));
  return r;
}

/** The code-point span of a DOM Range inside the layout, trimmed of surrounding whitespace; or null. */
export function spanOfRange(layout, range) {
  const s = pointOffset(layout, range.startContainer, range.startOffset);
  const e = pointOffset(layout, range.endContainer, range.endOffset);
  if (s === null || e === null) return null;
  const span = trimSelection(layout.view.text, s, e);
  return span && layout.view.offsets.spanCp(span);
}
