"""One vector per record for "similar records" in the page: the normalised mean of its summary's stored
sentence rows (as the page decodes them), float16 like the sentence vectors, in bundle order."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .bundle import VECTOR_ENCODING, RowVectors, StoredText, encode_rows, text_id

RECORD_VECTORS_PATH = "data/record_vectors.bin"


def record_vectors(summaries: list[str], texts: list[StoredText], vectors: RowVectors) -> np.ndarray:
    """float32 (n_records, dim): the unit-length mean of each summary's rows (decoded from float16)."""
    first, row = {}, 0
    for t in texts:
        first[t.id] = (row, len(t.rows))
        row += len(t.rows)
    out = []
    for summary in summaries:
        start, n = first[text_id(summary)]
        rows = np.asarray(vectors[start:start + n], dtype=np.float16).astype(np.float32)
        mean = rows.mean(axis=0) if n else np.zeros(rows.shape[1], np.float32)
        norm = float(np.linalg.norm(mean))
        out.append(mean / norm if norm > 0 else mean)
    return np.stack(out)


def write_record_vectors(out: Path, summaries: list[str], texts: list[StoredText], vectors: RowVectors,
                         dim: int) -> dict:
    """Write data/record_vectors.bin; return the manifest's `record_vectors`."""
    (Path(out) / RECORD_VECTORS_PATH).write_bytes(encode_rows(record_vectors(summaries, texts, vectors)))
    return {"path": RECORD_VECTORS_PATH, "encoding": VECTOR_ENCODING, "dim": dim}
