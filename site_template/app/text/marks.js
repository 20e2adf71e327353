/**
 * Span marks drawn with the CSS Custom Highlight API (no DOM change, so they cost nothing on long
 * texts): the annotator's annotations, the draft spans, and the hovered annotation's two spans.
 */
import { liveAnnotations, watch } from '../state/store.js';

const supported = typeof CSS !== 'undefined' && CSS.highlights && typeof Highlight === 'function';

function setHighlight(name, ranges) {
  if (!supported) return;
  if (ranges.length) CSS.highlights.set(name, new Highlight(...ranges));
  else CSS.highlights.delete(name);
}

/** Keep the highlights in sync with the store; returns `refresh()` (after a pane replaced text nodes). */
export function mountMarks(store, panes) {
  const rangeOf = (side, [s, e]) => (e > s ? panes[side].rangeFor(s, e) : null);
  // an annotation's {start, end} (a prior one may have none) and a draft's [start, end], in code points
  const annRange = (side, span) => (span && Number.isInteger(span.start)
    ? rangeOf(side, [span.start, span.end]) : null);
  const draftRange = (side, span) => (span ? rangeOf(side, span) : null);
  let lastHover = null;
  const redraw = watch(store, (s) => [s.current.record, s.work, s.draft, s.ui.hover], (s) => {
    const hoverChanged = s.ui.hover !== lastHover; // a redraw with the same hover never scrolls
    lastHover = s.ui.hover;
    const rec = s.current.record;
    if (!rec) {
      for (const n of ['ms-annotated', 'ms-draft', 'ms-hover']) setHighlight(n, []);
      return;
    }
    const anns = liveAnnotations(s.work.records[s.current.id]);
    setHighlight('ms-annotated', anns.flatMap((a) => [
      annRange('summary', a.summary), annRange('source', a.source)]).filter(Boolean));
    setHighlight('ms-draft', [draftRange('summary', s.draft.summary), draftRange('source', s.draft.source)].filter(Boolean));
    let hovered = null;
    const hv = s.ui.hover;
    if (hv && hv.startsWith('prior:')) hovered = rec.prior_annotations[Number(hv.slice(6))];
    else if (hv) hovered = anns.find((a) => a.id === hv);
    const hoverRanges = hovered
      ? [annRange('summary', hovered.summary), annRange('source', hovered.source)].filter(Boolean) : [];
    setHighlight('ms-hover', hoverRanges);
    if (hovered && hoverChanged) {
      for (const side of ['summary', 'source']) {
        if (hovered[side] && Number.isInteger(hovered[side].start)) panes[side].scrollToOffset(hovered[side].start);
      }
    }
  });
  return () => {
    if (store.state.current.record) redraw();
  };
}
