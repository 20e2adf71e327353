/**
 * The verdicts slice (docs/sentence-verdicts.md): each summary sentence of the open record judged on its
 * own. The verdicts are work, kept in the record's work entry as a stamped map beside the answers
 * (`entry.sentences = {INDEX: {value: {verdict, evidence, elapsed_ms?, suggested_by?} | null, updated_at}}`,
 * null = cleared; responses.js merges it per sentence, newest wins), so they are saved, merged across tabs, undone and
 * exported as answers are. The slice's own state, `verdicts`, is the walk: the current sentence (its span is
 * the assistant's query while no span draft is open), the verdict picker, and Submit's question about the
 * sentences not checked. A verdict accepted from the dataset's suggestions (sentencesuggest.js) keeps who
 * suggested it (`suggested_by`) while its verdict stays.
 */
import { draftHasWork } from './draft.js';
import { isSuggestedBy, sentenceVotes, suggestedByProblem, suggestedVerdict } from './sentencesuggest.js';
import { instant } from './times.js';
import { hasOwn, nowIso, withKey } from '../util.js';

/** The sentence states, as the page shows and counts them. */
export const STATES = ['flagged', 'judged', 'unchecked'];

/**
 * The manifest's `settings.sentence_verdicts` as the page uses it, or null (off): {mode, options: [{value,
 * text}], evidence: [values], flagged: value | null}.
 */
export function verdictSettings(manifest) {
  const v = manifest?.settings?.sentence_verdicts;
  if (!v || v.mode === 'off' || !Array.isArray(v.options) || !v.options.length) return null;
  return {
    mode: v.mode === 'required' ? 'required' : 'shown',
    options: v.options.map((o) => ({ value: o.value, text: o.text || o.value })),
    evidence: Array.isArray(v.evidence) ? v.evidence : [v.options[0].value],
    flagged: v.flagged ?? null,
  };
}

/** The verdicts given in a work entry: {INDEX: {verdict, evidence, updated_at, elapsed_ms?}} (cleared left out). */
export function givenVerdicts(entry) {
  const out = {};
  for (const [i, r] of Object.entries(entry?.sentences || {})) {
    if (r && r.value) out[i] = { ...r.value, updated_at: r.updated_at };
  }
  return out;
}

/**
 * The state of each of `sentences` ([[start, end]] of the summary): 'judged' (a verdict given), else
 * 'flagged' (one of `spans` [[start, end]] lies on it), else 'unchecked'.
 */
export function sentenceStates(sentences, spans, given) {
  return sentences.map(([s, e], i) => {
    if (hasOwn(given, String(i))) return 'judged';
    return spans.some(([a, b]) => a < e && s < b) ? 'flagged' : 'unchecked';
  });
}

/** {judged, flagged, unchecked, total} of sentence states. */
export function countStates(states) {
  const n = { judged: 0, flagged: 0, unchecked: 0, total: states.length };
  for (const st of states) n[st] += 1;
  return n;
}

/** "4 of 6 sentences judged (1 flagged by a span)": a flagged sentence counts as judged (its `flagged` verdict). */
export function countText(n) {
  const done = n.judged + n.flagged;
  const flagged = n.flagged ? ` (${n.flagged} flagged by a span)` : '';
  return `${done} of ${n.total} sentence${n.total === 1 ? '' : 's'} judged${flagged}`;
}

const notChecked = (k) => `${k} sentence${k === 1 ? '' : 's'} not checked`;

/** The evidence kept with `verdict`: the source sentences when it carries evidence, else none. */
const evidenceFor = (settings, verdict, evidence) => (settings.evidence.includes(verdict)
  ? [...new Set(evidence)] : []);

/**
 * The record entry's `sentences` as the export writes them (version 4), by sentence index; `evidence` only
 * for a verdict that carries evidence (`settings`: verdictSettings').
 */
export function exportedSentences(entry, settings) {
  const carries = (verdict) => Boolean(settings?.evidence.includes(verdict));
  return Object.entries(givenVerdicts(entry)).sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([i, v]) => ({
      index: Number(i), verdict: v.verdict, ...(carries(v.verdict) ? { evidence: [...(v.evidence || [])] } : {}),
      updated_at: v.updated_at, ...(Number.isSafeInteger(v.elapsed_ms) ? { elapsed_ms: v.elapsed_ms } : {}),
      ...(v.suggested_by ? { suggested_by: [...v.suggested_by] } : {}),
    }));
}

