"""Weights files for weights.test.mjs, with the float32 bytes onnxruntime's DequantizeLinear gives for them.

`python weights_fixture.py DIR` writes DIR/cases.weights and DIR/cases.f32 (int8 and uint8; one scale per
column, per row, per middle axis, and one for the whole tensor), and, when this checkout has the shipped
model, DIR/model.f32: that model's weights as page_model.read_weights gives them. Run by the Node test
itself (this checkout on PYTHONPATH); test_page_model.py uses the same cases.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mercury_static.assist.page_model import WEIGHTS_FILE, Weight, read_weights, weights_file


def cases() -> list[Weight]:
    rng = np.random.default_rng(7)

    def make(name, shape, dtype, axis, per_channel=True):
        q = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, shape, endpoint=True).astype(dtype)
        k = (shape[axis],) if per_channel else ()
        scale = (rng.random(k) * 0.05 + 1e-4).astype(np.float32)
        zero = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, k, endpoint=True).astype(dtype)
        return Weight(name, q, scale, zero, axis)

    return [make("columns", (5, 7), np.int8, 1), make("rows", (6, 4), np.int8, 0),
            make("middle", (2, 3, 4), np.int8, 1), make("whole", (4, 3), np.uint8, 1, per_channel=False),
            make("unsigned", (3, 8), np.uint8, 1)]


def reference(weights: list[Weight]) -> dict[str, np.ndarray]:
    """What onnxruntime's DequantizeLinear computes for each weight (one graph, run once)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits, outputs = [], [], []
    for w in weights:
        inits += [numpy_helper.from_array(w.q, f"{w.name}_q"), numpy_helper.from_array(w.scale, f"{w.name}_s"),
                  numpy_helper.from_array(w.zero, f"{w.name}_z")]
        nodes.append(helper.make_node("DequantizeLinear", [f"{w.name}_q", f"{w.name}_s", f"{w.name}_z"], [w.name],
                                      axis=w.axis))
        outputs.append(helper.make_tensor_value_info(w.name, TensorProto.FLOAT, list(w.q.shape)))
    graph = helper.make_graph(nodes, "dequantize", [], outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return dict(zip([w.name for w in weights], session.run(None, {})))


def main(out: Path) -> None:
    weights = cases()
    (out / "cases.weights").write_bytes(weights_file(weights))
    ref = reference(weights)
    (out / "cases.f32").write_bytes(b"".join(ref[w.name].astype("<f4").tobytes() for w in weights))
    shipped = Path(__file__).resolve().parents[2] / "mercury_static" / "model" / "page" / WEIGHTS_FILE
    if shipped.is_file():
        values = read_weights(shipped.read_bytes(), str(shipped))
        (out / "model.f32").write_bytes(b"".join(v.astype("<f4").tobytes() for v in values.values()))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
