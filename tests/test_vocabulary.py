"""A bundle's own vocabulary (bundle/vocabulary.py): the model cut to the word pieces of the bundle's texts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from mercury_static.assist.embed import Embedder
from mercury_static.bundle.vocabulary import cut_graph, kept_pieces, rows_of, shrink_model


def bundle_model(bundle: Path) -> tuple[Path, dict]:
    manifest = json.loads((bundle / "manifest.json").read_text())
    return bundle / manifest["model"]["path"], manifest


def texts_shards(bundle: Path, manifest: dict) -> list[Path]:
    return [bundle / "data" / f"texts-{i:04d}.json" for i in range(manifest["shards"]["texts"])]


def test_the_bundle_model_gives_the_full_models_vectors_for_every_row(demo_bundle, embedder):
    folder, manifest = bundle_model(demo_bundle)
    full = json.loads((embedder.model_dir / "tokenizer.json").read_text())["model"]["vocab"]
    kept = json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"]
    assert len(kept) < len(full) / 3
    assert json.loads((folder / "config.json").read_text())["vocab_size"] == len(kept)
    rows = list(rows_of(texts_shards(demo_bundle, manifest)))
    ours = Embedder(folder, meta=manifest["model"])
    assert len(rows) > 100
    assert np.array_equal(ours.embed(rows), embedder.embed(rows))  # bit for bit


def test_the_graph_loses_only_the_rows_it_does_not_keep(demo_bundle, exported_model):
    folder, _ = bundle_model(demo_bundle)
    kept = len(json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"])
    full_graph = (exported_model.dir / "page" / "model_quantized.onnx").stat().st_size
    dim = exported_model.dim
    saved = full_graph - (folder / "onnx" / "model_quantized.onnx").stat().st_size
    assert abs(saved - (30522 - kept) * (dim + 4)) < 64  # int8 rows and their float32 scales
    assert (folder / "onnx" / "model_quantized.weights").read_bytes() == \
        (exported_model.dir / "page" / "model_quantized.weights").read_bytes()


def test_other_texts_still_embed_without_unknown_pieces(demo_bundle, embedder):
    """Words the bundle never had are cut into shorter kept pieces: close to the full model, never [UNK]."""
    from tokenizers import Tokenizer

    folder, manifest = bundle_model(demo_bundle)
    texts = ["Floccinaucinihilipilification is a word.", "Zymurgy and quixotic xylophones", "東京は日本の首都です。"]
    small = Tokenizer.from_file(str(folder / "tokenizer.json"))
    big = Tokenizer.from_file(str(embedder.model_dir / "tokenizer.json"))
    for text in texts:
        assert ("[UNK]" in small.encode(text).tokens) == ("[UNK]" in big.encode(text).tokens), text
    ours = Embedder(folder, meta=manifest["model"]).embed(texts)
    assert (ours * embedder.embed(texts)).sum(axis=1).min() > 0.5


def test_a_cut_graph_is_a_valid_onnx_model(exported_model, tmp_path):
    onnx = pytest.importorskip("onnx")
    graph = (exported_model.dir / "page" / "model_quantized.onnx").read_bytes()
    kept = np.array([0, 5, 100, 101, 102, 103, 2000, 30521])
    cut, tables = cut_graph(graph, 30522, kept)
    assert tables == 2  # the int8 rows and their scales
    model = onnx.load_model_from_string(cut)
    inits = {i.name: i for i in model.graph.initializer}
    table = onnx.numpy_helper.to_array(inits["embeddings.word_embeddings.weight_q"])
    full = onnx.numpy_helper.to_array({i.name: i for i in onnx.load_model_from_string(graph).graph.initializer}
                                      ["embeddings.word_embeddings.weight_q"])
    assert np.array_equal(table, full[kept])
    assert cut_graph(graph, 12345, kept) == (graph, 0)  # no table of that vocabulary: left as it was


def test_a_tokenizer_that_is_not_wordpiece_keeps_its_vocabulary(tmp_path, stand_in_demo):
    from tokenizers import Tokenizer, models

    bpe = json.loads(Tokenizer(models.BPE(vocab={"a": 0, "b": 1, "ab": 2}, merges=[("a", "b")])).to_str())
    assert kept_pieces(bpe, ["ab ab"]) is None
    folder, _ = bundle_model(stand_in_demo)
    copy = tmp_path / "model"
    shutil.copytree(folder, copy)
    (copy / "tokenizer.json").write_text(json.dumps(bpe))
    before = (copy / "onnx" / "model_quantized.onnx").read_bytes()
    assert shrink_model(copy, ["ab"]) is None
    assert (copy / "onnx" / "model_quantized.onnx").read_bytes() == before
