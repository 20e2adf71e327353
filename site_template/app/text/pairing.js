/**
 * What the draft is paired with and what the saved annotations are, at a glance: the sentences of the
 * paired span carry `data-paired` (a solid border and a "paired" tag, unlike the best match's outline),
 * and saved annotations are underlined in their label's colour (CSS highlights `ms-label-N`, N = the
 * label's position among the label choices; the side panel shows the legend).
 */
import { chosenLabels, liveAnnotations, other, watch } from '../state/store.js';

const supported = typeof CSS !== 'undefined' && CSS.highlights && typeof Highlight === 'function';
export const LABEL_COLOURS = 9;

/** Colour index of an annotation: its first chosen label's position among the choices (mod 9). */
export function labelColour(label, choices) {
  const i = choices.indexOf(chosenLabels(label, choices)[0]);
  return i < 0 ? 0 : i % LABEL_COLOURS;
}

/** Keep both in sync with the store; returns `refresh()` (after a pane replaced text nodes). */
export function mountPairing(store, panes) {
  let marked = [];
  return watch(store, (s) => [s.current.record, s.work, s.draft], (s) => {
    for (const el of marked) el.removeAttribute('data-paired');
    marked = [];
    const rec = s.current.record;
    const d = s.draft;
    const side = d.anchor && other(d.anchor);
    if (rec && side && d[side] && d[d.anchor]) {
      rec[side].sentencesIn(d[side][0], d[side][1]).forEach((i, n) => {
        const el = panes[side].sentenceEl(i);
        el.dataset.paired = n === 0 ? 'first' : 'true';
        marked.push(el);
      });
    }
    if (!supported) return;
    const groups = Array.from({ length: LABEL_COLOURS }, () => []);
    if (rec) {
      for (const a of liveAnnotations(s.work.records[s.current.id])) {
        const g = groups[labelColour(a.label, s.labelChoices)];
        for (const sd of ['summary', 'source']) {
          if (!a[sd]) continue;
          if (a[sd].end > a[sd].start) g.push(panes[sd].rangeFor(a[sd].start, a[sd].end));
        }
      }
    }
    groups.forEach((ranges, i) => {
      if (!ranges.length) {
        CSS.highlights.delete(`ms-label-${i}`);
        return;
      }
      const hl = new Highlight(...ranges);
      hl.priority = 1; // its underline over the plain one of marks.js
      CSS.highlights.set(`ms-label-${i}`, hl);
    });
  });
}
