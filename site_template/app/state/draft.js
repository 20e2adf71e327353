/**
 * The draft slice: the annotation being made (spans per side, labels, note; stored as work) and the query
 * the assistant answers (`query`: the anchor span last selected, or the one a record's stored draft
 * restores). Its rules: a selection is the query or the span paired with it; one label per span where
 * spans may not overlap; a draft left complete is saved, else the annotator chooses (`leaveDraft`).
 */
import { markAccepted } from './responses.js';
import { acceptedPriors } from './suggestions.js';
import { chosenLabels, labelPrefixes } from './labels.js';
import { elapsedMs } from './timeontask.js';
import { storedSpanCp } from '../data/offsets.js';
import { hasOwn, nowIso, uuid, withKey } from '../util.js';
import { mergeDraft } from './workmerge.js';

export const SIDES = ['source', 'summary'];
export const other = (side) => (side === 'source' ? 'summary' : 'source');

export const emptyDraft = () => ({ anchor: null, summary: null, source: null, labels: [], note: '', editingId: null });
/** A draft holds work once it has a span, a label or a note. */
export const draftHasWork = (d) => Boolean(d.summary || d.source || d.labels.length || d.note);
/** A draft can be saved as an annotation: a summary span and a label. */
export const draftComplete = (d) => Boolean(d.summary && d.labels.length);
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

/** The query a draft restores: its anchor span, or null. */
export const queryOf = (d) => (d.anchor && d[d.anchor]
  ? { side: d.anchor, start: d[d.anchor][0], end: d[d.anchor][1] } : null);

/**
 * The draft as stored: its fields, the unit of its spans and the time of the change. Drafts stored by
 * earlier pages carry no unit and hold UTF-16 spans (restoreDraft converts them).
 */
const storedDraft = (d) => ({
  anchor: d.anchor, summary: d.summary, source: d.source, labels: [...d.labels], note: d.note,
  editingId: d.editingId, ...(d.id ? { id: d.id } : {}), ...(d.started ? { started: d.started } : {}), unit: 'cp',
  updated_at: nowIso(),
});

const OVERLAP_TEXT = 'This span overlaps one of your annotations, and this task does not allow overlapping spans: select other text, or edit that annotation.';

/**
 * The draft slice's actions. ctx: {store, persist, actions (every slice's: the work slice's `changeRecord`,
 * the ui slice's messages, `clearRelated`), entryOf, liveAnnotations, labelOrder, labelChoices, oneLabel}.
 */
