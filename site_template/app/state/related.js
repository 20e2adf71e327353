/**
 * The assist slice: the related-sentence highlights the assistant (assist/assist.js) answers a selection
 * with. The assistant observes the draft's query and writes its answers here; the panes draw them; the draft
 * and the open record clear them (`clearRelated`).
 */

/**
 * Related-sentence highlights of the `side` pane for `query`; `pending`: none yet, the model is ranking
 * (assist.js).
 */
export const emptyAssist = () => ({
  side: null, results: [], kind: null, query: null, best: null, pending: false, refined: false,
});

/** The assist slice's actions. */
export function relatedSlice({ store }) {
  return {
    /**
     * An answer: the `side` pane's ranked `results` for `query`, of `kind` 'model' | 'precomputed', the best
     * score, the citation line (citecheck.js) and whether it `refined` an answer of the same query.
     */
    showRelated({ side, results, kind, query, best, citation, refined }) {
      store.update({ assist: { side, results, kind, query, best, pending: false, citation, refined } });
    },
    /** No highlights (the draft they answered was cleared, or another record opens). */
    clearRelated() {
      store.update({ assist: emptyAssist() });
    },
    /** No answer yet for `query`: the model is ranking the `side` pane. */
    rankingPending(side, query) {
      store.update({ assist: { ...emptyAssist(), side, query, pending: true } });
    },
  };
}
