/**
 * The page state and every action that changes it. Renderers subscribe and redraw only the slices
 * whose object identity changed; nothing here touches the DOM.
 *
 * State slices: `current` (open record), `work` (the annotator's annotations + statuses, persisted),
 * `placed` (id -> bundle position of every record with work: the status of a position, the counts),
 * `draft` (the annotation being made: spans per side, labels, note), `assist` (related-sentence
 * highlights), `view` (k, min score), `model` (in-browser model status), `ui` (overlays, messages),
 * `history` (the session's steps of the annotator's changes: undo / redo, history.js).
 */
import {
  applyEntries, dict, emptyWork, hasOwn, isQuotaError, mergeDraft, mergeWork, withKey,
} from './storage.js';
import { answer, changesSince, markAccepted, missingRequired } from './responses.js';
import { acceptedPriors } from './suggestions.js';
import { storedSpanCp } from '../data/offsets.js';
import { applyStep, changed, emptyHistory, pushStep } from './history.js';
import { compareTimes, isAfter } from './times.js';
import { ActiveTime, SAVE_MS, addActive, elapsedMs } from './timeontask.js';
import { nowIso, uuid } from '../util.js';

export const SIDES = ['source', 'summary'];
export const other = (side) => (side === 'source' ? 'summary' : 'source');

