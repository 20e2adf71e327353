"""Sentence embedding with the exported ONNX model: onnxruntime + tokenizers only (no torch)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from mercury_static.assist.model_export import META_FILE, ONNX_REL, PAGE_DIR
from mercury_static.core import safeio
from mercury_static.assist.page_model import GRAPH_FILE, WEIGHTS_FILE, read_weights

Engine = Callable[[list[np.ndarray], list[list[int]]], Iterator[tuple[list[int], np.ndarray]]]
"""Runs planned batches (token ids, batches of indices) and yields (batch, vectors) in any order."""

BATCH_TOKENS = 512  # padded tokens per batch (rows x longest); measured best among 256..2048


def session_options(intra_op_threads: int = 1):
    """onnxruntime options shared by every Python session of the model (see module docstring of export)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    # Keep DequantizeLinear as plain float32 math (constant-folded weights), as in the browser.
    so.add_session_config_entry("session.disable_quant_qdq", "1")
    so.intra_op_num_threads = intra_op_threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return so


class Embedder:
    """L2-normalised sentence vectors from an exported model folder (see ``export.ensure_model``).

    Batches run on ``workers`` threads (default: CPU count, at most 4) sharing one session whose
    onnxruntime calls are single-threaded: on 2 cores this beat one call with 2 intra-op threads,
    and it does not spin-wait when the machine is busy.
    """

    def __init__(self, model_dir: Path | str, workers: int | None = None, graph: Path | str | None = None,
                 meta: dict | None = None):
        """``graph``: another ONNX graph of the same model instead of the folder's (the file the page
        runs); benchmarks/bench_build.py times build-time candidates with it. ``meta``: pooling and
        max_seq_length for a folder without the export's metadata file (a bundle's model: its manifest's)."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.model_dir = Path(model_dir)
        meta_path = self.model_dir / META_FILE
        if meta is None:
            meta = safeio.read_checked(meta_path) if meta_path.is_file() else {}
        tok_cfg = safeio.read_checked(self.model_dir / "tokenizer_config.json", limit=safeio.INPUT_LIMIT)
        self.max_seq_length: int = int(meta.get("max_seq_length") or tok_cfg.get("model_max_length", 512))
        self.pooling: str = meta.get("pooling", "mean")

        self._tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(self.max_seq_length)
        self._counter = Tokenizer.from_str(self._tokenizer.to_str())
        self._counter.no_truncation()

        self.workers = workers or min(os.cpu_count() or 1, 4)
        options = session_options(1)
        if graph is None:
            graph = self.page_graph()
            weights = graph.parent / WEIGHTS_FILE
            if weights.is_file():
                values = read_weights(weights.read_bytes(), str(weights))
                self._weights = [ort.OrtValue.ortvalue_from_numpy(v) for v in values.values()]  # kept alive
                options.add_external_initializers(list(values), self._weights)
        self._session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._output = self._session.get_outputs()[0].name
        self.dim: int = int(meta.get("dim") or self._session.get_outputs()[0].shape[-1])

    def page_graph(self) -> Path:
        """The graph the page runs, which the build embeds with too (the same vectors as the exported file,
        bit for bit: tests/test_page_model.py): an export's page/, a bundle's onnx/ with its weights file,
        else a plain folder's ONNX file."""
        for folder in (self.model_dir / PAGE_DIR, self.model_dir / ONNX_REL.parent):
            if (folder / WEIGHTS_FILE).is_file():
                return folder / GRAPH_FILE
        return self.model_dir / ONNX_REL

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens per text as the model would see them untruncated, special tokens included."""
        return [len(e) for e in self._counter.encode_batch(list(texts))]

    def _run(self, ids: list[np.ndarray]) -> np.ndarray:
        """One padded batch -> pooled, normalised vectors."""
        width = max(len(x) for x in ids)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for r, x in enumerate(ids):
            input_ids[r, : len(x)] = x
            mask[r, : len(x)] = 1
        feed = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run([self._output], feed)[0]
        if self.pooling == "cls":
            vec = hidden[:, 0]
        else:
            m = mask[:, :, None].astype(np.float32)
            vec = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return vec / np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)

    def embed(
        self,
        texts: Sequence[str],
        batch_size: int = 32,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Vectors ``(len(texts), dim)`` float32 in input order; ``progress(n)`` is called per batch
        with the number of texts it finished. Identical texts are embedded once (see `embed_unique`)."""
        unique, slot = self.embed_unique(texts, batch_size, progress)
        return unique[slot]

    def embed_unique(
        self,
        texts: Sequence[str],
        batch_size: int = 32,
        progress: Callable[[int], None] | None = None,
        dtype=np.float32,
        engine: Engine | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(vectors of the distinct texts, index of each text's vector): `embed` without the copy per
        repeated text, so a long source repeating its sentences costs memory per distinct sentence.
        Batches hold texts of similar token length, at most ``batch_size`` of them and about
        ``BATCH_TOKENS`` padded tokens (small batches stay in the CPU cache: more throughput than fixed batches of 32,
        benchmarks/RESULTS.md). Tokens are kept as int32 arrays, tokenised a chunk at a time (the tokenizer's
        per-token records of 500,000 rows at once took gigabytes). ``dtype=float16`` stores the vectors
        as the bundle does (the same rounding as converting later). ``engine`` runs the batches elsewhere
        (`embed_ray.RayEngine`); by default they run on this process's threads."""
        slot, counts, ids, batches = self.plan(texts, batch_size)
        vectors = np.zeros((len(ids), self.dim), dtype=dtype)
        for batch, batch_vectors in (engine or self.run_batches)(ids, batches):
            vectors[batch] = batch_vectors
            if progress is not None:
                progress(int(counts[batch].sum()))
        return vectors, slot

    def plan(self, texts: Sequence[str], batch_size: int = 32):
        """(slot of each text, repeats of each distinct text, token ids of each distinct text, batches of
        distinct-text indices): the work `embed_unique` hands to an engine, the same for every engine so
        that every engine computes the same numbers."""
        unique: dict[str, int] = {}
        slot = np.fromiter((unique.setdefault(t, len(unique)) for t in texts), dtype=np.int64, count=len(texts))
        counts = np.bincount(slot, minlength=len(unique))
        distinct = list(unique)
        del unique
        ids: list[np.ndarray] = []
        for first in range(0, len(distinct), 4096):
            ids.extend(np.array(e.ids, dtype=np.int32)
                       for e in self._tokenizer.encode_batch(distinct[first:first + 4096]))
        del distinct
        batches: list[list[int]] = [[]] if ids else []
        for i in sorted(range(len(ids)), key=lambda i: len(ids[i])):
            current = batches[-1]
            if current and (len(current) >= batch_size or (len(current) + 1) * len(ids[i]) > BATCH_TOKENS):
                batches.append(current := [])
            current.append(i)
        return slot, counts, ids, batches

    def run_batches(self, ids: list[np.ndarray], batches: list[list[int]]) -> Iterator[tuple[list[int], np.ndarray]]:
        """The local engine: (batch, its vectors) as each finishes, on this process's threads."""
        with ThreadPoolExecutor(self.workers) as pool:
            yield from zip(batches, pool.map(lambda batch: self._run([ids[i] for i in batch]), batches))

    def token_rows(self, text: str, rows: Sequence[tuple[int, int, int]]) -> list:
        """The `tokens.TokenRow` of each embedding row ``(sentence, start, end)`` of ``text``: every row run
        alone (no padding), as the page's worker runs them."""
        from mercury_static.assist.tokens import TokenRow, word_spans

        out = []
        encodings = self._tokenizer.encode_batch([text[s:e] for _, s, e in rows]) if rows else []
        for (_, s, e), enc in zip(rows, encodings):
            ids = np.array(enc.ids, dtype=np.int64)[None, :]
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run([self._output], feed)[0][0]
            keep = np.array([w is not None for w in enc.word_ids], dtype=bool)
            out.append(TokenRow(s, e, word_spans(text[s:e], enc.offsets, enc.word_ids, s),
                                hidden[keep].astype(np.float32)))
        return out


def load_embedder(model_dir: Path | str, workers: int | None = None) -> Embedder:
    """The Embedder of an exported model folder, loaded once per process while its files stay as they are: a
    process that builds several bundles (a notebook, a script over many datasets) loads the model once."""
    folder = Path(model_dir).resolve()
    stamp = tuple((str(p), st.st_size, st.st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()
                  for st in [p.stat()])
    return _loaded(folder, workers, stamp)


@functools.lru_cache(maxsize=2)
def _loaded(folder: Path, workers: int | None, stamp: tuple) -> Embedder:
    return Embedder(folder, workers=workers)
