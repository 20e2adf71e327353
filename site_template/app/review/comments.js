/** The review's comments on the record, and the comment box while one is written. */
import { watch } from '../state/store.js';
import { h } from '../util.js';
import { commentLine, commentsOn } from './items.js';

export function mountReviewComments(store, cbox) {
  const actions = store.actions.review;
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
}
