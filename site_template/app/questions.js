/**
 * The questions form under the texts (issue 13): one control per non-span question of the settings, in
 * their order, each with its title, description, a required mark and its suggestion (agent, score,
 * Accept). Answers go to the store at every change (store.setResponse: saved like an annotation); the
 * form is built once per bundle (the questions are the same for every record) and only its values and
 * suggestions are redrawn, so typing in a text question never loses the caret.
 *
 * Keys inside a question (it has the focus: Tab, or q / Shift+Q from anywhere): 1–9 choose (label,
 * rating) or toggle (multi_label) the option of that number, 0 clears, a accepts the suggestion;
 * in a ranking ↑/↓ move between items, Shift+↑/↓ move the item, a digit puts it at that rank and
 * Enter keeps the order shown as the answer.
 */
import { renderMarkdown } from './markdown.js';
import { answers, isEmpty } from './responses.js';
import { questionSuggestions, scoreText, valueText } from './suggestions.js';
import { watch } from './store.js';
import { h } from './util.js';

/** The keyboard help rows of the form (added to the help only when the bundle has questions). */
export const QUESTION_SHORTCUTS = [
  ['q / Shift+Q', 'next / previous question of the form'],
  ['1 … 9 (in a question)', 'choose (toggle) its option of that number; 0 clears the answer'],
  ['a', 'accept the suggestion (of the focused question, else the first one not yet accepted, span suggestions last)'],
  ['↑ / ↓, Shift+↑ / ↓ (ranking)', 'move between items / move the item; a digit gives it that rank; Enter keeps the order'],
];

const optionValues = (q) => (q.type === 'rating' ? q.values || [] : (q.options || []).map((o) => o.value));
const optionText = (q, v) => (q.type === 'rating' ? String(v) : (q.options || []).find((o) => o.value === v)?.text || String(v));

/** One question's control: {el (the fieldset), draw(value, suggestion, accepted), focus(), key(ev)}. */
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
    const rows = inputs.map((input, i) => h('label', { class: 'q-option' }, input, h('kbd', {}, i < 9 ? String(i + 1) : ''), ` ${optionText(q, values[i])}`));
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
    key = (ev) => {
      if (!/^[1-9]$/.test(ev.key)) return false;
      // a rating's digit is its value when the scale has it (0–10 scales), else its position
      const d = Number(ev.key);
      const i = q.type === 'rating' && values.includes(d) ? values.indexOf(d) : d - 1;
      if (i >= values.length) return true;
      if (!multi) set(values[i]);
      else set(values.filter((x, j) => (j === i ? !(current || []).includes(x) : (current || []).includes(x))));
      return true;
    };
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
      if (/^[1-9]$/.test(ev.key) && at >= 0) {
        move(at, Math.min(order.length, Number(ev.key)) - 1);
        return true;
      }
      return false;
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
  };
}

/**
 * Mount the form of `questions` (at least one) into `box`. Returns {focusQuestion(dir), accept(),
 * focusQuestionNamed(name)} for main.js's keys.
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
  watch(store, (s) => [s.current.record, s.current.id && s.work.records[s.current.id]], (s) => {
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
  box.addEventListener('keydown', (ev) => {
    const i = controls.findIndex((c) => c.el.contains(ev.target));
    if (i < 0 || ev.ctrlKey || ev.metaKey || ev.target instanceof HTMLTextAreaElement) return;
    const q = questions[i];
    let done = controls[i].key(ev);
    if (!done && ev.key === '0') {
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
        return sg && !(entry?.accepted?.[q.name]?.agent === sg.agent && JSON.stringify(answers(entry)[q.name]) === JSON.stringify(sg.value));
      });
      if (i < 0 || !accept(i)) return false;
      last = i; // q goes on from the question just answered
      controls[i].focus();
      return true;
    },
  };
  return api;
}
