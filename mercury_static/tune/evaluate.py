"""The ``eval`` command: score the page's ranking of related sentences against gold evidence.

The sentence index is built exactly as ``build`` does (same split, same embedding rows, vectors
encoded as the bundle stores them and decoded as the page does); queries are embedded live like the page does.

Queries (each ranks the sentences of the record's source):

- Mercury dumps (FaithBench): every prior annotation with a source span; the query is the selected
  summary span, relevant = the source sentences overlapping the gold source span.
- SummHay: every bullet judged FULL_COVERAGE for at least one insight; relevant = the sentences of the
  documents (sections) that include one of those insights. Every insight text is a query too (once per
  topic), relevant = the sentences of the documents that include it.

The context of a summary selection is the summary sentence(s) it overlaps (text and mean vector), what
the page passes as ``contextText`` / ``contextVec``; its position (``queryPosition``) is the selection's
midpoint as a share of the summary's length, passed only when the source is not sectioned (as the page does).

Citations: a query whose text cites documents of a sectioned source (``[70][80]``, citations.py)
is also scored "with citations": its ranking with the sentences of the cited documents first (what the page
shows first), and checked: is the best match inside the cited documents evidence, does the best match of
the whole source lie outside them (the page's "best elsewhere", a citation-error signal), and do the cited
documents hold gold evidence at all (is the citation right).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from mercury_static.assist import ranker_options
from mercury_static.core import citations
from mercury_static.tune import metrics
from mercury_static.bundle.contents import stored_rows, text_id
from mercury_static.bundle.trained_model import read_training
from mercury_static.assist.rank import Sentence, prepare_sentences, rank_sentences, grade, grade_probability
from mercury_static.core.records import InputError, Record

RECALL_AT = (1, 3, 5)


@dataclass(frozen=True)
class Query:
    """One gold query: a selection in a summary and the source sentences that are its evidence."""

    group: str  # dataset row of the report, e.g. "batch_1 · span" or "topic_news1 · bullet"
    kind: str  # "span" | "bullet" | "insight"
    record_id: str
    text: str
    relevant: frozenset[int]
    selection: tuple[int, int] | None  # offsets of the selection in the record's summary (None: insight)


@dataclass
class IndexedText:
    """A text as the page sees it: sentences, and the decoded embedding rows of each sentence."""

    text: str
    spans: list[tuple[int, int]]
    vectors: list[np.ndarray]  # per sentence, (rows, dim) float32
    rows: list[tuple[int, int, int]] = field(default_factory=list)  # embedding rows (sentence, start, end)

    def sentences(self) -> list[Sentence]:
        return [Sentence(i, self.text[s:e], v) for i, ((s, e), v) in enumerate(zip(self.spans, self.vectors))]


@dataclass
class GroupScores:
    """Mean metrics over the queries of one dataset row."""

    group: str
    queries: int
    mrr: float
    ext_mrr: float
    recall: dict[int, float]  # share of queries with a relevant sentence in the top n ("hit rate")
    precision: float
    ndcg: float
    nothing_related: float  # share of gold queries whose best score is below options["min_score"]
    unrelated_shown: float | None  # share of control queries (an unrelated source) with a best score >= it
    top_score_p10: float  # 10th percentile of the best score of gold queries
    control_top_p90: float | None  # 90th percentile of the best score against an unrelated source
    latency_ms_p50: float
    latency_ms_p95: float
    cited: dict | None = None  # citation figures of the queries whose text cites documents (cited_figures)


@dataclass
class EvalReport:
    k: int
    options: dict
    groups: list[GroupScores] = field(default_factory=list)
    model: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"k": self.k, "options": self.options, "model": self.model,
                "groups": [{**asdict(g), "recall": {str(n): v for n, v in g.recall.items()}} for g in self.groups]}


# ---------------------------------------------------------------- gold extraction

def overlapping(spans: Sequence[tuple[int, int]], start: int, end: int) -> list[int]:
    """Indices of the spans overlapping [start, end) (a zero-width range touches the span around it)."""
    end = max(end, start + 1)
    return [i for i, (s, e) in enumerate(spans) if s < end and start < e]


def record_queries(record: Record, source_spans: Sequence[tuple[int, int]], group: str) -> list[Query]:
    """The gold queries of one record (Mercury prior annotations, or SummHay bullets and insights)."""
    out: list[Query] = []
    for ann in record.prior_annotations:
        src, summ = ann.get("source"), ann.get("summary")
        if not src or not summ or not summ.get("text", "").strip():
            continue
        relevant = overlapping(source_spans, src["start"], src["end"])
        if relevant:
            out.append(Query(f"{group} · span", "span", record.id, summ["text"].strip(), frozenset(relevant),
                             (summ["start"], summ["end"])))
    gold = record.gold or {}
    if "bullets" in gold and record.source_sections is not None:
        docs = {ins["id"]: set(ins.get("documents") or []) for ins in gold.get("insights") or []}
        in_doc: dict[str, list[int]] = {}
        for sec in record.source_sections:
            in_doc.setdefault(sec.doc_id, []).extend(overlapping(source_spans, sec.start, sec.end))

        def sentences_of(doc_ids: set[str]) -> frozenset[int]:
            return frozenset(i for d in doc_ids for i in in_doc.get(d, []))

        for b in gold["bullets"]:
            full = {c["insight_id"] for c in b.get("covered_insights") or [] if c.get("coverage") == "FULL_COVERAGE"}
            relevant = sentences_of(set().union(*(docs.get(i, set()) for i in full)) if full else set())
            if relevant and b["text"].strip():
                out.append(Query(f"{group} · bullet", "bullet", record.id, b["text"].strip(), relevant,
                                 (b["start"], b["end"])))
        for ins in gold.get("insights") or []:
            relevant = sentences_of(docs.get(ins["id"], set()))
            if relevant and (ins.get("text") or "").strip():
                out.append(Query(f"{group} · insight", "insight", f"insight:{ins['id']}", ins["text"].strip(),
                                 relevant, None))
    return out


# ---------------------------------------------------------------- embedding (cached on disk)

class CachedEmbedder:
    """``Embedder.embed`` with a per-model disk cache of text -> vector (eval reruns are fast)."""

    def __init__(self, embedder, path: Path | None):
        self.embedder, self.path = embedder, path
        self.vectors: dict[bytes, np.ndarray] = {}
        self.dirty = False
        if path is not None and path.is_file():
            with np.load(path) as data:
                self.vectors = dict(zip(data["keys"].tolist(), data["vectors"]))

    @staticmethod
    def key(text: str) -> bytes:
        return hashlib.sha256(text.encode("utf-8")).digest()[:16]

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Vectors of ``texts``; ``progress`` advances once per distinct text (cached ones at once)."""
        keys = [self.key(t) for t in texts]
        missing = list({k: t for k, t in zip(keys, texts) if k not in self.vectors}.items())
        if progress is not None:
            progress(len(set(keys)) - len(missing))
        if missing:
            new = self.embedder.embed([t for _, t in missing], progress=progress)
            self.vectors.update((k, v) for (k, _), v in zip(missing, new))
            self.dirty = True
        dim = self.embedder.dim
        return np.stack([self.vectors[k] for k in keys]) if keys else np.zeros((0, dim), np.float32)

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.vectors)
        # a temp file of its own: two evals (or test workers) saving at once each replace the file whole
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".npz", dir=self.path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, keys=np.array(keys, dtype="S16"), vectors=np.stack([self.vectors[k] for k in keys]))
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self.dirty = False


