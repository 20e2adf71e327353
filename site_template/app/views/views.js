/**
 * Renderers of everything but the text panes. Each `mount*` function subscribes to the store and
 * redraws its element only when the state slices it shows have changed. Text is inserted with
 * textContent / text nodes only.
 */
import { renderGuidelines } from './markdown.js';
import { LABEL_COLOURS, labelColour } from '../text/pairing.js';
import { statusCounts } from '../state/nav.js';
import { acceptedPriors } from '../state/suggestions.js';
import { leafLabels } from '../state/labels.js';
import { SAVE_WORDS, saveStatusOf } from '../state/saving.js';
import { fold } from '../data/recordindex.js';
import { selectPositions, STATUS_TEXT } from '../state/listquery.js';
import { liveAnnotations, recordStatus, undelivered, watch } from '../state/store.js';
import { ago } from '../io/upload.js';
import { clip, h } from '../util.js';
import { virtualList } from './virtuallist.js';


/**
 * A label path as annotators read it, in the guidelines' form: "Unwanted.Intrinsic" -> "Unwanted › Intrinsic";
 * each part is the settings' text for its path when they give one (an Argilla label's text: "fabricated" ->
 * "Fabricated fact"). Exports keep the path.
 */
export const labelText = (label, texts = {}) => label.split('.')
  .map((part, i, parts) => texts[parts.slice(0, i + 1).join('.')] ?? part).join(' › ');
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The "saved" indicator: `{state: 'idle'|'saving'|'saved'|'error', at?: ISO time, message?}`. Whoever
 * knows a change is durable calls it (storage decides; this only draws).
 */
let clock = null; // made once: toLocaleTimeString builds a formatter per call (at every save)

function renderSaveStatus(el, { state, at = null, message = '' }) {
  el.dataset.state = state;
  if (!clock) clock = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const time = at && state === 'saved' && !message ? clock.format(new Date(at)) : '';
  el.textContent = SAVE_WORDS[state === 'error' ? 'failed' : state]?.short ?? '';
  el.title = message || (state === 'saved' ? `Your last change is saved in this browser (${time}).` : '');
}

/**
 * The top bar's "saved" indicator, drawn from the store (saving.js `saveStatusOf`: "saved" only once storage
 * says the change is on disk); the annotation page and the review mode both mount it.
 */
export function mountSaveStatus(store, el) {
  const show = (s) => renderSaveStatus(el, saveStatusOf(s.ui));
  store.subscribe((s, prev) => {
    if (s.ui.save !== prev.ui.save || s.ui.storageError !== prev.ui.storageError) show(s);
  });
  if (store.state.ui.storageError) show(store.state); // known at load: refused, or lost as a page closed
}

/**
 * The upload's state in the top bar (upload.js): "uploaded 2 min ago", "not uploaded: offline, retrying",
 * "upload link expired"; the reason in its title. Redrawn every 30 s for the "ago".
 */
export function mountUploadStatus(store, el) {
  el.hidden = false;
  const draw = () => {
    const u = store.state.ui.upload;
    if (!u) return;
    el.dataset.state = u.state;
    const when = u.at ? `uploaded ${ago(Date.parse(u.at), Date.now())}` : 'not uploaded yet';
    el.textContent = {
      idle: when,
      uploading: u.at ? `${when} · uploading…` : 'uploading…',
      uploaded: when,
      retrying: `NOT uploaded: ${u.cause || 'retrying'}, retrying`,
      waiting: 'NOT uploaded: waiting for the network',
      failed: `NOT uploaded: ${u.cause}`,
      expired: 'NOT uploaded: link expired',
      refused: 'NOT uploaded: link refused',
    }[u.state] ?? '';
    el.title = u.reason || (u.at ? `Your work was last uploaded to your coordinator's storage at ${new Date(u.at).toLocaleString()}.` : '');
  };
  watch(store, (s) => [s.ui.upload], draw);
  setInterval(draw, 30_000);
}

/**
 * Record position, progress, unexported counter, model status, annotator name. With the annotator's
 * `queue` (queue.js), the progress counts her queue: "12 / 40 of your queue".
 */
