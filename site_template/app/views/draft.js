/** The annotation form (the draft card). */
import { SAVE_WORDS } from '../state/saving.js';
import { watch } from '../state/store.js';
import { clip, h } from '../util.js';
import { labelText } from './wording.js';

const CHOICE_TEXT = {
  navigate: ['This draft is not finished (it needs a summary span and a label).', 'Keep it for later and go', 'Throw it away and go'],
  submit: ['This draft is not finished: submit it without this annotation?', null, 'Throw it away and submit'],
  discard: ['This draft is not finished: discard the record?', null, 'Throw it away and discard'],
};

/** The inline choice before leaving an unfinished draft: keep / throw away / stay (focused, Esc = stay). */
function choiceView(choice, actions) {
  const [text, keep, discard] = CHOICE_TEXT[choice.what];
  const button = (label, option, cls = '') => {
    const b = h('button', { type: 'button', 'data-choice': option, class: cls }, label);
    b.addEventListener('click', () => actions.choose(option));
    return b;
  };
  return h('div', { class: 'draft-choice', id: 'draft-choice', role: 'alertdialog', 'aria-label': 'unfinished draft' },
    h('p', {}, text), h('div', { class: 'row' },
      button('Stay (Esc)', 'stay', 'primary'), keep ? button(keep, 'keep') : null, button(discard, 'discard')));
}

/**
 * The annotation form: spans of the draft, label choices (numbered), note, save/clear, and its inline
 * messages: what is missing, the second step of a clear, the choice before leaving an unfinished
 * draft, and whether the last change is on disk ("saved" only once it is).
 * handlers: {save, clear} (controllers/commands.js draftCommands: they also move the focus and the selection).
 */
export function mountDraft(store, actions, box, handlers) {
  const { labelChoices: choices, labelTexts: texts, oneLabel } = store.state;
  const note = h('textarea', { id: 'draft-note', rows: '2', placeholder: 'Note (optional)' });
  note.addEventListener('input', () => actions.setNote(note.value));
  const labelInputs = choices.map((label, i) => {
    // one label per span (Argilla's allow_overlapping: false): radio buttons, the keys still toggle
    const input = h('input', { type: oneLabel ? 'radio' : 'checkbox', name: 'draft-label', value: label, 'data-label': label });
    input.addEventListener('change', () => actions.toggleLabel(label));
    return { label, input, row: h('label', { class: 'label-choice' }, input, h('kbd', {}, String(i + 1)), ` ${labelText(label, texts)}`) };
  });
  const spanView = (side) => h('div', { class: 'draft-span', 'data-span': side });
  const spans = { summary: spanView('summary'), source: spanView('source') };
  const title = h('h3', {});
  const save = h('button', { type: 'button', 'data-action': 'save-annotation', class: 'primary' }, 'Save annotation (Enter)');
  save.addEventListener('click', handlers.save);
  const cancel = h('button', { type: 'button', 'data-action': 'cancel-annotation' }, 'Clear (Esc)');
  cancel.addEventListener('click', handlers.clear);
  const noSource = h('button', { type: 'button', 'data-action': 'no-source', class: 'link' }, 'no source span');
  noSource.addEventListener('click', () => actions.clearSpan('source'));
  const said = h('p', { class: 'draft-message', id: 'draft-message', role: 'status', hidden: true });
  const choiceBox = h('div', { class: 'draft-choice-box' });
  const saveState = h('p', { class: 'save-state', id: 'save-state', 'aria-live': 'polite' });
  box.replaceChildren(title, spans.summary, spans.source,
    h('div', { class: 'labels' }, labelInputs.map((l) => l.row)), note, said, choiceBox,
    h('div', { class: 'row' }, save, cancel), saveState);

  watch(store, (s) => [s.ui.draftMessage, s.ui.confirmClear, s.ui.choice], (s) => {
    const text = s.ui.draftMessage
      || (s.ui.confirmClear ? 'This draft has a label or a note: press Esc (or Clear) again to throw it away.' : '');
    said.textContent = text;
    said.hidden = !text;
    if (!s.ui.choice) {
      choiceBox.replaceChildren();
      return;
    }
    const view = choiceView(s.ui.choice, actions);
    choiceBox.replaceChildren(view);
    view.querySelector('button').focus();
  });
  watch(store, (s) => [s.ui.save], (s) => {
    saveState.dataset.state = s.ui.save.state;
    saveState.dataset.seq = String(s.ui.save.seq);
    saveState.textContent = SAVE_WORDS[s.ui.save.state]?.full || '';
  });

  watch(store, (s) => [s.draft, s.current.record], (s) => {
    const d = s.draft;
    const rec = s.current.record;
    title.textContent = d.editingId ? 'Edit annotation' : 'New annotation';
    for (const side of ['summary', 'source']) {
      const el = spans[side];
      const name = side === 'summary' ? 'Summary span' : 'Source span';
      if (d[side] && rec) {
        el.replaceChildren(h('span', { class: 'span-name' }, `${name}: `),
          h('q', {}, clip(rec[side].slice(d[side][0], d[side][1]), 200)),
          ...(side === 'source' ? [' ', noSource] : []));
      } else {
        // Nothing decided yet: say what to do, not what saving now would mean.
        const hint = side === 'summary' ? 'select text in the summary'
          : d.summary ? 'select it, or click a lit sentence (saving without one means “not supported by the source”)'
            : 'after the summary span: select it, or click a lit sentence';
        el.replaceChildren(h('span', { class: 'span-name' }, `${name}: `), h('span', { class: 'muted' }, hint));
      }
    }
    for (const l of labelInputs) l.input.checked = d.labels.includes(l.label);
    if (note.value !== d.note) note.value = d.note;
    box.dataset.active = d.summary || d.source ? 'true' : 'false';
  });
}
