/**
 * What the panes show of the store: a new record's texts (its scroll restored), the
 * related-sentence highlights with their info line and minimap, the match counter and the match cursor
 * (`.` / `,` jump, `l` pairs), and the CSS highlights of annotations, draft and pairing.
 */
import { makeLevelOf } from '../assist/assist.js';
import { mountScrollMemory } from '../state/scrollmemory.js';
import { SIDES } from '../state/store.js';
import { mountMarks } from '../text/marks.js';
import { mountPairing } from '../text/pairing.js';
import { h } from '../util.js';

/** One line on what the highlights show, e.g. "3 related · model" or "none above 0.30 (best 0.22)". */
function assistInfo({ assist, view }) {
  if (assist.pending) return 'ranking with the model…';
  const how = assist.kind === 'model' ? 'model' : 'precomputed vectors';
  if (assist.citation) return `${assist.citation} · ${how}`; // citecheck.js
  if (assist.results.length) return `${assist.results.length} related · ${how}`;
  const best = assist.best === null ? '' : ` (best ${assist.best.toFixed(2)})`;
  return `no sentence above ${view.minScore.toFixed(2)}${best} · ${how}`;
}

/**
 * Draw the store into the `panes` (textpane.js by side); `labelNumber`: the label digits (keys.js
 * numberKeys), reset with each record. Returns {goToMatch(pos), jumpMatch(dir), pairMatch()}.
 */
export function mountHighlights(store, panes, { manifest, labelNumber }) {
  const { actions } = store;
  const levelOf = makeLevelOf(manifest);
  const scrollMemory = mountScrollMemory(manifest.bundle_id, panes, SIDES);
  let shownRecord = null;
  let shownAssist = null;
  let scrolledTo = { query: null, index: -1 }; // the query and best match the pane last scrolled to
  let matchCursor = -1;
  let focused = null;
  /** A new record (or none, while one loads): render its panes, restore its scroll. */
  function showRecord(s) {
    const rec = s.current.record;
    shownRecord = rec;
    labelNumber.reset();
    scrollMemory.leave();
    for (const side of SIDES) {
      // summary bullets' [N] link to the source's documents
      if (rec) panes[side].render(rec[side], { cites: side === 'summary' ? rec.source.sections?.length || 0 : 0 });
      else panes[side].scroller.replaceChildren(h('p', { class: 'muted loading' }, s.current.error ? '' : 'Loading…'));
    }
    if (rec) scrollMemory.restore(rec.id);
    document.body.dataset.record = rec ? rec.id : '';
  }
  /** A new assistance answer: its info line, highlights and minimap, scrolled to its best match. */
  function showAssist(s) {
    const rec = s.current.record;
    shownAssist = s.assist;
    matchCursor = -1;
    if (focused) focused.removeAttribute('data-focus');
    focused = null;
    const target = s.assist.side;
    for (const side of SIDES) document.getElementById(`assist-${side}`).textContent = rec && side === target ? assistInfo(s) : '';
    if (!rec) return;
    for (const side of SIDES) {
      if (side !== target && panes[side].lit.length) panes[side].setHighlights([], levelOf);
      showMatch(side, -1);
    }
    if (target) {
      const shown = s.assist;
      const best = shown.results[0];
      panes[target].setHighlights(shown.results, levelOf);
      // The pane scrolls to the best match at the next frame, with the minimap (both read the layout,
      // which the frame computes anyway), once per query and best match; a refined answer (assist.js)
      // never moves what the annotator is looking at.
      const moved = scrolledTo.query !== shown.query || (!shown.refined && scrolledTo.index !== best?.index);
      if (best && moved) {
        scrolledTo = { query: shown.query, index: best.index };
        requestAnimationFrame(() => { if (shownAssist === shown) panes[target].scrollToSentence(best.index); });
      }
    }
  }
  store.subscribe((s) => {
    if (s.current.record !== shownRecord) showRecord(s);
    if (s.assist !== shownAssist) showAssist(s);
  });
  const refreshMarks = mountMarks(store, panes);
  const refreshPairing = mountPairing(store, panes);
  for (const side of SIDES) {
    panes[side].onMaterialize = () => { // marks hold ranges into replaced nodes
      refreshMarks();
      refreshPairing();
    };
  }

  /**
   * The pane header's match counter: "match 2 of 5 · document 72" after a jump (`pos` in text order),
   * "5 matches · best in document 11" before one, nothing without matches.
   */
  function showMatch(side, pos) {
    const el = document.getElementById(`match-${side}`);
    const { side: target, results } = store.state.assist;
    if (side !== target || !results.length) {
      el.textContent = '';
      return;
    }
    const order = results.map((r) => r.index).sort((a, b) => a - b);
    const i = pos < 0 ? results[0].index : order[pos];
    const doc = panes[side].docOf(i);
    const where = doc ? ` · ${pos < 0 ? 'best in ' : ''}document ${doc}` : '';
    el.textContent = pos < 0 ? `${results.length} match${results.length === 1 ? '' : 'es'}${where}` : `match ${pos + 1} of ${order.length}${where}`;
  }

  /** Jump to the next (+1) or previous (-1) highlighted sentence in text order. */
  function jumpMatch(dir) {
    const n = store.state.assist.results.length;
    if (n) goToMatch((matchCursor + dir + n + (matchCursor < 0 && dir < 0 ? 1 : 0)) % n);
  }

  /** Make match `pos` (text order, as the counter and the minimap number them) the current one. */
  function goToMatch(pos) {
    const { side, results } = store.state.assist;
    if (!side || pos < 0 || pos >= results.length) return;
    const order = results.map((r) => r.index).sort((a, b) => a - b);
    matchCursor = pos;
    const pane = panes[side];
    if (focused) focused.removeAttribute('data-focus');
    focused = pane.sentenceEl(order[matchCursor]);
    focused.dataset.focus = 'true';
    pane.scrollToSentence(order[matchCursor], true);
    showMatch(side, matchCursor);
  }

  /** Pair the match under the cursor (`.` / `,`), else the best match, with the span. */
  function pairMatch() {
    const { side, results } = store.state.assist;
    if (!side || !results.length) return;
    const order = results.map((r) => r.index).sort((a, b) => a - b);
    actions.pairSentence(side, matchCursor >= 0 ? order[matchCursor] : results[0].index);
  }
  return { goToMatch, jumpMatch, pairMatch };
}
