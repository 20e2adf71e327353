/** The annotator's own annotations of the open record, with the legend of the label colours. */
import { LABEL_COLOURS, labelColour } from '../text/pairing.js';
import { leafLabels } from '../state/labels.js';
import { liveAnnotations, watch } from '../state/store.js';
import { clip, h } from '../util.js';
import { labelText } from './wording.js';

/** The annotator's own annotations of the open record; hover shows both spans. */
export function mountAnnotations(store, actions, box) {
  box.addEventListener('mouseover', (ev) => {
    const li = ev.target.closest('li[data-annotation]');
    actions.hover(li ? li.dataset.annotation : null);
  });
  box.addEventListener('mouseleave', () => actions.hover(null));
  watch(store, (s) => [s.work, s.current.id, s.draft.editingId], (s) => {
    const anns = liveAnnotations(s.work.records[s.current.id]);
    const choices = s.labelChoices;
    const items = anns.map((a) => {
      const edit = h('button', { type: 'button', 'data-action': 'edit' }, 'Edit');
      edit.addEventListener('click', () => actions.editAnnotation(a.id));
      const del = h('button', { type: 'button', 'data-action': 'delete' }, 'Delete');
      del.addEventListener('click', () => actions.deleteAnnotation(a.id));
      return h('li', { 'data-annotation': a.id, class: a.id === s.draft.editingId ? 'editing' : '', 'data-colour': String(labelColour(a.label, choices)) },
        h('div', { class: 'chips' }, leafLabels(a.label).map((l) => h('span', { class: 'chip', title: l }, labelText(l, s.labelTexts)))),
        h('div', { class: 'ann-span' }, h('b', {}, 'Summary: '), h('q', {}, clip(a.summary?.text || '', 160))),
        h('div', { class: 'ann-span' }, h('b', {}, 'Source: '),
          a.source ? h('q', {}, clip(a.source.text, 160)) : h('span', { class: 'muted' }, 'none (unsupported)')),
        a.note ? h('div', { class: 'ann-note' }, a.note) : null,
        h('div', { class: 'row' }, edit, del));
    });
    // the legend of the label colours in the texts
    const legend = h('p', { class: 'legend', id: 'label-legend' }, choices.map((l, i) => h('span', { class: 'legend-item', 'data-colour': String(i % LABEL_COLOURS) }, labelText(l, s.labelTexts))));
    box.replaceChildren(...[h('h3', {}, `Your annotations (${anns.length})`), anns.length ? legend : null,
      anns.length ? h('ol', { class: 'ann-list' }, items)
        : h('p', { class: 'muted' }, 'None yet. Submitting without annotations means the summary is consistent.')]
      .filter(Boolean)); // replaceChildren would write a null as the text "null"
  });
}
