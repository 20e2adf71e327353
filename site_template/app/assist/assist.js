/**
 * Semantic assistance: a selection in one pane ranks the sentences of the other pane.
 * The selection's vector comes from its tokens in context (tokens.js): the worker runs each embedding row of
 * a record's texts once, in idle time (the summary when the record opens, a short source too, a long
 * source's rows when a selection touches them), and any selection in them is then answered at once, with no
 * model call. Where the ranker options say `selection: 'blend'`, the model's vector of the exact span is
 * asked for meanwhile and the answer refined with their mean; a refinement never scrolls the pane.
 * Before a row's tokens are known: the first answer comes from the precomputed vectors of the sentences the
 * selection overlaps (synchronous, instant), replaced by the ranking of the model's vector of the exact span
 * when it arrives, then refined when the tokens arrive. When a ready model with nothing else to do is asked,
 * its answer is a few tens of milliseconds away: the instant answer is then held back (the pane says the
 * model is ranking) and shown only if the model has not answered within HOLD_MS.
 * A selection of exactly one stored sentence has its stored vector as the span's: the model's vector of the
 * same text (computed at build time, float16), so the worker is not asked for it.
 */
import { rankSentences, prepareQuery, prepareSentences, DEFAULT_OPTIONS, gradeProbability } from './rank.js';
import { other } from '../state/draft.js';
import { citedSplit } from './citecheck.js';
import { blend, selectionVector } from './tokens.js';

/** Mean of vectors, L2-normalised (null when empty). */
export function meanVector(vectors) {
  if (!vectors.length) return null;
  const out = new Float32Array(vectors[0].length);
  for (const v of vectors) for (let j = 0; j < out.length; j++) out[j] += v[j];
  let n = 0;
  for (let j = 0; j < out.length; j++) n += out[j] * out[j];
  n = Math.sqrt(n) || 1;
  for (let j = 0; j < out.length; j++) out[j] /= n;
  return out;
}

/**
 * Grade of a lit sentence: 3 strong, 2 medium, 1 weak, from its grade probability (a result's `p`: the
 * calibrated probability that it is evidence, rank.js gradeProbability; else its score), never rescaled
 * per query, so a weak best match looks weak. Thresholds: manifest.ranker.grades = [medium, strong].
 */
export function makeLevelOf(manifest) {
  const g = (manifest.ranker && Array.isArray(manifest.ranker.grades) && manifest.ranker.grades)
    || DEFAULT_OPTIONS.grades;
  return (p) => (p >= g[1] ? 3 : p >= g[0] ? 2 : 1);
}

/**
 * Beyond the best two, only sentences within this score of the best one are lit (as well as top k and
 * the minimum score): on a 6-sentence source top 5 lit nearly everything. The second stays lit: on the
 * precomputed answer the selection's own sentence can outscore the evidence.
 */
export const LIT_GAP = 0.15;

/**
 * How long the instant answer waits for a free, ready model's answer before it is shown. On a long text,
 * lighting an answer, scrolling to it and drawing its marks to replace them all a moment later cost
 * frames that ran while the worker embedded, and delayed its answer.
 */
export const HOLD_MS = 150;

/**
 * The top of the ranking a cited split is first tried on: sorting all of a long source's sentences
 * delayed the model's answer; the whole ranking is sorted only when the cited documents'
 * matches are not all in it.
 */
export const CITED_TOP = 64;

/**
 * A source of at most this many embedding rows has its tokens run when the record opens (a FaithBench
 * article: tens); a longer one only where a selection touches it, so idle work stays bounded.
 */
export const WARM_SOURCE_ROWS = 300;

