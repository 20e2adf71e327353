"""The build side of the build's speed: the build-time graph candidates keep the page's vectors, and the Mercury-style
comparison server answers what its docstring says (real model, real HTTP, real bundle)."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))


def demo_sentences() -> list[str]:
    from mercury_static.core.segment import split_sentences

    texts = {}
    for line in (REPO / "examples" / "demo.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        texts.setdefault(rec["source"]), texts.setdefault(rec["summary"])
    return list({t[a:b]: None for t in texts for a, b in split_sentences(t)})


@pytest.mark.slow
def test_build_time_candidates_stay_within_the_page_bound(exported_model, embedder, tmp_path):
    """A fused graph may only be used at build time if its vectors stay within cosine 0.99999 of the page
    graph's (the file the browser runs): checked here on the demo's sentences, by bench_build on
    FaithBench and SummHay (where they measured slower, so the build keeps the page's graph)."""
    pytest.importorskip("onnx")
    from bench_build import candidate_graphs

    from mercury_static.assist.embed import Embedder

    sentences = demo_sentences()
    page = embedder.embed(sentences)
    graphs = candidate_graphs(exported_model.dir, tmp_path)
    assert len(graphs) == 2
    for name, path in graphs.items():
        fused = Embedder(exported_model.dir, graph=path).embed(sentences)
        assert (fused * page).sum(axis=1).min() >= 0.99999, name


def test_embedder_runs_the_graph_it_is_given(exported_model, tmp_path):
    from mercury_static.assist.embed import Embedder

    with pytest.raises(Exception, match="absent.onnx"):
        Embedder(exported_model.dir, graph=tmp_path / "absent.onnx")


def post(url: str, body: bytes) -> tuple[int, dict]:
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.slow
def test_mercury_server_embeds_the_span_and_ranks_the_other_texts_rows(demo_bundle):
    from mercury_server import MercuryServer, bundle_index, load_model

    from mercury_static.bundle.contents import load_bundle, load_vectors

    bundle = load_bundle(demo_bundle)
    rec = max(bundle.records, key=lambda r: len(r.source_text.sentences))
    src = rec.source_text
    model = load_model()
    server = MercuryServer(model, bundle_index(demo_bundle)).start()
    try:
        with urllib.request.urlopen(server.url, timeout=60) as r:
            assert r.status == 200 and b"<title>" in r.read()
        endpoint = server.url + "search"
        for i, (s, e) in enumerate(src.sentences):
            status, answer = post(endpoint, json.dumps({"text": rec.source[s:e], "against": src.id, "k": 3}).encode())
            assert status == 200
            assert answer["matches"][0]["sentence"] == i  # a sentence finds itself first
            assert answer["matches"][0]["score"] > 0.98
            assert len(answer["matches"]) == min(3, len(src.sentences))
        # scores are the cosines to the page's stored rows, each sentence's best row, best first
        span = rec.summary[slice(*rec.summary_text.sentences[0])]
        rows = load_vectors(demo_bundle, src.shard, int(bundle.manifest["model"]["dim"]))[src.row0:src.row0 + len(src.rows)]
        query = model.encode([span], normalize_embeddings=True)[0]
        best: dict[int, float] = {}
        for (sentence, _, _), score in zip(src.rows, rows @ query):
            best[sentence] = max(best.get(sentence, -1.0), float(score))
        expected = sorted(best, key=lambda k: -best[k])[:5]
        status, answer = post(endpoint, json.dumps({"text": span, "against": src.id}).encode())
        assert [m["sentence"] for m in answer["matches"]] == expected
        assert np.allclose([m["score"] for m in answer["matches"]], [best[k] for k in expected], atol=1e-5)

        assert post(endpoint, json.dumps({"text": span, "against": "nope"}).encode())[0] == 404
        assert post(endpoint, b"{not json")[0] == 400
        assert post(endpoint, json.dumps({"against": src.id}).encode())[0] == 400
    finally:
        server.shutdown()
        server.server_close()
    # given the bundle's folder, it serves the annotator page as well (bench_page's "from the annotator page")
    server = MercuryServer(model, bundle_index(demo_bundle), directory=demo_bundle).start()
    try:
        with urllib.request.urlopen(server.url, timeout=60) as r:
            assert r.status == 200 and r.read() == (demo_bundle / "index.html").read_bytes()
        with urllib.request.urlopen(server.url + "manifest.json", timeout=60) as r:
            assert json.loads(r.read())["bundle_id"] == bundle.manifest["bundle_id"]
        status, answer = post(server.url + "search", json.dumps({"text": span, "against": src.id}).encode())
        assert status == 200 and [m["sentence"] for m in answer["matches"]] == expected
        assert post(server.url + "search", json.dumps({"text": span, "against": "nope"}).encode())[0] == 404
    finally:
        server.shutdown()
        server.server_close()