export function mountTopbar(store, bundle, queue = null) {
  const pos = document.getElementById('rec-pos');
  const fill = document.getElementById('progress-fill');
  const ptext = document.getElementById('progress-text');
  const unexp = document.getElementById('unexported');
  const model = document.getElementById('model-status');
  document.getElementById('annotator').textContent = store.state.annotator;
  const total = bundle.recordIndex.count;
  const queueIds = queue?.ids;
  watch(store, (s) => [s.current.index], (s) => {
    pos.textContent = total ? `${s.current.index + 1} / ${total}` : '0 / 0';
  });
  watch(store, (s) => [s.work, s.placed, s.ui.upload], (s) => {
    const c = statusCounts(total, s.placed.keys(), s.work);
    const q = queueIds ? statusCounts(queueIds.length, queueIds, s.work) : null;
    fill.style.width = q ? `${q.total ? (100 * q.done) / q.total : 0}%` : `${total ? (100 * c.done) / total : 0}%`;
    ptext.textContent = q ? `${q.done} / ${q.total} of your queue` : `${c.done} / ${total} done`;
    ptext.parentElement.title = `${c.submitted} submitted · ${c.discarded} discarded · ${c.in_progress} in progress · ${c.todo} to do`;
    // with an upload link the storage is how work reaches the coordinator: count what it lacks
    const { n, uploads } = undelivered(s.work, s.ui.upload);
    if (uploads) {
      unexp.textContent = n ? `${n} not uploaded` : 'all uploaded';
      unexp.title = n ? `${plural(n, 'change')} not uploaded yet; your coordinator has everything else` : 'Your coordinator has all your work';
    } else {
      unexp.textContent = n ? `${n} not exported` : 'all exported';
      unexp.title = n ? `${plural(n, 'change')} not yet in an export file: press Export` : 'Everything is in an export file';
    }
    unexp.dataset.count = String(n);
  });
  watch(store, (s) => [s.model], (s) => {
    const text = {
      idle: 'model: waiting', loading: 'model: loading…', ready: 'model: ready',
      failed: 'precomputed only', // no model: its title says why
    };
    model.dataset.status = s.model.status;
    model.textContent = text[s.model.status] || s.model.status;
    model.title = [s.model.status === 'failed' ? 'model unavailable: using precomputed vectors' : model.textContent, s.model.message]
      .filter(Boolean).join(': ');
  });
}

/**
 * The record list, virtual (virtuallist.js) over the sharded record index's count: a row is read from
 * its index shard (`RecordIndex.row`); one not arrived yet is a placeholder, filled when its shard
 * arrives, so scrolling anywhere fetches only the visible rows' shards. Filter, status icons, the
 * current-record highlight and arrow-key navigation work on the whole list; rows keep `data-record` /
 * `data-position` / `data-status` / `aria-current`; `onPick(position)` opens a record.
 *
 * The filter: every word typed must occur in the record's id, row title, a short metadata value (the
 * index's tags) or its status in words (listquery.js: as a word prefix over the term index, as a
 * substring while one index shard holds every record); the status buttons (with their counts, the
 * list's legend) narrow it to one status. The shown positions are computed by listquery.js. ArrowDown moves
 * from the filter into the list, Enter opens the first match.
 * With visible metadata (`metadata`: settings.metadata), filters by their values and a sort (filters.js)
 * join them; with the annotator's `queue` (queue.js), its rows are marked and a button shows only them.
 */
