/** The answer controls of the question types, inside a question's fieldset (questioncontrol.js). */
import { numberKeys } from '../keys/keys.js';
import { h } from '../util.js';
import { renderMarkdown } from './markdown.js';

const optionValues = (q) => (q.type === 'rating' ? q.values || [] : (q.options || []).map((o) => o.value));
/** The key of each option: a rating's value where every value is 0 or more (0 … 10), else its number. */
const optionKeys = (q, values) => (q.type === 'rating' && values.every((v) => Number.isInteger(v) && v >= 0)
  ? values.map(String) : values.map((_, i) => String(i + 1)));
const optionText = (q, v) => (q.type === 'rating' ? String(v) : (q.options || []).find((o) => o.value === v)?.text || String(v));

/**
 * The control of `q`'s type appended to `fs`: {draw(value), key(ev) (true: the key was taken), number (its
 * numberKeys, or null)}; `set(value)` gives an answer, `current()` is the answer shown.
 */
export function typeControl(q, fs, set, current) {
  if (q.type === 'label' || q.type === 'rating' || q.type === 'multi_label') return optionsControl(q, fs, set, current);
  if (q.type === 'ranking') return rankingControl(q, fs, set);
  return textControl(q, fs, set);
}

/** The options of a label, a rating or a multi_label: each with its key. */
function optionsControl(q, fs, set, current) {
  const values = optionValues(q);
  const multi = q.type === 'multi_label';
  const inputs = values.map((v, i) => {
    const input = h('input', { type: multi ? 'checkbox' : 'radio', name: `q-${q.name}`, value: String(i), 'data-value': String(v) });
    input.addEventListener('change', () => {
      if (!multi) set(v);
      else set(values.filter((x, j) => (j === i ? input.checked : (current() || []).includes(x))));
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
    more.addEventListener('click', () => { all = !all; draw(current()); });
    fs.append(more);
  }
  function draw(value) {
    inputs.forEach((input, i) => {
      input.checked = multi ? (value || []).includes(values[i]) : value === values[i];
      rows[i].hidden = !all && i >= few && !input.checked;
    });
    if (more) more.textContent = all ? 'Show fewer' : `Show ${values.length - few} more`;
  }
  const number = numberKeys(() => keys, (i) => {
    if (!multi) set(values[i]);
    else set(values.filter((x, j) => (j === i ? !(current() || []).includes(x) : (current() || []).includes(x))));
  });
  // a digit no option has is swallowed (it is no span label here), except 0: it clears
  const key = (ev) => /^[0-9]$/.test(ev.key) && (number.digit(ev.key) || ev.key !== '0');
  return { draw, key, number };
}

/** The items of a ranking, in the order shown: moved by their arrows or keys, kept by Enter. */
function rankingControl(q, fs, set) {
  const values = optionValues(q);
  let order = [...values]; // the order shown
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
  const draw = (value) => {
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
  const number = numberKeys(() => order.map((_, i) => String(i + 1)), (i) => move(typedOn, i));
  const key = (ev) => {
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
  return { draw, key, number };
}

/** A text answer, saved at every keystroke. */
function textControl(q, fs, set) {
  const area = h('textarea', { class: 'q-text', rows: '2', 'data-question': q.name, 'aria-label': q.title || q.name });
  area.addEventListener('input', () => set(area.value)); // every keystroke is saved, as the note's draft is
  // markdown: true (Argilla's use_markdown): the answer is previewed as markdown.js renders it (nodes only)
  const preview = q.markdown ? h('div', { class: 'q-preview md', 'aria-label': 'preview' }) : null;
  fs.append(area);
  if (preview) fs.append(preview);
  const draw = (value) => {
    const v = typeof value === 'string' ? value : '';
    if (area.value !== v && (v || area.value.trim())) area.value = v; // blanks being typed (no answer) stay
    if (preview) preview.replaceChildren(renderMarkdown(v));
  };
  return { draw, key: () => false, number: null };
}
