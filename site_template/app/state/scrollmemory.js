import { prefs } from './prefs.js';
/**
 * Scroll positions of both panes per record, kept across reloads: a long source reopens where the
 * annotator was reading. Stored as (first sentence in view, pixels above the pane's top) rather than
 * scrollTop, which depends on how much of the text has been laid out yet.
 */

const KEEP = 200; // records remembered, most recent first
const DELAY = 250; // ms after the last scroll event

export function mountScrollMemory(bundleId, panes, sides) {
  const key = `scroll:${bundleId}`;
  const stored = prefs.get(key, []);
  let entries = Array.isArray(stored) ? stored.filter((e) => Array.isArray(e) && typeof e[0] === 'string') : [];
  let recordId = null;
  let timer = 0;

  const save = () => {
    clearTimeout(timer);
    timer = 0;
    if (!recordId) return;
    const where = Object.fromEntries(sides.map((side) => [side, panes[side].topSentence()]));
    entries = [[recordId, where], ...entries.filter((e) => e[0] !== recordId)].slice(0, KEEP);
    prefs.set(key, entries);
  };
  for (const side of sides) {
    panes[side].scroller.addEventListener('scroll', () => {
      if (recordId && !timer) timer = setTimeout(save, DELAY);
    }, { passive: true });
  }
  window.addEventListener('pagehide', () => {
    if (timer) save();
  });

  return {
    /** Before the panes change record: keep the open record's pending position. */
    leave() {
      if (timer) save();
      recordId = null;
    },
    /** After the panes rendered record `id`: scroll both back to where they were. */
    restore(id) {
      recordId = id;
      const entry = entries.find((e) => e[0] === id);
      if (!entry) return;
      for (const side of sides) {
        const at = entry[1][side];
        if (Array.isArray(at) && Number.isInteger(at[0]) && at[0] < panes[side].view.sentences.length) {
          panes[side].scrollToTop(at[0], Number(at[1]) || 0);
        }
      }
    },
  };
}
