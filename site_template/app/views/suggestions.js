/** The record's prior annotations from the input (the suggestions card). */
import { acceptedPriors } from '../state/suggestions.js';
import { leafLabels } from '../state/labels.js';
import { liveAnnotations, watch } from '../state/store.js';
import { clip, h } from '../util.js';
import { labelText } from './wording.js';

/** Prior annotations from the input, with an Accept button. */
export function mountSuggestions(store, actions, box) {
  box.addEventListener('mouseover', (ev) => {
    const li = ev.target.closest('li[data-prior]');
    actions.hover(li ? `prior:${li.dataset.prior}` : null);
  });
  box.addEventListener('mouseleave', () => actions.hover(null));
  watch(store, (s) => [s.current.record, s.work], (s) => {
    const prior = s.current.record?.prior_annotations || [];
    if (!prior.length) {
      box.replaceChildren();
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const done = acceptedPriors(prior, liveAnnotations(s.work.records[s.current.id]));
    box.replaceChildren(h('h3', {}, `Suggestions from the input (${prior.length})`),
      h('ol', { class: 'ann-list' }, prior.map((p, i) => {
        const accepted = done[i];
        const btn = h('button', { type: 'button', 'data-action': 'accept', disabled: accepted }, accepted ? 'Accepted' : 'Accept');
        btn.addEventListener('click', () => actions.acceptPrior(i));
        return h('li', { 'data-prior': String(i) },
          h('div', { class: 'chips' }, leafLabels(p.label || []).map((l) => h('span', { class: 'chip', title: l }, labelText(l, s.labelTexts))),
            p.annotator ? h('span', { class: 'muted' }, ` by ${p.annotator}`) : null,
            typeof p.score === 'number' ? h('span', { class: 'muted sug-score' }, ` · score ${p.score.toFixed(2)}`) : null),
          h('div', { class: 'ann-span' }, h('b', {}, 'Summary: '), h('q', {}, clip(p.summary?.text || '', 160))),
          h('div', { class: 'ann-span' }, h('b', {}, 'Source: '),
            p.source ? h('q', {}, clip(p.source.text || '', 160)) : h('span', { class: 'muted' }, 'none')),
          p.note ? h('div', { class: 'ann-note' }, p.note) : null,
          h('div', { class: 'row' }, btn));
      })));
  });
}
