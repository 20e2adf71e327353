/** The review mode's page: the layout it puts in place of the annotation panes. */
import { h } from '../util.js';

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
