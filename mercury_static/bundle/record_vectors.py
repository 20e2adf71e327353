"""One vector per record for "similar records" in the page: the normalised mean of its summary's stored
sentence rows (as the page decodes them), float16 like the sentence vectors, in bundle order.

The streaming build computes it once per distinct text (`text_vector`, kept in the scratch table beside the
text's shard) and appends it for each record (`data/record_vectors.bin`, written as the records stream);
the page reads them by cells (record_cells.py), written from that file at the end."""

from __future__ import annotations

import numpy as np

from mercury_static.bundle.contents import VECTOR_ENCODING, encode_rows
from mercury_static.bundle.record_cells import Cells

RECORD_VECTORS_PATH = "data/record_vectors.bin"


def text_vector(rows: np.ndarray) -> bytes:
    """float16 bytes of the unit-length mean of a text's float16 rows (decoded to float32 first)."""
    rows = np.asarray(rows, dtype=np.float16).astype(np.float32)
    mean = rows.mean(axis=0) if len(rows) else np.zeros(rows.shape[1], np.float32)
    norm = float(np.linalg.norm(mean))
    return encode_rows((mean / norm if norm > 0 else mean)[None, :])


def manifest_entry(dim: int, cells: Cells) -> dict:
    """The manifest's `record_vectors`, with the cells the page reads them by."""
    return {"path": RECORD_VECTORS_PATH, "encoding": VECTOR_ENCODING, "dim": dim, "cells": cells.manifest()}
