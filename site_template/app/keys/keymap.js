/**
 * The page's one-key shortcuts by action, and the settings file's changes to them
 * (`keys: {find: F2, next_saved: [">", "m"]}`; build checks them as settings.py's `check_keys`: no unknown
 * action, no key of two actions). The fixed keys (digits, Enter, Esc, Tab, arrows, Ctrl+Z) are keys.js's.
 */

/**
 * Each action's default keys (the first is shown first in the help), generated from the defaults build
 * checks the settings' `keys` against (mercury_static/settings/hotkeys.py DEFAULT_KEYS), in the help's order.
 */
// [[[cog
// from mercury_static.settings.hotkeys import DEFAULT_KEYS
// from mercury_static.tools.twins import const
// cog.outl(const("DEFAULT_KEYS", DEFAULT_KEYS))
// ]]]
export const DEFAULT_KEYS = {
  next: ['n', 'j'],
  prev: ['p', 'k'],
  submit: ['s'],
  discard: ['d'],
  find: ['f'],
  other_pane: ['o'],
  next_match: ['.'],
  prev_match: [','],
  pair: ['l'],
  no_source: ['x'],
  note: ['c'],
  next_saved: ['m'],
  prev_saved: ['M'],
  delete_saved: ['Delete'],
  suggestions: ['w'],
  next_todo: ['t'],
  toggle_list: ['['],
  toggle_side: [']'],
  filter: ['/'],
  export: ['e'],
  guidelines: ['g'],
  help: ['?'],
  next_question: ['q'],
  prev_question: ['Q'],
  accept: ['a'],
  next_sentence: ['v'],
  prev_sentence: ['V'],
  confirm_sentence: ['y'],
  sentence_verdict: ['u'],
  accept_sentence: ['Y'],
};
// [[[end]]]

/** What each action does, as the help says it. */
export const ACTION_HELP = {
  next: 'next record',
  prev: 'previous record',
  submit: 'submit the record (and go to the next); a finished draft is saved first',
  discard: 'discard the record (and go to the next)',
  find: 'find in the focused text (else the summary): type a phrase, Enter selects it (whole words), Shift+Enter or ↓ / ↑: next / previous occurrence, Esc: close; f then Enter: the next occurrence of the same phrase',
  other_pane: 'move to the other pane (select the source span there)',
  next_match: 'next highlighted match, in text order (as the marks beside the pane are numbered; a click on a mark makes it the current one)',
  prev_match: 'previous highlighted match',
  pair: 'pair the current match (else the best) with the span',
  no_source: 'no source span (not supported by the source)',
  note: 'write a note',
  next_saved: 'next saved annotation (lit in the texts and the side panel; Enter opens it, Delete deletes it)',
  prev_saved: 'previous saved annotation',
  delete_saved: 'delete the saved annotation walked to (Ctrl+Z brings it back)',
  suggestions: 'walk the span suggestions one at a time (Enter or a: accept, r: reject, e: edit, n or →: next)',
  next_todo: 'next record still to do',
  toggle_list: 'show / hide the record list',
  toggle_side: 'show / hide the annotation panel',
  filter: 'filter the records (opens the list; Enter or ↓: into the list)',
  export: 'export your annotations (download the file)',
  guidelines: 'guidelines',
  help: 'this help',
  next_question: 'next question of the form (on each record from the first one)',
  prev_question: 'previous question of the form',
  accept: 'accept the suggestion (of the focused question, else the first one not yet accepted, span suggestions last)',
  next_sentence: 'next summary sentence to judge (its evidence lights in the source; selecting in the source then sets its evidence)',
  prev_sentence: 'previous summary sentence to judge',
  confirm_sentence: 'confirm the current sentence with the first verdict (e.g. supported), the top lit source sentence as evidence',
  sentence_verdict: 'pick another verdict for the current sentence: then its number (1 … 9), 0 clears it, Esc closes',
  accept_sentence: 'accept the current sentence\'s suggested verdict (the dataset\'s, e.g. its workers\' majority; none on a tie)',
};

/** The actions of the questions form: in the help only where the bundle has questions. */
export const FORM_ACTIONS = ['next_question', 'prev_question', 'accept'];

/** The actions of the sentence verdicts: in the help only where the bundle asks them. */
export const SENTENCE_ACTIONS = ['next_sentence', 'prev_sentence', 'confirm_sentence', 'sentence_verdict', 'accept_sentence'];

/** {action: [keys]} with the settings' `keys` (manifest.settings.keys: {action: [keys]}) over the defaults. */
export function resolveKeys(overrides = {}) {
  const out = {};
  for (const [action, keys] of Object.entries(DEFAULT_KEYS)) out[action] = overrides[action] || keys;
  return out;
}

/** {key: action} of resolved keys. */
export function actionsByKey(resolved) {
  const out = {};
  for (const [action, keys] of Object.entries(resolved)) for (const k of keys) out[k] = action;
  return out;
}

/** The help's rows of the resolved keys: [keys shown, what the action does]. */
export function keyRows(resolved, { form = false, sentences = false } = {}) {
  return Object.keys(DEFAULT_KEYS).filter((action) => (form || !FORM_ACTIONS.includes(action))
    && (sentences || !SENTENCE_ACTIONS.includes(action)))
    .map((action) => [resolved[action].join(' / '), ACTION_HELP[action]]);
}
