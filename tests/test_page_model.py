"""The page's form of the model (page_model.py): the same weights, bit for bit, the same outputs, no bigger."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from mercury_static.assist.model_export import ONNX_REL, PAGE_DIR, default_model_path, ensure_model
from mercury_static.formats import InputError
from mercury_static.assist.page_model import (EXTERNAL_NAME, GRAPH_FILE, WEIGHTS_FILE, read_weights, weights_file,
                                       write_page_model)

sys.path.insert(0, str(Path(__file__).parent / "js"))
import weights_fixture  # noqa: E402


@pytest.fixture(scope="module")
def model():
    from conftest import TEST_CACHE

    return ensure_model(default_model_path(), cache_dir=TEST_CACHE)  # an export: it holds the ONNX file too


def session(model_bytes, level, initializers=None):
    opts = ort.SessionOptions()
    opts.graph_optimization_level = level
    opts.add_session_config_entry("session.disable_quant_qdq", "1")
    if initializers:
        opts.add_external_initializers(list(initializers),
                                       [ort.OrtValue.ortvalue_from_numpy(v) for v in initializers.values()])
    return ort.InferenceSession(model_bytes, opts, providers=["CPUExecutionProvider"])


def test_the_weights_are_the_bits_of_onnxruntimes_constant_folding(model, tmp_path):
    """What the page computes from the weights file is what onnxruntime's own folding of the original
    model stores (the page used to run that folding at every load)."""
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    opts.add_session_config_entry("session.disable_quant_qdq", "1")
    opts.optimized_model_filepath = str(tmp_path / "folded.onnx")
    ort.InferenceSession(str(model.onnx_path), opts, providers=["CPUExecutionProvider"])
    folded = {i.name: onnx.numpy_helper.to_array(i) for i in onnx.load(tmp_path / "folded.onnx").graph.initializer}
    page = read_weights((model.dir / PAGE_DIR / WEIGHTS_FILE).read_bytes(), WEIGHTS_FILE)
    assert len(page) == 36  # every MatMul weight of the six layers
    for name, values in page.items():
        assert values.dtype == folded[name].dtype and values.tobytes() == folded[name].tobytes(), name


def test_every_layout_is_dequantized_as_onnxruntime_does():
    cases = weights_fixture.cases()
    ref = weights_fixture.reference(cases)
    got = read_weights(weights_file(cases), "cases.weights")
    assert list(got) == [w.name for w in cases]
    for name, values in got.items():
        assert values.tobytes() == ref[name].tobytes(), name


def test_the_page_graph_computes_the_models_outputs(model):
    """Optimization off, as the page runs it, with the weights file's values: the original's outputs, on
    inputs of other lengths and a padded batch."""
    ref = session(str(model.onnx_path), ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    weights = read_weights((model.dir / PAGE_DIR / WEIGHTS_FILE).read_bytes(), WEIGHTS_FILE)
    page = session((model.dir / PAGE_DIR / GRAPH_FILE).read_bytes(), ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
                   weights)
    rng = np.random.default_rng(3)
    for n, batch in ((3, 1), (17, 1), (128, 2)):
        ids = rng.integers(1000, 30000, (batch, n))
        mask = np.ones_like(ids)
        mask[-1, n // 2:] = 0 if batch > 1 else 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        feed = {i.name: feed[i.name] for i in ref.get_inputs()}
        a, b = ref.run(None, feed)[0], page.run(None, feed)[0]
        assert a.shape == b.shape and np.abs(a - b).max() <= 1e-5


def test_the_page_form_is_no_bigger_and_the_same_at_each_export(model, tmp_path):
    graph = onnx.load_model_from_string((model.dir / PAGE_DIR / GRAPH_FILE).read_bytes())
    external = [i for i in graph.graph.initializer if i.data_location == onnx.TensorProto.EXTERNAL]
    assert len(external) == 36
    assert {e.value for i in external for e in i.external_data if e.key == "location"} == {EXTERNAL_NAME}
    assert not [n for n in graph.graph.node if n.op_type == "DequantizeLinear" and n.input[0].endswith("_q")]
    page_bytes = sum((model.dir / PAGE_DIR / f).stat().st_size for f in (GRAPH_FILE, WEIGHTS_FILE))
    assert page_bytes <= (model.dir / ONNX_REL).stat().st_size * 1.01  # the download does not grow
    assert write_page_model(model.onnx_path, tmp_path) == 36
    for name in (GRAPH_FILE, WEIGHTS_FILE):
        assert (tmp_path / name).read_bytes() == (model.dir / PAGE_DIR / name).read_bytes(), name


@pytest.mark.parametrize(("header", "field"), [({"format": "other", "version": 1}, "format"),
                                               ({"format": "mercury-static/weights", "version": 9}, "version")])
def test_a_weights_file_of_another_format_or_version_is_refused(header, field):
    data = json.dumps(header).encode()
    with pytest.raises(InputError) as err:
        read_weights(len(data).to_bytes(4, "little") + data, "x.weights")
    assert err.value.field == field and "x.weights" in str(err.value)
