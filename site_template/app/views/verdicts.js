/**
 * The sentence verdicts as the page shows them (docs/sentence-verdicts.md): each summary sentence's state
 * on its element (a left border and background per state, the current one outlined, the state as text for a
 * screen reader through generated content: no node enters the text, whose offsets stay the DOM's), and the
 * verdict bar above the summary: the counter "4 of 6 sentences judged", the current sentence, previous /
 * next, a button per verdict and Clear for the mouse, the dataset's suggested verdicts of the current sentence
 * (none in blind mode: the record as shown has none) and the button that accepts them, Submit's question.
 * Dataset text (the suggesting names) is shown as text only, never as HTML.
 */
import { sentenceVotes, suggestedVerdict, suggestionText } from '../state/sentencesuggest.js';
import { countStates, countText, givenVerdicts, verdictSettings } from '../state/verdicts.js';
import { resolveKeys } from '../keys/keymap.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';

const SAID = { flagged: 'flagged by your span', judged: 'judged', unchecked: 'not checked' };

/**
 * Mount the verdicts' renderers on the store and the summary pane (`panes.summary`), when the bundle asks
 * sentence verdicts. Returns null without them, else {}.
 */
export function mountVerdicts(store, manifest, panes) {
  const settings = verdictSettings(manifest);
  if (!settings) return null;
  const { actions } = store;
  const pane = panes.summary;
  const section = document.querySelector('.pane[data-pane="summary"]');
  const count = h('span', { id: 'verdict-count', class: 'verdict-count', 'aria-live': 'polite' });
  const what = h('span', { class: 'verdict-what' });
  const button = (label, title, onClick, extra = {}) => {
    const b = h('button', { type: 'button', title, ...extra }, label);
    b.addEventListener('click', onClick);
    return b;
  };
  const options = settings.options.map((o, k) => button(`${k + 1} ${o.text}`, `${o.text} (${k === 0 ? 'y, or ' : 'u then '}${k + 1})`,
    () => actions.pickVerdict(k), { 'data-verdict': o.value, 'aria-pressed': 'false' }));
  const clear = button('Clear', 'Clear this sentence\'s verdict (u then 0)', () => actions.clearVerdict(), { 'data-action': 'clear-verdict' });
  const prev = button('‹', 'Previous sentence (V)', () => actions.stepSentence(-1), { 'aria-label': 'previous sentence' });
  const next = button('›', 'Next sentence (v)', () => actions.stepSentence(1), { 'aria-label': 'next sentence' });
  const acceptKey = resolveKeys(manifest.settings?.keys).accept_sentence.join(' / ');
  const suggested = h('span', { id: 'verdict-suggested', class: 'verdict-suggested', hidden: true });
  const accept = button('Accept suggested', `Accept the suggested verdict (${acceptKey})`, () => actions.acceptSuggestedVerdict(),
    { 'data-action': 'accept-sentence-suggestion', hidden: true });
  const message = h('p', { id: 'verdict-message', class: 'verdict-message', role: 'alert', tabindex: '-1', hidden: true });
  const bar = h('div', { id: 'verdict-bar', class: 'verdict-bar', role: 'group', 'aria-label': 'sentence verdict' },
    count, prev, what, next, h('span', { class: 'verdict-buttons' }, ...options, clear),
    h('span', { class: 'verdict-suggestion' }, suggested, accept), message);
  section.querySelector('.pane-title').after(bar);

  /** Each summary sentence's state on its element (also after the pane made more of them). */
  let states = [];
  let current = null;
  const mark = () => {
    states.forEach((st, i) => {
      const el = pane.sentenceEl(i);
      if (!el) return;
      if (el.dataset.verdict !== st) el.dataset.verdict = st;
      const said = `sentence ${i + 1}, ${SAID[st]}: `;
      if (el.dataset.verdictText !== said) el.dataset.verdictText = said;
      if (i === current) el.dataset.currentSentence = '';
      else el.removeAttribute('data-current-sentence');
    });
  };
  const before = pane.onMaterialize;
  pane.onMaterialize = (b) => {
    if (before) before(b);
    mark();
  };
  let shownMessage = null;
  watch(store, (s) => [s.current.record, s.work, s.verdicts], (s) => {
    const rec = s.current.record;
    states = rec ? actions.sentenceStates() : [];
    current = rec ? s.verdicts.current : null;
    mark();
    const n = countStates(states);
    count.textContent = rec ? countText(n) : '';
    count.dataset.state = !n.total ? '' : n.unchecked ? (n.unchecked === n.total ? 'none' : 'some') : 'all';
    const given = rec && current !== null ? givenVerdicts(s.work.records[s.current.id])[current] : null;
    what.textContent = current === null ? 'Sentences: v / ‹ › to walk them'
      : `Sentence ${current + 1} of ${states.length}: ${SAID[states[current]]}${given?.evidence?.length
        ? ` · evidence: source sentence${given.evidence.length > 1 ? 's' : ''} ${given.evidence.map((e) => e + 1).join(', ')}` : ''}`;
    for (const b of [...options, clear]) b.disabled = current === null;
    options.forEach((b) => b.setAttribute('aria-pressed', String(given?.verdict === b.dataset.verdict)));
    const order = settings.options.map((o) => o.value);
    const votes = rec && current !== null ? sentenceVotes(rec, current) : [];
    const textOf = (v) => settings.options.find((o) => o.value === v)?.text || v;
    suggested.textContent = suggestionText(votes, order, textOf); // dataset names: text only
    suggested.hidden = !votes.length;
    const take = suggestedVerdict(votes, order);
    accept.hidden = !votes.length;
    accept.disabled = !take || Boolean(take.tie);
    accept.setAttribute('aria-pressed', String(Boolean(take?.verdict && given?.verdict === take.verdict
      && given.suggested_by)));
    bar.dataset.picker = String(Boolean(s.verdicts.picker));
    message.hidden = !s.verdicts.message;
    message.textContent = s.verdicts.message || '';
    if (s.verdicts.message && s.verdicts.message !== shownMessage) message.focus({ preventScroll: true });
    shownMessage = s.verdicts.message;
  });
  // a click on a summary sentence (not a selection, not a citation) makes it the current one
  pane.scroller.addEventListener('click', (ev) => {
    const el = ev.target instanceof Element ? ev.target.closest('.s[data-side="summary"]') : null;
    if (!el || ev.target.closest('.cite') || !window.getSelection().isCollapsed) return;
    actions.focusSentence(Number(el.dataset.sentence));
  });
  return {};
}
