/**
 * A virtual list: only the rows in view (plus a few) exist in the DOM, at a fixed row height (CSS `--row`
 * of the list element), so 10,000 rows cost as little as 20. Two spacer items stand in for the rows above
 * and below. It owns the scrolled window only; what a row shows is the caller's `makeRow(item)`, and which
 * items are shown, in which order, is the caller's `setOrder`.
 */
import { h } from '../util.js';

const OVERSCAN = 8;

/** Items 0..n-1 (or the subset given to `setOrder`) as rows of `list`, rendered on scroll and resize. */
export function virtualList(list, n, makeRow) {
  const rowHeight = parseFloat(getComputedStyle(list).getPropertyValue('--row')) || 28;
  let order = null; // the items shown, in list order (a sorted list need not be ascending), or null: all items
  let index = null; // item -> its position in `order` (-1: not shown)
  const rows = new Map(); // item -> li, the rendered window in order
  const spacer = () => h('li', { class: 'rec-spacer', role: 'presentation', 'aria-hidden': 'true' });
  const above = spacer();
  const below = spacer();
  list.replaceChildren(above, below);
  const count = () => (order ? order.length : n);
  const at = (pos) => (order ? order[pos] : pos);
  /** The list position of item `i`, or -1 when it is not shown. */
  const posOf = (i) => (order ? index[i] ?? -1 : i);

  /** Rows for the scrolled window; kept rows stay in place (a focused row keeps its focus). */
  function render() {
    const total = count();
    const first = Math.max(0, Math.floor(list.scrollTop / rowHeight) - OVERSCAN);
    const last = Math.min(total, Math.ceil((list.scrollTop + list.clientHeight) / rowHeight) + OVERSCAN);
    const want = new Set();
    for (let pos = first; pos < last; pos++) want.add(at(pos));
    for (const [i, li] of rows) {
      if (!want.has(i)) {
        li.remove();
        rows.delete(i);
      }
    }
    let prev = above;
    const next = new Map();
    for (let pos = first; pos < last; pos++) {
      const i = at(pos);
      let li = rows.get(i);
      if (!li) {
        li = makeRow(i);
        prev.after(li);
      }
      next.set(i, li);
      prev = li;
    }
    rows.clear();
    for (const [i, li] of next) rows.set(i, li);
    above.style.height = `${first * rowHeight}px`;
    below.style.height = `${(total - last) * rowHeight}px`;
    list.dataset.total = String(total);
  }

  /** Scroll (if needed) so list position `pos` is in view, render, return its row. */
  function reveal(pos) {
    if (pos < 0 || pos >= count()) return null;
    const top = pos * rowHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + rowHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + rowHeight - list.clientHeight;
    render();
    return rows.get(at(pos)) || null;
  }

  /** Show `next` (items in list order, or null: all); keep the scroll position, or else reveal item `item`. */
  function setOrder(next, keepScroll, item) {
    order = next;
    if (next) {
      index = new Int32Array(n).fill(-1);
      next.forEach((i, pos) => { index[i] = pos; });
    }
    const top = list.scrollTop;
    for (const li of rows.values()) li.remove();
    rows.clear();
    list.scrollTop = 0;
    render(); // the new total height first, then scroll to the item if it is shown
    if (keepScroll) {
      list.scrollTop = top;
      render();
    } else reveal(posOf(item));
  }

  list.addEventListener('scroll', render, { passive: true });
  new ResizeObserver(render).observe(list);
  render(); // the spacers give the list its full height before any scrolling
  return {
    rowHeight, count, at, posOf, reveal, setOrder,
    /** The rendered row of item `i`, if any. */
    row: (i) => rows.get(i),
    /**
     * Make the rendered rows of the items `pick(i)` accepts anew, in place (a placeholder row once its
     * data has arrived); a focused row hands its focus to its successor.
     */
    refresh(pick) {
      for (const [i, li] of rows) {
        if (!pick(i)) continue;
        const fresh = makeRow(i);
        const focused = li.contains(document.activeElement);
        li.replaceWith(fresh);
        rows.set(i, fresh);
        if (focused) fresh.firstChild.focus();
      }
    },
    /** Each rendered (item, row). */
    rendered: () => rows.entries(),
  };
}
