/**
 * The page state and every action that changes it. Renderers subscribe and redraw only the slices
 * whose object identity changed; nothing here touches the DOM.
 *
 * State slices: `current` (open record), `work` (the annotator's annotations + statuses, persisted),
 * `draft` (the annotation being made: UTF-16 spans per side, labels, note), `assist` (related-sentence
 * highlights), `view` (k, min score), `model` (in-browser model status), `ui` (overlays, messages).
 */
import { isQuotaError, mergeWork } from './storage.js';
import { nowIso, uuid } from './util.js';

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
    update(part, reason = '') {
      const prev = state;
      state = { ...state, ...(typeof part === 'function' ? part(state) : part) };
      for (const fn of subs) fn(state, prev, reason);
    },
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
  };
}

export const emptyDraft = () => ({ anchor: null, summary: null, source: null, labels: [], note: '', editingId: null });
export const emptyAssist = () => ({ side: null, results: [], kind: null, query: null, best: null });

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
    .filter((a) => !a.deleted)
    .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}

/** Count of changes newer than the last export. */
export function unexportedCount(work) {
  const since = work.last_export_at || '';
  let n = 0;
  for (const rec of Object.values(work.records)) {
    if ((rec.status_at || '') > since) n += 1;
    for (const a of Object.values(rec.annotations || {})) if ((a.updated_at || '') > since) n += 1;
  }
  return n;
}

/** Status of a record for lists and progress: 'todo' when untouched. */
export function recordStatus(work, id) {
  const e = work.records[id];
  if (!e) return 'todo';
  return e.status || 'in_progress';
}

/**
 * Build the application store.
 * deps: {bundle (data.js Bundle), annotator, clientId, storage (WorkStorage)}.
 */
