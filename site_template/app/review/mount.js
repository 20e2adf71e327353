/**
 * The review mode's renderers composed: both texts (panes.js), the legend, the progress and the record's card,
 * the judges' statuses (judges.js), the record's annotations with their decisions (items.js), the summary
 * sentences, the editor, the questions, the comments, the decisions bar, the record list and Mercury's view (one
 * annotator's annotations across records). Each redraws only for the slices it shows (store.js watch); every text
 * of the dataset goes in as text (util.js h), never HTML.
 */
import { reviewItems } from '../state/review.js';
import { mountReviewByAnnotator } from './byannotator.js';
import { mountReviewComments } from './comments.js';
import { mountReviewEditor } from './editor.js';
import { mountReviewFinish } from './finish.js';
import { mountReviewInfo } from './info.js';
import { mountReviewItems } from './items.js';
import { mountReviewJudges } from './judges.js';
import { mountReviewLegend } from './legend.js';
import { mountReviewList } from './list.js';
import { mountReviewPanes } from './panes.js';
import { mountReviewProgress } from './progress.js';
import { mountReviewQuestions } from './questions.js';
import { mountReviewSentences } from './sentences.js';
import { swatch, swatchOf } from './swatch.js';

/**
 * Mount every renderer of the review layout (layout.js) on the store. Returns the views' part of the keys
 * (keys.js, commands.js): {moveFocus(dir): the next or previous annotation, focusOwn, submitOwn}.
 */
export function mountReviewViews(store) {
  const { data } = store.state.review;
  const actions = store.actions.review;
  const byId = (id) => document.getElementById(id);
  const annotatorSwatch = swatchOf(data);
  let editor = null; // mounted after the panes (the renderers are notified in the order they were mounted)
  mountReviewPanes(store, { source: byId('rv-source'), summary: byId('rv-summary') }, (side, span) => editor.set(side, span));
  mountReviewLegend(store, byId('rv-legend'));
  mountReviewProgress(store, document.querySelector('.topbar'));
  mountReviewInfo(store, byId('rv-info'));
  mountReviewFinish(store, document.querySelector('#side .finish'));
  mountReviewJudges(store, { swatchOf: annotatorSwatch });
  mountReviewItems(store, { swatch });
  mountReviewSentences(store, { swatch: annotatorSwatch });
  editor = mountReviewEditor(store, byId('rv-editor'));
  const { focusOwn, submitOwn } = mountReviewQuestions(store, byId('rv-questions'));
  mountReviewComments(store, byId('rv-comments'));
  mountReviewList(store, byId('records'));
  mountReviewByAnnotator(store, byId('rv-by-annotator'));
  return {
    moveFocus(dir) {
      const its = reviewItems(store.state);
      if (!its.length) return;
      const i = its.findIndex((it) => it.key === store.state.review.focus);
      const j = i < 0 ? (dir > 0 ? 0 : its.length - 1) : Math.max(0, Math.min(its.length - 1, i + dir));
      actions.focus(its[j].key);
    },
    focusOwn,
    submitOwn,
  };
}
