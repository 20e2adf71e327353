"""The stand-in model: a tiny, seeded BERT with the default model's tokenizer, for tests that do not measure the model.

It is a Hugging Face folder like any `--model PATH` (config.json, the tokenizer files, sentence-transformers'
pooling and length), exported by `model_export.ensure_model` like any other: only the float32 graph comes from
`stand_in_onnx` instead of optimum (no torch, no download), then the real recipe runs (int8 weights, the
page form, the tokenizer's truncation, the metadata, the cache under its source key). Builds, bundles and
the page's worker therefore load it exactly as they load the default model; its vectors are deterministic
(a fixed seed) but mean nothing, so a test whose assertions rest on the real model's similarities keeps the
real model (docs/development.md, *Which model a test uses*).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

NAME = "stand-in"
"""The folder's name, hence the model's name in a bundle (`models/stand-in`)."""
SHAPE = {"hidden_size": 32, "num_attention_heads": 2, "intermediate_size": 64, "num_hidden_layers": 1,
         "max_position_embeddings": 512, "type_vocab_size": 2}
SEED = 40
RECIPE = 1
"""Raise it when the graph or the weights change: config.json carries it, so the cache key follows."""
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
MAX_SEQ_LENGTH = 256  # the default model's


def write_source(folder: Path, tokenizer_from: Path) -> Path:
    """The stand-in's HF folder (no weights file: `stand_in_onnx` makes them from the seed); returns it."""
    tokenizer = json.loads((tokenizer_from / "tokenizer.json").read_text(encoding="utf-8"))
    vocab_size = len(tokenizer["model"]["vocab"])
    config = {"architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu", "layer_norm_eps": 1e-12,
              "pad_token_id": 0, "position_embedding_type": "absolute", "vocab_size": vocab_size, **SHAPE,
              "mercury_static_stand_in": {"recipe": RECIPE, "seed": SEED}}
    files = {"config.json": json.dumps(config, indent=2, sort_keys=True),
             "sentence_bert_config.json": json.dumps({"max_seq_length": MAX_SEQ_LENGTH, "do_lower_case": False}),
             "1_Pooling/config.json": json.dumps({"word_embedding_dimension": SHAPE["hidden_size"],
                                                  "pooling_mode_mean_tokens": True})}
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    for name in TOKENIZER_FILES:
        shutil.copyfile(tokenizer_from / name, folder / name)
    return folder


