/** The review's editor: an edit of an annotator's annotation, or the reviewer's own. */
import { watch } from '../state/store.js';
import { h } from '../util.js';
import { labelText } from '../views/wording.js';

/**
 * Drawn when the editor opens, not at each field's change. Returns {set(side, span)}: a span selected in a pane
 * (panes.js) becomes the editor's span of that side, shown in its inputs.
 */
export function mountReviewEditor(store, editor) {
  const rv = () => store.state.review;
  const actions = store.actions.review;
  const labelTexts = () => store.state.labelTexts;
  const inputs = {};
  /** The editor's span of `side` shown in its inputs and preview. */
  function showSpan(side, span) {
    if (inputs[side]) {
      inputs[side][0].value = span ? String(span[0]) : '';
      inputs[side][1].value = span ? String(span[1]) : '';
      inputs[side][2].textContent = preview(side, span);
    }
  }
  /** A span selected in a pane: the editor's span of that side. */
  function editorSet(side, span) {
    if (!rv().editor) return;
    actions.setEditorSpan(side, span);
    showSpan(side, span);
  }
  const preview = (side, span) => {
    const v = rv().texts?.[side];
    if (!span || !v) return side === 'source' ? 'no source span' : '';
    return span[0] >= 0 && span[0] < span[1] && span[1] <= v.length ? `“${v.slice(span[0], span[1])}”` : 'outside the text';
  };
  watch(store, (s) => [s.review.editor?.opened], (s) => { // redrawn when opened, not at each field's change
    const ed = s.review.editor;
    editor.hidden = !ed;
    if (!ed) {
      editor.replaceChildren();
      return;
    }
    const rangeRow = (side) => {
      const read = () => {
        const a = inputs[side][0].value.trim();
        const b = inputs[side][1].value.trim();
        const span = a === '' && b === '' ? null : [Number(a), Number(b)];
        actions.setEditorSpan(side, span);
        inputs[side][2].textContent = preview(side, span);
      };
      const from = h('input', { type: 'number', min: '0', id: `rv-ed-${side}-start`, 'aria-label': `${side} span start` });
      const to = h('input', { type: 'number', min: '0', id: `rv-ed-${side}-end`, 'aria-label': `${side} span end` });
      const out = h('span', { class: 'rv-preview', id: `rv-ed-${side}-text` });
      inputs[side] = [from, to, out];
      from.addEventListener('input', read);
      to.addEventListener('input', read);
      showSpan(side, ed[side]);
      return h('div', { class: 'rv-range' }, h('span', {}, side === 'summary' ? 'summary' : 'source'), from, '–', to, out);
    };
    const labels = store.state.labelChoices.map((l, i) => {
      const c = h('input', { type: 'checkbox', value: l, 'data-label': l });
      c.checked = ed.labels.includes(l);
      c.addEventListener('change', () => {
        actions.toggleEditorLabel(l, c.checked);
        for (const o of editor.querySelectorAll('[data-label]')) o.checked = rv().editor.labels.includes(o.value);
      });
      return h('label', { class: 'label-choice' }, c, ` ${i + 1}. ${labelText(l, labelTexts())}`);
    });
    const note = h('textarea', { id: 'rv-ed-note', rows: '2', placeholder: 'note' });
    note.value = ed.note;
    note.addEventListener('input', () => actions.setEditorNote(note.value));
    const save = h('button', { type: 'button', class: 'primary', 'data-rv-ed': 'save' }, 'Save (Enter)');
    save.addEventListener('click', () => actions.saveEdit());
    const cancel = h('button', { type: 'button', 'data-rv-ed': 'cancel' }, 'Cancel (Esc)');
    cancel.addEventListener('click', () => actions.closeEditor());
    const title = ed.kind === 'theirs' ? `Edit ${ed.key} (the gold keeps your version)` : ed.key ? 'Edit your annotation' : 'Your own annotation';
    editor.replaceChildren(h('h3', {}, title),
      h('p', { class: 'muted' }, 'Select text in a pane to set its span, or type the offsets (characters from the start); an empty source range: no linked span.'),
      rangeRow('summary'), rangeRow('source'), h('div', { class: 'labels' }, ...labels), note, h('div', { class: 'row' }, save, cancel));
    (inputs.summary[0]).focus();
  });
  return { set: editorSet };
}
