/**
 * The questions form under the texts: one control per non-span question of the settings, in
 * their order, each with its title, description, a required mark and its suggestion (agent, score,
 * Accept). Answers go to the store at every change (store.setResponse: saved like an annotation); the
 * form is built once per bundle (the questions are the same for every record) and only its values and
 * suggestions are redrawn, so typing in a text question never loses the caret.
 *
 * Keys inside a question (it has the focus: Tab, or q / Shift+Q from anywhere; q starts again from the
 * first question on each record): the option's number chooses (label, rating) or toggles (multi_label)
 * it, a rating's number being its value (0 … 10); past 9 options two digits typed quickly make one number
 * (keys.js numberKeys). Backspace clears the answer, and 0 where no option has it; a accepts the
 * suggestion; in a ranking ↑/↓ move between items, Shift+↑/↓ move the item, a number puts it at that
 * rank and Enter keeps the order shown as the answer.
 */
import { answers, isEmpty } from '../state/responses.js';
import { questionSuggestions } from '../state/suggestions.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';
import { questionControl } from './questioncontrol.js';

/**
 * The keyboard help rows of the form's fixed keys (added to the help only when the bundle has questions; q, Q
 * and a are keymap.js's).
 */
export const QUESTION_SHORTCUTS = [
  ['1 … 9, 10 … (in a question)', 'choose (toggle) its option of that number, a rating its value (0 … 10); past 9 options, two digits typed quickly make one number (1 then 2: 12); Backspace (or 0 where no option is 0) clears the answer'],
  ['↑ / ↓, Shift+↑ / ↓ (ranking)', 'move between items / move the item; a number gives it that rank; Enter keeps the order'],
];

/**
 * Mount the form of `questions` (at least one) into `box`. Returns {focusQuestion(dir), accept(),
 * focusQuestionNamed(name)} for the keys (controllers/commands.js).
 */
export function mountQuestions(store, actions, questions, box) {
  box.hidden = false;
  let last = -1; // the question last focused: q moves on from it
  const controls = questions.map((q) => questionControl(q, (value) => actions.setResponse(q.name, value)));
  box.replaceChildren(h('h3', { class: 'q-heading' }, 'Questions'), h('div', { class: 'q-list' }, controls.map((c) => c.el)));
  const suggestionOf = (s, q) => questionSuggestions(s.current.record, q.name)[0] || null;
  const accept = (i) => {
    const s = store.state;
    const sg = suggestionOf(s, questions[i]);
    if (!sg || !s.current.record) return false;
    actions.setResponse(questions[i].name, sg.value, { agent: sg.agent || 'machine', undo: `Suggestion accepted for “${questions[i].title || questions[i].name}”.` });
    return true;
  };
  let shown = null; // the record the form is for
  watch(store, (s) => [s.current.record, s.current.id && s.work.records[s.current.id]], (s) => {
    if (s.current.record !== shown) { // a new record: q starts from the first question, no number pending
      shown = s.current.record;
      last = -1;
      controls.forEach((c) => c.number?.reset());
    }
    const entry = s.current.id ? s.work.records[s.current.id] : null;
    const given = answers(entry);
    box.dataset.loaded = s.current.record ? 'true' : 'false';
    questions.forEach((q, i) => controls[i].draw(given[q.name] ?? null, suggestionOf(s, q),
      entry?.accepted?.[q.name]?.agent || null, () => accept(i)));
  });
  box.addEventListener('focusin', (ev) => {
    const i = controls.findIndex((c) => c.el.contains(ev.target));
    if (i >= 0) last = i;
  });
  box.addEventListener('focusout', (ev) => { // a number typed in a question is taken when the focus leaves it
    const c = controls.find((x) => x.el.contains(ev.target));
    if (c && !c.el.contains(ev.relatedTarget)) c.number?.flush();
  });
  box.addEventListener('keydown', (ev) => {
    const i = controls.findIndex((c) => c.el.contains(ev.target));
    if (i < 0 || ev.ctrlKey || ev.metaKey || ev.target instanceof HTMLTextAreaElement) return;
    const q = questions[i];
    if (!/^[0-9]$/.test(ev.key)) controls[i].number?.flush(); // the next key takes a pending number first
    let done = controls[i].key(ev);
    if (!done && (ev.key === '0' || ev.key === 'Backspace')) {
      const entry = store.state.work.records[store.state.current.id];
      if (!isEmpty(answers(entry)[q.name])) actions.setResponse(q.name, null, { undo: `Answer to “${q.title || q.name}” cleared.` });
      done = true;
    } else if (!done && ev.key === 'a') {
      accept(i);
      done = true;
    } else if (!done && (ev.key === 'q' || ev.key === 'Q')) done = api.focusQuestion(ev.key === 'q' ? 1 : -1);
    if (done) ev.preventDefault();
    // arrows stay inside the form (a radio group's own arrows), never move the selection in a text; Enter
    // on an option is not the draft's "save" (a button still takes it)
    const enter = ev.key === 'Enter' && !(ev.target instanceof HTMLButtonElement);
    if (done || enter || ev.key.startsWith('Arrow')) ev.stopPropagation();
  });
  const api = {
    /** Focus the next (+1) / previous (-1) question after the one last focused. */
    focusQuestion(dir) {
      last = (last + dir + questions.length + (last < 0 && dir < 0 ? 1 : 0)) % questions.length;
      controls[last].focus();
      return true;
    },
    focusQuestionNamed(name) {
      const i = questions.findIndex((q) => (q.title || q.name) === name || q.name === name);
      if (i >= 0) {
        last = i;
        controls[i].focus();
      }
    },
    /** `a` outside the form: the first suggestion not yet accepted (its question then has the focus). */
    accept() {
      const s = store.state;
      const entry = s.current.id ? s.work.records[s.current.id] : null;
      const i = questions.findIndex((q) => {
        const sg = suggestionOf(s, q);
        return sg && !(entry?.accepted?.[q.name]?.agent === sg.agent
          && JSON.stringify(answers(entry)[q.name]) === JSON.stringify(sg.value));
      });
      if (i < 0 || !accept(i)) return false;
      last = i; // q goes on from the question just answered
      controls[i].focus();
      return true;
    },
  };
  return api;
}
