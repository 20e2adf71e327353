/**
 * The open-record slice (`current`): which record is open and its loading; opening one shows it as the
 * page shows records (suggestions.js `recordAsShown`: blind mode, span suggestions) with its stored draft
 * and that draft's query (the draft slice's `openDraft`); the next record to do and "all done".
 */
import { recordAsShown } from './suggestions.js';

/**
 * The open-record slice's actions. ctx: {store, bundle, actions (every slice's: the draft slice's
 * `openDraft`, `clearRelated`, the ui slice's), blind}.
 */
export function currentSlice(ctx) {
  const { store, bundle, actions: all } = ctx;
  const get = () => store.state;
  const shown = { blind: ctx.blind, spanQuestion: bundle.spanQuestion };
  let loadSeq = 0;
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
      store.batch(() => {
        store.update({ current: { index, id, record: null, loading: true, error: null } });
        all.openDraft(id, null);
        all.clearRelated();
        all.recordOpened();
      });
      try {
        const record = recordAsShown(await bundle.record(id, index), shown);
        if (seq !== loadSeq) return;
        store.batch(() => {
          store.update({ current: { index, id, record, loading: false, error: null } });
          all.openDraft(id, record);
        });
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
          all.message(`Record “${id}” could not be looked up (${err.message}).`);
          return;
        }
      }
      if (i < 0) {
        all.message(`No record with id “${id}” in this bundle.`);
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
     * Open the next record still to do after the open one; `todoFrom(from, after)` is a promise of its
     * position (-1: none left, then "all done" shows). Nothing opens when the annotator moved on meanwhile.
     */
    async goNextTodo(todoFrom) {
      const from = get().current.index;
      let i;
      try {
        i = await todoFrom(from, true);
      } catch (err) {
        all.message(`The next record to do could not be found (${err.message}).`);
        return;
      }
      if (get().current.index !== from) return;
      if (i < 0) all.showAllDone(true);
      else if (i !== from) await actions.goTo(i);
    },
  };
  return actions;
}
