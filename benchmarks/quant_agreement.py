"""Does ranking over compact (int8 / float16) sentence vectors agree with float32 ranking? (issue 5)

Queries, ranked against the sentences of the other text (the source), as the page does:
- FaithBench: every summary sentence and every annotated summary span of a record;
- SummHay: the bullets of the summaries of a topic (distinct bullets, a seeded sample per topic).
The query vector stays float32 (the page embeds the selection live); only the stored sentence rows
are encoded. A sentence scores the max over its embedding rows.

"Agree" for one query and k = 5: *set* = the same k sentences in the top k; *order* = the same k
sentences in the same order (ties broken by sentence index, as rank.py / rank.js do). Both are reported
for plain cosine and for ``mercury_static.assist.rank.rank_sentences`` (default options, min_score ignored).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mercury_static.assist.rank import Sentence, prepare_sentences, score_sentences
from mercury_static.read.inputs import read_records
from mercury_static.core.segment import embedding_windows, split_sentences

def quantize_rows(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 per row (the encoding measured against float16): (scales float32[n], int8[n, dim])."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    return scales, q


def dequantize_rows(scales: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Float32 rows back from `quantize_rows` output."""
    return q.astype(np.float32) * scales[:, None].astype(np.float32)


K = 5
ENCODINGS = ("int8", "float16")


@dataclass
class Group:
    """One source text and the queries ranked against it."""

    dataset: str
    source: str
    queries: list[str]


@dataclass
class Agreement:
    """Agreement counts of one (dataset, ranker, encoding)."""

    dataset: str
    ranker: str
    encoding: str
    queries: int = 0
    same_set: int = 0
    same_order: int = 0
    overlap: float = 0.0  # sum over queries of |top-k ∩ top-k_float32| / k
    nontrivial: int = 0  # queries whose source has more than k sentences
    nontrivial_same_set: int = 0

    def row(self) -> dict:
        pct = lambda a, b: 100.0 * a / b if b else float("nan")  # noqa: E731
        return {"dataset": self.dataset, "ranker": self.ranker, "encoding": self.encoding,
                "queries": self.queries, "same_set_pct": pct(self.same_set, self.queries),
                "same_order_pct": pct(self.same_order, self.queries),
                "mean_overlap_pct": pct(self.overlap, self.queries),
                "nontrivial": self.nontrivial,
                "nontrivial_same_set_pct": pct(self.nontrivial_same_set, self.nontrivial)}


def encode(rows: np.ndarray, encoding: str) -> np.ndarray:
    """Float32 rows as the page decodes them from the given bundle encoding."""
    if encoding == "int8":
        return dequantize_rows(*quantize_rows(rows))
    if encoding == "float16":
        return rows.astype(np.float16).astype(np.float32)
    raise ValueError(encoding)


def faithbench_groups(files: list[Path]) -> list[Group]:
    groups: dict[str, Group] = {}
    for r in read_records(files):
        g = groups.setdefault(r.source, Group("faithbench", r.source, []))
        queries = [r.summary[s:e] for s, e in split_sentences(r.summary)]
        queries += [a["summary"]["text"] for a in r.prior_annotations if a.get("summary", {}).get("text", "").strip()]
        g.queries.extend(q for q in dict.fromkeys(queries) if q not in g.queries)
    return list(groups.values())


def summhay_groups(files: list[Path], per_topic: int, seed: int = 5) -> list[Group]:
    out = []
    for f in files:
        records = read_records([f])
        bullets = dict.fromkeys(b["text"] for r in records for b in r.gold["bullets"] if len(b["text"]) > 20)
        sample = sorted(bullets)
        random.Random(seed).shuffle(sample)
        out.append(Group("summhay", records[0].source, sample[:per_topic]))
    return out


def top_k_cosine(query: np.ndarray, rows: np.ndarray, row_sentence: np.ndarray, n: int) -> np.ndarray:
    scores = np.full(n, -np.inf, dtype=np.float64)
    np.maximum.at(scores, row_sentence, (rows @ query).astype(np.float64))
    return np.lexsort((np.arange(n), -scores))[:K]


def measure(groups: list[Group], embedder, progress=print) -> list[Agreement]:
    """Agreement of each encoding with float32, per dataset and ranker."""
    results: dict[tuple, Agreement] = {}
    for gi, g in enumerate(groups):
        spans = split_sentences(g.source)
        rows_idx = embedding_windows(g.source, spans, embedder.count_tokens, embedder.max_seq_length)
        rows = embedder.embed([g.source[s:e] for _, s, e in rows_idx])
        queries = embedder.embed(g.queries)
        row_sentence = np.array([i for i, _, _ in rows_idx], dtype=np.int64)
        n = len(spans)

        def sentences(vecs: np.ndarray) -> list[Sentence]:
            return [Sentence(i, g.source[s:e], vecs[row_sentence == i]) for i, (s, e) in enumerate(spans)]

        ref_prep = prepare_sentences(sentences(rows))
        variants = {enc: encode(rows, enc) for enc in ENCODINGS}
        preps = {enc: prepare_sentences(sentences(v)) for enc, v in variants.items()}

        def top_rank(prep, q, text):
            scores = score_sentences(q, text, prep)
            return prep.indices[np.lexsort((prep.indices, -scores))[:K]]

        for qi, (q, text) in enumerate(zip(queries, g.queries)):
            ref = {"cosine": top_k_cosine(q, rows, row_sentence, n), "rank": top_rank(ref_prep, q, text)}
            for enc in ENCODINGS:
                got = {"cosine": top_k_cosine(q, variants[enc], row_sentence, n),
                       "rank": top_rank(preps[enc], q, text)}
                for ranker in ("cosine", "rank"):
                    a = results.setdefault((g.dataset, ranker, enc), Agreement(g.dataset, ranker, enc))
                    r, t = list(ref[ranker]), list(got[ranker])
                    a.queries += 1
                    a.same_set += set(r) == set(t)
                    a.same_order += r == t
                    a.overlap += len(set(r) & set(t)) / max(1, min(K, n))
                    if n > K:
                        a.nontrivial += 1
                        a.nontrivial_same_set += set(r) == set(t)
        if g.dataset == "summhay" or gi % 100 == 0:
            progress(f"  quant: {g.dataset} group {gi + 1}/{len(groups)} ({n} sentences, {len(g.queries)} queries)")
    return list(results.values())