export function mountRecordList(store, bundle, onPick, { metadata = [], queue = null } = {}) {
  const list = document.getElementById('record-list');
  const filter = document.getElementById('record-filter');
  const statusBox = document.getElementById('status-filter');
  const index = bundle.recordIndex;
  const n = index.count;
  let words = []; // the filter's words, folded (recordindex.fold)
  let onlyStatus = null; // a STATUS_TEXT key, or null: any status
  let current = -1;
  const inQueue = queue ? new Set(queue.positions) : null;
  const queueSorted = queue ? Int32Array.from(queue.positions).sort() : null;
  let onlyQueue = false;
  let statusOf = new Map(); // position -> status of each record with work (placed by the store)

  const paint = (li, i) => {
    const st = recordStatus(store.state.work, li.dataset.record);
    li.dataset.status = st;
    li.firstChild.firstChild.title = STATUS_TEXT[st];
    if (i === current) li.setAttribute('aria-current', 'true');
    else li.removeAttribute('aria-current');
  };
  /** A row title: ids alone when untitled; a "head · tail" title keeps its tail (the part that differs). */
  const titleEl = (row) => {
    const title = row.title || row.id;
    const cut = title.lastIndexOf(' · ');
    return cut > 0
      ? h('span', { class: 'rec-title' }, h('span', { class: 'rec-head' }, title.slice(0, cut)),
        h('span', { class: 'rec-tail' }, title.slice(cut)))
      : h('span', { class: 'rec-title' }, h('span', { class: 'rec-head' }, title));
  };
  const pending = new Set(); // index shards requested for placeholder rows
  /** A row whose index shard has not arrived: a placeholder, filled in when it arrives. */
  const placeholder = (i) => {
    const n = Math.floor(i / index.size);
    if (!pending.has(n)) {
      pending.add(n);
      index.indexShard(n).then(() => {
        pending.delete(n);
        rows.refresh((j) => Math.floor(j / index.size) === n);
      }, () => pending.delete(n)); // not arrived: the row stays a placeholder until it is rendered again
    }
    return h('li', { 'data-position': String(i), class: 'rec-placeholder' },
      h('button', { type: 'button', class: 'rec', tabindex: '-1', 'aria-busy': 'true' },
        h('span', { class: 'rec-status' }), h('span', { class: 'rec-title muted' }, '…')));
  };
  const makeRow = (i) => {
    const row = index.row(i);
    if (!row) return placeholder(i);
    const li = h('li', { 'data-record': row.id, 'data-position': String(i), 'data-queue': inQueue?.has(i) ? 'true' : null },
      h('button', { type: 'button', class: 'rec', title: row.title ? `${row.id}: ${row.title}` : row.id, tabindex: '-1' },
        h('span', { class: 'rec-status' }), titleEl(row)));
    paint(li, i);
    return li;
  };
  const rows = virtualList(list, n, makeRow);

  let meta = null; // the metadata filters, loaded only for a bundle that has visible metadata
  const active = () => words.length || onlyStatus || onlyQueue || (meta && (meta.sort().key
    || [...meta.conds.values()].some((c) => (c.chosen ? c.chosen.size : c.lo !== null || c.hi !== null))));
  let asked = 0;
  /** Recompute the shown records (after typing, a status button, or a status change while filtered). */
  function refilter(keepScroll) {
    const seq = ++asked;
    selectPositions(index, {
      words, status: onlyStatus, queue: onlyQueue ? queueSorted : null, statusOf,
      metadata, conds: meta?.conds, sort: meta?.sort(), stale: () => seq !== asked,
    }).then((order) => {
      if (seq === asked) rows.setOrder(order, keepScroll, current);
    }, (err) => {
      if (seq === asked) store.actions.message(`The list could not be filtered (${err.message}).`);
    });
  }

  list.addEventListener('click', (ev) => {
    const li = ev.target.closest('li[data-record]');
    if (li) onPick(Number(li.dataset.position));
  });
  // Up/Down/PageUp/PageDown/Home/End move the focus through the whole list; Enter/Space open a record.
  list.addEventListener('keydown', (ev) => {
    const li = ev.target.closest('li[data-position]');
    const pageRows = Math.max(1, Math.floor(list.clientHeight / rows.rowHeight) - 1);
    const step = { ArrowDown: 1, ArrowUp: -1, PageDown: pageRows, PageUp: -pageRows }[ev.key];
    const count = rows.count();
    if (!li || !count || (step === undefined && ev.key !== 'Home' && ev.key !== 'End')) return;
    ev.preventDefault();
    const pos = rows.posOf(Number(li.dataset.position));
    if (ev.key === 'ArrowUp' && pos === 0) {
      filter.focus(); // back up into the filter box
      return;
    }
    const to = ev.key === 'Home' ? 0 : ev.key === 'End' ? count - 1 : Math.max(0, Math.min(count - 1, pos + step));
    rows.reveal(to)?.firstChild.focus();
  });
  // The list is one tab stop: Tab lands on the current record's row (Shift+Tab from a row stops on the list).
  list.addEventListener('focusin', (ev) => {
    if (ev.target !== list || list.contains(ev.relatedTarget)) return;
    const pos = rows.posOf(current);
    rows.reveal(pos < 0 ? 0 : pos)?.firstChild.focus();
  });
  list.tabIndex = 0;
  filter.addEventListener('input', () => {
    words = fold(filter.value).split(/\s+/).filter(Boolean);
    refilter(false);
  });
  filter.addEventListener('keydown', (ev) => {
    if ((ev.key !== 'ArrowDown' && ev.key !== 'Enter') || !rows.count()) return;
    ev.preventDefault();
    if (ev.key === 'Enter') onPick(rows.at(0));
    else {
      list.scrollTop = 0;
      rows.reveal(0)?.firstChild.focus();
    }
  });
  const statusButtons = Object.entries(STATUS_TEXT).map(([key, text]) => {
    const b = h('button', { type: 'button', 'data-status': key, 'aria-pressed': 'false', title: `show only the records ${text}` },
      h('span', { class: 'rec-status' }), h('span', { class: 'status-name' }, text), h('span', { class: 'status-count' }));
    b.addEventListener('click', () => {
      onlyStatus = onlyStatus === key ? null : key;
      for (const o of statusButtons) o.setAttribute('aria-pressed', String(o.dataset.status === onlyStatus));
      refilter(false);
    });
    return b;
  });
  statusBox.replaceChildren(...statusButtons);
  if (inQueue) {
    const b = h('button', { type: 'button', 'data-filter': 'queue', 'aria-pressed': 'false', title: 'show only the records of your queue' },
      h('span', { class: 'status-name' }, 'your queue'), h('span', { class: 'status-count' }, String(inQueue.size)));
    b.addEventListener('click', () => {
      onlyQueue = !onlyQueue;
      b.setAttribute('aria-pressed', String(onlyQueue));
      refilter(false);
    });
    statusBox.append(b);
  }
  if (metadata.length) {
    import('./filters.js').then(({ mountMetaFilters }) => {
      meta = mountMetaFilters(statusBox, metadata, () => refilter(false));
    });
  }
  watch(store, (s) => [s.current.index], (s) => {
    const was = rows.row(current);
    current = s.current.index;
    if (was && was.dataset.record) paint(was, Number(was.dataset.position));
    const li = rows.reveal(rows.posOf(current));
    if (li?.dataset.record) paint(li, current);
  });
  watch(store, (s) => [s.work, s.placed], (s) => {
    statusOf = new Map([...s.placed].map(([id, p]) => [p, recordStatus(s.work, id)]));
    const c = statusCounts(n, s.placed.keys(), s.work);
    for (const b of statusButtons) b.lastChild.textContent = String(c[b.dataset.status]);
    if (active()) refilter(true);
    else for (const [i, li] of rows.rendered()) if (li.dataset.record) paint(li, i);
  });
}

