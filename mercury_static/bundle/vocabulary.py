"""A bundle's own vocabulary: the model's word-piece rows that the bundle's texts use, so the page downloads
the embedding table of its texts instead of the whole language's.

Why no vector changes: WordPiece cuts a word greedily, the longest known piece first. The kept vocabulary is
a subset of the full one, so wherever every piece of a word's full cut is kept, the longest kept match at
each step is that same piece, and the cut, the rows looked up and the vector are the same. Every piece of
every row the build embeds is kept (rows are what the build embeds and what the page runs for a record's
token vectors), and every one-character piece with and without the `##` prefix: a selection that cuts a word,
or a text typed in the page, still tokenizes, into shorter pieces (the defined fallback) rather than fail.
Only a WordPiece tokenizer is cut this way; a model with another tokenizer keeps its whole vocabulary.

The graph is edited as protobuf wire data (the tables' `dims` and `raw_data`; every other byte as it was),
since a build does not install the `onnx` package.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from mercury_static.core import safeio

GRAPH = Path("onnx") / "model_quantized.onnx"
BATCH = 2048
"""Rows tokenized per call (the tokenizer's own threads share a batch)."""
_LEN, _VARINT = 2, 0  # protobuf wire types
_MODEL_GRAPH, _GRAPH_INITIALIZER, _TENSOR_DIMS, _TENSOR_RAW = 7, 5, 1, 9  # onnx.proto's field numbers


def _varint(buf: memoryview, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = buf[i]
        value |= (b & 0x7F) << shift
        i += 1
        if b < 0x80:
            return value, i
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _fields(buf: memoryview) -> Iterator[tuple[int, int, memoryview, memoryview]]:
    """(field number, wire type, the field's whole encoding, its value's bytes) of each field of a message: views
    of `buf`, never copies (the graph's table is most of its bytes)."""
    i = 0
    while i < len(buf):
        start = i
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            value_at = i
            _, i = _varint(buf, i)
            payload = buf[value_at:i]
        elif wire == 1:
            i += 8
            payload = buf[i - 8:i]
        elif wire == _LEN:
            size, i = _varint(buf, i)
            payload, i = buf[i:i + size], i + size
        elif wire == 5:
            i += 4
            payload = buf[i - 4:i]
        else:
            raise ValueError(f"protobuf wire type {wire}")
        yield number, wire, buf[start:i], payload


def _message(number: int, payload: bytes | memoryview) -> bytes:
    return _encode_varint(number << 3 | _LEN) + _encode_varint(len(payload)) + payload


def _cut_tensor(tensor: memoryview, vocab_size: int, kept: np.ndarray) -> bytes | None:
    """The tensor with only the `kept` rows of its first axis, if that axis is the vocabulary's and its data is
    raw bytes; else None (left as it is)."""
    fields = list(_fields(tensor))
    dims = []
    for number, _wire, _, payload in fields:
        if number == _TENSOR_DIMS:
            i = 0
            while i < len(payload):  # packed, or one value
                value, i = _varint(payload, i)
                dims.append(value)
    raw = [payload for number, wire, _, payload in fields if number == _TENSOR_RAW and wire == _LEN]
    if not dims or dims[0] != vocab_size or len(raw) != 1 or len(raw[0]) % vocab_size:
        return None
    rows = np.frombuffer(raw[0], np.uint8).reshape(vocab_size, -1)[kept]
    out = bytearray(_encode_varint(_TENSOR_DIMS << 3 | _VARINT) + _encode_varint(len(kept)))
    for d in dims[1:]:
        out += _encode_varint(_TENSOR_DIMS << 3 | _VARINT) + _encode_varint(d)
    for number, _, encoded, _ in fields:
        if number not in (_TENSOR_DIMS, _TENSOR_RAW):
            out += encoded
    out += _message(_TENSOR_RAW, rows.tobytes())
    return bytes(out)


def cut_graph(graph: bytes, vocab_size: int, kept: np.ndarray) -> tuple[bytes, int]:
    """The ONNX graph with every initializer whose first axis is the vocabulary cut to the `kept` rows (in that
    order); returns it and how many tables were cut."""
    out, cut = bytearray(), 0
    for number, wire, encoded, payload in _fields(memoryview(graph)):
        if number != _MODEL_GRAPH or wire != _LEN:
            out += encoded
            continue
        body = bytearray()
        for g_number, g_wire, g_encoded, g_payload in _fields(payload):
            new = _cut_tensor(g_payload, vocab_size, kept) \
                if g_number == _GRAPH_INITIALIZER and g_wire == _LEN else None
            if new is None:
                body += g_encoded
            else:
                body += _message(_GRAPH_INITIALIZER, new)
                cut += 1
        out += _message(_MODEL_GRAPH, bytes(body))
    return bytes(out), cut


def rows_of(texts_shards: Iterable[Path]) -> Iterator[str]:
    """The text of every embedding row of a bundle's text shards (the strings the build embedded)."""
    for shard in texts_shards:
        for text in safeio.read_checked(shard)["texts"]:
            for _, start, end in text["rows"]:
                yield text["text"][start:end]


def kept_pieces(tokenizer: dict, rows: Iterable[str]) -> np.ndarray | None:
    """The ids to keep, ascending: the special tokens, the one-character pieces and every piece of `rows`; None
    when the tokenizer is not WordPiece."""
    from tokenizers import Tokenizer

    model = tokenizer.get("model") or {}
    if model.get("type") != "WordPiece" or not isinstance(model.get("vocab"), dict):
        return None
    prefix = model.get("continuing_subword_prefix", "##")
    vocab: dict[str, int] = model["vocab"]
    keep = {t["id"] for t in tokenizer.get("added_tokens") or []}
    keep.update(i for piece, i in vocab.items() if len(piece.removeprefix(prefix)) == 1)
    tok = Tokenizer.from_str(json.dumps(tokenizer))
    tok.no_truncation()
    tok.no_padding()
    batch: list[str] = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            keep.update(i for e in tok.encode_batch(batch, add_special_tokens=False) for i in e.ids)
            batch = []
    keep.update(i for e in tok.encode_batch(batch, add_special_tokens=False) for i in e.ids)
    return np.array(sorted(keep), dtype=np.int64)


def cut_tokenizer(tokenizer: dict, kept: np.ndarray) -> dict:
    """tokenizer.json with the kept pieces renumbered in their order (special tokens' ids with them)."""
    new_id = {int(old): new for new, old in enumerate(kept)}
    out = copy.deepcopy(tokenizer)
    out["model"]["vocab"] = {piece: new_id[i] for piece, i in tokenizer["model"]["vocab"].items() if i in new_id}
    for token in out.get("added_tokens") or []:
        token["id"] = new_id[token["id"]]
    special = (out.get("post_processor") or {}).get("special_tokens") or {}
    for entry in special.values():
        entry["ids"] = [new_id[i] for i in entry["ids"]]
    return out


def shrink_model(folder: Path, rows: Iterable[str]) -> tuple[int, int] | None:
    """Cut a bundle's model folder (tokenizer.json, config.json, the graph) to the pieces `rows` use; returns
    (kept, full) vocabulary sizes, or None when the model keeps its whole vocabulary."""
    tokenizer = safeio.read_checked(folder / "tokenizer.json", limit=safeio.INPUT_LIMIT)
    kept = kept_pieces(tokenizer, rows)
    if kept is None:
        return None
    config = safeio.read_checked(folder / "config.json", limit=safeio.INPUT_LIMIT)
    full = config.get("vocab_size", len(tokenizer["model"]["vocab"]))  # the table's rows (may exceed the pieces)
    graph, cut = cut_graph((folder / GRAPH).read_bytes(), full, kept)
    if cut == 0:
        return None
    config["vocab_size"] = len(kept)
    if isinstance(config.get("pad_token_id"), int):
        config["pad_token_id"] = int(np.searchsorted(kept, config["pad_token_id"]))
    (folder / GRAPH).write_bytes(graph)
    (folder / "tokenizer.json").write_text(json.dumps(cut_tokenizer(tokenizer, kept), ensure_ascii=False),
                                           encoding="utf-8")
    (folder / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True), encoding="utf-8")
    return len(kept), full
