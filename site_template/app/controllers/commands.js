/**
 * The annotator's commands and the keys and buttons that give them: the toolbar's buttons, the key map
 * (keys.js, the settings' hotkeys over the defaults, listed in the help), the label digits, the k and
 * minimum-score controls.
 */
import { actionsByKey, keyRows, resolveKeys } from '../keys/keymap.js';
import { mountKeys, numberKeys, SHORTCUTS } from '../keys/keys.js';
import { h } from '../util.js';
import { prefs } from '../state/prefs.js';

/** Span labels by number (from 10 labels on, two digits typed quickly: keys.js). */
export function labelDigits(store) {
  return numberKeys(() => store.state.labelChoices.map((_, i) => String(i + 1)),
    (i) => store.actions.toggleLabel(store.state.labelChoices[i]));
}

/** The draft card's commands: {save() (then the focus returns to the summary), clear()}. */
export function draftCommands(store, panes) {
  const { actions } = store;
  return {
    /** After a save from the form, focus returns to the summary (where `s` submits and the next span starts). */
    save: () => {
      if (actions.saveDraft()) panes.summary.scroller.focus({ preventScroll: true });
    },
    clear: () => {
      if (actions.requestClear()) window.getSelection().removeAllRanges();
    },
  };
}

/** The k and minimum-score controls: the view (remembered per bundle under `viewKey`; the assistant re-ranks). */
function mountViewControls(store, viewKey) {
  const kInput = document.getElementById('ctl-k');
  const minInput = document.getElementById('ctl-min');
  const minOut = document.getElementById('ctl-min-out');
  kInput.value = String(store.state.view.k);
  minInput.value = String(store.state.view.minScore);
  minOut.textContent = store.state.view.minScore.toFixed(2);
  const onView = () => {
    const k = Math.max(1, Math.min(50, Number(kInput.value) || 5));
    const minScore = Number(minInput.value);
    minOut.textContent = minScore.toFixed(2);
    store.actions.setView({ k, minScore });
    prefs.set(viewKey, { k, minScore });
  };
  kInput.addEventListener('change', onView);
  minInput.addEventListener('input', onView);
}

/**
 * Wire the buttons and keys to the commands. `parts`: {manifest, panes, nav (records.js), transfer,
 * draft (draftCommands), views (views/mount.js), labelNumber, matches (highlights.js), selection
 * (selection.js: keysel, finder), questionsMod, viewKey, sentences (the bundle asks sentence verdicts)}.
 */
export function mountCommands(store, parts) {
  const { actions } = store;
  const { nav, transfer, draft, views, labelNumber, matches, selection, questionsMod } = parts;
  const { form, savedNav, suggestionWalk, layout } = views;
  const { keysel, finder } = selection;
  const { next, prev, nextTodo } = nav;
  const { exportNow } = transfer;
  /** Submit or discard; a submit refused (a required question unanswered) focuses that question's control. */
  const finish = (status) => actions.leaveDraft(status === 'submitted' ? 'submit' : 'discard', () => {
    const refused = actions.finish(status);
    if (refused) form.focusQuestionNamed(refused);
    else nav.goNextTodo();
  });
  /** Focus a pane's text (keyboard selection then works in it). */
  const focusPane = (side) => parts.panes[side].scroller.focus({ preventScroll: true });
  const clickActions = {
    prev, next, export: exportNow, 'next-todo': nextTodo,
    import: transfer.importFile, help: () => actions.toggleHelp(), guidelines: () => actions.toggleGuidelines(),
    submit: () => finish('submitted'), discard: () => finish('discarded'), reopen: () => actions.setStatus('in_progress'),
    'toggle-list': () => layout.toggle('list'), 'toggle-side': () => layout.toggle('side'),
  };
  document.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-action]');
    if (b && clickActions[b.dataset.action] && !b.closest('#banners')) clickActions[b.dataset.action]();
  });
  const keys = resolveKeys(parts.manifest.settings?.keys); // the settings file's hotkeys over the defaults
  const { sentences } = parts; // the bundle asks sentence verdicts (views/verdicts.js)
  /** A digit: the verdict picker's (0 clears) while it is open, else a label's. */
  const digit = (d) => {
    if (!store.state.verdicts.picker) labelNumber.digit(d);
    else if (d === '0') actions.clearVerdict();
    else actions.pickVerdict(Number(d) - 1);
  };
  document.getElementById('help-keys').replaceChildren(
    ...[
      ...keyRows(keys, { form: Boolean(questionsMod), sentences }), ...SHORTCUTS,
      ...(questionsMod ? questionsMod.QUESTION_SHORTCUTS : []),
    ]
      .map(([k, what]) => h('tr', {}, h('td', {}, h('kbd', {}, k)), h('td', {}, what))));
  mountKeys({
    next, prev,
    labelDigit: digit, flushNumber: () => labelNumber.flush(),
    save: () => savedNav.open() || draft.save(), submit: () => finish('submitted'), discard: () => finish('discarded'),
    suggestions: () => suggestionWalk.start(), nextSaved: () => savedNav.step(1), prevSaved: () => savedNav.step(-1),
    deleteSaved: () => savedNav.remove(),
    escape: () => {
      const { ui, verdicts } = store.state;
      if (verdicts.picker) actions.togglePicker(false);
      else if (ui.choice) actions.choose('stay');
      else if (ui.help || ui.guidelines) {
        actions.toggleHelp(false);
        actions.toggleGuidelines(false);
      } else if (ui.allDone) actions.showAllDone(false);
      else if (!savedNav.end()) draft.clear();
    },
    undo: () => actions.undo(), redo: () => actions.redo(),
    step: (side, unit, dir, extend) => {
      const target = side || 'summary';
      if (!store.state.current.record) return;
      focusPane(target);
      keysel.step(target, unit, dir, extend);
    },
    otherPane: (side) => focusPane(side === 'source' ? 'summary' : 'source'),
    find: (side) => store.state.current.record && finder.open(side || 'summary'),
    stepStart: (side, dir) => keysel.stepStart(side || 'summary', dir),
    pairMatch: matches.pairMatch,
    noSource: () => actions.clearPair(),
    note: () => document.getElementById('draft-note').focus(),
    leaveField: () => focusPane('summary'),
    modal: () => store.state.ui.help || store.state.ui.guidelines,
    nextTodo, toggleList: () => layout.toggle('list'), toggleSide: () => layout.toggle('side'),
    exportNow,
    filter: () => {
      layout.show('list');
      document.getElementById('record-filter').focus();
    },
    nextMatch: () => matches.jumpMatch(1), prevMatch: () => matches.jumpMatch(-1),
    guidelines: () => actions.toggleGuidelines(), help: () => actions.toggleHelp(),
    ...(questionsMod ? {
      nextQuestion: () => form.focusQuestion(1), prevQuestion: () => form.focusQuestion(-1),
      accept: () => form.accept() || actions.acceptNextSpan(),
    } : {}),
    ...(sentences ? {
      nextSentence: () => actions.stepSentence(1), prevSentence: () => actions.stepSentence(-1),
      confirmSentence: () => actions.confirmSentence(), sentenceVerdict: () => actions.togglePicker(),
      acceptSentence: () => actions.acceptSuggestedVerdict(),
    } : {}),
  }, actionsByKey(keys));
  mountViewControls(store, parts.viewKey);
}
