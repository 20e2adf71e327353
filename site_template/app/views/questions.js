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
import { numberKeys } from '../keys/keys.js';
import { renderMarkdown } from './markdown.js';
import { answers, isEmpty } from '../state/responses.js';
import { questionSuggestions, scoreText, valueText } from '../state/suggestions.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';

/**
 * The keyboard help rows of the form's fixed keys (added to the help only when the bundle has questions; q, Q
 * and a are keymap.js's).
 */
export const QUESTION_SHORTCUTS = [
  ['1 … 9, 10 … (in a question)', 'choose (toggle) its option of that number, a rating its value (0 … 10); past 9 options, two digits typed quickly make one number (1 then 2: 12); Backspace (or 0 where no option is 0) clears the answer'],
  ['↑ / ↓, Shift+↑ / ↓ (ranking)', 'move between items / move the item; a number gives it that rank; Enter keeps the order'],
];

const optionValues = (q) => (q.type === 'rating' ? q.values || [] : (q.options || []).map((o) => o.value));
/** The key of each option: a rating's value where every value is 0 or more (0 … 10), else its number. */
const optionKeys = (q, values) => (q.type === 'rating' && values.every((v) => Number.isInteger(v) && v >= 0)
  ? values.map(String) : values.map((_, i) => String(i + 1)));
const optionText = (q, v) => (q.type === 'rating' ? String(v) : (q.options || []).find((o) => o.value === v)?.text || String(v));

/**
 * One question's control: {el (the fieldset), draw(value, suggestion, accepted), focus(), key(ev),
 * number (its numberKeys, or null)}.
 */
