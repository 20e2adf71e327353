/**
 * The work slice: the annotator's work entries (annotations, statuses, answers; persisted) and `placed`,
 * and every rule of the work: a change stamped, saved and made a step of the history; a submit refused
 * while a required question is unanswered (`finish`); an answer cleared on a submitted record taking it back
 * to in progress (`setResponse`); an import merged, newer local data kept (`importWork`, `importFile`);
 * the time on task saved with the record's changes.
 */
import { answer, changesSince, missingRequired } from './responses.js';
import { applyStep, changed, pushStep } from './history.js';
import { compareTimes, isAfter } from './times.js';
import { ActiveTime, SAVE_MS, addActive } from './timeontask.js';
import { dict, hasOwn, nowIso, uuid, withKey } from '../util.js';
import { mergeWork } from './workmerge.js';

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

export const entryOf = (w, id) => (hasOwn(w.records, id) ? w.records[id] : null);

/**
 * The work slice's actions. ctx: {store, bundle, questions, persist (saving.js), actions (every slice's:
 * `goTo`, the draft slice's `mergeDrafts`, the verdicts slice's `holdSubmit`, the ui slice's notices)}.
 */
export function workSlice(ctx) {
  const { store, bundle, questions, persist, actions: all } = ctx;
  const get = () => store.state;
  const m = bundle.manifest;
  /** This page load's counter of active time in each record entry (timeontask.js: one per session). */
  const session = uuid();
  /** Counts the time on task once the page's events reach it (`trackTime`: not in review mode). */
  let timer = null;
  /** The text questions (an answer typed a keystroke at a time is one step of the history). */
  const typed = new Set((m.settings?.questions || []).filter((q) => q.type === 'text').map((q) => q.name));

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

  /**
   * Apply fn(entry) -> entry to a record's work entry, stamp it, save. With `step` ({text, key?}) the change
   * is a step of the history (undo / redo). `stamp` false (time on task saved alone) keeps `updated_at`: it
   * says when the annotator last changed the work, not when the page last counted time.
   */
  function changeRecord(id, fn, step = null, stamp = true) {
    const { work: w, current, placed } = get();
    const old = entryOf(w, id);
    const entry = old || { status: 'in_progress', status_at: null, updated_at: null, annotations: dict() };
    const next = fn({ ...entry, annotations: dict(entry.annotations) });
    const ms = timer ? timer.take(id) : 0;
    if (ms) next.active = addActive(next.active, session, ms);
    next.updated_at = stamp || !entry.updated_at ? nowIso() : entry.updated_at;
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
    all.dismissToast();
    const [from, to] = dir < 0 ? [st.after, st.before] : [st.before, st.after];
    changeRecord(st.id, (entry) => applyStep(entry, from, to, nowIso()));
    store.update({ history: dir < 0 ? { past: past.slice(0, -1), future: [...future, st] }
      : { past: [...past, st], future: future.slice(0, -1) } });
    if (st.index !== undefined && st.index !== get().current.index) all.goTo(st.index);
    return true;
  }

  /**
   * Write the counted time of the records that have work (changeRecord takes it); a record without work keeps
   * it until its first change: a look alone makes no work entry, which would mark the record in progress.
   */
  function saveTime() {
    for (const id of timer ? timer.ids() : []) {
      if (entryOf(get().work, id)) changeRecord(id, (entry) => entry, null, false);
    }
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

  const actions = {
    /** A change of record `id`'s work entry (`changeRecord`: every slice changes the work through it). */
    changeRecord,
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
      const done = status === 'in_progress' ? null : status === 'submitted' ? 'Record submitted.' : 'Record discarded.';
      changeRecord(current.id, (entry) => ({ ...entry, status, status_at: nowIso() }),
        { text: { submitted: 'Record submitted', discarded: 'Record discarded', in_progress: 'Record reopened' }[status] });
      if (done) all.toast(done, current.id, { index: current.index });
    },
    /**
     * Submit ('submitted') or discard ('discarded') the open record. A submit with a required question
     * unanswered is refused, naming it: returns that question's title (its control takes the focus); one
     * the sentence verdicts hold (verdicts.js `holdSubmit`) returns true; else null.
     */
    finish(status) {
      if (status === 'submitted') {
        const missing = missingOf(get().current.id);
        if (missing.length) {
          const also = missing.length > 1 ? ` (also: ${missing.slice(1).join(', ')})` : '';
          all.message(`Not submitted: “${missing[0]}” is required and not answered yet${also}.`);
          return missing[0];
        }
        if (all.holdSubmit()) return true; // sentences not checked (verdicts.js says so)
      }
      actions.setStatus(status);
      return null;
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
      changeRecord(current.id, (entry) => answer(entry, name, value, agent, nowIso()),
        { text: `Answer: ${name}`, key: typed.has(name) ? `answer:${name}` : null });
      if (undo) all.toast(undo, current.id, { response: name });
      // An answer cleared on a submitted record that leaves a required question unanswered takes the record
      // back to in progress, saying so: merge refuses a submitted record without its required answers.
      if (entryOf(get().work, current.id)?.status !== 'submitted') return;
      const missing = missingOf(current.id);
      if (!missing.length) return;
      actions.setStatus('in_progress');
      all.message(`Back to in progress: “${missing[0]}” is required; answer it, then submit again (s).`);
    },
    /**
     * Another tab (or the stored entry a write merged with) holds work: merge it into ours. A newer draft
     * of the open record replaces the one shown (another tab changed it, saved it or threw it away).
     */
    mergeExternal(theirs) {
      const { work } = get();
      const merged = mergeWork(work, { records: theirs.records, last_export_at: theirs.last_export_at });
      const shown = store.batch(() => {
        if (merged !== work) store.update({ work: { records: merged.records, last_export_at: merged.last_export_at } });
        return all.mergeDrafts(theirs.drafts || {});
      });
      if (shown) all.showStoredDraft();
    },
    /** Merge imported work, then save the records it changes. Older imported data never replaces newer local data. */
    importWork(imported) {
      const w = get().work;
      const merged = mergeWork(w, imported);
      if (merged === w) return;
      store.update({ work: { records: merged.records, last_export_at: merged.last_export_at } });
      const changedIds = Object.keys(merged.records).filter((id) => merged.records[id] !== w.records[id]);
      persist(changedIds.map((id) => ({ kind: 'r', id, value: merged.records[id] })));
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
  return actions;
}
