/** The open record's card: title, id, status, metadata. */
import { STATUS_TEXT } from '../state/listquery.js';
import { recordStatus, watch } from '../state/store.js';
import { h } from '../util.js';

/**
 * Title, id, status and metadata of the open record. With settings.metadata (`metadata`), only its
 * visible properties are shown, by title: the hidden ones (a detector's score, for the coordinator's
 * merge) and the raw input columns behind them never are. `blind`: the raw columns are never shown
 * either (one of them may be the score a suggestion was made from).
 */
export function mountRecordInfo(store, box, metadata = [], blind = false) {
  const visible = (metadata || []).filter((m) => m.visible !== false);
  watch(store, (s) => [s.current, s.work], (s) => {
    const { current } = s;
    if (current.error) {
      box.replaceChildren(h('p', { class: 'error' }, `Cannot open record: ${current.error}`));
      return;
    }
    if (!current.id) {
      box.replaceChildren(h('p', {}, 'This bundle has no records.'));
      return;
    }
    const st = recordStatus(s.work, current.id);
    const typed = current.record?.meta || {};
    const meta = !current.record ? []
      : metadata?.length || blind
        ? visible.filter((p) => typed[p.name] !== undefined).map((p) => [p.title || p.name, typed[p.name]])
        : Object.entries(current.record.metadata);
    const shownMeta = meta.filter(([, v]) => v !== null && v !== undefined); // an absent value is not the word "null"
    box.replaceChildren(
      h('h2', { class: 'rec-heading' }, current.record?.title || current.id),
      h('p', { class: 'rec-id' }, 'id ', h('code', {}, current.id), ' · ',
        h('span', { class: 'status-chip', 'data-status': st, id: 'record-status' }, STATUS_TEXT[st])),
      shownMeta.length ? h('details', { class: 'metadata' }, h('summary', {}, `Metadata (${shownMeta.length})`),
        h('dl', {}, shownMeta.flatMap(([k, v]) => [h('dt', {}, k),
          h('dd', {}, typeof v === 'string' ? v : JSON.stringify(v))]))) : null,
    );
  });
}