export class Assistant {
  /**
   * @param store the app store
   * @param manifest the bundle manifest (ranker options)
   * @param getEmbedder () => embedder or null (embedder.js API) — null until the model is wanted
   */
  constructor(store, manifest, getEmbedder) {
    this.store = store;
    this.options = manifest.ranker || {};
    this.citationPatterns = manifest.settings?.citations?.patterns; // undefined: citations.js's defaults
    this.getEmbedder = getEmbedder;
    this.seq = 0;
    this.last = null; // {query, vec, kind}
    this.early = null; // prefetch(): {rec, side, start, end, vector: promise}
    this.modelAnswered = false;
    this.timings = { precomputedMs: null, modelMs: null };
    this.selection = this.options.selection || DEFAULT_OPTIONS.selection;
    this.span = null; // {seq, vec}: the model's (or the stored) vector of the current query's span
    this.warming = null; // the record whose rows warm() is running
    this.holdMs = HOLD_MS; // a test holds longer: how soon a model answers depends on the machine's load
  }

  /**
   * Observe the store instead of being called: a new query (the draft's `query`: a selection taken as the
   * anchor, or a reopened record's stored draft) is answered, a record opened or a query dropped forgets the
   * last one, a new k or minimum score re-ranks it, a model become ready refines it. A new query's vector is
   * asked of the worker at once (`prefetch`), before the rest of the store's subscribers and the save run;
   * the answer itself comes in a microtask, after the store's update that asked for it. Returns the function
   * that stops it (a benchmark puts another engine in its place).
   */
  follow() {
    return this.store.subscribe((s, prev) => {
      if (s.current.record !== prev.current.record) {
        this.reset();
        this._idle(s.current.record);
      }
      if (s.query !== prev.query) {
        if (!s.query) this.reset();
        else {
          const { side, start, end } = s.query;
          this.prefetch(side, start, end);
          queueMicrotask(() => {
            if (this.store.state.query === s.query) this.run(side, start, end);
          });
        }
      }
      if (s.view !== prev.view) queueMicrotask(() => this.rerank());
      if (s.model.status === 'ready' && prev.model.status !== 'ready') queueMicrotask(() => this.refine());
    });
  }

  /**
   * Index a new record's texts for ranking in idle time (the first selection on a long text is fast too),
   * then run its rows (`warm`) once the model is ready.
   */
  _idle(rec) {
    if (!rec) return;
    const idle = globalThis.requestIdleCallback || ((fn) => setTimeout(fn, 200));
    idle(() => {
      if (this.store.state.current.record !== rec) return;
      for (const view of [rec.source, rec.summary]) prepareSentences(view.rankInput(), this.options);
      this.warm();
    });
  }

  /**
   * Whether `query` is still the draft's query span, or, with no draft anchor, the store's query (a summary
   * sentence walked to, verdicts.js): a late answer after a save, clear or record change is dropped.
   */
  _current(query, rec) {
    const { current, draft, query: asked } = this.store.state;
    const span = draft.anchor ? draft[query.side] : asked && asked.side === query.side && [asked.start, asked.end];
    return current.record === rec && (!draft.anchor || draft.anchor === query.side) && Boolean(span)
      && span[0] === query.start && span[1] === query.end;
  }

  /** Rank and show; a `refined` answer replaces one of the same query without scrolling to it. */
  _rank(vec, query, kind, refined = false) {
    const { current, view } = this.store.state;
    const rec = current.record;
    if (!rec || !vec || !this._current(query, rec)) return;
    const target = other(query.side);
    const ctx = this._context(query, rec);
    const from = rec[query.side];
    const sectioned = (t) => Boolean(t.sections && t.sections.length);
    // position prior (rank.js): only between two single-document texts
    const queryPosition = sectioned(from) || sectioned(rec[target]) || !from.length
      ? null : (query.start + query.end) / 2 / from.length;
    const sentences = rec[target].rankInput();
    // a selection whose summary sentence cites documents of the source: the whole ranking, split (citecheck.js)
    const cites = target === 'source' ? citedSplit(rec, query, ctx.text, this.citationPatterns) : null;
    const rank = (k) => rankSentences({
      queryVec: vec, queryText: query.text, contextVec: ctx.vec, contextText: ctx.text, queryPosition,
      sentences, options: this.options, k,
    });
    let ranked = rank(cites ? CITED_TOP : view.k);
    const near = ranked.length ? ranked[0].score - LIT_GAP : 0;
    const best = ranked.length ? ranked[0].score : null;
    const graded = (r) => ({ ...r, p: gradeProbability(r.score, best, sentences.length, this.options) });
    let citation = cites && cites.split(ranked, graded);
    if (citation && !citation.complete && ranked.length < sentences.length) {
      ranked = rank(null); // the cited documents' matches are further down: the whole ranking
      citation = cites.split(ranked, graded);
    }
    const results = citation ? citation.results
      : ranked.filter((r, i) => r.score >= view.minScore && (i < 2 || r.score >= near)).slice(0, view.k).map(graded);
    this.last = { query, vec, kind };
    this.store.actions.showRelated({
      side: target, results, kind, query, best, citation: citation && citation.text, refined,
    });
  }