def index_texts(texts: Sequence[str], embedder, cached: CachedEmbedder,
                step: Callable[[str, int], Callable[[int], None]],
                cuts: dict[str, list[tuple[int, int]]] | None = None) -> dict[str, IndexedText]:
    """Split, window and embed each distinct text as ``build`` does (a summary's given cut, `cuts`, as its
    sentences); vectors as the bundle stores them."""
    from mercury_static.core.segment import embedding_windows, split_sentences

    out: dict[str, IndexedText] = {}
    plan = []
    for t in dict.fromkeys(texts):
        spans = list((cuts or {}).get(t) or split_sentences(t))
        rows = embedding_windows(t, spans, embedder.count_tokens, embedder.max_seq_length)
        plan.append((t, spans, rows))
    flat = [t[s:e] for t, _, rows in plan for _, s, e in rows]
    vectors = stored_rows(cached.embed(flat, step("Embedding sentences", len(set(flat)))))
    pos = 0
    for t, spans, rows in plan:
        per: list[list[np.ndarray]] = [[] for _ in spans]
        for i, _, _ in rows:
            per[i].append(vectors[pos])
            pos += 1
        dim = vectors.shape[1]
        out[text_id(t)] = IndexedText(t, spans, [np.array(v, np.float32).reshape(-1, dim) for v in per], rows)
    return out


