/** The review's questions: every annotator's answer side by side, the suggestion, the gold, the reviewer's own. */
import { answerOf } from '../state/reviewentries.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';
import { swatchOf } from './swatch.js';

/**
 * Returns {submitOwn(input), focusOwn()}: the reviewer's own answer given from its control, and the focus moved
 * to it (or to their own verdict on the selected sentence).
 */
export function mountReviewQuestions(store, qbox) {
  const rv = () => store.state.review;
  const actions = store.actions.review;
  const { data } = rv();
  const swatch = swatchOf(data);
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
          h('kbd', {}, String(i + 1)), ' ', swatch(a), ` ${a}: ${has ? show(byWho.get(a)[q.name]) : '—'}`);
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
  return { submitOwn, focusOwn };
}