export function createAppStore({ bundle, annotator, clientId, storage, view }) {
  const m = bundle.manifest;
  const labelOrder = m.labels || [];
  const labelChoices = m.label_choices
    || labelOrder.filter((l) => !labelOrder.some((o) => o.startsWith(`${l}.`)));
  const store = createStore({
    annotator,
    clientId,
    labelChoices,
    current: { index: -1, id: null, record: null, loading: false, error: null },
    work: storage.load(),
    draft: emptyDraft(),
    assist: emptyAssist(),
    view: { k: 5, minScore: 0.2, ...view },
    model: { status: 'idle', message: '' },
    ui: { help: false, guidelines: false, storageError: null, message: null, draftMessage: null, hover: null, allDone: false },
  });
  const get = () => store.state;
  let loadSeq = 0;

  function setUi(part) {
    store.update({ ui: { ...get().ui, ...part } }, 'ui');
  }

  function persist(work, reason) {
    const { work: merged, error } = storage.save(work);
    store.update({ work: merged }, reason);
    let storageError = null;
    if (error) {
      storageError = isQuotaError(error)
        ? 'Browser storage is full: your latest changes are NOT saved in this browser. Export now to keep them.'
        : `This browser refuses to save (${error.name || error}): your latest changes are NOT saved here. Export now to keep them.`;
    }
    if (storageError !== get().ui.storageError) setUi({ storageError });
  }

  /** Apply fn(entry) -> entry to the open record's work entry, stamp it, save. */
  function changeRecord(id, fn, reason) {
    const w = get().work;
    const entry = w.records[id] || { status: 'in_progress', status_at: null, updated_at: null, annotations: {} };
    const next = fn({ ...entry, annotations: { ...entry.annotations } });
    next.updated_at = nowIso();
    persist({ ...w, records: { ...w.records, [id]: next } }, reason);
  }

  const actions = {
    /** Open record number `index` (0-based); resolves when it is loaded. */
    async goTo(index) {
      const ids = bundle.ids;
      if (!ids.length) return;
      index = Math.max(0, Math.min(index, ids.length - 1));
      const id = ids[index];
      const seq = ++loadSeq;
      store.update({
        current: { index, id, record: null, loading: true, error: null },
        draft: emptyDraft(), assist: emptyAssist(),
      }, 'navigate');
      try {
        const record = await bundle.record(id);
        if (seq !== loadSeq) return;
        store.update({ current: { index, id, record, loading: false, error: null } }, 'record');
        if (index + 1 < ids.length) bundle.prefetch(ids[index + 1]);
      } catch (err) {
        if (seq !== loadSeq) return;
        store.update({ current: { index, id, record: null, loading: false, error: String(err.message || err) } }, 'record');
      }
    },
    goToId(id) {
      const i = bundle.position.get(id);
      if (i === undefined) {
        setUi({ message: `No record with id “${id}” in this bundle.` });
        return Promise.resolve();
      }
      return actions.goTo(i);
    },
    next() {
      return actions.goTo(get().current.index + 1);
    },
    prev() {
      return actions.goTo(get().current.index - 1);
    },

    /**
     * A text selection (UTF-16 span) in a pane. Returns 'anchor' when it is the query span (the caller
     * then ranks the other pane) or 'pair' when it sets/trims the span paired with the anchor.
     */
    select(side, start, end) {
      const d = get().draft;
      const role = d.anchor && d.anchor !== side && (get().assist.side === side || d.editingId) ? 'pair' : 'anchor';
      const draft = { ...d, [side]: [start, end] };
      if (role === 'anchor') draft.anchor = side;
      store.update({ draft }, 'draft');
      return role;
    },
    /** Click on a highlighted sentence: it becomes the span paired with the anchor. */
    pairSentence(side, index) {
      const rec = get().current.record;
      if (!rec) return;
      const [s, e] = rec[side].sentences[index];
      store.update({ draft: { ...get().draft, [side]: [s, e] } }, 'draft');
    },
    clearSpan(side) {
      const d = get().draft;
      store.update({ draft: { ...d, [side]: null, anchor: d.anchor === side ? null : d.anchor } }, 'draft');
    },
    /** Esc: drop the draft, the highlights and any overlay. */
    clear() {
      store.update({ draft: emptyDraft(), assist: emptyAssist() }, 'clear');
      const ui = get().ui;
      if (ui.help || ui.message) setUi({ help: false, message: null });
    },
    toggleLabel(label) {
      const d = get().draft;
      const labels = d.labels.includes(label) ? d.labels.filter((l) => l !== label) : [...d.labels, label];
      store.update({ draft: { ...d, labels } }, 'draft');
    },
    setNote(note) {
      store.update({ draft: { ...get().draft, note } }, 'draft-note');
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
        const t = rec[side];
        const [s, e] = d[side];
        return { start: t.offsets.toCp(s), end: t.offsets.toCp(e), text: t.text.slice(s, e) };
      };
      const at = nowIso();
      const id = d.editingId || uuid();
      changeRecord(rec.id, (entry) => {
        const old = entry.annotations[id];
        entry.annotations[id] = {
          id, label: labelPrefixes(d.labels, labelOrder), note: d.note,
          summary: span('summary'), source: span('source'),
          created_at: old && !old.deleted ? old.created_at : at, updated_at: at,
        };
        return entry;
      }, 'annotation');
      store.update({ draft: emptyDraft(), assist: emptyAssist() }, 'draft');
      setUi({ message: null, draftMessage: null });
      return id;
    },
    /** Load an annotation into the draft for editing. */
    editAnnotation(id) {
      const { current, work } = get();
      const rec = current.record;
      const a = work.records[current.id]?.annotations?.[id];
      if (!rec || !a || a.deleted) return;
      const toSpan = (side) => (a[side] ? [rec[side].offsets.to16(a[side].start), rec[side].offsets.to16(a[side].end)] : null);
      store.update({
        draft: {
          anchor: 'summary', summary: toSpan('summary'), source: toSpan('source'),
          labels: chosenLabels(a.label, labelChoices), note: a.note || '', editingId: id,
        },
        assist: emptyAssist(),
      }, 'draft');
    },
    deleteAnnotation(id) {
      const { current } = get();
      changeRecord(current.id, (entry) => {
        entry.annotations[id] = { id, deleted: true, updated_at: nowIso() };
        return entry;
      }, 'annotation');
      if (get().draft.editingId === id) store.update({ draft: emptyDraft() }, 'draft');
      if (get().ui.hover === id) setUi({ hover: null });
    },
    /** Copy a prior (input) annotation into the annotator's own. */
    acceptPrior(index) {
      const { current } = get();
      const p = current.record?.prior_annotations?.[index];
      if (!p) return null;
      const at = nowIso();
      const id = uuid();
      const span = (s) => (s && Number.isInteger(s.start) ? { start: s.start, end: s.end, text: s.text } : null);
      changeRecord(current.id, (entry) => {
        entry.annotations[id] = {
          id, label: [...(p.label || [])], note: p.note || '', summary: span(p.summary), source: span(p.source),
          created_at: at, updated_at: at,
        };
        return entry;
      }, 'annotation');
      return id;
    },
    /** Finish the open record: 'submitted' | 'discarded' | 'in_progress' (reopen). */
    setStatus(status) {
      const { current } = get();
      if (!current.id) return;
      changeRecord(current.id, (entry) => ({ ...entry, status, status_at: nowIso() }), 'status');
    },

    setAssist(assist) {
      store.update({ assist }, 'assist');
    },
    setView(part) {
      store.update({ view: { ...get().view, ...part } }, 'view');
    },
    setModel(model) {
      store.update({ model }, 'model');
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

    /** Another tab wrote: merge its work into ours (newest wins per record status / annotation). */
    mergeExternal(work) {
      const mine = get().work;
      if (mergeWork(work, mine) !== work) {
        persist(mergeWork(mine, work), 'external'); // we hold newer work than the stored copy: write the union
        return;
      }
      const merged = mergeWork(mine, work);
      if (merged !== mine) store.update({ work: merged }, 'external');
    },
    /** Merge imported work, then save. Older imported data never replaces newer local data. */
    importWork(work) {
      persist(mergeWork(get().work, work), 'import');
    },
    markExported(at) {
      persist({ ...get().work, last_export_at: at }, 'export');
    },
  };
  store.actions = actions;
  return store;
}