/** Minimal observable store. */
export function createStore(initial) {
  let state = initial;
  const subs = new Set();
  return {
    get state() {
      return state;
    },
    update(part) {
      const prev = state;
      state = { ...state, ...(typeof part === 'function' ? part(state) : part) };
      for (const fn of subs) fn(state, prev);
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

export const emptyDraft = () => ({ anchor: null, summary: null, source: null, labels: [], note: '', editingId: null });
/** A draft holds work once it has a span, a label or a note. */
export const draftHasWork = (d) => Boolean(d.summary || d.source || d.labels.length || d.note);
/**
 * Whether another tab's newer draft of the open record may take the place of the one shown: only when it is
 * the same draft (one annotation-to-be, shared by the tabs that opened it) or the shown one was saved
 * meanwhile. A tab never takes up a draft another tab started while it shows the record: both would then
 * save one annotation, each over the other's. (Opening the record shows the stored draft, as before.)
 */
export function replacesShown(shown, theirs, entry) {
  if (shown.editingId) return shown.editingId === theirs.editingId;
  if (!shown.id) return false;
  return shown.id === theirs.id || hasOwn(entry?.annotations, shown.id);
}

/** A draft can be saved as an annotation: a summary span and a label. */
export const draftComplete = (d) => Boolean(d.summary && d.labels.length);
/**
 * Related-sentence highlights of the `side` pane for `query`; `pending`: none yet, the model is ranking
 * (assist.js).
 */
export const emptyAssist = () => ({
  side: null, results: [], kind: null, query: null, best: null, pending: false, refined: false,
});

/** Every label path prefix of the chosen labels, in manifest order: ["Unwanted", "Unwanted.Intrinsic"]. */
export function labelPrefixes(chosen, order) {
  const set = new Set();
  for (const l of chosen) {
    const parts = l.split('.');
    for (let i = 1; i <= parts.length; i++) set.add(parts.slice(0, i).join('.'));
  }
  const rank = (l) => {
    const i = order.indexOf(l);
    return i < 0 ? order.length : i;
  };
  return [...set].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
}

/** The picked choices behind a stored label list (inverse of labelPrefixes). */
export function chosenLabels(label, choices) {
  const picked = label.filter((l) => choices.includes(l));
  return picked.filter((l) => !picked.some((o) => o.startsWith(`${l}.`)));
}

/** Annotations (not deleted) of a record entry, oldest first. */
export function liveAnnotations(entry) {
  if (!entry) return [];
  return Object.values(entry.annotations || {})
    .filter((a) => a && !a.deleted)
    .sort((a, b) => compareTimes(a.created_at, b.created_at));
}

/** Count of changes newer than the last export (or than `since`). */
export function unexportedCount(work, since = work.last_export_at || '') {
  let n = 0;
  for (const rec of Object.values(work.records)) {
    if (!rec) continue;
    if (isAfter(rec.status_at, since)) n += 1;
    for (const a of Object.values(rec.annotations || {})) if (isAfter(a.updated_at, since)) n += 1;
    n += changesSince(rec, since);
  }
  return n;
}

/**
 * What the coordinator does not have yet: with an upload link (`upload`, ui.upload), the changes made since
 * the last upload's export (the storage has the rest); without, those since the last export file.
 * {n, uploads: whether it counts uploads}.
 */
export function undelivered(work, upload) {
  if (!upload) return { n: unexportedCount(work), uploads: false };
  return { n: unexportedCount(work, upload.at || ''), uploads: true };
}

/** Status of a record for lists and progress: 'todo' when untouched. */
export function recordStatus(work, id) {
  const e = hasOwn(work.records, id) ? work.records[id] : null;
  if (!e) return 'todo';
  return e.status || 'in_progress';
}

/**
 * The draft as stored: its fields, the unit of its spans and the time of the change. Drafts stored by
 * earlier pages carry no unit and hold UTF-16 spans (restoreDraft converts them).
 */
const storedDraft = (d) => ({
  anchor: d.anchor, summary: d.summary, source: d.source, labels: [...d.labels], note: d.note,
  editingId: d.editingId, ...(d.id ? { id: d.id } : {}), ...(d.started ? { started: d.started } : {}), unit: 'cp',
  updated_at: nowIso(),
});

/** The plain words for a write that failed: why, and what to do (the banner offers Export). */
export function notSavedText(error) {
  const act = 'Export your work to a file now so that nothing is lost.';
  if (error?.name === 'NotOverwrittenError') {
    return `Your latest changes are NOT saved: the copy saved in this browser was changed elsewhere and cannot be read, so it was not overwritten. ${act} Then reload the page: it keeps that copy aside, untouched, and saves your work anew.`;
  }
  const why = isQuotaError(error) ? 'this browser\'s storage is full'
    : /IOError|disk|write/i.test(`${error?.message}`) || ['UnknownError', 'InvalidStateError'].includes(error?.name)
      ? 'the browser could not write to the disk (is it full?)'
      : `this browser refused to save them (${error?.name || error?.message || error})`;
  return `Your latest changes are NOT saved: ${why}. ${act} The page tries to save them again with your next change.`;
}

/**
 * Build the application store. Every offset it holds (drafts, saved work, the record's sentences) is a
 * Python code-point index, the unit of every file; the panes convert to the DOM's UTF-16 (offsets.js).
 * deps: {bundle (data.js Bundle), annotator, clientId, storage (an opened WorkStorage), work (what it
 * read), aside (what it could not read), openError (why storage could not be opened: nothing is saved),
 * view, questions (every question of the settings, settings.js `all`: the required ones hold up a submit)}.
 */
const OVERLAP_TEXT = 'This span overlaps one of your annotations, and this task does not allow overlapping spans: select other text, or edit that annotation.';

/** The banner of a browser that refused to open its storage. */
/** The banner of records whose changes an earlier page could not keep as it went away (storage.js `lost`). */
export function lostText(ids) {
  const which = `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`;
  return `Your last changes before this page was closed or reloaded were NOT saved (${ids.length > 1 ? 'records' : 'record'} ${which}): they were still being saved and too large to keep while the page closed. Redo them, or import them again from their file, and wait for "saved" before closing. Export your work to a file now so that nothing else is lost.`;
}

export const refusedText = (error) => `This browser refuses to save (${error.message || error}): nothing you do here is saved. Export to keep your work.`;

export function createAppStore({
  bundle, annotator, clientId, storage, work, aside = [], lost = [], openError = null, view, questions = [],
}) {
  const m = bundle.manifest;
  const labelOrder = m.labels || [];
  const labelChoices = m.label_choices
    || labelOrder.filter((l) => !labelOrder.some((o) => o.startsWith(`${l}.`)));
  // the span question's label texts, and whether a span may lie over another (Argilla's allow_overlapping)
  const spanQuestion = (m.settings?.questions || []).find((q) => q.type === 'span') || {};
  const oneLabel = spanQuestion.allow_overlapping === false;
  const fewLabels = (labels) => (oneLabel ? labels.slice(0, 1) : labels);
  /** Whether [start, end) of the summary lies over a saved annotation of this record (one label per span
   * means no span over another: Argilla refuses an answer with overlapping spans then). */
  const overlapsMine = (id, start, end, except) => oneLabel && liveAnnotations(entryOf(get().work, id))
    .some((a) => a.id !== except && a.summary && a.summary.start < end && start < a.summary.end);
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
    assist: emptyAssist(),
    view: { k: 5, minScore: 0.2, ...view },
    model: { status: 'idle', message: '' },
    history: emptyHistory(),
    ui: {
      help: false, guidelines: false, storageError: openError ? refusedText(openError) : lostNote, message: null,
      hover: null,
      save: { state: lostNote ? 'failed' : 'idle', seq: 0 }, choice: null, confirmClear: false, draftMessage: null, toast: null, aside,
      earlier: [], allDone: false,
    },
  });
  const get = () => store.state;
  let loadSeq = 0;
  /** This page load's counter of active time in each record entry (timeontask.js: one per session). */
  const session = uuid();
  /** Counts the time on task once the page's events reach it (`trackTime`: not in review mode). */
  let timer = null;
  let saveSeq = 0;
  let savedAt = null;
  /**
   * The changes not yet on disk, by entry (`kind:id`): {change: the newest value written, seq: the write
   * carrying it, error: why the last write of this entry failed}. An entry leaves only when a write of its
   * newest value completes: a later write of another entry (the cleared draft after a failed annotation)
   * says nothing of it, and a failed entry is written again with each later change until it is on disk.
   */
  const unsaved = new Map();
  const inFlight = new Set();
  const keyOf = (c) => `${c.kind}:${c.id}`;

  function setUi(part) {
    store.update({ ui: { ...get().ui, ...part } });
  }

  /** The save indicator from the oldest change not yet on disk: a failure, else "saving", else "saved". */
  function showSave() {
    const failed = [...unsaved.values()].find((u) => u.error);
    const state = failed || lostNote ? 'failed' : unsaved.size ? 'saving' : 'saved';
    const storageError = failed ? notSavedText(failed.error) : lostNote;
    const { save, storageError: shown } = get().ui;
    if (save.state === state && shown === storageError && (state !== 'saved' || save.at === savedAt)) return;
    setUi({ save: { state, seq: saveSeq, at: savedAt }, storageError });
  }

  function write(changes) {
    const seq = ++saveSeq;
    for (const c of changes) unsaved.set(keyOf(c), { change: c, seq, error: unsaved.get(keyOf(c))?.error || null });
    inFlight.add(seq);
    showSave();
    storage.write(changes).then((merged) => {
      inFlight.delete(seq);
      for (const c of changes) if (unsaved.get(keyOf(c))?.seq === seq) unsaved.delete(keyOf(c));
      savedAt = nowIso();
      actions.mergeExternal(applyEntries(emptyWork(), merged)); // the stored entry may hold another tab's newer work
      showSave();
    }, (error) => {
      inFlight.delete(seq);
      for (const c of changes) {
        const u = unsaved.get(keyOf(c));
        if (u) u.error = error; // a newer write of it still in flight clears it when it completes
      }
      // a copy in this tab's unload journal now, not only at pagehide (a killed browser has none): where
      // localStorage still has room (IndexedDB's quota is not its), the next load stores it
      storage.saveJournal();
      showSave();
    });
  }

  /**
   * Write changed entries durably, and again every entry whose write failed (each on its own: one refused
   * entry must not hold up the rest).
   */
  function persist(changes) {
    const keys = new Set(changes.map(keyOf));
    for (const [key, u] of unsaved) if (u.error && !keys.has(key) && !inFlight.has(u.seq)) write([u.change]);
    write(changes);
  }

  const entryOf = (w, id) => (hasOwn(w.records, id) ? w.records[id] : null);

  /**
   * Position the work's records that `placed` lacks through the ids shards (the work is keyed by id,
   * the list and the counts by position): each id asked once, again only after a failed read; an id
   * this bundle lacks stays unplaced (its work is kept, never dropped).
   */
  const asked = new Set();
  function place() {
    const fresh = Object.keys(get().work.records).filter((id) => !asked.has(id));
    if (!fresh.length) return;
    for (const id of fresh) asked.add(id);
    bundle.recordIndex.positionsOf(fresh).then((found) => {
      const placed = new Map(get().placed);
      for (const [id, p] of found) placed.set(id, p);
      if (placed.size !== get().placed.size) store.update({ placed });
    }, () => {
      for (const id of fresh) asked.delete(id);
    });
  }
  store.subscribe((s, prev) => {
    if (s.work !== prev.work) place();
  });

  /** The text questions (an answer typed a keystroke at a time is one step of the history). */
  const typed = new Set((m.settings?.questions || []).filter((q) => q.type === 'text').map((q) => q.name));

  /**
   * Apply fn(entry) -> entry to a record's work entry, stamp it, save. With `step` ({text, key?}) the change
   * is a step of the history (undo / redo).
   */
  function changeRecord(id, fn, step = null) {
    const { work: w, current, placed } = get();
    const old = entryOf(w, id);
    const entry = old || { status: 'in_progress', status_at: null, updated_at: null, annotations: dict() };
    const next = fn({ ...entry, annotations: dict(entry.annotations) });
    const ms = timer ? timer.take(id) : 0;
    if (ms) next.active = addActive(next.active, session, ms);
    next.updated_at = nowIso();
    // the open record's position is known: placed with the change, so its status shows at once
    const known = id === current.id && !placed.has(id) ? { placed: new Map(placed).set(id, current.index) } : {};
    if (known.placed) asked.add(id);
    const history = step && changed(old, next)
      ? {
        history: pushStep(get().history, {
          ...step, id, index: current.id === id ? current.index : undefined, before: old, after: next, at: Date.now(),
        }),
      }
      : {};
    store.update({ work: { ...w, records: withKey(w.records, id, next) }, ...known, ...history });
    persist([{ kind: 'r', id, value: next }]);
  }

  /** Undo (dir -1) or redo (1) a step of the history; on another record, that record opens. */
  function replay(dir) {
    const { past, future } = get().history;
    const st = dir < 0 ? past[past.length - 1] : future[future.length - 1];
    if (!st) return false;
    if (get().ui.toast) setUi({ toast: null });
    const [from, to] = dir < 0 ? [st.after, st.before] : [st.before, st.after];
    changeRecord(st.id, (entry) => applyStep(entry, from, to, nowIso()));
    store.update({ history: dir < 0 ? { past: past.slice(0, -1), future: [...future, st] }
      : { past: [...past, st], future: future.slice(0, -1) } });
    if (st.index !== undefined && st.index !== get().current.index) actions.goTo(st.index);
    return true;
  }

  /**
   * Set the draft of the open record and keep it in storage (a draft is work). A new draft gets, with its
   * first work, the id of the annotation it will be saved as: two tabs showing one stored draft save it
   * as one annotation, whichever saves it, however often.
   */
  function setDraft(draft, extra = {}) {
    if (!draft.id && !draft.editingId && draftHasWork(draft)) draft = { ...draft, id: uuid() };
    if (!draft.started && draftHasWork(draft)) draft = { ...draft, started: nowIso() }; // its creation, for elapsed_ms
    const id = get().current.id;
    const ui = get().ui;
    const uiPart = ui.confirmClear || ui.draftMessage ? { ui: { ...ui, confirmClear: false, draftMessage: null } } : {};
    if (!id) {
      store.update({ draft, ...extra, ...uiPart });
      return;
    }
    const value = storedDraft(draft);
    store.update({ draft, drafts: withKey(get().drafts, id, value), ...extra, ...uiPart });
    persist([{ kind: 'd', id, value }]);
  }

  /** The stored draft of a record, with spans checked against its texts. */
  function restoreDraft(id, rec) {
    const d = hasOwn(get().drafts, id) ? get().drafts[id] : null;
    if (!d) return emptyDraft();
    const span = (side) => storedSpanCp(d[side], d.unit, rec[side].offsets);
    const editing = d.editingId && entryOf(get().work, id)?.annotations[d.editingId];
    return {
      anchor: d.anchor, summary: span('summary'), source: span('source'),
      labels: fewLabels(d.labels.filter((l) => labelChoices.includes(l))), note: d.note,
      editingId: editing && !editing.deleted ? d.editingId : null, ...(d.id ? { id: d.id } : {}),
      ...(d.started ? { started: d.started } : {}),
    };
  }

  /**
   * Write the counted time of the records that have work (changeRecord takes it); a record without work keeps
   * it until its first change: a look alone makes no work entry, which would mark the record in progress.
   */
  function saveTime() {
    for (const id of timer ? timer.ids() : []) if (entryOf(get().work, id)) changeRecord(id, (entry) => entry);
  }
  store.subscribe((s, prev) => {
    if (!timer || s.current.id === prev.current.id) return;
    timer.open(s.current.id, Date.now());
    if (prev.current.id) saveTime();
  });

  /** The required questions of record `id` not answered yet (their titles, settings order). */
  function missingOf(id) {
    const entry = id ? entryOf(get().work, id) : null;
    return missingRequired(questions, entry, liveAnnotations(entry).length);
  }

  /** The notice of an undoable change (its Undo undoes the last step of the history). */
  function undoable(text, id, extra = {}) {
    return () => setUi({ toast: { text, id, at: Date.now(), ...extra } });
  }

  const actions = {
    /** Open the record at position `index` (0-based); resolves when it is loaded. */
    async goTo(index) {
      const rix = bundle.recordIndex;
      if (!rix.count) return;
      index = Math.max(0, Math.min(index, rix.count - 1));
      const seq = ++loadSeq;
      let id;
      try {
        id = (rix.row(index) || await rix.rowAt(index)).id; // its index shard: mostly cached already
      } catch (err) {
        if (seq === loadSeq) {
          const error = String(err.message || err);
          store.update({ current: { index, id: null, record: null, loading: false, error } });
        }
        return;
      }
      if (seq !== loadSeq) return;
      store.update({
        current: { index, id, record: null, loading: true, error: null },
        draft: emptyDraft(), assist: emptyAssist(),
        ui: { ...get().ui, choice: null, confirmClear: false, draftMessage: null },
      });
      try {
        const record = await bundle.record(id, index);
        if (seq !== loadSeq) return;
        store.update({ current: { index, id, record, loading: false, error: null }, draft: restoreDraft(id, record) });
        if (index + 1 < rix.count) rix.rowAt(index + 1).then((r) => bundle.prefetch(r.id, index + 1), () => {});
      } catch (err) {
        if (seq !== loadSeq) return;
        store.update({ current: { index, id, record: null, loading: false, error: String(err.message || err) } });
      }
    },
    /** Open record `id` (its position: known, else one ids shard read). */
    async goToId(id) {
      let i = get().placed.get(id);
      if (i === undefined) {
        try {
          i = await bundle.recordIndex.positionOf(id);
        } catch (err) {
          setUi({ message: `Record “${id}” could not be looked up (${err.message}).` });
          return;
        }
      }
      if (i < 0) {
        setUi({ message: `No record with id “${id}” in this bundle.` });
        return;
      }
      await actions.goTo(i);
    },
    next() {
      return actions.goTo(get().current.index + 1);
    },
    prev() {
      return actions.goTo(get().current.index - 1);
    },

    /**
     * Before leaving the draft (submit, discard, another record): save it when complete, run `go` when
     * there is nothing to keep, otherwise stop with an inline choice (see `choose`). `what` names the
     * step for the choice: 'submit' | 'discard' | 'navigate'.
     */
    leaveDraft(what, go) {
      const d = get().draft;
      if (!get().current.record || !draftHasWork(d)) return go();
      if (draftComplete(d) && actions.saveDraft()) return go();
      setUi({ choice: { what, go } });
      return null;
    },
    /** The inline choice: 'keep' (the draft stays stored for later), 'discard' (thrown away) or 'stay'. */
    choose(option) {
      const { choice } = get().ui;
      if (!choice) return;
      setUi({ choice: null });
      if (option === 'stay') return;
      if (option === 'discard') actions.clear();
      else if (choice.what !== 'navigate') return; // a finished record keeps no draft: only navigation keeps one
      choice.go();
    },

    /**
     * A text selection (code-point span) in a pane. Returns 'anchor' when it is the query span (the caller
     * then ranks the other pane) or 'pair' when it sets/trims the span paired with the anchor.
     */
    /** What a span selected in `side` would be in the draft: 'anchor' (a new query) or 'pair'. */
    roleOf(side) {
      const d = get().draft;
      return d.anchor && d.anchor !== side && (get().assist.side === side || d.editingId) ? 'pair' : 'anchor';
    },
    select(side, start, end) {
      const d = get().draft;
      const role = actions.roleOf(side);
      const draft = { ...d, [side]: [start, end] };
      if (role === 'anchor') draft.anchor = side;
      setDraft(draft);
      return role;
    },
    /** Click on a highlighted sentence: it becomes the span paired with the anchor. */
    pairSentence(side, index) {
      const { current: { record: rec }, draft: d, assist } = get();
      if (!rec || !d.anchor || d.anchor === side || assist.side !== side) return;
      const [s, e] = rec[side].sentences[index];
      setDraft({ ...d, [side]: [s, e] });
    },
    /** The draft's span on the side other than its anchor's is dropped (`x`: no span there). */
    clearPair() {
      const { anchor } = get().draft;
      if (anchor) actions.clearSpan(other(anchor));
    },
    clearSpan(side) {
      const d = get().draft;
      setDraft({ ...d, [side]: null, anchor: d.anchor === side ? null : d.anchor });
    },
    /** Drop the draft and the highlights. */
    clear() {
      setDraft(emptyDraft(), { assist: emptyAssist() });
      const ui = get().ui;
      if (ui.help || ui.message || ui.confirmClear) setUi({ help: false, message: null, confirmClear: false });
    },
    /**
     * Esc or "Clear": a draft with a label or a note is cleared only on a second request (the first
     * says so in the draft card); a bare selection is cleared at once. Returns whether it was cleared.
     */
    requestClear() {
      const { draft: d, ui } = get();
      if ((d.labels.length || d.note) && !ui.confirmClear) {
        setUi({ confirmClear: true });
        return false;
      }
      actions.clear();
      return true;
    },
    toggleLabel(label) {
      const d = get().draft;
      const labels = d.labels.includes(label) ? d.labels.filter((l) => l !== label)
        : (oneLabel ? [label] : [...d.labels, label]);
      setDraft({ ...d, labels });
    },
    setNote(note) {
      setDraft({ ...get().draft, note });
    },

    /** Save the draft as a new annotation or over the one being edited. Returns the id or null. */
    saveDraft() {
      const { draft: d, current } = get();
      const rec = current.record;
      if (!rec) return null;
      if (!d.summary) {
        setUi({ draftMessage: 'Select a span in the summary first.' });
        return null;
      }
      if (!d.labels.length) {
        setUi({ draftMessage: 'Pick at least one label (keys 1–9).' });
        return null;
      }
      const span = (side) => {
        if (!d[side]) return null;
        const [s, e] = d[side];
        return { start: s, end: e, text: rec[side].slice(s, e) };
      };
      if (overlapsMine(rec.id, d.summary[0], d.summary[1], d.editingId)) {
        setUi({ draftMessage: OVERLAP_TEXT });
        return null;
      }
      const at = nowIso();
      const id = d.editingId || d.id || uuid();
      const toast = d.editingId ? undoable('Annotation edited.', rec.id, { annotation: id }) : null;
      changeRecord(rec.id, (entry) => {
        const old = entry.annotations[id];
        const live = old && !old.deleted ? old : null;
        const elapsed = elapsedMs(live, d.started, at);
        entry.annotations[id] = {
          id, label: labelPrefixes(d.labels, labelOrder), note: d.note,
          summary: span('summary'), source: span('source'),
          created_at: live ? old.created_at : at, updated_at: at, ...(elapsed === null ? {} : { elapsed_ms: elapsed }),
        };
        return entry;
      }, { text: d.editingId ? 'Annotation edited' : 'Annotation added' });
      setDraft(emptyDraft(), { assist: emptyAssist() });
      if (toast) toast();
      return id;
    },
    /** Load an annotation into the draft for editing. */
    editAnnotation(id) {
      const { current, work } = get();
      const rec = current.record;
      const a = entryOf(work, current.id)?.annotations[id];
      if (!rec || !a || a.deleted) return;
      const toSpan = (side) => (a[side] ? [a[side].start, a[side].end] : null);
      setDraft({
        anchor: 'summary', summary: toSpan('summary'), source: toSpan('source'),
        labels: fewLabels(chosenLabels(a.label, labelChoices)), note: a.note || '', editingId: id,
      }, { assist: emptyAssist() });
    },
    deleteAnnotation(id) {
      const { current } = get();
      const toast = undoable('Annotation deleted.', current.id, { annotation: id });
      changeRecord(current.id, (entry) => {
        entry.annotations[id] = { id, deleted: true, updated_at: nowIso() };
        return entry;
      }, { text: 'Annotation deleted' });
      if (get().draft.editingId === id) setDraft(emptyDraft());
      if (get().ui.hover === id) setUi({ hover: null });
      toast();
    },
    /** A prior annotation / span suggestion as the draft (to change, then save as the annotator's own). */
    draftFrom(p) {
      const span = (x) => (x && Number.isInteger(x.start) ? [x.start, x.end] : null);
      setDraft({
        anchor: 'summary', summary: span(p.summary), source: span(p.source),
        labels: fewLabels(chosenLabels(p.label || [], labelChoices)), note: p.note || '', editingId: null,
      }, { assist: emptyAssist() });
    },
    /**
     * `a` once every record-level suggestion is accepted: accept the first span suggestion not yet among the
     * annotations. Returns whether one was accepted.
     */
    acceptNextSpan() {
      const { current, work } = get();
      const prior = current.record?.prior_annotations || [];
      const i = acceptedPriors(prior, liveAnnotations(current.id ? entryOf(work, current.id) : null)).indexOf(false);
      return i >= 0 && Boolean(actions.acceptPrior(i));
    },
    /** Copy a prior (input) annotation into the annotator's own. */
    acceptPrior(index) {
      const { current } = get();
      const p = current.record?.prior_annotations?.[index];
      if (!p) return null;
      const at = nowIso();
      const id = uuid();
      const span = (s) => (s && Number.isInteger(s.start) ? { start: s.start, end: s.end, text: s.text } : null);
      if (p.summary && overlapsMine(current.id, p.summary.start, p.summary.end, null)) {
        setUi({ draftMessage: OVERLAP_TEXT });
        return null;
      }
      // one label per span: the suggestion's first (most specific) label, with its parents
      const label = oneLabel
        ? labelPrefixes(chosenLabels(p.label || [], labelChoices).slice(0, 1), labelOrder) : [...(p.label || [])];
      changeRecord(current.id, (entry) => {
        entry.annotations[id] = {
          id, label, note: p.note || '', summary: span(p.summary), source: span(p.source),
          created_at: at, updated_at: at, elapsed_ms: 0, // made and saved by one key
        };
        // a machine's span suggestion
        return p.question && p.agent ? markAccepted(entry, p.question, p.agent, id, at) : entry;
      }, { text: 'Suggestion accepted' });
      return id;
    },
    /**
     * Change record `id`'s work entry with fn(entry) -> entry, stamped and saved (the review mode's changes,
     * review/work.js).
     */
    changeEntry(id, fn) {
      changeRecord(id, fn);
    },
    /** Count the time on task from now (controllers/timeontask.js hands the page's events to the actions below). */
    trackTime() {
      timer = new ActiveTime();
      timer.open(get().current.id, Date.now());
    },
    /**
     * An activity event of the annotator: time on task counts; it is saved with the record's next change,
     * and on its own once `SAVE_MS` of it wait.
     */
    activity() {
      timer.activity(Date.now());
      const { id } = get().current;
      if (id && timer.holds(id, SAVE_MS)) saveTime();
    },
    /** The tab is hidden (nothing counts until it shows again; the time counted is saved) or shown. */
    tabHidden(hidden) {
      if (hidden) {
        timer.hide(Date.now());
        saveTime();
      } else timer.show(Date.now());
    },
    /**
     * The page goes away (pagehide): what was counted since the last save is dropped, not written: a write
     * begun now would come after the unload journal, and the next load would call the record's change lost.
     */
    pageGone() {
      timer.hide(Date.now());
      for (const id of timer.ids()) timer.take(id);
    },
    /** Save the time on task counted so far (before an export). */
    saveTime() {
      saveTime();
    },
    /** Finish the open record: 'submitted' | 'discarded' | 'in_progress' (reopen). */
    setStatus(status) {
      const { current } = get();
      if (!current.id) return;
      const toast = status === 'in_progress' ? null
        : undoable(status === 'submitted' ? 'Record submitted.' : 'Record discarded.', current.id, { index: current.index });
      changeRecord(current.id, (entry) => ({ ...entry, status, status_at: nowIso() }),
        { text: { submitted: 'Record submitted', discarded: 'Record discarded', in_progress: 'Record reopened' }[status] });
      if (toast) toast();
    },
    /**
     * Submit ('submitted') or discard ('discarded') the open record. A submit with a required question
     * unanswered is refused, naming it: returns that question's title (its control takes the focus), else null.
     */
    finish(status) {
      if (status === 'submitted') {
        const missing = missingOf(get().current.id);
        if (missing.length) {
          const also = missing.length > 1 ? ` (also: ${missing.slice(1).join(', ')})` : '';
          setUi({ message: `Not submitted: “${missing[0]}” is required and not answered yet${also}.` });
          return missing[0];
        }
      }
      actions.setStatus(status);
      return null;
    },
    /**
     * Open the next record still to do after the open one; `todoFrom(from, after)` is a promise of its
     * position (-1: none left, then "all done" shows). Nothing opens when the annotator moved on meanwhile.
     */
    async goNextTodo(todoFrom) {
      const from = get().current.index;
      let i;
      try {
        i = await todoFrom(from, true);
      } catch (err) {
        setUi({ message: `The next record to do could not be found (${err.message}).` });
        return;
      }
      if (get().current.index !== from) return;
      if (i < 0) setUi({ allDone: true });
      else if (i !== from) await actions.goTo(i);
    },
    /** The "all done" card (every record of the queue or the bundle is submitted or discarded). */
    showAllDone(on) {
      setUi({ allDone: on });
    },
    /** Undo the last step of the history (Ctrl+Z, the notice's Undo); false: nothing to undo. */
    undo() {
      return replay(-1);
    },
    /** Redo the last step undone (Ctrl+Shift+Z, Ctrl+Y). */
    redo() {
      return replay(1);
    },
    /**
     * Answer a record-level question of the open record (an empty value clears it), saved like an
     * annotation. opts: {agent} when it accepts that agent's suggestion, {undo: text} for a notice with Undo.
     */
    setResponse(name, value, { agent = null, undo = null } = {}) {
      const { current } = get();
      if (!current.id) return;
      const toast = undo ? undoable(undo, current.id, { response: name }) : null;
      changeRecord(current.id, (entry) => answer(entry, name, value, agent, nowIso()),
        { text: `Answer: ${name}`, key: typed.has(name) ? `answer:${name}` : null });
      if (toast) toast();
      // An answer cleared on a submitted record that leaves a required question unanswered takes the record
      // back to in progress, saying so: merge refuses a submitted record without its required answers.
      if (entryOf(get().work, current.id)?.status !== 'submitted') return;
      const missing = missingOf(current.id);
      if (!missing.length) return;
      actions.setStatus('in_progress');
      setUi({ message: `Back to in progress: “${missing[0]}” is required; answer it, then submit again (s).` });
    },
    dismissToast() {
      if (get().ui.toast) setUi({ toast: null });
    },

    setAssist(assist) {
      store.update({ assist });
    },
    setView(part) {
      store.update({ view: { ...get().view, ...part } });
    },
    setModel(model) {
      store.update({ model });
    },
    /** Which side columns show (layout.js): {list, side}, null meaning the width's default. */
    setLayout(layout) {
      store.update({ layout });
    },
    /** The review mode's view of the review (review/app.js: record, filters, focus, editors); not work. */
    setReview(part) {
      store.update({ review: { ...get().review, ...part } });
    },
    /** The upload to the team's storage (upload.js), shown in the top bar. */
    setUpload(upload) {
      setUi({ upload });
    },
    hover(id) {
      if (get().ui.hover !== id) setUi({ hover: id });
    },
    toggleHelp(on = !get().ui.help) {
      setUi({ help: on });
    },
    toggleGuidelines(on = !get().ui.guidelines) {
      setUi({ guidelines: on });
    },
    message(text) {
      setUi({ message: text });
    },
    dismissAside() {
      setUi({ aside: [] });
    },
    /**
     * Offer work saved elsewhere (storage.earlierBundles):
     * [{key, bundleId, spelling, records, accept(), decline()}].
     */
    offerEarlier(offers) {
      setUi({ earlier: offers });
    },
    answerEarlier(key, accept) {
      const offer = get().ui.earlier.find((o) => o.key === key);
      if (!offer) return null;
      setUi({ earlier: get().ui.earlier.filter((o) => o !== offer) });
      return accept ? offer.accept() : offer.decline();
    },

    /**
     * Another tab (or the stored entry a write merged with) holds work: merge it into ours. A newer draft
     * of the open record replaces the one shown (another tab changed it, saved it or threw it away).
     */
    mergeExternal(theirs) {
      const { work, drafts, current, draft: shown } = get();
      const merged = mergeWork(work, { records: theirs.records, last_export_at: theirs.last_export_at });
      let nextDrafts = drafts;
      for (const id of Object.keys(theirs.drafts || {})) {
        const mine = hasOwn(drafts, id) ? drafts[id] : null;
        if (mergeDraft(mine, theirs.drafts[id]) === mine) continue;
        const open = id === current.id && current.record;
        if (open && !replacesShown(shown, theirs.drafts[id], entryOf(merged, id))) continue;
        nextDrafts = withKey(nextDrafts, id, theirs.drafts[id]);
      }
      if (merged !== work || nextDrafts !== drafts) {
        store.update({ work: { records: merged.records, last_export_at: merged.last_export_at }, drafts: nextDrafts });
      }
      if (current.record && nextDrafts[current.id] !== drafts[current.id]) {
        store.update({ draft: restoreDraft(current.id, current.record), assist: emptyAssist() });
      }
    },
    /** Merge imported work, then save the records it changes. Older imported data never replaces newer local data. */
    importWork(imported) {
      const w = get().work;
      const merged = mergeWork(w, imported);
      if (merged === w) return;
      store.update({ work: { records: merged.records, last_export_at: merged.last_export_at } });
      const changed = Object.keys(merged.records).filter((id) => merged.records[id] !== w.records[id]);
      persist(changed.map((id) => ({ kind: 'r', id, value: merged.records[id] })));
    },
    /**
     * Import a checked export file's work (`work`); with `whole` (the file is an export and nothing of it was
     * left out) and nothing unexported here before, all the work after it is in that file: it counts as
     * exported up to the file's newest change (not its whole-second exported_at, which reads "…:05Z": a later
     * change at "…:05.400Z" is after it), so re-importing a file just exported reports no unexported change.
     * Returns how many of its records this browser already had work on.
     */
    importFile(imported, whole) {
      const clean = unexportedCount(get().work) === 0;
      const shared = Object.keys(imported.records).filter((id) => get().work.records[id]).length;
      actions.importWork(imported);
      const newest = Object.values(imported.records)
        .flatMap((r) => [r.status_at, ...Object.values(r.annotations).map((a) => a.updated_at)])
        .reduce((t, u) => (isAfter(u, t) ? u : t), '');
      if (clean && whole && isAfter(newest, get().work.last_export_at)) actions.markExported(newest);
      return shared;
    },
    /**
     * Place the stored work's records (read their ids shards): controllers/records.js calls it once the first record
     * shows, so that these reads (one ids shard per few records with work) never delay it; every change
     * of the work places its new ids.
     */
    placeWork() {
      place();
    },
    markExported(at) {
      store.update({ work: { ...get().work, last_export_at: at } });
      persist([{ kind: 'm', id: 'meta', value: { last_export_at: at } }]);
    },
  };
  store.actions = actions;
  return store;
}
