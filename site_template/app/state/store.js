/**
 * The page's store: a minimal observable (`createStore`), the `watch` helper every renderer draws through,
 * and `createAppStore`, which composes the slices, each a module with its own state and actions. Each
 * top-level field has one owner, and only the owner's module writes it; another slice changes it by calling
 * the owner's actions (`ctx.actions`), inside `store.batch` when the change must show as one
 * (tests/js/store_owners.test.mjs records every write):
 *
 *   work, placed, history   entries.js   the annotator's work (persisted) and the rules of changing it
 *   draft, drafts, query    draft.js     the annotation being made and the query the assistant answers
 *   current                 current.js   the open record
 *   assist                  related.js   the related-sentence highlights (written by assist/assist.js)
 *   review                  review.js    the review mode's view and its rules (review mode only)
 *   ui, view, model, layout ui.js        overlays, messages, controls, the save indicator (saving.js's truth)
 *   verdicts                verdicts.js  the sentence walk (the verdicts themselves are work, in `work`)
 *
 * Nothing here touches the DOM; nothing outside `state/` calls `store.update`.
 */
import { labelChoicesOf } from './labels.js';
import { emptyHistory } from './history.js';
import { savingSlice, lostText, refusedText } from './saving.js';
import { entryOf, liveAnnotations, workSlice } from './entries.js';
import { draftSlice, emptyDraft } from './draft.js';
import { currentSlice } from './current.js';
import { emptyAssist, relatedSlice } from './related.js';
import { uiSlice } from './ui.js';
import { emptyVerdicts, verdictSlice } from './verdicts.js';
import { dict } from '../util.js';
import { emptyWork } from './workmerge.js';

export { chosenLabels, labelPrefixes } from './labels.js';
export { lostText, refusedText } from './saving.js';
export { liveAnnotations, recordStatus, undelivered, unexportedCount } from './entries.js';
export { SIDES, draftHasWork, other, replacesShown } from './draft.js';
export { emptyAssist } from './related.js';

/**
 * Minimal observable store. `batch(fn)`: the updates `fn` makes (each slice writing its own fields) reach
 * the subscribers as one change, once `fn` returns; returns what `fn` returns.
 */
export function createStore(initial) {
  let state = initial;
  const subs = new Set();
  let batching = false;
  const notify = (prev) => {
    for (const fn of subs) fn(state, prev);
  };
  return {
    get state() {
      return state;
    },
    update(part) {
      const prev = state;
      state = { ...state, ...(typeof part === 'function' ? part(state) : part) };
      if (!batching) notify(prev);
    },
    batch(fn) {
      if (batching) return fn();
      const prev = state;
      batching = true;
      try {
        return fn();
      } finally {
        batching = false;
        if (state !== prev) notify(prev);
      }
    },
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
  };
}

/**
 * Run `draw(state)` now and whenever one of `pick(state)`'s values changes identity, so a renderer
 * redraws only for the slices it shows. Returns `redraw()`: draw again though nothing changed (e.g. after
 * the DOM it drew into was replaced).
 */
export function watch(store, pick, draw) {
  let last = null;
  const run = (state, force) => {
    const cur = pick(state);
    if (!force && last && cur.length === last.length && cur.every((v, i) => v === last[i])) return;
    last = cur;
    draw(state);
  };
  store.subscribe((state) => run(state, false));
  run(store.state, false);
  return () => run(store.state, true);
}

/**
 * Build the application store. Every offset it holds (drafts, saved work, the record's sentences) is a
 * Python code-point index, the unit of every file; the panes convert to the DOM's UTF-16 (offsets.js).
 * deps: {bundle (data.js Bundle), annotator, clientId, storage (an opened WorkStorage), work (what it
 * read), aside (what it could not read), lost (what an earlier page could not keep), openError (why storage
 * could not be opened: nothing is saved), view, questions (every question of the settings, settings.js
 * `all`: the required ones hold up a submit), blind (no suggestion shown), review (the review mode's
 * slice, review.js `reviewSlice`)}.
 */
export function createAppStore({
  bundle, annotator, clientId, storage, work, aside = [], lost = [], openError = null, view, questions = [],
  blind = false, review = null,
}) {
  const m = bundle.manifest;
  const labelOrder = m.labels || [];
  const labelChoices = labelChoicesOf(m);
  // the span question's label texts, and whether a span may lie over another (Argilla's allow_overlapping)
  const spanQuestion = (m.settings?.questions || []).find((q) => q.type === 'span') || {};
  const oneLabel = spanQuestion.allow_overlapping === false;
  const loaded = work || emptyWork();
  // lost as an earlier page closed: said until the page is loaded again, whatever is saved meanwhile
  const lostNote = lost.length ? lostText(lost) : null;
  const store = createStore({
    annotator,
    clientId,
    labelChoices,
    labelTexts: spanQuestion.label_texts || {},
    oneLabel,
    current: { index: -1, id: null, record: null, loading: false, error: null },
    work: { records: loaded.records, last_export_at: loaded.last_export_at },
    placed: new Map(),
    drafts: loaded.drafts || dict(),
    draft: emptyDraft(),
    query: null,
    assist: emptyAssist(),
    verdicts: emptyVerdicts(),
    view: { k: 5, minScore: 0.2, ...view },
    model: { status: 'idle', message: '', loaded: null, total: null, since: null },
    history: emptyHistory(),
    ui: {
      help: false, guidelines: false, storageError: openError ? refusedText(openError) : lostNote, message: null,
      hover: null,
      save: { state: lostNote ? 'failed' : 'idle', seq: 0 }, choice: null, confirmClear: false, draftMessage: null, toast: null, aside,
      earlier: [], allDone: false,
    },
  });
  const actions = {};
  const ctx = {
    store, bundle, questions, blind, labelOrder, labelChoices, oneLabel, actions, entryOf, liveAnnotations,
  };
  ctx.persist = savingSlice({ store, storage, lostNote, actions }).persist;
  Object.assign(actions, workSlice(ctx), draftSlice(ctx), currentSlice(ctx), relatedSlice(ctx), uiSlice(ctx),
    verdictSlice(ctx));
  if (review) Object.assign(actions, review(ctx));
  store.actions = actions;
  return store;
}