  /** Whether run() answers `query` at once from a stored vector (the worker is not asked). */
  _atOnce(query, rec, emb) {
    return Boolean(emb && emb.status !== 'failed' && rec.source.hasVectors && rec.summary.hasVectors
      && this._storedVector(query, rec));
  }

  /**
   * Ask the worker for the vector of the span [start, end) of `side` before the page takes it into the
   * draft (the store's update and save take milliseconds the worker need not wait for); run() of the
   * same span then waits for this answer instead of asking again.
   */
  prefetch(side, start, end) {
    const rec = this.store.state.current.record;
    const emb = this.getEmbedder();
    this.early = null;
    if (!rec || !emb || emb.status === 'failed') return;
    const query = { side, start, end, text: rec[side].slice(start, end) };
    const fromTokens = this._tokenVector(query, rec) && !this._blends;
    if (!fromTokens && !this._atOnce(query, rec, emb)) {
      const { free } = emb; // before the call, which makes it busy
      const vector = emb.embedLatest(query.text);
      vector.catch(() => {}); // a query dropped before run() takes it: its failure is no page error
      this.early = { rec, side, start, end, free, vector };
    }
  }

  /** Rank the other pane for the code-point span [start, end) of `side`. */
  run(side, start, end) {
    const rec = this.store.state.current.record;
    if (!rec) return;
    const seq = ++this.seq;
    const t0 = performance.now();
    const query = { side, start, end, text: rec[side].slice(start, end) };
    this.timings = { precomputedMs: null, modelMs: null };
    this.modelAnswered = false;
    this.span = null;
    const loaded = () => rec.source.hasVectors && rec.summary.hasVectors;
    const tokenVec = loaded() ? this._tokenVector(query, rec) : null;
    if (tokenVec) {
      this._fromTokens(query, rec, t0, seq, tokenVec);
      return;
    }
    if (this._atOnce(query, rec, this.getEmbedder())) this._stored(query, rec, t0, seq);
    else {
      const soon = this._model(query, seq, t0, rec); // first: the worker embeds meanwhile
      if (loaded() && soon) this._hold(query, rec, t0, seq);
      else if (loaded()) this._precomputed(query, rec, t0);
      else {
        // Vectors still loading: answer when they arrive, unless the model answered first.
        Promise.all([rec.source.vectorsReady, rec.summary.vectorsReady]).then(() => {
          if (seq === this.seq && !this.modelAnswered && loaded()) this._precomputed(query, rec, t0);
        });
      }
    }
    this._whenTokens(query, rec, seq);
  }

  /** Whether the selection's vector is the token vector alone, or refined with the span's own. */
  get _blends() {
    return this.selection === 'blend';
  }

  /** The vector of `query` from its tokens in context, or null while a row it touches is not run. */
  _tokenVector(query, rec) {
    if (this.selection === 'span') return null;
    const view = rec[query.side];
    const rows = view.rowsOf(view.sentencesIn(query.start, query.end));
    return rows.length ? selectionVector(rows.map((r) => view.tokenRows[r]), query.start, query.end) : null;
  }

  /** The answer from the token vector, at once; with `blend`, refined by the span's vector when it comes. */
  _fromTokens(query, rec, t0, seq, tokenVec) {
    this.modelAnswered = true;
    const stored = this._storedVector(query, rec);
    this._rank(this._blends && stored ? blend(tokenVec, stored) : tokenVec, query, 'model');
    this.timings.precomputedMs = performance.now() - t0;
    this.timings.modelMs = this.timings.precomputedMs;
    if (this._blends && !stored) this._model(query, seq, t0, rec);
  }

