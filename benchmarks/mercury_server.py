"""The original Mercury's selection path, emulated on loopback: the comparison row of bench_page (issue 16).

Mercury answers a selection on its server: the browser POSTs the span, sentence-transformers embeds it,
a vector search over the other text's stored chunk vectors finds the nearest ones, JSON comes back. This
is that path with nothing else in it: a ``ThreadingHTTPServer`` on 127.0.0.1, the default model in
sentence-transformers (PyTorch fp32, CPU, one torch thread by default: the page's model also runs on one
wasm thread, and on a shared 2-core machine two torch threads made a single span take 17-500 ms instead
of 8-14 ms), and an exact kNN (one single-threaded matrix-vector product) over the rows a bundle
stores for the other text, decoded as the page decodes them. The index is the bundle's own vectors, so
the kNN cost is the same as Mercury's over the same sentences; ingestion (embedding the texts once) is
not part of a selection and is not emulated.

    POST /search  {"text": "the span", "against": "<text id>", "k": 5}
    -> {"matches": [{"sentence": 12, "score": 0.61}, ...]}      (best first, one entry per sentence)

``GET /`` is an empty page: the benchmark POSTs from it, same-origin as Mercury's own page does (the
bundle's page forbids requests to other origins by its Content-Security-Policy). Given the bundle's folder
(``directory``), the server serves the bundle's files instead, so that the annotator page itself can POST
(bench_page.py's "from the annotator page" rows: the same page, its frames and highlights, another engine).

    python benchmarks/mercury_server.py BUNDLE_DIR [--port 8001] [--threads 1]   (serves until Ctrl-C)
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

from mercury_static.bundle.contents import load_bundle, load_vectors
from mercury_static.bundle.serve import BundleHandler


@dataclass(frozen=True)
class TextIndex:
    """One text's stored rows (float32, unit length) and the sentence each row belongs to."""

    vectors: np.ndarray
    sentence: np.ndarray


def bundle_index(bundle_dir: Path) -> dict[str, TextIndex]:
    """Every distinct text of a bundle by text id, with the rows the page would rank."""
    bundle = load_bundle(bundle_dir)
    dim = int(bundle.manifest["model"]["dim"])
    shards: dict[int, np.ndarray] = {}
    index: dict[str, TextIndex] = {}
    for rec in bundle.records:
        for text in (rec.source_text, rec.summary_text):
            if text is None or text.id in index:
                continue
            if text.shard not in shards:
                shards[text.shard] = load_vectors(bundle_dir, text.shard, dim)
            rows = shards[text.shard][text.row0:text.row0 + len(text.rows)]
            index[text.id] = TextIndex(rows, np.array([r[0] for r in text.rows], dtype=np.int64))
    return index


def load_model(threads: int | None = 1):
    """The default model in sentence-transformers, as Mercury would run it (PyTorch fp32, CPU);
    ``threads=None`` keeps torch's default thread count."""
    import torch
    from sentence_transformers import SentenceTransformer

    from mercury_static.assist.model_export import default_model_path

    if threads:
        torch.set_num_threads(threads)
    return SentenceTransformer(str(default_model_path()), device="cpu")


def search(model, index: TextIndex, text: str, k: int) -> list[dict]:
    """Embed the span, score every row, keep each sentence's best row, top k sentences."""
    query = model.encode([text], normalize_embeddings=True, convert_to_numpy=True)[0].astype(np.float32)
    # einsum, not `@`: OpenBLAS's threads fight torch's spinning OpenMP threads (0.1-15 ms per scan
    # instead of 0.24 ms for 3,931 rows); a single-threaded exact scan, as sqlite-vec's brute force is.
    scores = np.einsum("ij,j->i", index.vectors, query)
    best = np.full(int(index.sentence.max()) + 1 if len(index.sentence) else 0, -np.inf, dtype=np.float32)
    np.maximum.at(best, index.sentence, scores)
    top = np.argsort(-best, kind="stable")[:k]
    return [{"sentence": int(i), "score": round(float(best[i]), 6)} for i in top if np.isfinite(best[i])]


class MercuryServer(ThreadingHTTPServer):
    """Loopback server answering POST /search for the texts of one bundle."""

    daemon_threads = True

    def __init__(self, model, index: dict[str, TextIndex], host: str = "127.0.0.1", port: int = 0,
                 directory: Path | None = None):
        self.model, self.index = model, index
        handler = functools.partial(_BundleHandler, directory=str(directory)) if directory else _Handler
        super().__init__((host, port), handler)

    @property
    def url(self) -> str:
        """The server's page (``GET /``); the endpoint is ``/search`` on the same origin."""
        return f"http://127.0.0.1:{self.server_port}/"

    def start(self) -> MercuryServer:
        """Serve on a daemon thread (stop with ``shutdown()``)."""
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self


class _Search:
    """POST /search, for either handler."""

    server: MercuryServer

    def log_message(self, *args) -> None:  # a benchmark: no line per request
        pass

    def _reply(self, status: int, body: dict | str) -> None:
        html = isinstance(body, str)
        data = body.encode() if html else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8" if html else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        if self.path != "/search":
            return self._reply(404, {"error": f"no such endpoint {self.path}"})
        try:
            req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            text, against, k = str(req["text"]), str(req["against"]), int(req.get("k", 5))
        except (ValueError, KeyError, TypeError) as exc:
            return self._reply(400, {"error": f"bad request: {exc}"})
        index = self.server.index.get(against)
        if index is None:
            return self._reply(404, {"error": f"unknown text id {against!r}"})
        self._reply(200, {"matches": search(self.server.model, index, text, k)})


class _Handler(_Search, BaseHTTPRequestHandler):
    """The search and an empty page to POST from."""

    def do_GET(self) -> None:
        if self.path != "/":
            return self._reply(404, {"error": f"no such page {self.path}"})
        self._reply(200, "<!doctype html><title>Mercury-style search</title>")


class _BundleHandler(_Search, BundleHandler):
    """The search and the bundle's files (the annotator page)."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--port", type=int, default=8001)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's default)")
    args = ap.parse_args()
    server = MercuryServer(load_model(args.threads or None), bundle_index(args.bundle), port=args.port)
    print(f"Mercury-style search for {len(server.index)} texts on {server.url}search")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
