/**
 * The summary sentences of the review record (the side card #rv-sentences, when the bundle asks sentence
 * verdicts): per sentence each judge's verdict and evidence (the source sentences, lit on the source pane when
 * the sentence is focused), and the reviewer's settlement: one judge's verdict and evidence taken, or their
 * own verdict with their own evidence; every sentence the judges agree on at once (its button, A). The keys
 * (keys.js: w / W, a digit, 0) act on the focused sentence. Every text of the dataset goes in as text (util.js
 * h), never HTML.
 */
import { watch } from '../state/store.js';
import { agreedSentences, NOT_CHECKED, sentenceOf, settledVerdict } from '../state/reviewsentences.js';
import { h } from '../util.js';

const clip = (text, n = 90) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

/** `swatch(annotator)`: an annotator's colour chip (null without a lane). */
export function mountReviewSentences(store, { swatch }) {
  const actions = store.actions.review;
  const box = document.getElementById('rv-sentences');
  const settings = store.state.review.data.bundle.manifest.settings?.sentence_verdicts || null;
  const options = settings?.options || [];
  const optionText = (v) => options.find((o) => o.value === v)?.text || v;
  const { annotators } = store.state.review.data;
  const evidenceOf = (source, ev) => (ev || []).map((k) => (k < source.sentences.length
    ? h('div', { class: 'rv-evidence muted', 'data-evidence': String(k) }, `source ${k + 1}: “${clip(source.slice(...source.sentences[k]))}”`) : null));
  watch(store, (s) => [s.review.rec, s.review.texts, s.work], (s) => {
    const r = s.review;
    const sentences = r.rec?.sentences;
    box.hidden = !sentences || !r.texts;
    if (box.hidden) {
      box.replaceChildren();
      return;
    }
    const entry = s.work.records[r.row.id];
    const { summary, source } = r.texts;
    const disputed = sentences.filter((x) => x.disputed).length;
    const items = sentences.map((sent) => {
      const i = sent.sentence;
      const d = sentenceOf(entry, i);
      const settled = settledVerdict(sent, d);
      const take = sent.verdicts.map((v) => {
        const picked = d && d.from === v.annotator;
        const b = h('button', {
          type: 'button', class: `rv-verdict ${picked ? 'picked' : ''}`, 'data-take': v.annotator,
          disabled: v.verdict === NOT_CHECKED, 'aria-pressed': picked ? 'true' : 'false', title: `take ${v.annotator}'s verdict and evidence (${annotators.indexOf(v.annotator) + 1})`,
        }, h('kbd', {}, String(annotators.indexOf(v.annotator) + 1)), ' ', swatch(v.annotator), ` ${v.annotator}: ${optionText(v.verdict)}${v.given ? '' : v.verdict === NOT_CHECKED ? '' : ' (a span on it)'}`,
        v.evidence.length ? ` · source ${v.evidence.map((k) => k + 1).join(', ')}` : '');
        b.addEventListener('click', () => actions.settleSentence(i, { from: v.annotator }));
        return b;
      });
      const pick = h('select', { 'aria-label': `your verdict on sentence ${i + 1}`, 'data-own-verdict': String(i) },
        h('option', { value: '' }, 'your own verdict…'), ...options.map((o) => h('option', { value: o.value }, o.text)));
      const ev = h('input', { type: 'text', 'data-own-evidence': String(i), placeholder: 'source sentences, e.g. 2, 5', 'aria-label': `your evidence for sentence ${i + 1}` });
      if (d && !('from' in d)) {
        pick.value = d.verdict;
        ev.value = (d.evidence || []).map((k) => k + 1).join(', ');
      }
      const set = h('button', { type: 'button', 'data-own-set': String(i) }, 'set');
      set.addEventListener('click', () => {
        if (!pick.value) return;
        const carries = settings.evidence.includes(pick.value);
        const inSource = (k, n, all) => Number.isInteger(k) && k >= 0 && k < source.sentences.length
          && all.indexOf(k) === n;
        const evidence = carries ? ev.value.split(/[\s,]+/).filter(Boolean).map((x) => Number(x) - 1).filter(inSource) : null;
        actions.settleSentence(i, { verdict: pick.value, evidence });
      });
      const status = settled
        ? `settled: ${optionText(settled.verdict)}${settled.evidence?.length ? ` (source ${settled.evidence.map((k) => k + 1).join(', ')})` : ''} · ${'from' in d ? `${d.from}'s` : 'yours'}${settled.judges.length ? ` · given by ${settled.judges.join(', ')}` : ''}`
        : 'not settled';
      const li = h('li', {
        class: 'rv-sentence', 'data-sentence': String(i),
        'data-disputed': sent.disputed ? 'true' : 'false', 'data-settled': settled ? 'yes' : 'no', tabindex: '0',
      },
      h('div', { class: 'rv-sentence-text' }, `${i + 1}. ${summary.slice(sent.start, sent.end)}`, sent.disputed ? h('span', { class: 'rv-flag' }, ' disagree') : null),
      h('div', { class: 'rv-verdicts' }, ...take),
      h('div', { class: 'rv-evidence-list', hidden: true }, ...sent.verdicts.filter((v) => v.evidence.length)
        .flatMap((v) => [h('div', { class: 'muted' }, `${v.annotator}'s evidence:`), ...evidenceOf(source, v.evidence)])),
      h('div', { class: 'rv-gold', 'data-gold': settled ? 'yes' : 'no' }, status),
      h('div', { class: 'rv-own' }, pick, ev, set));
      li.addEventListener('focusin', () => { if (get().sentence !== i) actions.focusSentence(i); });
      li.addEventListener('click', () => { if (get().sentence !== i) actions.focusSentence(i); });
      return li;
    });
    const agreed = agreedSentences(r.rec, entry).length;
    const accept = agreed ? h('button', {
      type: 'button', 'data-accept-agreed': String(agreed),
      title: 'Settle every sentence the judges agree on with their verdict and evidence; the disputed and unchecked ones stay yours (A)',
    }, `Accept the ${agreed} agreed sentence${agreed === 1 ? '' : 's'}`) : null;
    accept?.addEventListener('click', () => actions.acceptAgreed());
    box.replaceChildren(h('h3', {}, `Summary sentences (${disputed} disputed)`), accept, h('ol', { class: 'rv-sentences' }, ...items));
    showFocus(s);
  });
  /** The focused sentence marked and its judges' evidence shown (no redraw: a click in it stays a click). */
  function showFocus(s) {
    for (const li of box.querySelectorAll('li.rv-sentence')) {
      const on = Number(li.dataset.sentence) === s.review.sentence;
      li.classList.toggle('focused', on);
      li.querySelector('.rv-evidence-list').hidden = !on;
      if (on) li.scrollIntoView({ block: 'nearest' });
    }
  }
  watch(store, (s) => [s.review.sentence], showFocus);
  const get = () => store.state.review;
}