  /** When the rows the selection touches are run (asked now if they are not), refine its answer with them. */
  _whenTokens(query, rec, seq) {
    if (this.selection === 'span') return;
    const view = rec[query.side];
    const rows = view.rowsOf(view.sentencesIn(query.start, query.end));
    if (!rows.length) return;
    this.loadTokens(view, rows).then((ok) => {
      const ready = rec.source.hasVectors && rec.summary.hasVectors;
      if (!ok || !ready || seq !== this.seq || !this._current(query, rec)) return;
      const tokenVec = this._tokenVector(query, rec);
      if (!tokenVec) return;
      this.modelAnswered = true;
      const span = this.span && this.span.seq === seq ? this.span.vec : null;
      this._rank(this._blends ? blend(tokenVec, span) : tokenVec, query, 'model', true);
    });
  }

  /**
   * Ask the worker for the tokens of the embedding rows `rows` of `view` not yet run (a job per row, after
   * any selection's own call); resolves to whether every one is known.
   */
  loadTokens(view, rows) {
    const emb = this.getEmbedder();
    if (!emb || emb.status === 'failed') return Promise.resolve(false);
    if (!view.tokenJobs) view.tokenJobs = new Map();
    return Promise.all(rows.map((r) => {
      if (view.tokenRows[r]) return true;
      if (!view.tokenJobs.has(r)) {
        const [, s, e] = view.rows[r];
        view.tokenJobs.set(r, emb.tokens([view.slice(s, e)]).then(([row]) => {
          if (!row) return false;
          for (let i = 0; i < row.spans.length; i++) row.spans[i] += s;
          view.tokenRows[r] = { start: s, end: e, spans: row.spans, vectors: row.vectors };
          return true;
        }, () => false));
      }
      return view.tokenJobs.get(r);
    })).then((ok) => ok.every(Boolean));
  }

  /**
   * Run the rows of the open record's summary (and of a short source) in idle time, one at a time, while
   * the record stays open: its selections are then answered from their tokens.
   */
  async warm() {
    const rec = this.store.state.current.record;
    const emb = this.getEmbedder();
    if (!rec || this.selection === 'span' || !emb || emb.status !== 'ready' || this.warming === rec) return;
    this.warming = rec;
    const views = rec.source.rows.length <= WARM_SOURCE_ROWS ? [rec.summary, rec.source] : [rec.summary];
    for (const view of views) {
      for (let r = 0; r < view.rows.length; r++) {
        if (this.store.state.current.record !== rec) break;
        if (!view.tokenRows[r]) await this.loadTokens(view, [r]);
      }
    }
    if (this.warming === rec) this.warming = null;
  }

  /** The sentences around the selection: their mean stored vector (null until loaded) and text. */
  _context(query, rec) {
    if (query.context && (query.context.vec || !rec[query.side].hasVectors)) return query.context;
    const view = rec[query.side];
    const idx = view.sentencesIn(query.start, query.end);
    query.context = {
      vec: meanVector(idx.flatMap((i) => view.sentenceVectors[i])),
      text: idx.length ? view.slice(view.sentences[idx[0]][0], view.sentences[idx[idx.length - 1]][1]) : '',
    };
    return query.context;
  }

  /** Instant answer: the stored vectors of the sentences the selection overlaps stand for the span. */
  _precomputed(query, rec, t0) {
    const { vec } = this._context(query, rec);
    if (!vec) return;
    this._rank(vec, query, 'precomputed');
    this.timings.precomputedMs = performance.now() - t0;
  }