const isIndex = (v) => Number.isSafeInteger(v) && v >= 0;
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * An export's `sentences` (version 4) as a stamped map, read as merge reads it: an entry it would refuse is
 * named through `leftOut`; `read` gives an imported time (exportfile.js's clock).
 */
export function importedSentences(list, read, leftOut, where) {
  if (list === undefined || list === null) return {};
  if (!Array.isArray(list)) {
    leftOut(`${where}: field 'sentences': expected a list`);
    return {};
  }
  const out = Object.create(null);
  list.forEach((s, j) => {
    const at = isObj(s) ? read(s.updated_at) : null;
    const why = !isObj(s) ? 'expected an object'
      : !isIndex(s.index) ? "field 'index': expected a sentence index ≥ 0"
        : typeof s.verdict !== 'string' || !s.verdict ? "field 'verdict': expected a verdict"
          : !(s.evidence === undefined || (Array.isArray(s.evidence) && s.evidence.every(isIndex)))
            ? "field 'evidence': expected a list of source sentence indices"
            : at === null ? "field 'updated_at': missing or not an ISO-8601 time"
              : !(s.elapsed_ms === undefined || isIndex(s.elapsed_ms))
                ? "field 'elapsed_ms': expected a whole number of milliseconds ≥ 0"
                : !isSuggestedBy(s.suggested_by) ? "field 'suggested_by': expected a list of distinct names" : null;
    if (why) return leftOut(`${where}, sentences[${j}]: ${why}`);
    const elapsed = s.elapsed_ms === undefined ? {} : { elapsed_ms: s.elapsed_ms };
    const by = s.suggested_by === undefined ? {} : { suggested_by: [...s.suggested_by] };
    const value = { verdict: s.verdict, evidence: [...(s.evidence || [])], ...elapsed, ...by };
    if (!out[s.index] || instant(at) > instant(out[s.index].updated_at)) out[s.index] = { value, updated_at: at };
    return null;
  });
  return Object.keys(out).length ? { sentences: out } : {};
}

/** Why imported verdict `r` ({value, updated_at}) of sentence `index` does not fit record `rec`, or null. */
function verdictProblem(settings, rec, index, r) {
  if (!r.value) return null;
  if (!settings) return 'this bundle asks no sentence verdicts';
  if (Number(index) >= rec.summary.sentences.length) return `the summary has no sentence ${index}`;
  if (!settings.options.some((o) => o.value === r.value.verdict)) return `${JSON.stringify(r.value.verdict)} is not one of the verdicts`;
  if ((r.value.evidence || []).some((i) => i >= rec.source.sentences.length)) return 'evidence: the source has no such sentence';
  return suggestedByProblem(rec, Number(index), r.value.verdict, r.value.suggested_by);
}

/**
 * {sentences: the imported verdicts (a stamped map) that fit record `rec`} (a verdict of the settings, on
 * sentences of its texts), {} without any; each other one is named through `leftOut`, as merge refuses it.
 */
export function fittingVerdicts(sentences, settings, rec, leftOut) {
  if (!sentences) return {};
  const out = Object.create(null);
  for (const i of Object.keys(sentences)) {
    const why = verdictProblem(settings, rec, i, sentences[i]);
    if (why) leftOut(`field 'sentences', sentence ${i}: ${why}`);
    else out[i] = sentences[i];
  }
  return { sentences: out };
}

export const emptyVerdicts = () => ({ current: null, started: null, picker: false, asked: null, message: null });

/**
 * The verdicts slice's actions (`holdSubmit`: entries.js `finish` asks it). ctx: {store, bundle, entryOf,
 * liveAnnotations, actions (every slice's: the work slice's `changeRecord`, the draft slice's `setQuery`, the
 * ui slice's `message`)}.
 */
export function verdictSlice(ctx) {
  const { store, entryOf, liveAnnotations, actions: all } = ctx;
  const settings = verdictSettings(ctx.bundle.manifest);
  const get = () => store.state;
  const set = (part) => store.update({ verdicts: { ...get().verdicts, ...part } });
  store.subscribe((s, prev) => {
    if (s.current.id !== prev.current.id) store.update({ verdicts: emptyVerdicts() });
  });
  /** The open record's sentence states. */
  function states() {
    const { current: { record: rec, id }, work } = get();
    if (!rec) return [];
    const entry = entryOf(work, id);
    const spans = liveAnnotations(entry).filter((a) => a.summary).map((a) => [a.summary.start, a.summary.end]);
    return sentenceStates(rec.summary.sentences, spans, givenVerdicts(entry));
  }
  const given = (i) => givenVerdicts(entryOf(get().work, get().current.id))[i] || null;
  /**
   * Give sentence `i` of the open record `verdict` (null: cleared) with `evidence`; `by`: the names whose
   * suggestion it accepts (else those of the verdict it had, while it stays the same).
   */
  function give(i, verdict, evidence = [], by = undefined) {
    const { current: { id }, verdicts } = get();
    if (!settings || !id || i === null) return;
    const at = nowIso();
    const from = instant(verdicts.current === i ? verdicts.started : null);
    const elapsed = from === null ? {} : { elapsed_ms: Math.max(0, Math.round(instant(at) - from)) };
    const had = given(i);
    const names = by || (had?.verdict === verdict ? had.suggested_by : undefined);
    const suggested = names ? { suggested_by: names } : {};
    const value = verdict
      ? { verdict, evidence: evidenceFor(settings, verdict, evidence), ...elapsed, ...suggested } : null;
    const text = verdict ? settings.options.find((o) => o.value === verdict)?.text || verdict : 'cleared';
    const stamped = { value, updated_at: at };
    all.changeRecord(id, (entry) => ({ ...entry, sentences: withKey(entry.sentences, String(i), stamped) }),
      { text: `Sentence ${i + 1}: ${text}${by ? ' (suggestion accepted)' : ''}` });
    set({ picker: false, message: null });
  }
  /** Sentence `i`'s evidence when confirmed: the one given, else the top source sentence lit for it, else none. */
  function evidenceOf(i) {
    const { assist, current: { record: rec } } = get();
    const had = given(i)?.evidence;
    if (had && had.length) return had;
    const [s, e] = rec.summary.sentences[i];
    return assist.side === 'source' && assist.query && assist.query.start === s && assist.query.end === e
      && assist.results.length ? [assist.results[0].index] : [];
  }

  /**
   * Whether Submit waits for the sentences not checked: `required` refuses while any is left, `shown` asks
   * once per record (the second Submit submits). Says so in the slice's message.
   */
  function holdSubmit() {
    if (!settings) return false;
    const left = countStates(states()).unchecked;
    const { current: { id }, verdicts } = get();
    if (!left) return false;
    if (settings.mode === 'required') {
      set({ message: `Not submitted: ${notChecked(left)}; every sentence needs a verdict.` });
      return true;
    }
    if (verdicts.asked === id) return false;
    set({ asked: id, message: `${notChecked(left)} — Submit again to submit anyway.` });
    return true;
  }

  const actions = {
    holdSubmit,
    /** The open record's sentence states (the view's and the tests' one reading). */
    sentenceStates: states,
    /**
     * Make summary sentence `i` the current one: its span becomes the assistant's query (its evidence lights
     * in the source) unless a span draft is open, whose query stays.
     */
    focusSentence(i) {
      const rec = get().current.record;
      if (!settings || !rec || i < 0 || i >= rec.summary.sentences.length) return;
      const [start, end] = rec.summary.sentences[i];
      const open = draftHasWork(get().draft);
      store.batch(() => {
        set({ current: i, started: nowIso(), picker: false });
        if (!open) all.setQuery({ side: 'summary', start, end });
      });
    },
    /** The next (dir 1) or previous (-1) sentence; from none, the first or the last. */
    stepSentence(dir) {
      const rec = get().current.record;
      if (!settings || !rec) return;
      const n = rec.summary.sentences.length;
      const cur = get().verdicts.current;
      const next = cur === null ? (dir > 0 ? 0 : n - 1) : Math.min(n - 1, Math.max(0, cur + dir));
      actions.focusSentence(next);
    },
    /**
     * Confirm the current sentence with the first verdict: its evidence is the one already given, else
     * the top source sentence the assistant lit for this sentence (none when nothing is lit).
     */
    confirmSentence() {
      const { verdicts: { current: i }, current: { record: rec } } = get();
      if (!settings || i === null || !rec) return;
      give(i, settings.options[0].value, evidenceOf(i));
    },
    /**
     * Give the current sentence (from none: walk to the first) its suggested verdict, the majority of the
     * dataset's votes, its evidence as `y`'s; without one (no votes, a tie) the message line says why.
     */
    acceptSuggestedVerdict() {
      const { verdicts: { current: i }, current: { record: rec } } = get();
      if (!settings || !rec) return;
      if (i === null) {
        actions.stepSentence(1);
        return;
      }
      const s = suggestedVerdict(sentenceVotes(rec, i), settings.options.map((o) => o.value));
      if (!s || s.tie) {
        all.message(s ? `Sentence ${i + 1}: the suggestions tie (${s.tie.join(', ')}); none accepted.`
          : `Sentence ${i + 1} has no suggested verdict.`);
      } else give(i, s.verdict, evidenceOf(i), s.by);
    },
    /** Give the current sentence option `k` (0-based) of the settings' verdicts. */
    pickVerdict(k) {
      const i = get().verdicts.current;
      const opt = settings?.options[k];
      if (!opt || i === null) return;
      const had = given(i)?.evidence || [];
      if (k === 0) actions.confirmSentence();
      else give(i, opt.value, had);
    },
    /** Clear the current sentence's verdict (it is not checked again, or flagged by its span). */
    clearVerdict() {
      const i = get().verdicts.current;
      if (i !== null && given(i)) give(i, null);
      else set({ picker: false });
    },
    /**
     * A selection [start, end) in the source while a sentence is current (and no span draft is open): the
     * source sentences it touches are that sentence's evidence, with its verdict when it carries evidence,
     * else the first one that does.
     */
    sentenceEvidence(start, end) {
      const { verdicts: { current: i }, current: { record: rec } } = get();
      if (!settings || i === null || !rec) return;
      const had = given(i);
      const verdict = had && settings.evidence.includes(had.verdict) ? had.verdict : settings.evidence[0];
      if (verdict) give(i, verdict, rec.source.sentencesIn(start, end));
    },
    /** Open (or close) the verdict picker of the current sentence (digits pick, 0 clears). */
    togglePicker(on = !get().verdicts.picker) {
      if (!settings) return;
      if (on && get().verdicts.current === null) actions.stepSentence(1);
      set({ picker: on });
    },
    /** Drop the slice's message (Submit's question). */
    dismissSentenceMessage() {
      if (get().verdicts.message) set({ message: null });
    },
  };
  return actions;
}
