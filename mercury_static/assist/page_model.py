"""The model as the page loads it: its graph optimized once here, its int8 weights in a file of their own.

Why: onnxruntime-web spent a large part of a cold start optimizing the graph (constant folding above all: the
int8 → float32 weights and the shape arithmetic), the same work on every load, in wasm code that V8 has
only just compiled. Here it is done once, at export, by onnxruntime (Python) at the *extended* level (no
hardware-specific layouts), and the page creates its session with optimization off.

The download does not grow: the optimized graph would hold the weights as float32 (4×), so each
dequantized weight is cut out again into the weights file, int8 with its per-channel scale and zero point,
and the graph names it as external data. The page rebuilds the float32 values with DequantizeLinear's
formula, `float(q - zero) * scale`, which is exact in float64 and rounds once to float32: the bits
onnxruntime's constant folding gives (tested against it).

Weights file (formats.WEIGHTS, version 1), little-endian: uint32 header length, the UTF-8 JSON header
`{format, version, file, bytes, tensors: [{name, offset, shape, axis, dtype, data, scale, zero}]}`, then the
body. `file` is the external-data name the graph uses; `offset` is a tensor's byte offset in that float32
data; `data`, `scale` and `zero` are `[start, length]` byte ranges of the body (the int8/uint8 values, the
float32 scales, the zero points).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mercury_static.core import safeio
from mercury_static.core.records import InputError
from mercury_static.formats import WEIGHTS

EXTERNAL_NAME = "model_quantized.weights.f32"
"""The name the page graph gives its float32 weights: never a file; the page hands the data to onnxruntime."""
GRAPH_FILE, WEIGHTS_FILE = "model_quantized.onnx", "model_quantized.weights"
_INT8, _UINT8, _FLOAT = 3, 2, 1  # onnx TensorProto data types


@dataclass(frozen=True)
class Weight:
    """One weight that a DequantizeLinear node turns from int8 into float32."""

    name: str  # the node's output: the float32 tensor's name
    q: np.ndarray
    scale: np.ndarray
    zero: np.ndarray
    axis: int

    def dequantized(self) -> np.ndarray:
        shape = [1] * self.q.ndim
        if self.scale.ndim:
            shape[self.axis] = -1
        diff = self.q.astype(np.int32) - self.zero.astype(np.int32).reshape(shape)
        return (diff.astype(np.float64) * self.scale.astype(np.float64).reshape(shape)).astype(np.float32)


def _weights(model) -> dict[str, Weight]:
    """The DequantizeLinear nodes whose three inputs are initializers: the quantized weights."""
    from onnx import numpy_helper

    inits = {i.name: i for i in model.graph.initializer}
    found = {}
    for node in model.graph.node:
        if node.op_type != "DequantizeLinear" or not all(name in inits for name in node.input):
            continue
        q = inits[node.input[0]]
        if q.data_type not in (_INT8, _UINT8) or inits[node.input[1]].data_type != _FLOAT:
            continue
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        scale = numpy_helper.to_array(inits[node.input[1]])
        zero = numpy_helper.to_array(inits[node.input[2]]) if len(node.input) > 2 else np.zeros_like(scale, np.int8)
        qa = numpy_helper.to_array(q)
        axis = axis % qa.ndim
        if scale.ndim > 1 or (scale.ndim == 1 and scale.shape[0] != qa.shape[axis]) or zero.shape != scale.shape:
            continue  # blocked quantization: not this recipe's; left to onnxruntime-web
        found[node.output[0]] = Weight(node.output[0], qa, scale, zero.astype(qa.dtype), axis)
    return found


def _fold(model, weights: dict[str, Weight]) -> None:
    """Replace the weights' DequantizeLinear nodes by float32 initializers (what constant folding does)."""
    from onnx import numpy_helper

    keep = [n for n in model.graph.node if not (n.op_type == "DequantizeLinear" and n.output[0] in weights)]
    del model.graph.node[:]
    model.graph.node.extend(keep)
    used = {name for n in keep for name in n.input}
    inits = [i for i in model.graph.initializer if i.name in used]
    inits += [numpy_helper.from_array(w.dequantized(), w.name) for w in weights.values()]
    del model.graph.initializer[:]
    model.graph.initializer.extend(inits)


def _optimize(model_bytes: bytes, scratch: Path) -> bytes:
    """The graph as onnxruntime optimizes it at the extended level (what the page would do at each load)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 3
    out = scratch / "optimized.onnx"
    opts.optimized_model_filepath = str(out)
    ort.InferenceSession(model_bytes, opts, providers=["CPUExecutionProvider"])
    return out.read_bytes()


def _offsets(weights: list[Weight]) -> list[int]:
    """Each weight's byte offset in the float32 data: one after another, in order."""
    out, offset = [], 0
    for w in weights:
        out.append(offset)
        offset += w.q.size * 4
    return out