function questionControl(q, set) {
  const values = optionValues(q);
  const fs = h('fieldset', { class: 'question', 'data-question': q.name, 'data-type': q.type, tabindex: '-1' },
    h('legend', {}, q.title || q.name, q.required ? h('span', { class: 'required', title: 'required' }, ' *') : null),
    q.description ? h('p', { class: 'q-description muted' }, q.description) : null);
  const sugBox = h('div', { class: 'q-suggestion' });
  let current = null; // the shown answer
  let order = [...values]; // ranking: the order shown
  let draw;
  let key = () => false;
  let number = null;
  if (q.type === 'label' || q.type === 'rating' || q.type === 'multi_label') {
    const multi = q.type === 'multi_label';
    const inputs = values.map((v, i) => {
      const input = h('input', { type: multi ? 'checkbox' : 'radio', name: `q-${q.name}`, value: String(i), 'data-value': String(v) });
      input.addEventListener('change', () => {
        if (!multi) set(v);
        else set(values.filter((x, j) => (j === i ? input.checked : (current || []).includes(x))));
      });
      return input;
    });
    const keys = optionKeys(q, values);
    const rows = inputs.map((input, i) => h('label', { class: 'q-option' }, input, h('kbd', {}, keys[i]), ` ${optionText(q, values[i])}`));
    fs.append(h('div', { class: `q-options${q.type === 'rating' ? ' q-rating' : ''}` }, rows));
    // Argilla's visible_options: the first ones shown, the others behind "more" (a chosen one stays shown)
    const few = q.visible_options && q.visible_options < values.length ? q.visible_options : values.length;
    let all = few === values.length;
    const more = all ? null : h('button', { type: 'button', class: 'link', 'data-action': 'more-options' });
    if (more) {
      more.addEventListener('click', () => { all = !all; draw(current); });
      fs.append(more);
    }
    draw = (value) => {
      inputs.forEach((input, i) => {
        input.checked = multi ? (value || []).includes(values[i]) : value === values[i];
        rows[i].hidden = !all && i >= few && !input.checked;
      });
      if (more) more.textContent = all ? 'Show fewer' : `Show ${values.length - few} more`;
    };
    number = numberKeys(() => keys, (i) => {
      if (!multi) set(values[i]);
      else set(values.filter((x, j) => (j === i ? !(current || []).includes(x) : (current || []).includes(x))));
    });
    // a digit no option has is swallowed (it is no span label here), except 0: it clears
    key = (ev) => /^[0-9]$/.test(ev.key) && (number.digit(ev.key) || ev.key !== '0');
  } else if (q.type === 'ranking') {
    const list = h('ol', { class: 'q-ranking' });
    const keep = h('button', { type: 'button', 'data-action': 'keep-order' }, 'Keep this order (Enter)');
    keep.addEventListener('click', () => set([...order]));
    fs.append(list, keep);
    const move = (from, to) => {
      if (to < 0 || to >= order.length || to === from) return;
      const next = [...order];
      const [v] = next.splice(from, 1);
      next.splice(to, 0, v);
      set(next);
      queueMicrotask(() => list.children[to]?.focus());
    };
    draw = (value) => {
      order = Array.isArray(value) ? [...value] : [...values];
      const focused = list.contains(document.activeElement) ? document.activeElement.dataset.value : null;
      list.replaceChildren(...order.map((v, i) => {
        const up = h('button', { type: 'button', class: 'link', 'aria-label': 'move up', tabindex: '-1' }, '↑');
        up.addEventListener('click', () => move(i, i - 1));
        const down = h('button', { type: 'button', class: 'link', 'aria-label': 'move down', tabindex: '-1' }, '↓');
        down.addEventListener('click', () => move(i, i + 1));
        return h('li', { tabindex: '0', 'data-value': String(v) }, h('span', {}, optionText(q, v)), ' ', up, down);
      }));
      if (focused !== null) [...list.children].find((li) => li.dataset.value === focused)?.focus();
    };
    let typedOn = -1; // the item a number is typed on
    number = numberKeys(() => order.map((_, i) => String(i + 1)), (i) => move(typedOn, i));
    key = (ev) => {
      const li = ev.target instanceof Element ? ev.target.closest('.q-ranking li') : null;
      const at = li ? [...list.children].indexOf(li) : -1;
      if (ev.key === 'Enter' && !(ev.target instanceof HTMLButtonElement)) {
        set([...order]);
        return true;
      }
      if (ev.key === 'ArrowUp' || ev.key === 'ArrowDown') {
        const dir = ev.key === 'ArrowUp' ? -1 : 1;
        if (at < 0) list.children[dir > 0 ? 0 : order.length - 1]?.focus();
        else if (ev.shiftKey || ev.altKey) move(at, at + dir);
        else list.children[at + dir]?.focus();
        return true;
      }
      if (!/^[0-9]$/.test(ev.key) || at < 0) return false;
      typedOn = at;
      return number.digit(ev.key) || ev.key !== '0';
    };
  } else {
    const area = h('textarea', { class: 'q-text', rows: '2', 'data-question': q.name, 'aria-label': q.title || q.name });
    area.addEventListener('input', () => set(area.value)); // every keystroke is saved, as the note's draft is
    // markdown: true (Argilla's use_markdown): the answer is previewed as markdown.js renders it (nodes only)
    const preview = q.markdown ? h('div', { class: 'q-preview md', 'aria-label': 'preview' }) : null;
    fs.append(area);
    if (preview) fs.append(preview);
    draw = (value) => {
      const v = typeof value === 'string' ? value : '';
      if (area.value !== v && (v || area.value.trim())) area.value = v; // blanks being typed (no answer) stay
      if (preview) preview.replaceChildren(renderMarkdown(v));
    };
  }
  fs.append(sugBox);
  return {
    el: fs,
    sugBox,
    draw(value, suggestion, acceptedAgent, accept) {
      current = value;
      draw(value);
      fs.dataset.answered = isEmpty(value) ? 'false' : 'true';
      if (!suggestion) {
        sugBox.replaceChildren();
        return;
      }
      const same = JSON.stringify(suggestion.value) === JSON.stringify(value);
      const isAccepted = same && acceptedAgent === suggestion.agent;
      const btn = h('button', { type: 'button', 'data-action': 'accept-suggestion', disabled: isAccepted }, isAccepted ? 'Accepted' : 'Accept (a)');
      btn.addEventListener('click', accept);
      const score = scoreText(suggestion);
      sugBox.replaceChildren(h('span', { class: 'q-sug-label' }, 'Suggested: '),
        h('b', { class: 'q-sug-value' }, valueText(q, suggestion.value)),
        h('span', { class: 'q-sug-agent muted' }, ` · ${suggestion.agent || 'machine'}${score ? ` · score ${score}` : ''} `), btn);
      sugBox.dataset.accepted = String(isAccepted);
    },
    focus() {
      const target = fs.querySelector('textarea, .q-ranking li, input:checked') || fs.querySelector('input') || fs;
      target.focus();
    },
    key,
    number,
  };
}

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
