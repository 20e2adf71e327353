/**
 * The reviewer's commands and what gives them: the keys (keys.js), the toolbar's buttons, the help overlay
 * (its table of keys, the focus kept inside while open), and the question before leaving with a comment
 * typed that could not be kept. Every rule is the review slice's (state/review.js).
 */
import { trapFocus } from '../keys/keys.js';
import { GOLD_LANE, reviewItems } from '../state/review.js';
import { verdictSettings } from '../state/verdicts.js';
import { h } from '../util.js';
import { mountReviewKeys, REVIEW_SENTENCE_SHORTCUTS, REVIEW_SHORTCUTS } from './keys.js';

/** `views`: review/mount.js's {moveFocus, focusOwn, submitOwn}; `files`: files.js's {exportNow, chooseImport}. */
export function mountReviewCommands(store, { views, files }) {
  const { actions } = store;
  const review = actions.review;
  const { data } = store.state.review;
  window.addEventListener('beforeunload', (ev) => { // not kept (localStorage refused it): ask first
    const box = document.getElementById('rv-comment');
    if (!review.commentKept() && box && box.value.trim()) ev.preventDefault();
  });
  mountReviewKeys({
    escape: (field) => {
      if (review.closeTop()) return;
      if (field) field.blur();
      else {
        review.focus(null);
        review.focusSentence(null);
      }
    },
    enterInField: (target) => {
      if (target.closest('#rv-editor')) return review.saveEdit();
      if (target.closest('#rv-comment')) {
        review.postComment(target.value);
        return true;
      }
      if (target.id === 'rv-filter-text') { // Enter filters (its change) and leaves the box: the keys work again
        target.blur();
        return true;
      }
      if (target.closest('.rv-own')) {
        views.submitOwn(target);
        return true;
      }
      return false;
    },
    modal: () => store.state.ui.help,
    next: () => review.step(1), prev: () => review.step(-1),
    nextItem: () => views.moveFocus(1), prevItem: () => views.moveFocus(-1),
    accept: () => review.decide('accept'), reject: () => review.decide('reject'), undecide: () => review.decide(null),
    edit: () => review.startEdit(false), add: () => review.startEdit(true),
    nextQuestion: () => review.stepQuestion(1), prevQuestion: () => review.stepQuestion(-1),
    nextSentence: () => review.stepSentence(1), prevSentence: () => review.stepSentence(-1),
    acceptAgreed: () => review.acceptAgreed(),
    pick: (n) => review.pick(n),
    ownAnswer: () => views.focusOwn(),
    comment: () => review.openComment(), commentRecord: () => review.openComment('record'),
    adjudicate: () => review.adjudicate(), reopen: () => review.reopen(),
    toggleLane: (n) => review.toggleLane(n === 0 ? GOLD_LANE : n - 1),
    byAnnotator: () => {
      const it = reviewItems(store.state).find((x) => x.key === store.state.review.focus);
      review.showByAnnotator(it?.kind === 'theirs' ? it.ann.annotator : data.annotators[0]);
    },
    filter: () => document.getElementById('rv-filter-unreviewed').focus(),
    exportNow: files.exportNow,
    help: () => actions.toggleHelp(),
  });
  const toggle = (which) => {
    document.body.dataset[which] = document.body.dataset[which] === 'closed' ? 'open' : 'closed';
  };
  const clicks = {
    export: files.exportNow, import: files.chooseImport, help: () => actions.toggleHelp(),
    'close-help': () => actions.toggleHelp(false), prev: () => review.step(-1), next: () => review.step(1),
    'toggle-list': () => toggle('list'), 'toggle-side': () => toggle('side'),
  };
  document.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-action]');
    if (b && !b.closest('#banners') && clicks[b.dataset.action]) clicks[b.dataset.action]();
  });
  mountHelp(store);
}

/**
 * The help overlay (?): its table of keys (the sentences' where the bundle asks verdicts), shown while ui.help,
 * keeping the focus inside while open.
 */
function mountHelp(store) {
  const sentences = verdictSettings(store.state.review.data.bundle.manifest) !== null;
  const rows = [...REVIEW_SHORTCUTS, ...(sentences ? REVIEW_SENTENCE_SHORTCUTS : [])];
  document.getElementById('help-keys').replaceChildren(...rows.map(([k, what]) => h('tr', {},
    h('td', {}, h('kbd', {}, k)), h('td', {}, what))));
  const helpBox = document.getElementById('overlay-help');
  helpBox.addEventListener('click', (ev) => {
    if (ev.target === helpBox) store.actions.toggleHelp(false);
  });
  let release = null;
  store.subscribe((s, prev) => {
    if (s.ui.help === prev.ui.help) return;
    helpBox.hidden = !s.ui.help;
    if (s.ui.help) release = trapFocus(helpBox.querySelector('.dialog'));
    else if (release) {
      release();
      release = null;
    }
  });
}