  /**
   * The model's answer is on its way: the pane says the model is ranking, and the instant answer is
   * ranked and shown only if that answer has not come within HOLD_MS. Ranking it now as well cost the
   * main thread time while the worker embedded, and the model's answer then often waited for the
   * frame that followed. What the model's ranking needs apart from the span's vector (its
   * lexical terms, the context's cosines) is computed meanwhile (rank.js prepareQuery).
   */
  _hold(query, rec, t0, seq) {
    if (!this._current(query, rec)) return;
    this.store.actions.rankingPending(other(query.side), query);
    setTimeout(() => { // in a task of its own, after the selection's handler: while the worker embeds
      if (seq !== this.seq || this.modelAnswered || !this._current(query, rec)) return;
      const ctx = this._context(query, rec);
      prepareQuery({
        queryText: query.text, contextVec: ctx.vec, contextText: ctx.text,
        sentences: rec[other(query.side)].rankInput(), options: this.options,
      });
    }, 0);
    setTimeout(() => {
      if (seq === this.seq && !this.modelAnswered) this._precomputed(query, rec, t0);
    }, this.holdMs);
  }

  /**
   * The build's vector of exactly the query's text, or null: a selection of one whole sentence stored
   * as one row (not cut into windows) was embedded by the same model at build time, so asking the
   * worker again would only redo that work (a long sentence's embedding, on one core).
   */
  _storedVector(query, rec) {
    const view = rec[query.side];
    const idx = view.sentencesIn(query.start, query.end);
    if (idx.length !== 1) return null;
    const [s, e] = view.sentences[idx[0]];
    const rows = view.sentenceVectors[idx[0]];
    return s === query.start && e === query.end && rows.length === 1 ? rows[0] : null;
  }

  /**
   * The model's answer from the stored vector of the selected sentence (no worker round trip); only
   * while the model is wanted and has not failed, so the header never says "model" without one.
   */
  _stored(query, rec, t0, seq) {
    this.modelAnswered = true;
    this.span = { seq, vec: this._context(query, rec).vec };
    // the selection is its own context (one sentence, one row): the same vector object for both, so
    // the second cosine pass over the other text is answered from rank.js's cache
    this._rank(this._context(query, rec).vec, query, 'model');
    this.timings.precomputedMs = performance.now() - t0;
    this.timings.modelMs = this.timings.precomputedMs;
  }

  /**
   * Replace the answer with the ranking of the model's vector of the exact span, when it arrives.
   * Returns whether a ready model with no other call to finish first was asked (its answer is then a few
   * tens of milliseconds away).
   */
  _model(query, seq, t0, rec) {
    const emb = this.getEmbedder();
    if (!emb || emb.status === 'failed') return false;
    const early = this.early;
    this.early = null;
    const asked = early && early.rec === rec && early.side === query.side && early.start === query.start
      && early.end === query.end;
    const free = asked ? early.free : emb.free;
    (asked ? early.vector : emb.embedLatest(query.text)).then((v) => {
      if (!v || seq !== this.seq || !this._current(query, rec)) return;
      this.span = { seq, vec: v };
      const tokenVec = rec.source.hasVectors && rec.summary.hasVectors ? this._tokenVector(query, rec) : null;
      if (tokenVec && !this._blends) return; // answered from the tokens already
      const refined = this.modelAnswered;
      this.modelAnswered = true;
      this._rank(tokenVec ? blend(tokenVec, v) : v, query, 'model', Boolean(tokenVec) && refined);
      if (this.timings.modelMs === null) this.timings.modelMs = performance.now() - t0;
    }).catch(() => {});
    return free;
  }

  /**
   * The model became ready: refine the shown answer (a selection made before the worker existed asked it for
   * nothing) with the span's vector and its tokens, and run the open record's rows.
   */
  refine() {
    const { assist, current } = this.store.state;
    if (assist.query && this.last) {
      if (assist.kind === 'precomputed') this._model(assist.query, this.seq, performance.now(), current.record);
      this._whenTokens(assist.query, current.record, this.seq);
    }
    this.warm();
  }

  /** Re-rank the last query (k or min score changed). */
  rerank() {
    if (this.last && this.store.state.assist.query === this.last.query) {
      this._rank(this.last.vec, this.last.query, this.last.kind);
    }
  }

  /** Forget the last query (record change, Esc). */
  reset() {
    this.seq += 1;
    this.last = null;
    this.early = null;
    this.span = null;
  }
}
