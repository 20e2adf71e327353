/**
 * The review mode's renderers: the layout it puts in place of the annotation panes, both texts with every
 * annotator's spans (review/text.js), the legend, the judges' statuses (judges.js), the record's annotations
 * with their decisions (items.js), the editor, the questions side by side with the suggestion, the comments, the
 * record list and its filters, and Mercury's view (one annotator's annotations across records). Each redraws
 * only for the slices it shows (store.js watch); every text of the dataset goes in as text (util.js h), never
 * HTML.
 */
import { SIDES, unexportedCount, watch } from '../state/store.js';
import { h } from '../util.js';
import { labelText } from '../views/words.js';
import { MarkedText } from './text.js';
import { ACTION_TEXT, commentLine, commentsOn, labelsLine, mountReviewItems } from './items.js';
import { mountReviewJudges } from './judges.js';
import { mountReviewSentences } from './sentences.js';
import { answerOf, decisionOf, isAdjudicated } from '../state/reviewentries.js';
import { lanesOf, reviewItems, reviewSpans } from '../state/review.js';

const GOLD = 8;
const MAX_ROWS = 300; // rows drawn in the list (the filter narrows it; n / p walk the whole order)
const plural = (n, w) => `${n} ${w}${n === 1 ? '' : 's'}`;

/** Replace the annotation layout with the review one (same columns, same classes: the same CSS). */
export function reviewLayout(manifest, data) {
  document.body.dataset.mode = 'review';
  for (const sel of ['.assist-controls', '#model-status', '[data-action=next-todo]', '[data-action=guidelines]']) {
    const el = document.querySelector(sel);
    if (el) el.hidden = true;
  }
  const exp = document.querySelector('.topbar [data-action=export]');
  exp.title = 'Download your review as a JSON file (Shift+E)';
  document.querySelector('.topbar [data-action=import]').title = 'Restore a review export of yours (another browser\'s)';
  const who = document.querySelector('.topbar .who');
  if (who) who.title = 'reviewer';
  if (manifest.review.dashboard === 'report.html') { // the round's report, written by review beside the page
    document.querySelector('.topbar .brand').after(h('a', { class: 'dashboard-link', href: 'report.html', target: '_blank', rel: 'noopener' }, 'report'));
  }
  document.getElementById('help-start').replaceChildren(
    h('li', {}, 'The records come most contested first. Each annotator has a colour (the legend: show or hide each); the gold spans — what you accepted, edited or added — have a dashed black line above them.'),
    h('li', {}, 'Walk the annotations with ↓ / ↑ (or click one): accept it as gold (a), reject it (r), edit it (e), or add your own (+).'),
    h('li', {}, 'Per question, take an annotator\'s answer (its number) or give your own (0); comment on anything (c).'),
    h('li', {}, 'When the record is settled, mark it adjudicated (s): the next one opens. Export (E) gives the file for your coordinator.'));
  const q = data.questions.filter((x) => x.type !== 'span');
  const opt = (value, text) => h('option', { value }, text);
  const pairs = [];
  data.annotators.forEach((a, i) => data.annotators.slice(i + 1).forEach((b) => pairs.push([a, b])));
  const side = (name) => h('section', { class: 'pane', 'data-pane': name, 'aria-label': name },
    h('h2', { class: 'pane-title' }, name === 'source' ? 'Source' : 'Summary'),
    h('div', { class: 'pane-body' }, h('div', { id: `rv-${name}`, class: 'scroller rv-text', tabindex: '0' })));
  document.querySelector('main.layout').replaceChildren(
    h('aside', { class: 'records', id: 'records', 'aria-label': 'record list' },
      h('div', { class: 'rv-filters', role: 'group', 'aria-label': 'filter the records' },
        h('label', {}, h('input', { type: 'checkbox', id: 'rv-filter-unreviewed' }), ' not adjudicated'),
        h('select', { id: 'rv-filter-question', 'aria-label': 'question with disagreement' },
          opt('', 'any question'), opt('spans', 'spans disagree'), ...q.map((x) => opt(x.name, `${x.title || x.name} disagrees`))),
        h('select', { id: 'rv-filter-annotator', 'aria-label': 'annotator' }, opt('', 'any annotator'), ...data.annotators.map((a) => opt(a, a))),
        h('select', { id: 'rv-filter-pair', 'aria-label': 'pair of annotators' }, opt('', 'any pair'),
          ...pairs.map(([a, b]) => opt(`${a}\n${b}`, `${a} + ${b}`))),
        h('input', { id: 'rv-filter-text', type: 'search', placeholder: 'metadata, id, words', 'aria-label': 'filter by metadata or words' })),
      h('p', { id: 'rv-list-count', class: 'muted' }),
      h('ol', { id: 'rv-list' })),
    side('source'), side('summary'),
    h('aside', { class: 'side', id: 'side', 'aria-label': 'review' },
      h('div', { class: 'side-scroll' },
        h('section', { id: 'rv-legend', class: 'card', 'aria-label': 'annotators' }),
        h('section', { id: 'rv-info', class: 'card' }),
        h('section', { id: 'rv-judges', class: 'card', 'aria-label': 'judges' }),
        h('section', { id: 'rv-editor', class: 'card draft', hidden: true }),
        h('section', { id: 'rv-items', class: 'card', 'aria-label': 'annotations' }),
        h('section', { id: 'rv-sentences', class: 'card', 'aria-label': 'summary sentences', hidden: true }),
        h('section', { id: 'rv-questions', class: 'card', 'aria-label': 'questions' }),
        h('section', { id: 'rv-comments', class: 'card', 'aria-label': 'comments on the record' })),
      h('footer', { class: 'finish' },
        h('button', { type: 'button', class: 'primary', 'data-rv': 'adjudicate', title: 'Mark the record adjudicated (s)' }, 'Adjudicated'),
        h('button', { type: 'button', class: 'link', 'data-rv': 'reopen', title: 'Not adjudicated after all (S)', hidden: true }, 'reopen'))),
    h('section', { id: 'rv-by-annotator', class: 'card rv-by', hidden: true, 'aria-label': 'annotations of one annotator' }));
  document.body.dataset.list = 'open';
  document.body.dataset.side = 'open';
}