def stand_in_onnx(src: Path, scratch: Path) -> Path:
    """`model_export.OnnxWriter` for the stand-in: the BERT encoder graph (embeddings, attention with the
    padding mask, GELU feed-forward, post-LayerNorm) with the input and output names optimum gives it,
    its weights drawn from the seed."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    cfg = json.loads((src / "config.json").read_text(encoding="utf-8"))
    hidden, heads, inner = cfg["hidden_size"], cfg["num_attention_heads"], cfg["intermediate_size"]
    rng = np.random.default_rng(cfg["mercury_static_stand_in"]["seed"])
    inits: list = []
    nodes: list = []

    def weight(name: str, *shape: int, scale: float = 0.2) -> str:
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(name: str, value, dtype=np.float32) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def node(op: str, inputs: list[str], name: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def linear(x: str, name: str, n_in: int, n_out: int) -> str:
        return node("Add", [node("MatMul", [x, weight(f"{name}.weight", n_in, n_out)], f"{name}.matmul"),
                            weight(f"{name}.bias", n_out, scale=0.02)], f"{name}.out")

    def layer_norm(x: str, name: str) -> str:
        """As torch's export writes it (onnxruntime fuses it back into one node)."""
        mean = node("ReduceMean", [x], f"{name}.mean", axes=[-1])
        centred = node("Sub", [x, mean], f"{name}.centred")
        var = node("ReduceMean", [node("Pow", [centred, const(f"{name}.two", 2.0)], f"{name}.sq")], f"{name}.var",
                   axes=[-1])
        std = node("Sqrt", [node("Add", [var, const(f"{name}.eps", cfg["layer_norm_eps"])], f"{name}.var_eps")],
                   f"{name}.std")
        normed = node("Div", [centred, std], f"{name}.normed")
        return node("Add", [node("Mul", [normed, const(f"{name}.weight", np.ones(hidden))], f"{name}.scaled"),
                            const(f"{name}.bias", np.zeros(hidden))], f"{name}.out")

    seq = node("Gather", [node("Shape", ["input_ids"], "ids_shape"), const("one", 1, np.int64)], "seq_len")
    positions = node("Unsqueeze", [node("Range", [const("zero", 0, np.int64), seq, const("step", 1, np.int64)],
                                        "positions_1d"), const("axis0", [0], np.int64)], "position_ids")
    embedded = node("Add", [node("Add", [
        node("Gather", [weight("embeddings.word_embeddings.weight", cfg["vocab_size"], hidden, scale=1.0),
                        "input_ids"], "words"),
        node("Gather", [weight("embeddings.position_embeddings.weight", cfg["max_position_embeddings"], hidden),
                        positions], "positions")], "words_positions"),
        node("Gather", [weight("embeddings.token_type_embeddings.weight", cfg["type_vocab_size"], hidden),
                        "token_type_ids"], "types")], "embedded")
    x = layer_norm(embedded, "embeddings.LayerNorm")
    # padding keys get -10000 before the softmax: [batch, 1, 1, keys]
    keep = node("Cast", [node("Unsqueeze", ["attention_mask", const("axes12", [1, 2], np.int64)], "mask4")],
                "mask_f", to=TensorProto.FLOAT)
    mask_bias = node("Mul", [node("Sub", [const("ones", 1.0), keep], "masked"), const("minus", -10000.0)],
                     "mask_bias")
    head_shape = const("head_shape", [0, 0, heads, hidden // heads], np.int64)
    for n in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{n}"

        def split(t: str, name: str, perm: list[int]) -> str:
            return node("Transpose", [node("Reshape", [t, head_shape], f"{name}.heads")], f"{name}.t", perm=perm)

        q = split(linear(x, f"{p}.attention.self.query", hidden, hidden), f"{p}.q", [0, 2, 1, 3])
        k = split(linear(x, f"{p}.attention.self.key", hidden, hidden), f"{p}.k", [0, 2, 3, 1])
        v = split(linear(x, f"{p}.attention.self.value", hidden, hidden), f"{p}.v", [0, 2, 1, 3])
        scores = node("Add", [node("Div", [node("MatMul", [q, k], f"{p}.qk"),
                                           const(f"{p}.sqrt_d", np.sqrt(hidden // heads))], f"{p}.scaled"),
                              mask_bias], f"{p}.scores")
        context = node("MatMul", [node("Softmax", [scores], f"{p}.probs", axis=-1), v], f"{p}.context")
        merged = node("Reshape", [node("Transpose", [context], f"{p}.context_t", perm=[0, 2, 1, 3]),
                                  const(f"{p}.merged_shape", [0, 0, hidden], np.int64)], f"{p}.merged")
        attended = linear(merged, f"{p}.attention.output.dense", hidden, hidden)
        x = layer_norm(node("Add", [x, attended], f"{p}.attention.residual"), f"{p}.attention.output.LayerNorm")
        up = linear(x, f"{p}.intermediate.dense", hidden, inner)
        gelu = node("Mul", [node("Mul", [up, node("Add", [const(f"{p}.gelu_one", 1.0), node("Erf", [
            node("Div", [up, const(f"{p}.sqrt2", np.sqrt(2.0))], f"{p}.gelu_x")], f"{p}.gelu_erf")],
            f"{p}.gelu_1erf")], f"{p}.gelu_x1erf"), const(f"{p}.half", 0.5)], f"{p}.gelu")
        down = linear(gelu, f"{p}.output.dense", inner, hidden)
        x = layer_norm(node("Add", [x, down], f"{p}.output.residual"), f"{p}.output.LayerNorm")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))

    def tensor(name: str, elem: int, *dims: str):
        return helper.make_tensor_value_info(name, elem, list(dims))

    graph = helper.make_graph(
        nodes, "stand_in",
        [tensor(n, TensorProto.INT64, "batch_size", "sequence_length")
         for n in ("input_ids", "attention_mask", "token_type_ids")],
        [tensor("last_hidden_state", TensorProto.FLOAT, "batch_size", "sequence_length", str(hidden))], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], producer_name="mercury-static tests")
    onnx.checker.check_model(model)
    scratch.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(scratch / "model.onnx"))
    return scratch / "model.onnx"


def ensure_stand_in(cache: Path) -> Path:
    """The stand-in's folder, its export in ``cache`` (made once: later calls are cache hits).

    The caller holds the cache's lock (conftest.py: pytest-xdist's workers share it)."""
    from mercury_static.assist.model_export import default_model_path, ensure_model, packaged_model

    shipped = packaged_model()
    source = write_source(cache / NAME, shipped.dir if shipped else default_model_path())
    ensure_model(source, cache_dir=cache, to_onnx=stand_in_onnx)
    return source