def _cut_out(model, weights: dict[str, Weight]) -> list[Weight]:
    """Make each weight that the optimized graph still holds unchanged external data; return those, in order."""
    from onnx import TensorProto, numpy_helper

    kept = []
    for init in model.graph.initializer:
        w = weights.get(init.name)
        if w is None or init.data_type != _FLOAT or init.data_location == TensorProto.EXTERNAL:
            continue
        values = w.dequantized()
        if list(init.dims) != list(values.shape) or numpy_helper.to_array(init).tobytes() != values.tobytes():
            continue  # changed by a fusion: it stays in the graph, as float32
        kept.append(w)
    names = {w.name: offset for w, offset in zip(kept, _offsets(kept))}
    for init in model.graph.initializer:
        if init.name not in names:
            continue
        length = int(np.prod(init.dims)) * 4
        init.ClearField("raw_data")
        init.ClearField("float_data")
        init.data_location = TensorProto.EXTERNAL
        for key, value in (("location", EXTERNAL_NAME), ("offset", str(names[init.name])), ("length", str(length))):
            entry = init.external_data.add()
            entry.key, entry.value = key, value
    return kept


def weights_file(weights: list[Weight]) -> bytes:
    """The weights file of these weights (their float32 data laid out by `_offsets`)."""
    body, tensors = bytearray(), []

    def put(data: bytes) -> list[int]:
        body.extend(b"\0" * (-len(body) % 4))
        start = len(body)
        body.extend(data)
        return [start, len(data)]

    for w, offset in zip(weights, _offsets(weights)):
        tensors.append({"name": w.name, "offset": offset, "shape": list(w.q.shape), "axis": w.axis,
                        "dtype": "int8" if w.q.dtype == np.int8 else "uint8", "data": put(w.q.tobytes()),
                        "scale": put(np.asarray(w.scale, "<f4").tobytes()), "zero": put(w.zero.tobytes())})
    size = sum(w.q.size * 4 for w in weights)
    header = json.dumps({"format": WEIGHTS.name, "version": WEIGHTS.version, "file": EXTERNAL_NAME,
                         "bytes": size, "tensors": tensors}, separators=(",", ":")).encode()
    header += b" " * (-(4 + len(header)) % 4)  # the body starts 4-byte aligned
    return len(header).to_bytes(4, "little") + header + bytes(body)


def read_weights(data: bytes, file: str) -> dict[str, np.ndarray]:
    """The float32 weights of a weights file, by tensor name (as the page computes them)."""
    size = int.from_bytes(data[:4], "little")
    try:
        header = safeio.parse_checked(data[4:4 + size].decode("utf-8"), file)
    except (UnicodeDecodeError, InputError):
        raise InputError(file, None, None, "not a weights file (no JSON header)") from None
    WEIGHTS.check(header, file)
    body = memoryview(data)[4 + size:]
    out = {}
    for t in header["tensors"]:
        (a, n), (sa, sn), (za, zn) = t["data"], t["scale"], t["zero"]
        dtype = np.int8 if t["dtype"] == "int8" else np.uint8
        w = Weight(t["name"], np.frombuffer(body[a:a + n], dtype).reshape(t["shape"]),
                   np.frombuffer(body[sa:sa + sn], "<f4"), np.frombuffer(body[za:za + zn], dtype), t["axis"])
        out[t["name"]] = w.dequantized()
    return out


def write_page_model(onnx_file: Path, out_dir: Path) -> int:
    """Write `GRAPH_FILE` and `WEIGHTS_FILE` for the page into `out_dir`; return how many weights were cut out.

    Checked before it returns: the page graph with its weights gives the original model's outputs."""
    import onnx

    model = onnx.load_model_from_string(onnx_file.read_bytes())
    weights = _weights(model)
    _fold(model, weights)
    with tempfile.TemporaryDirectory(prefix=".page-model-") as tmp:
        optimized = onnx.load_model_from_string(_optimize(model.SerializeToString(), Path(tmp)))
    kept = _cut_out(optimized, weights)
    graph, pack = optimized.SerializeToString(), weights_file(kept)
    _check(onnx_file, graph, read_weights(pack, str(out_dir / WEIGHTS_FILE)))
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in ((GRAPH_FILE, graph), (WEIGHTS_FILE, pack)):
        tmp_file = out_dir / f".{name}.tmp"
        tmp_file.write_bytes(data)
        os.replace(tmp_file, out_dir / name)
    return len(kept)


def _check(onnx_file: Path, graph: bytes, weights: dict[str, np.ndarray]) -> None:
    """The page graph (optimization off, as the page runs it) against the original model, on a sample input."""
    import onnxruntime as ort

    def session(model, level, extra=None):
        opts = ort.SessionOptions()
        opts.graph_optimization_level = level
        opts.intra_op_num_threads = 1
        opts.add_session_config_entry("session.disable_quant_qdq", "1")
        if extra:
            opts.add_external_initializers(list(extra), [ort.OrtValue.ortvalue_from_numpy(v) for v in extra.values()])
        return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])

    levels = ort.GraphOptimizationLevel
    ref = session(str(onnx_file), levels.ORT_ENABLE_ALL)
    page = session(graph, levels.ORT_DISABLE_ALL, weights)
    ids = np.array([[101, 1996, 4937, 2938, 2006, 1996, 13523, 1012, 102]], dtype=np.int64)
    feed = {i.name: (ids if i.name == "input_ids" else np.ones_like(ids) if "mask" in i.name else np.zeros_like(ids))
            for i in ref.get_inputs()}
    a, b = ref.run(None, feed)[0], page.run(None, feed)[0]
    if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-4):
        raise RuntimeError(f"{onnx_file}: the page's form of the model computes other values "
                           f"(max difference {np.abs(a - b).max() if a.shape == b.shape else 'shape'})")