export function draftSlice(ctx) {
  const { store, persist, actions: all, labelOrder, labelChoices, oneLabel, entryOf, liveAnnotations } = ctx;
  const get = () => store.state;
  const fewLabels = (labels) => (oneLabel ? labels.slice(0, 1) : labels);
  /** Whether [start, end) of the summary lies over a saved annotation of this record (one label per span
   * means no span over another: Argilla refuses an answer with overlapping spans then). */
  const overlapsMine = (id, start, end, except) => oneLabel && liveAnnotations(entryOf(get().work, id))
    .some((a) => a.id !== except && a.summary && a.summary.start < end && start < a.summary.end);

  /**
   * Set the draft of the open record and keep it in storage (a draft is work). A new draft gets, with its
   * first work, the id of the annotation it will be saved as: two tabs showing one stored draft save it
   * as one annotation, whichever saves it, however often. The query stays while the draft keeps its span,
   * unless `query` names the new one; `unlit`: the highlights go with the old draft.
   */
  function setDraft(draft, { query, unlit = false } = {}) {
    if (!draft.id && !draft.editingId && draftHasWork(draft)) draft = { ...draft, id: uuid() };
    if (!draft.started && draftHasWork(draft)) draft = { ...draft, started: nowIso() }; // its creation, for elapsed_ms
    const { current: { id }, query: shown } = get();
    const span = shown && draft[shown.side];
    const kept = span && draft.anchor === shown.side && span[0] === shown.start && span[1] === shown.end;
    const queryPart = query !== undefined ? { query } : shown && !kept ? { query: null } : {};
    const value = id ? storedDraft(draft) : null;
    store.batch(() => {
      store.update({ draft, ...(id ? { drafts: withKey(get().drafts, id, value) } : {}), ...queryPart });
      if (unlit) all.clearRelated();
      all.draftChanged();
    });
    if (id) persist([{ kind: 'd', id, value }]);
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
  const actions = {
    /**
     * Record `id` opens (current.js): while it loads (`rec` null) no draft shows; loaded, its stored draft
     * shows with its assistance back, as if just selected.
     */
    openDraft(id, rec) {
      const draft = rec ? restoreDraft(id, rec) : emptyDraft();
      store.update({ draft, query: rec ? queryOf(draft) : null });
    },
    /** Another tab's draft of the open record takes the place of the one shown (no query: nothing was selected). */
    showStoredDraft() {
      const { current } = get();
      store.batch(() => {
        store.update({ draft: restoreDraft(current.id, current.record), query: null });
        all.clearRelated();
      });
    },
    /**
     * Another tab's stored drafts (`theirs`, by record id), merged with the work they came with (already in
     * `work`): a newer one is kept, and the open record's replaces the one shown only when `replacesShown`.
     * Returns whether the open record's stored draft changed (the caller then shows it).
     */
    mergeDrafts(theirs) {
      const { work, drafts, current, draft: shown } = get();
      let next = drafts;
      for (const id of Object.keys(theirs)) {
        const mine = hasOwn(drafts, id) ? drafts[id] : null;
        if (mergeDraft(mine, theirs[id]) === mine) continue;
        const open = id === current.id && current.record;
        if (open && !replacesShown(shown, theirs[id], entryOf(work, id))) continue;
        next = withKey(next, id, theirs[id]);
      }
      if (next !== drafts) store.update({ drafts: next });
      return Boolean(current.record) && next[current.id] !== drafts[current.id];
    },
    /** The assistant's query (a summary sentence's span, verdicts.js), the draft unchanged. */
    setQuery(query) {
      store.update({ query });
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
      all.offerChoice({ what, go });
      return null;
    },
    /** The inline choice: 'keep' (the draft stays stored for later), 'discard' (thrown away) or 'stay'. */
    choose(option) {
      const { choice } = get().ui;
      if (!choice) return;
      all.offerChoice(null);
      if (option === 'stay') return;
      if (option === 'discard') actions.clear();
      else if (choice.what !== 'navigate') return; // a finished record keeps no draft: only navigation keeps one
      choice.go();
    },
    /** What a span selected in `side` would be in the draft: 'anchor' (a new query) or 'pair'. */
    roleOf(side) {
      const d = get().draft;
      return d.anchor && d.anchor !== side && (get().assist.side === side || d.editingId) ? 'pair' : 'anchor';
    },
    /**
     * A text selection (code-point span) in a pane. Returns 'anchor' when it is the query span (the
     * assistant then ranks the other pane) or 'pair' when it sets/trims the span paired with the anchor.
     */
    select(side, start, end) {
      const d = get().draft;
      const role = actions.roleOf(side);
      const draft = { ...d, [side]: [start, end] };
      if (role === 'anchor') draft.anchor = side;
      setDraft(draft, role === 'anchor' ? { query: { side, start, end } } : {});
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
      setDraft(emptyDraft(), { unlit: true });
      all.draftCleared();
    },
    /**
     * Esc or "Clear": a draft with a label or a note is cleared only on a second request (the first
     * says so in the draft card); a bare selection is cleared at once. Returns whether it was cleared.
     */
    requestClear() {
      const { draft: d, ui } = get();
      if ((d.labels.length || d.note) && !ui.confirmClear) {
        all.confirmClear();
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
        all.draftMessage('Select a span in the summary first.');
        return null;
      }
      if (!d.labels.length) {
        all.draftMessage('Pick at least one label (keys 1–9).');
        return null;
      }
      const span = (side) => {
        if (!d[side]) return null;
        const [s, e] = d[side];
        return { start: s, end: e, text: rec[side].slice(s, e) };
      };
      if (overlapsMine(rec.id, d.summary[0], d.summary[1], d.editingId)) {
        all.draftMessage(OVERLAP_TEXT);
        return null;
      }
      const at = nowIso();
      const id = d.editingId || d.id || uuid();
      all.changeRecord(rec.id, (entry) => {
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
      setDraft(emptyDraft(), { unlit: true });
      if (d.editingId) all.toast('Annotation edited.', rec.id, { annotation: id });
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
      }, { unlit: true });
    },
    deleteAnnotation(id) {
      const { current } = get();
      all.changeRecord(current.id, (entry) => {
        entry.annotations[id] = { id, deleted: true, updated_at: nowIso() };
        return entry;
      }, { text: 'Annotation deleted' });
      if (get().draft.editingId === id) setDraft(emptyDraft());
      if (get().ui.hover === id) all.hover(null);
      all.toast('Annotation deleted.', current.id, { annotation: id });
    },
    /** A prior annotation / span suggestion as the draft (to change, then save as the annotator's own). */
    draftFrom(p) {
      const span = (x) => (x && Number.isInteger(x.start) ? [x.start, x.end] : null);
      setDraft({
        anchor: 'summary', summary: span(p.summary), source: span(p.source),
        labels: fewLabels(chosenLabels(p.label || [], labelChoices)), note: p.note || '', editingId: null,
      }, { unlit: true });
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
        all.draftMessage(OVERLAP_TEXT);
        return null;
      }
      // one label per span: the suggestion's first (most specific) label, with its parents
      const label = oneLabel
        ? labelPrefixes(chosenLabels(p.label || [], labelChoices).slice(0, 1), labelOrder) : [...(p.label || [])];
      all.changeRecord(current.id, (entry) => {
        entry.annotations[id] = {
          id, label, note: p.note || '', summary: span(p.summary), source: span(p.source),
          created_at: at, updated_at: at, elapsed_ms: 0, // made and saved by one key
        };
        // a machine's span suggestion
        return p.question && p.agent ? markAccepted(entry, p.question, p.agent, id, at) : entry;
      }, { text: 'Suggestion accepted' });
      return id;
    },
  };
  return actions;
}
