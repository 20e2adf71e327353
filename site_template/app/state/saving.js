/**
 * The save indicator's truth: per entry (`kind:id`) the newest change not yet on disk and the error of its
 * last write; "saved" only when none is left; a failed entry written again with each later change. Its
 * words (why a write failed, what was lost as a page closed) are written here once; the top bar and the
 * review mode draw them through views/savestatus.js `mountSaveStatus`.
 */
import { applyEntries, isQuotaError } from './storage.js';
import { nowIso } from '../util.js';
import { emptyWork } from './workmerge.js';

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

/** The banner of records whose changes an earlier page could not keep as it went away (storage.js `lost`). */
export function lostText(ids) {
  const which = `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`;
  return `Your last changes before this page was closed or reloaded were NOT saved (${ids.length > 1 ? 'records' : 'record'} ${which}): they were still being saved and too large to keep while the page closed. Redo them, or import them again from their file, and wait for "saved" before closing. Export your work to a file now so that nothing else is lost.`;
}

/** The banner of a browser that refused to open its storage. */
export const refusedText = (error) => `This browser refuses to save (${error.message || error}): nothing you do here is saved. Export to keep your work.`;

/** The words of each save state: short (the top bar's indicator) and in full (the draft card). */
export const SAVE_WORDS = {
  idle: { short: '', full: '' },
  saving: { short: 'saving…', full: 'saving…' },
  saved: { short: 'saved', full: 'saved in this browser' },
  failed: { short: 'NOT saved', full: 'NOT saved: export your work (see the red message at the top)' },
};

/** What the indicator shows of the store's `ui`: {state: 'idle'|'saving'|'saved'|'error', at, message}. */
export function saveStatusOf(ui) {
  if (ui.storageError) return { state: 'error', message: ui.storageError };
  return { state: ui.save.state === 'failed' ? 'error' : ui.save.state, at: ui.save.at };
}

/**
 * The saving slice: `persist(changes)` writes entries ({kind, id, value}) through `storage`, keeping
 * `ui.save` and `ui.storageError` (the ui slice's `showSave`) true to what is on disk; the work slice's
 * `mergeExternal` takes the stored entries a write merged with (another tab's newer work). `lostNote`: said
 * until the page is loaded again. `actions`: every slice's.
 */
export function savingSlice({ store, storage, lostNote, actions }) {
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

  /** The save indicator from the oldest change not yet on disk: a failure, else "saving", else "saved". */
  function showSave() {
    const failed = [...unsaved.values()].find((u) => u.error);
    const state = failed || lostNote ? 'failed' : unsaved.size ? 'saving' : 'saved';
    const storageError = failed ? notSavedText(failed.error) : lostNote;
    const { ui } = store.state;
    if (ui.save.state === state && ui.storageError === storageError && (state !== 'saved' || ui.save.at === savedAt)) return;
    actions.showSave({ state, seq: saveSeq, at: savedAt }, storageError);
  }

  function write(changes) {
    const seq = ++saveSeq;
    for (const c of changes) unsaved.set(keyOf(c), { change: c, seq, error: unsaved.get(keyOf(c))?.error || null });
    inFlight.add(seq);
    showSave();
    storage.write(changes).then((stored) => {
      inFlight.delete(seq);
      for (const c of changes) if (unsaved.get(keyOf(c))?.seq === seq) unsaved.delete(keyOf(c));
      savedAt = nowIso();
      actions.mergeExternal(applyEntries(emptyWork(), stored)); // the stored entry may hold another tab's newer work
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
  return { persist };
}
