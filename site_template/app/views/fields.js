/**
 * The extra read-only fields of a record (settings.fields.extra, e.g. the question of a RAG record),
 * shown above the texts. Dataset text: Markdown through markdown.js (it builds nodes, never HTML) or
 * plain text nodes; nothing is ever parsed as HTML.
 */
import { renderMarkdown } from './markdown.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';

/** Mount the `extra` fields (at least one) into `box`; hidden while the record has none of them. */
export function mountFields(store, extra, box) {
  watch(store, (s) => [s.current.record], (s) => {
    const values = s.current.record?.fields || {};
    const shown = extra.filter((f) => typeof values[f.name] === 'string' && values[f.name]);
    box.hidden = !shown.length;
    box.replaceChildren(...shown.map((f) => {
      const text = values[f.name];
      const body = f.markdown ? h('div', { class: 'field-body md' }, renderMarkdown(text)) : h('div', { class: 'field-body plain' }, text);
      return h('section', { class: 'field', 'data-field': f.name }, h('h3', { class: 'field-title' }, f.title || f.name), body);
    }));
  });
}
