/**
 * Saved annotations by keyboard: a key pair walks the open record's saved annotations in
 * summary order (the current one lit in both texts and in the side panel, both texts scrolled to it);
 * Enter opens it in the draft (its range, labels, note and linked span are then edited as a new one is,
 * Enter saves it back), Delete deletes it (Ctrl+Z brings it back). The current one is the store's
 * `ui.hover`: a pointer over another annotation, a new draft or another record ends the walk.
 */
import { draftHasWork, liveAnnotations } from '../state/store.js';

/** Saved annotations in reading order: by summary start, then end, then id. */
export function inSummaryOrder(anns) {
  const at = (a) => (a.summary ? [a.summary.start, a.summary.end] : [Infinity, Infinity]);
  return [...anns].sort((a, b) => at(a)[0] - at(b)[0] || at(a)[1] - at(b)[1] || (a.id < b.id ? -1 : 1));
}

export function mountSavedNav(store, actions) {
  let current = null;
  const saved = () => {
    const { work, current: c } = store.state;
    return inSummaryOrder(liveAnnotations(c.id ? work.records[c.id] : null));
  };
  store.subscribe((s, prev) => {
    if (!current) return;
    const ended = s.current.id !== prev.current.id || s.ui.hover !== current
      || (s.draft !== prev.draft && draftHasWork(s.draft) && s.draft.editingId !== current);
    if (ended) current = null;
  });
  const highlight = () => {
    for (const li of document.querySelectorAll('#annotations li[data-annotation]')) {
      const on = li.dataset.annotation === current;
      li.classList.toggle('current', on);
      if (on) li.scrollIntoView({ block: 'nearest' });
    }
  };
  store.subscribe((s, prev) => {
    if (s.ui.hover !== prev.ui.hover || s.work !== prev.work) highlight();
  });
  return {
    /** Move to the next (1) or previous (-1) saved annotation; false when there is none. */
    step(dir) {
      const list = saved();
      if (!list.length) return false;
      const at = list.findIndex((a) => a.id === current);
      const i = at < 0 ? (dir > 0 ? 0 : list.length - 1) : (at + dir + list.length) % list.length;
      current = list[i].id;
      actions.hover(current);
      highlight();
      return true;
    },
    /** Open the current one in the draft (Enter); false when none is current or the draft has work. */
    open() {
      if (!current || draftHasWork(store.state.draft)) return false;
      const id = current;
      actions.editAnnotation(id);
      current = id; // the walk goes on from it once it is saved
      return true;
    },
    /** Delete the current one (Delete); the walk stays at its place. */
    remove() {
      if (!current) return false;
      const list = saved();
      const at = list.findIndex((a) => a.id === current);
      actions.deleteAnnotation(current);
      const rest = saved();
      current = rest.length ? rest[Math.min(at, rest.length - 1)].id : null;
      actions.hover(current);
      highlight();
      return true;
    },
    /** The current saved annotation's id, or null. */
    current: () => current,
    end() {
      if (!current) return false;
      current = null;
      actions.hover(null);
      return true;
    },
  };
}