class SelectionEmbedder:
    """`CachedEmbedder`'s embedder of selections: a key ``"start:end:text"`` gets the selection's vector from
    its tokens in context (tokens.py), NaN where it overlaps no token; each text's touched rows run once."""

    def __init__(self, embedder, index: dict[str, IndexedText]):
        self.embedder, self.index, self.dim = embedder, index, embedder.dim

    @staticmethod
    def key(text: str, selection: tuple[int, int]) -> str:
        return f"{selection[0]}:{selection[1]}:{text}"

    def embed(self, keys: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        from mercury_static.assist.tokens import selection_vector

        out = np.full((len(keys), self.dim), np.nan, dtype=np.float32)
        wanted: dict[str, list[tuple[int, int, int]]] = {}
        for j, key in enumerate(keys):
            start, end, text = key.split(":", 2)
            wanted.setdefault(text, []).append((j, int(start), int(end)))
        for text, selections in wanted.items():
            indexed = self.index[text_id(text)]
            rows = [r for r in indexed.rows if any(r[1] < max(e, s + 1) and s < r[2] for _, s, e in selections)]
            token_rows = self.embedder.token_rows(text, rows)
            for j, s, e in selections:
                vec = selection_vector(token_rows, s, e)
                if vec is not None:
                    out[j] = vec
            if progress is not None:
                progress(len(selections))
        return out


def selection_vectors(queries: Sequence[tuple[Query, Record]], index: dict[str, IndexedText], embedder,
                      cache: Path | None, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Each query's vector from its tokens in context, NaN for a query without a selection or a token."""
    selected = [(i, SelectionEmbedder.key(r.summary, q.selection)) for i, (q, r) in enumerate(queries) if q.selection]
    out = np.full((len(queries), embedder.dim), np.nan, dtype=np.float32)
    if selected:
        cached = CachedEmbedder(SelectionEmbedder(embedder, index), cache)
        try:
            out[[i for i, _ in selected]] = cached.embed([k for _, k in selected], progress)
        finally:
            cached.save()
    return out


def context_vector(summary: IndexedText, selection: tuple[int, int]) -> tuple[np.ndarray | None, str]:
    """Mean of the rows of the summary sentences overlapping the selection (unit length), and their text."""
    idx = overlapping(summary.spans, *selection)
    if not idx:
        return None, ""
    rows = np.concatenate([summary.vectors[i] for i in idx]).astype(np.float64)
    mean = rows.mean(axis=0)
    norm = np.linalg.norm(mean)
    text = summary.text[summary.spans[idx[0]][0]:summary.spans[idx[-1]][1]]
    return (mean / norm).astype(np.float32) if norm > 0 else None, text


# ---------------------------------------------------------------- evaluation

def query_position(q: Query, record: Record) -> float | None:
    """The selection's midpoint as a share of its summary, or None (no selection, or a sectioned source)."""
    if q.selection is None or record.source_sections is not None or not record.summary:
        return None
    return (q.selection[0] + q.selection[1]) / 2 / len(record.summary)


def _group_name(record: Record) -> str:
    """The stem of the input file a record came from (origin is ``FILE:where`` or ``FILE[where]``)."""
    return Path(re.split(r"[:\[]", record.origin, maxsplit=1)[0]).stem if record.origin else "input"


@dataclass
class EvalSet:
    """The indexed texts, the gold queries and their vectors: computed once, scored under many options."""

    index: dict[str, IndexedText]
    queries: list[tuple[Query, Record]]
    vectors: np.ndarray  # each query's text embedded alone
    contexts: list[tuple[np.ndarray | None, str]]
    prepared: dict = field(default_factory=dict)  # (text id, prefix) -> (sentences, PreparedText)
    token_vectors: np.ndarray | None = None  # each query's vector from its tokens in context (NaN: none)
    model: dict = field(default_factory=dict)  # the model the vectors are of: name, sha256, trained

    def query_vector(self, i: int, options: dict) -> np.ndarray:
        """Query i's vector as the page computes it under the ranker option ``selection``."""
        from mercury_static.assist.tokens import blend

        span = self.vectors[i]
        if options["selection"] == "span" or self.token_vectors is None or np.isnan(self.token_vectors[i, 0]):
            return span
        tokens = self.token_vectors[i]
        if options["selection"] == "tokens":
            return tokens
        mixed = blend(tokens, span)
        return span if mixed is None else mixed


def load_eval_set(paths: Sequence[Path], fmt: str = "auto", *, model_path: Path | None = None,
                  cache_dir: Path | None = None, embed_cache: Path | None = None,
                  step: Callable[[str, int], Callable[[int], None]] | None = None) -> EvalSet:
    """Read the inputs, index their texts like ``build`` and embed the queries (disk-cached).

    ``embed_cache``: the folder of the embedding cache (default: ``eval-embeddings`` in the model cache);
    the benchmark keeps its own under ``benchmarks/out`` so reruns cost no embedding."""
    from mercury_static.assist.embed import Embedder
    from mercury_static.assist.model_export import cache_root, ensure_model
    from mercury_static.read.inputs import read_records

    step = step or (lambda description, total: lambda n: None)
    records = read_records([Path(p) for p in paths], fmt=fmt)
    model = ensure_model(model_path, cache_dir=cache_dir)
    embedder = Embedder(model.dir)
    folder = embed_cache if embed_cache is not None else cache_root(cache_dir) / "eval-embeddings"
    cached = CachedEmbedder(embedder, Path(folder) / f"{model.sha256[:16]}.npz")
    try:
        texts = [t for r in records for t in (r.source, r.summary)]
        index = index_texts(texts, embedder, cached, step,
                            {r.summary: r.summary_sentences for r in records if r.summary_sentences})
        queries: list[tuple[Query, Record]] = []
        seen: set[tuple] = set()
        for r in records:
            for q in record_queries(r, index[text_id(r.source)].spans, _group_name(r)):
                key = (q.kind, text_id(r.source), q.record_id, q.selection, q.relevant)
                if key not in seen:  # the same selection and evidence from two annotators: one query
                    seen.add(key)
                    queries.append((q, r))
        if not queries:
            raise InputError(str(paths[0]) if paths else "-", None, None,
                             "no gold queries (eval needs Mercury annotations with a source span, "
                             "or SummHay topics with coverage judgments)")
        qtexts = [q.text for q, _ in queries]
        qvecs = cached.embed(qtexts, step("Embedding queries", len(set(qtexts))))
    finally:
        cached.save()
    tvecs = selection_vectors(queries, index, embedder, Path(folder) / f"{model.sha256[:16]}-selections.npz",
                              step("Embedding selections in context", sum(1 for q, _ in queries if q.selection)))
    contexts = [context_vector(index[text_id(r.summary)], q.selection) if q.selection else (None, "")
                for q, r in queries]
    trained, _ = read_training(model_path)
    return EvalSet(index, queries, qvecs, contexts, token_vectors=tvecs,
                   model={"name": model.name, "sha256": model.sha256,
                          "trained": {k: trained[k] for k in ("pairs", "records", "from")} if trained else None})


def evaluate(paths: Sequence[Path], fmt: str = "auto", k: int = 5, options: dict | None = None, *,
             model_path: Path | None = None, cache_dir: Path | None = None,
             step: Callable[[str, int], Callable[[int], None]] | None = None) -> EvalReport:
    """Rank every gold query's source sentences with ``rank.py`` and score them (see module docstring)."""
    data = load_eval_set(paths, fmt, model_path=model_path, cache_dir=cache_dir, step=step)
    return score_eval_set(data, k, options, step=step)


def query_rows(data: EvalSet, k: int = 5, options: dict | None = None, *, controls: bool = True,
               step: Callable[[str, int], Callable[[int], None]] | None = None) -> list[dict]:
    """Rank every query of ``data`` under ``options``: one row of metrics per query, in query order
    (``controls``: also rank it against an unrelated source, for the "nothing related" figures)."""
    opts = ranker_options.validate(options or {}, "--ranker-option")
    step = step or (lambda description, total: lambda n: None)
    index, queries = data.index, data.queries

    def ranker_input(sid: str):
        key = (sid, opts["prefix"])
        if key not in data.prepared:
            sents = index[sid].sentences()
            data.prepared[key] = (sents, prepare_sentences(sents, opts))
        return data.prepared[key]

    docs: dict[str, list[int]] = {}

    def doc_of(sid: str, record: Record) -> list[int]:
        """The document (section position) of each sentence of the source, -1 outside every section."""
        if sid not in docs:
            out = [-1] * len(index[sid].spans)
            for d, sec in enumerate(record.source_sections or []):
                for i in overlapping(index[sid].spans, sec.start, sec.end):
                    out[i] = d
            docs[sid] = out
        return docs[sid]

    sources = list(dict.fromkeys(text_id(r.source) for _, r in queries))
    rows: list[dict] = []
    advance = step("Ranking", len(queries))
    for j, ((q, r), (ctx_vec, ctx_text)) in enumerate(zip(queries, data.contexts)):
        qvec = data.query_vector(j, opts)
        sid = text_id(r.source)
        sents, prep = ranker_input(sid)
        pos = query_position(q, r)
        t0 = time.perf_counter()
        ranked = rank_sentences(qvec, q.text, sents, opts, None, context_vec=ctx_vec, context_text=ctx_text,
                                query_position=pos, prepared=prep)
        ms = (time.perf_counter() - t0) * 1000
        order = [i for i, _ in ranked]
        n = len(prep.indices)
        best = ranked[0][1] if ranked else 0.0
        probs = [grade_probability(sc, best, n, opts) for _, sc in ranked[:k]]
        row = {"group": q.group, "kind": q.kind, "record": q.record_id,
               "rr": metrics.reciprocal_rank(order, q.relevant),
               "ext": metrics.extended_reciprocal_rank(order, q.relevant),
               **{f"r{n}": metrics.hit_at(order, q.relevant, n) for n in RECALL_AT},
               "p": metrics.precision_at(order, q.relevant, k),
               "ndcg": metrics.ndcg_at(order, q.relevant, k),
               "top": ranked[0][1] if ranked else 0.0,
               "ms": ms, "n": n, "lit": [(sc, p, grade(p, opts), i in q.relevant)
                                         for (i, sc), p in zip(ranked[:k], probs)]}
        if r.source_sections:
            row.update(cited_row(q, ranked, doc_of(sid, r), len(r.source_sections), k))
        if controls and len(sources) > 1:  # control: the same query against an unrelated source
            other = sources[(sources.index(sid) + len(sources) // 2) % len(sources)]
            o_sents, o_prep = ranker_input(other)
            o_top = rank_sentences(qvec, q.text, o_sents, opts, 1, context_vec=ctx_vec, context_text=ctx_text,
                                   query_position=pos, prepared=o_prep)
            row["control_top"] = o_top[0][1] if o_top else 0.0
        rows.append(row)
        advance(1)
    return rows


def cited_row(q: Query, ranked: list[tuple[int, float]], doc_of: list[int], n_docs: int, k: int) -> dict:
    """The citation figures of one query (module docstring); {} when its text cites none of the ``n_docs``
    documents (or the source has no sentence)."""
    cited = citations.cited_documents(q.text, n_docs)
    if not cited or not ranked:
        return {}
    inside = set(cited)
    first = [i for i, _ in ranked if doc_of[i] in inside]
    order = first + [i for i, _ in ranked if doc_of[i] not in inside]
    part = citations.split(ranked, doc_of, cited, 1)
    best_cited = max((rs[0] for _, rs in part["cited"] if rs), key=lambda x: x[1], default=None)
    return {"cited_p": metrics.precision_at(order, q.relevant, k),
            "cited_rr": metrics.reciprocal_rank(order, q.relevant),
            "cited_found": float(best_cited is not None and best_cited[0] in q.relevant),
            "cited_right": float(any(doc_of[i] in inside for i in q.relevant)),
            "best_outside": float(bool(ranked) and doc_of[ranked[0][0]] not in inside),
            "cited_gap": ranked[0][1] - best_cited[1] if best_cited is not None else ranked[0][1]}


def cited_figures(rows: list[dict]) -> dict | None:
    """Means over the rows of queries with citations: P@k and MRR without / with citations, evidence found
    inside the cited documents, best match outside them, citations right, and how the page's "check the
    citation" (the best match elsewhere more than citations.MARGIN above every cited one) tells a wrong
    citation: its precision and recall against "the cited documents hold no gold evidence"."""
    cited = [x for x in rows if "cited_p" in x]
    if not cited:
        return None
    mean = {key: float(np.mean([x[key] for x in cited])) for key in
            ("p", "cited_p", "rr", "cited_rr", "cited_found", "best_outside", "cited_right")}
    flagged = [x for x in cited if x["cited_gap"] > citations.MARGIN]  # the page's "check the citation"
    wrong = [x for x in cited if not x["cited_right"]]
    return {"queries": len(cited), "share": len(cited) / len(rows), **mean,
            "signal_precision": float(np.mean([not x["cited_right"] for x in flagged])) if flagged else None,
            "signal_recall": float(np.mean([x["cited_gap"] > citations.MARGIN for x in wrong])) if wrong else None}


def score_eval_set(data: EvalSet, k: int = 5, options: dict | None = None, *,
                   step: Callable[[str, int], Callable[[int], None]] | None = None,
                   aggregate: bool = True) -> EvalReport:
    """Rank and score every query of ``data`` under ``options``."""
    opts = ranker_options.validate(options or {}, "--ranker-option")
    per_group: dict[str, list[dict]] = {}
    for row in query_rows(data, k, opts, step=step):
        per_group.setdefault(row["group"], []).append(row)
        if aggregate:
            per_group.setdefault(f"ALL · {row['kind']}", []).append(row)

    report = EvalReport(k=k, options=opts, model=data.model)
    min_score = opts["min_score"]
    for name, rows in per_group.items():
        if name.startswith("ALL · ") and sum(1 for g in per_group if g.endswith(name[5:])) <= 2:
            continue  # only one dataset of that kind: the ALL row would repeat it
        mean = {key: float(np.mean([x[key] for x in rows])) for key in ("rr", "ext", "p", "ndcg")}
        tops = np.array([x["top"] for x in rows])
        controls = np.array([x["control_top"] for x in rows if "control_top" in x])
        ms = np.array([x["ms"] for x in rows])
        report.groups.append(GroupScores(
            group=name, queries=len(rows), mrr=mean["rr"], ext_mrr=mean["ext"],
            recall={n: float(np.mean([x[f"r{n}"] for x in rows])) for n in RECALL_AT},
            precision=mean["p"], ndcg=mean["ndcg"],
            nothing_related=float(np.mean(tops < min_score)),
            unrelated_shown=float(np.mean(controls >= min_score)) if len(controls) else None,
            top_score_p10=float(np.percentile(tops, 10)),
            control_top_p90=float(np.percentile(controls, 90)) if len(controls) else None,
            latency_ms_p50=float(np.percentile(ms, 50)), latency_ms_p95=float(np.percentile(ms, 95)),
            cited=cited_figures(rows)))
    report.groups.sort(key=lambda g: (g.group.startswith("ALL"), g.group))
    return report