export function mountReviewViews(store) {
  const rv = () => store.state.review;
  const { data } = rv();
  const actions = store.actions.review;
  const lanes = lanesOf(data);
  const texts = Object.fromEntries(SIDES.map((side) => [side, new MarkedText(document.getElementById(`rv-${side}`))]));
  const laneOf = (annotator) => lanes[data.annotators.indexOf(annotator)];
  const swatch = (lane) => h('span', { class: `rv-swatch rv-c${lane}`, 'aria-hidden': 'true' });
  const labelTexts = () => store.state.labelTexts;

  // --- the texts and the focused annotation --------------------------------------------------------
  let drawn = null;
  watch(store, (s) => [s.review.rec, s.review.texts, s.work, s.review.hidden, s.review.sentence], (s) => {
    const r = s.review;
    if (!r.rec || !r.texts) {
      for (const side of SIDES) texts[side].root.replaceChildren(h('p', { class: 'muted loading' }, r.error || 'Loading…'));
      document.body.dataset.record = '';
      return;
    }
    for (const side of SIDES) texts[side].render(r.texts[side], reviewSpans(side, s));
    document.body.dataset.record = r.row.id;
    drawn = null;
    showFocus(s);
  });
  function showFocus(s) {
    const key = s.review.focus;
    if (drawn === key) return;
    drawn = key;
    for (const side of SIDES) {
      const el = texts[side].focus(key);
      if (el && key) el.scrollIntoView({ block: 'nearest' });
    }
  }
  watch(store, (s) => [s.review.focus], showFocus);

  for (const side of SIDES) {
    const root = texts[side].root;
    root.addEventListener('mouseup', () => {
      const sel = window.getSelection();
      if (!rv().texts) return;
      if (sel.rangeCount && !sel.isCollapsed) {
        const span = texts[side].spanOf(sel.getRangeAt(0));
        if (!span) return;
        if (!rv().editor) {
          if (side !== 'summary') return;
          actions.startEdit(true);
        }
        editorSet(side, span);
        return;
      }
      const keys = texts[side].keysAt(sel.anchorNode);
      if (!keys.length) return;
      const i = keys.indexOf(rv().focus);
      actions.focus(keys[(i + 1) % keys.length]);
    });
  }

  // --- legend -------------------------------------------------------------------------------------------
  const legend = document.getElementById('rv-legend');
  watch(store, (s) => [s.review.hidden], (s) => {
    const row = (lane, name, key, title) => {
      const box = h('input', { type: 'checkbox', 'data-lane': String(lane) });
      box.checked = !s.review.hidden.includes(lane);
      box.addEventListener('change', () => actions.toggleLane(lane));
      return h('label', { class: 'rv-legend-row', title }, box, swatch(lane), ` ${name} `, h('kbd', {}, `Alt+${key}`));
    };
    legend.replaceChildren(h('h3', {}, 'Annotators'),
      ...data.annotators.map((a, i) => row(lanes[i], a, String(i + 1), `show or hide ${a}'s spans`)),
      row(GOLD, 'gold (your decisions)', '0', 'show or hide the gold spans'));
  });

  // --- record info, progress, position ---------------------------------------------------------------
  const info = document.getElementById('rv-info');
  const pos = document.getElementById('rec-pos');
  const fill = document.getElementById('progress-fill');
  const ptext = document.getElementById('progress-text');
  const unexp = document.getElementById('unexported');
  const adjudicate = document.querySelector('[data-rv=adjudicate]');
  const reopen = document.querySelector('[data-rv=reopen]');
  adjudicate.addEventListener('click', () => actions.adjudicate());
  reopen.addEventListener('click', () => actions.reopen());
  watch(store, (s) => [s.review.row, s.review.rec, s.work, s.review.order], (s) => {
    const r = s.review;
    const order = r.order;
    pos.textContent = order ? `${order.indexOf(r.pos) + 1} / ${order.length} shown` : `${r.pos + 1} / ${data.count}`;
    const done = Object.values(s.work.records).filter(isAdjudicated).length;
    fill.style.width = `${data.count ? (100 * done) / data.count : 0}%`;
    ptext.textContent = `${done} / ${data.count} adjudicated`;
    const n = unexportedCount(s.work);
    unexp.textContent = n ? `${n} not exported` : 'all exported';
    unexp.dataset.count = String(n);
    if (!r.rec) {
      info.replaceChildren();
      return;
    }
    const d = r.rec.disagreement || {};
    const adj = isAdjudicated(s.work.records[r.row.id]);
    adjudicate.disabled = adj;
    reopen.hidden = !adj;
    const contested = Object.entries(d.questions || {}).filter(([, v]) => v).map(([k]) => k);
    info.replaceChildren(
      h('h3', {}, r.row.id, ' ', h('span', { class: `rv-status ${adj ? 'done' : ''}`, id: 'rv-status' }, adj ? 'adjudicated' : 'not adjudicated')),
      h('p', { class: 'muted' }, `disagreement ${(d.score ?? r.row.score ?? 0).toFixed(2)}`,
        contested.length ? ` · disagree on: ${contested.join(', ')}` : ' · no disagreement'),
      ...(d.pairs?.length ? [h('p', { class: 'muted rv-pairs' }, d.pairs.map((p) => `${p.a}–${p.b} ${p.spans.toFixed(2)}`).join(' · '))] : []),
      ...(r.texts?.metadata && Object.keys(r.texts.metadata).length
        ? [h('p', { class: 'muted' }, Object.entries(r.texts.metadata).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' · '))] : []));
  });

  // --- the judges and the annotations (judges.js, items.js) ----------------------------------------------
  mountReviewJudges(store, { swatchOf: (a) => (data.annotators.includes(a) ? swatch(laneOf(a)) : null) });
  mountReviewItems(store, { swatch });
  mountReviewSentences(store, { swatch: (a) => (data.annotators.includes(a) ? swatch(laneOf(a)) : null) });

  // --- the editor (an edit of an annotator's annotation, or the reviewer's own) --------------------------
  const editor = document.getElementById('rv-editor');
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

  // --- the questions -------------------------------------------------------------------------------------
  const qbox = document.getElementById('rv-questions');
  const settingsQ = new Map((store.state.review.data.bundle.manifest.settings?.questions || [])
    .map((q) => [q.name, q]));
  const show = (v) => (v === undefined ? '—' : Array.isArray(v) ? v.join(', ') : String(v));
  watch(store, (s) => [s.review.rec, s.work, s.review.question, s.review.sentence], (s) => {
    const r = s.review;
    if (!r.rec || !actions.questions.length) {
      qbox.hidden = !actions.questions.length;
      qbox.replaceChildren();
      return;
    }
    const entry = s.work.records[r.row.id];
    const byWho = new Map(r.rec.responses.map((x) => [x.annotator, x.values || {}]));
    qbox.hidden = false;
    qbox.replaceChildren(h('h3', {}, 'Questions'), ...actions.questions.map((q, qi) => {
      const gold = answerOf(entry, q.name);
      const flag = r.rec.disagreement?.questions?.[q.name];
      const answers = data.annotators.map((a, i) => {
        const has = byWho.has(a) && q.name in byWho.get(a);
        const picked = gold && gold.from === a;
        const b = h('button', { type: 'button', class: `rv-answer ${picked ? 'picked' : ''}`, 'data-annotator': a, disabled: !has, 'aria-pressed': picked ? 'true' : 'false', title: `take ${a}'s answer (${i + 1})` },
          h('kbd', {}, String(i + 1)), ' ', swatch(laneOf(a)), ` ${a}: ${has ? show(byWho.get(a)[q.name]) : '—'}`);
        b.addEventListener('click', () => actions.answer(q.name, { from: a }));
        return b;
      });
      const sugg = (r.rec.suggestions || []).filter((x) => x.question === q.name).map((x) => h('div', { class: 'rv-sugg muted' },
        `suggestion ${x.agent ? `(${x.agent}) ` : ''}${show(x.value)}${typeof x.score === 'number' ? ` · score ${x.score.toFixed(2)}` : ''}`));
      const own = ownControl(q, gold);
      const goldText = !gold ? 'no gold answer yet' : 'from' in gold ? `gold: ${gold.from}'s answer` : `gold: your answer ${show(gold.value)}`;
      return h('div', { class: `rv-question ${qi === r.question && r.sentence === null ? 'focused' : ''}`, 'data-question': q.name },
        h('div', {}, h('b', {}, q.title || q.name), flag ? h('span', { class: 'rv-flag' }, ' disagree') : null),
        h('div', { class: 'rv-answers' }, ...answers), ...sugg, h('div', { class: 'rv-gold', 'data-gold': gold ? 'yes' : 'no' }, goldText), own);
    }));
  });
  /** The reviewer's own answer: the options of a label or a rating, a line of text otherwise (Enter gives it). */
  function ownControl(q, gold) {
    const def = settingsQ.get(q.name) || q;
    const own = gold && 'value' in gold ? gold.value : null;
    let input;
    const opts = def.type === 'rating' ? (def.values || []).map((v) => [String(v), v]) : (def.options || []).map((o) => [o.value, o.value]);
    if ((def.type === 'label' || def.type === 'rating') && opts.length) {
      input = h('select', { 'aria-label': `your answer to ${q.title || q.name}`, 'data-own': q.name },
        h('option', { value: '' }, 'your own answer…'), ...opts.map(([v, text]) => h('option', { value: v }, text)));
      if (own !== null) input.value = String(own);
      input.addEventListener('change', () => submitOwn(input));
    } else {
      input = h('input', { type: 'text', 'aria-label': `your answer to ${q.title || q.name}`, 'data-own': q.name, placeholder: def.type === 'text' ? 'your own answer (Enter)' : 'your own answer, comma-separated (Enter)' });
      if (own !== null) input.value = Array.isArray(own) ? own.join(', ') : String(own);
    }
    return h('div', { class: 'rv-own' }, input);
  }
  function submitOwn(input) {
    const name = input.dataset.own;
    const def = settingsQ.get(name) || {};
    const raw = input.value.trim();
    if (!raw) return;
    let value = raw;
    if (def.type === 'rating') value = (def.values || []).find((v) => String(v) === raw) ?? Number(raw);
    else if (def.type === 'multi_label' || def.type === 'ranking') value = raw.split(',').map((x) => x.trim()).filter(Boolean);
    actions.answer(name, { value });
    input.blur();
  }
  /** The reviewer's own answer to the question, or their own verdict on the selected sentence. */
  function focusOwn() {
    if (rv().sentence !== null) {
      document.querySelector(`[data-own-verdict="${rv().sentence}"]`)?.focus();
      return;
    }
    const q = actions.questions[rv().question];
    const el = q && qbox.querySelector(`[data-question="${CSS.escape(q.name)}"] [data-own]`);
    if (el) el.focus();
  }

  // --- comments on the record, the comment box -------------------------------------------------------------
  const cbox = document.getElementById('rv-comments');
  watch(store, (s) => [s.review.rec, s.work, s.review.comment], (s) => {
    const r = s.review;
    if (!r.rec) {
      cbox.replaceChildren();
      return;
    }
    const entry = s.work.records[r.row.id];
    const out = [h('h3', {}, 'Comments on the record'), h('ul', { class: 'rv-thread' }, ...commentsOn(entry, 'record').map(commentLine))];
    if (r.comment) {
      const ta = h('textarea', { id: 'rv-comment', rows: '2', placeholder: 'Enter posts · Shift+Enter: new line · Esc: cancel', 'aria-label': `comment on ${r.comment.on}` });
      ta.value = actions.keptComment(); // redrawn (another tab's change, a reload): the typed text stays
      ta.addEventListener('input', () => actions.keepComment(ta.value));
      const post = h('button', { type: 'button', class: 'primary' }, 'Post');
      post.addEventListener('click', () => actions.postComment(ta.value));
      out.push(h('div', { class: 'rv-comment-box' }, h('p', { class: 'muted' }, r.comment.on === 'record' ? 'Your comment on the record:' : `Your comment on ${r.comment.on}:`), ta, post));
      queueMicrotask(() => ta.focus());
    } else {
      const b = h('button', { type: 'button', class: 'link' }, 'comment on the record (C)');
      b.addEventListener('click', () => actions.openComment('record'));
      out.push(b);
    }
    cbox.replaceChildren(...out);
  });

  // --- the record list and its filters --------------------------------------------------------------------
  const list = document.getElementById('rv-list');
  const count = document.getElementById('rv-list-count');
  watch(store, (s) => [s.review.order, s.review.rowsLoaded, s.work, s.review.pos], (s) => {
    const r = s.review;
    const positions = r.order || data.rows.map((row, i) => (row ? i : -1)).filter((i) => i >= 0);
    count.textContent = r.order ? `${plural(r.order.length, 'record')} shown of ${data.count}` : `${data.count} records, most contested first`;
    list.replaceChildren(...positions.slice(0, MAX_ROWS).map((p) => {
      const row = data.rows[p];
      const adj = isAdjudicated(s.work.records[row.id]);
      return h('li', { 'data-position': String(p), 'data-record': row.id, 'data-status': adj ? 'submitted' : 'todo', 'aria-current': p === r.pos ? 'true' : null },
        h('button', { type: 'button' }, h('span', { class: 'rec-status' }), ` ${row.id} `, h('span', { class: 'muted' }, row.score.toFixed(2))));
    }), ...(positions.length > MAX_ROWS ? [h('li', { class: 'muted' }, `… ${positions.length - MAX_ROWS} more (n / p, or filter)`)] : []));
  });
  list.addEventListener('click', (ev) => {
    const li = ev.target.closest('li[data-position]');
    if (li) actions.open(Number(li.dataset.position));
  });
  const byId = (id) => document.getElementById(id);
  byId('rv-filter-unreviewed').addEventListener('change', (ev) => actions.setFilter({ unreviewed: ev.target.checked }));
  byId('rv-filter-question').addEventListener('change', (ev) => actions.setFilter({ question: ev.target.value }));
  byId('rv-filter-annotator').addEventListener('change', (ev) => actions.setFilter({ annotator: ev.target.value }));
  byId('rv-filter-pair').addEventListener('change', (ev) => actions.setFilter({ pair: ev.target.value }));
  const textFilter = byId('rv-filter-text');
  textFilter.addEventListener('change', () => actions.filterText(textFilter.value));

  // --- Mercury's view: one annotator's annotations across records ---------------------------------------
  const by = document.getElementById('rv-by-annotator');
  let bySeq = 0;
  watch(store, (s) => [s.review.byAnnotator], async (s) => {
    const who = s.review.byAnnotator;
    by.hidden = !who;
    const seq = ++bySeq;
    if (!who) {
      by.replaceChildren();
      return;
    }
    const close = h('button', { type: 'button', 'data-rv': 'close-by' }, 'Close (Esc)');
    close.addEventListener('click', () => actions.showByAnnotator(null));
    const pick = h('select', { 'aria-label': 'annotator' }, ...data.annotators.map((a) => h('option', { value: a }, a)));
    pick.value = who;
    pick.addEventListener('change', () => actions.showByAnnotator(pick.value));
    const table = h('tbody');
    const status = h('p', { class: 'muted' }, 'Reading the records…');
    by.replaceChildren(h('div', { class: 'row' }, h('h3', {}, 'All annotations of '), pick, close), status,
      h('table', { class: 'rv-by-table' }, h('thead', {}, h('tr', {}, ...['record', 'label', 'summary span', 'source span', 'note', 'your decision'].map((t) => h('th', {}, t)))), table));
    const rows = await data.allRows();
    let n = 0;
    for (let p = 0; p < rows.length && seq === bySeq; p++) {
      if (!rows[p].annotators.includes(who)) continue;
      const rec = await data.record(rows[p]); // one shard at a time, in order
      if (seq !== bySeq) return;
      for (const a of rec.annotations.filter((x) => x.annotator === who)) {
        n += 1;
        const dec = decisionOf(store.state.work.records[rec.id], a.key);
        const tr = h('tr', { 'data-position': String(p), 'data-key': a.key },
          h('td', {}, h('button', { type: 'button', class: 'link' }, rec.id)), h('td', {}, labelsLine(a.label, labelTexts())),
          h('td', {}, a.summary.text), h('td', {}, a.source ? a.source.text : '—'), h('td', {}, a.note || ''), h('td', {}, dec ? ACTION_TEXT[dec.action] : '—'));
        tr.querySelector('button').addEventListener('click', () => {
          actions.showByAnnotator(null);
          actions.open(p).then(() => actions.focus(a.key));
        });
        table.append(tr);
      }
      status.textContent = `${plural(n, 'annotation')} of ${who} so far…`;
    }
    if (seq === bySeq) status.textContent = `${plural(n, 'annotation')} of ${who} across ${plural(rows.filter((r) => r.annotators.includes(who)).length, 'record')}.`;
  });

  return {
    moveFocus(dir) {
      const its = reviewItems(store.state);
      if (!its.length) return;
      const i = its.findIndex((it) => it.key === rv().focus);
      const j = i < 0 ? (dir > 0 ? 0 : its.length - 1) : Math.max(0, Math.min(its.length - 1, i + dir));
      actions.focus(its[j].key);
    },
    focusOwn,
    submitOwn,
  };
}