/**
 * Title, id, status and metadata of the open record. With settings.metadata (`metadata`), only its
 * visible properties are shown, by title: the hidden ones (a detector's score, for the coordinator's
 * merge) and the raw input columns behind them never are. `blind`: the raw columns are never shown
 * either (one of them may be the score a suggestion was made from).
 */
export function mountRecordInfo(store, metadata = [], blind = false) {
  const visible = (metadata || []).filter((m) => m.visible !== false);
  const box = document.getElementById('record-info');
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
export function mountDraft(store, actions, handlers) {
  const box = document.getElementById('draft');
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

/** The annotator's own annotations of the open record; hover shows both spans. */
export function mountAnnotations(store, actions) {
  const box = document.getElementById('annotations');
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

/** Prior annotations from the input, with an Accept button. */
export function mountSuggestions(store, actions) {
  const box = document.getElementById('suggestions');
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

/** Banners: storage full, messages, export reminder. */
export function mountBanners(store, actions, exportNow) {
  const box = document.getElementById('banners');
  const deps = (s) => [s.ui.storageError, s.ui.message, s.work, s.model.status, s.ui.aside, s.ui.earlier, s.ui.upload];
  watch(store, deps, (s) => {
    const out = [];
    if (s.ui.aside.length) out.push(asideBanner(s.ui.aside, actions));
    for (const offer of s.ui.earlier) out.push(earlierBanner(offer, actions));
    if (s.ui.storageError) {
      const b = h('button', { type: 'button', 'data-action': 'export' }, 'Export my work to a file');
      b.addEventListener('click', exportNow);
      out.push(h('div', { class: 'banner error', role: 'alert', id: 'storage-error' }, s.ui.storageError, ' ', b));
    }
    if (s.ui.message) {
      const x = h('button', { type: 'button', class: 'link', 'aria-label': 'dismiss' }, '×');
      x.addEventListener('click', () => actions.message(null));
      out.push(h('div', { class: 'banner info', role: 'status', id: 'message' }, s.ui.message, ' ', x));
    }
    const n = undelivered(s.work, s.ui.upload).n; // uploaded work is not only in this browser
    if (n >= 20 && !s.ui.storageError) {
      const b = h('button', { type: 'button', 'data-action': 'export' }, 'Export');
      b.addEventListener('click', exportNow);
      out.push(h('div', { class: 'banner warn', id: 'export-reminder' },
        `${n} changes are only in this browser. Export them to a file regularly (they are safe here, but a cleared browser loses them).`, ' ', b));
    }
    box.replaceChildren(...out);
  });
}

/**
 * Stored work that could not be read: it is kept as it was (never overwritten), the page works on a
 * fresh key with what was readable; the raw value can be downloaded for the coordinator.
 */
function asideBanner(aside, actions) {
  const download = h('button', { type: 'button', 'data-action': 'download-raw' }, 'Download it raw');
  download.addEventListener('click', () => {
    const raw = aside.map((a) => `# ${a.where}\n# ${a.problems.join('\n# ')}\n${a.raw}\n`).join('\n');
    const url = URL.createObjectURL(new Blob([raw], { type: 'text/plain' }));
    const a = h('a', { href: url, download: `unreadable-saved-work-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}.txt`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  const x = h('button', { type: 'button', class: 'link', 'aria-label': 'dismiss' }, '×');
  x.addEventListener('click', () => actions.dismissAside());
  const problems = aside.flatMap((a) => a.problems);
  return h('div', { class: 'banner error', role: 'alert', id: 'storage-aside' },
    `Saved work in this browser could not be read as it is (${problems.length} problem${problems.length === 1 ? '' : 's'}: ${clip(problems.join('; '), 160)}). `
    + 'It is kept aside, untouched; what could be read is here and your work continues on a fresh key. ',
    download, ' ', x);
}

/**
 * Work saved under an earlier build of this bundle (same title), or under another spelling of the name: import it
 * or not.
 */
function earlierBanner(offer, actions) {
  const yes = h('button', { type: 'button', 'data-action': 'import-earlier', class: 'primary' }, 'Import it');
  yes.addEventListener('click', () => actions.answerEarlier(offer.key, true));
  const no = h('button', { type: 'button', 'data-action': 'decline-earlier' }, 'No, leave it');
  no.addEventListener('click', () => actions.answerEarlier(offer.key, false));
  const records = `${offer.records} record${offer.records === 1 ? '' : 's'}`;
  const where = offer.earlierBuild ? ` of an earlier build of this bundle (same title, bundle ${offer.bundleId})` : ' of this bundle';
  const spelling = offer.spelling === null ? '' : `, saved under the name ${JSON.stringify(offer.spelling)} (yours once invisible characters are removed)`;
  return h('div', { class: 'banner warn', role: 'status', 'data-earlier': offer.key },
    `This browser holds your work on ${records}${where}${spelling}. `
    + 'Import it? Annotations are checked against the current texts; what does not match is left out. ', yes, ' ', no);
}

/** The notice of the last undoable change (delete, edit, submit, discard) with "Undo" (also Ctrl+Z). */
export function mountToast(store, actions) {
  const box = document.getElementById('toast');
  let timer = null;
  watch(store, (s) => [s.ui.toast], (s) => {
    clearTimeout(timer);
    const t = s.ui.toast;
    if (!t) {
      box.replaceChildren();
      box.hidden = true;
      return;
    }
    const undo = h('button', { type: 'button', 'data-action': 'undo' }, 'Undo');
    undo.addEventListener('click', () => actions.undo());
    box.replaceChildren(h('span', {}, t.text, ' '), undo, h('span', { class: 'muted' }, ' Ctrl+Z'));
    box.hidden = false;
    timer = setTimeout(() => {
      if (store.state.ui.toast === t) actions.dismissToast();
    }, 12_000);
  });
}

/** The footer under the side panel: "reopen" only on a record that is done. */
export function mountFinish(store) {
  const reopen = document.querySelector('.finish [data-action="reopen"]');
  watch(store, (s) => [s.work, s.current.id], (s) => {
    const st = s.current.id ? recordStatus(s.work, s.current.id) : 'todo';
    reopen.hidden = st !== 'submitted' && st !== 'discarded';
  });
}

/**
 * "All done": after the last record still to do was finished, every record is done. Shown while
 * `ui.allDone` is set (the store's goNextTodo); says what is left: export and send the file.
 */
export function mountAllDone(store, bundle, exportNow, close, queue = null) {
  const box = document.getElementById('all-done');
  const queueIds = queue?.ids;
  watch(store, (s) => [s.ui.allDone, s.work, s.placed, s.ui.upload], (s) => {
    box.hidden = !s.ui.allDone;
    if (!s.ui.allDone) return;
    const c = queueIds ? statusCounts(queueIds.length, queueIds, s.work)
      : statusCounts(bundle.recordIndex.count, s.placed.keys(), s.work);
    const { n, uploads } = undelivered(s.work, s.ui.upload);
    const uploadedText = n
      ? `${plural(n, 'change')} ${n === 1 ? 'is' : 'are'} not uploaded yet (your coordinator has the rest): wait for "uploaded", or press Export and send the file to your coordinator.`
      : 'Everything is uploaded: your coordinator has all your work.';
    const exp = h('button', { type: 'button', class: 'primary', 'data-action': 'export' }, 'Export');
    const review = h('button', { type: 'button', 'data-action': 'close-all-done' }, 'Review records');
    review.addEventListener('click', close);
    box.replaceChildren(
      h('h2', {}, `All ${plural(c.total, 'record')}${queueIds ? ' of your queue' : ''} done`),
      h('p', {}, `${c.submitted} submitted, ${c.discarded} discarded.`),
      h('p', { id: 'all-done-export' }, uploads ? uploadedText : n
        ? `${plural(n, 'change')} ${n === 1 ? 'is' : 'are'} only in this browser: press Export and send the file to your coordinator.`
        : 'Everything is exported. If you have not sent the latest export file to your coordinator yet, send it now.'),
      h('div', { class: 'row' }, exp, review));
  });
}

/** Help overlay (`?`) and guidelines panel. */
export function mountOverlays(store, actions, manifest) {
  const help = document.getElementById('overlay-help');
  const guide = document.getElementById('guidelines');
  const body = document.getElementById('guidelines-body');
  const content = renderGuidelines(manifest.guidelines);
  if (content) body.replaceChildren(content);
  else body.replaceChildren(h('p', { class: 'muted' }, 'This bundle has no guidelines.'));
  help.addEventListener('click', (ev) => {
    if (ev.target === help || ev.target.closest('[data-action="close-help"]')) actions.toggleHelp(false);
  });
  guide.querySelector('[data-action="close-guidelines"]').addEventListener('click', () => actions.toggleGuidelines(false));
  watch(store, (s) => [s.ui.help, s.ui.guidelines], (s) => {
    help.hidden = !s.ui.help;
    guide.hidden = !s.ui.guidelines;
  });
}
