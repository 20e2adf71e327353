/**
 * Span marks drawn with the CSS Custom Highlight API (no DOM change, so they cost nothing on long
 * texts): the annotator's annotations, the draft spans, and the hovered annotation's two spans.
 */
import { liveAnnotations, watch } from './store.js';

const supported = typeof CSS !== 'undefined' && CSS.highlights && typeof Highlight === 'function';

function setHighlight(name, ranges) {
  if (!supported) return;
  if (ranges.length) CSS.highlights.set(name, new Highlight(...ranges));
  else CSS.highlights.delete(name);
}

/** Keep the highlights in sync with the store; returns `refresh()` (after a pane replaced text nodes). */
export function mountMarks(store, panes) {
  const rangeOf = (rec, side, span, unit) => {
    if (!span || !rec) return null;
    const [s, e] = unit === 'cp' ? [rec[side].offsets.to16(span.start), rec[side].offsets.to16(span.end)] : span;
    return e > s ? panes[side].rangeFor(s, e) : null;
  };
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
      rangeOf(rec, 'summary', a.summary, 'cp'), rangeOf(rec, 'source', a.source, 'cp')]).filter(Boolean));
    setHighlight('ms-draft', [rangeOf(rec, 'summary', s.draft.summary), rangeOf(rec, 'source', s.draft.source)].filter(Boolean));
    let hovered = null;
    const hv = s.ui.hover;
    if (hv && hv.startsWith('prior:')) hovered = rec.prior_annotations[Number(hv.slice(6))];
    else if (hv) hovered = anns.find((a) => a.id === hv);
    const hoverRanges = hovered
      ? [rangeOf(rec, 'summary', hovered.summary, 'cp'), rangeOf(rec, 'source', hovered.source, 'cp')].filter(Boolean) : [];
    setHighlight('ms-hover', hoverRanges);
    if (hovered && hoverChanged) {
      for (const side of ['summary', 'source']) {
        if (hovered[side] && Number.isInteger(hovered[side].start)) panes[side].scrollToOffset(rec[side].offsets.to16(hovered[side].start));
      }
    }
  });
  return () => {
    if (store.state.current.record) redraw();
  };
}
