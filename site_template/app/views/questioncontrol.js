/** One question of the questions form (questions.js): its fieldset, its answer control, its suggestion. */
import { isEmpty } from '../state/responses.js';
import { scoreText, valueText } from '../state/suggestions.js';
import { h } from '../util.js';
import { typeControl } from './questionkinds.js';

/**
 * One question's control: {el (the fieldset), draw(value, suggestion, accepted), focus(), key(ev),
 * number (its numberKeys, or null)}.
 */
export function questionControl(q, set) {
  const fs = h('fieldset', { class: 'question', 'data-question': q.name, 'data-type': q.type, tabindex: '-1' },
    h('legend', {}, q.title || q.name, q.required ? h('span', { class: 'required', title: 'required' }, ' *') : null),
    q.description ? h('p', { class: 'q-description muted' }, q.description) : null);
  const sugBox = h('div', { class: 'q-suggestion' });
  let current = null; // the shown answer
  const { draw, key, number } = typeControl(q, fs, set, () => current);
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
