/** The record list's pointer and keys: a row opens on click, the arrows walk the list and come back to the filter. */

/**
 * `onPick(position)` opens a record; `current()`: the current record's position. Up/Down/PageUp/PageDown/Home/End
 * move the focus through the whole list; Enter/Space open a record. In the filter, ArrowDown moves into the list,
 * Enter opens the first match.
 */
export function recordListKeys(list, filter, rows, onPick, current) {
  list.addEventListener('click', (ev) => {
    const li = ev.target.closest('li[data-record]');
    if (li) onPick(Number(li.dataset.position));
  });
  list.addEventListener('keydown', (ev) => {
    const li = ev.target.closest('li[data-position]');
    const pageRows = Math.max(1, Math.floor(list.clientHeight / rows.rowHeight) - 1);
    const step = { ArrowDown: 1, ArrowUp: -1, PageDown: pageRows, PageUp: -pageRows }[ev.key];
    const count = rows.count();
    if (!li || !count || (step === undefined && ev.key !== 'Home' && ev.key !== 'End')) return;
    ev.preventDefault();
    const pos = rows.posOf(Number(li.dataset.position));
    if (ev.key === 'ArrowUp' && pos === 0) {
      filter.focus(); // back up into the filter box
      return;
    }
    const to = ev.key === 'Home' ? 0 : ev.key === 'End' ? count - 1 : Math.max(0, Math.min(count - 1, pos + step));
    rows.reveal(to)?.firstChild.focus();
  });
  // The list is one tab stop: Tab lands on the current record's row (Shift+Tab from a row stops on the list).
  list.addEventListener('focusin', (ev) => {
    if (ev.target !== list || list.contains(ev.relatedTarget)) return;
    const pos = rows.posOf(current());
    rows.reveal(pos < 0 ? 0 : pos)?.firstChild.focus();
  });
  list.tabIndex = 0;
  filter.addEventListener('keydown', (ev) => {
    if ((ev.key !== 'ArrowDown' && ev.key !== 'Enter') || !rows.count()) return;
    ev.preventDefault();
    if (ev.key === 'Enter') onPick(rows.at(0));
    else {
      list.scrollTop = 0;
      rows.reveal(0)?.firstChild.focus();
    }
  });
}
