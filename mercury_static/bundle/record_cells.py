"""Similar records at any size: a coarse index of the record vectors, so the page reads a few cells, not
every record's vector (two bytes a dimension for every record).

Spherical k-means (the vectors are unit length and the page ranks by dot product) computed at build from
data/record_vectors.bin, deterministically: the sample is every (n/S)-th record, the seeds are evenly spaced
sample rows, the iteration count is fixed, ties go to the lower cell. Records are assigned in bundle order
to their nearest cell that is not full (CAP times the mean size), so a cluster denser than the sample showed
spills into its neighbours instead of making one huge cell that a query must read whole. Memory: the
sample (≤ SAMPLE_PER_CELL rows per cell), one chunk of rows and the cell of every record (4 bytes each);
the vectors are read and scored in chunks, never mapped whole. The page's reader is `app/assist/similar.js`; layout in
docs/DESIGN.md ("Similar records at scale").
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CELLS_DIR = "data/cells"
ITERATIONS = 10
SAMPLE_PER_CELL = 40  # sample rows per cell the centroids are fitted on
OF_SIZE = 16_384  # positions per `of-NNNN.bin` (the cell of each record), four bytes each
NPROBE = 8  # cells the page reads for a query (recall measured: benchmarks/RESULTS.md)
CAP = 2  # a cell holds at most CAP × n / count records: what a query reads stays bounded on skewed data
CHOICES = 4  # a record whose nearest cell is full goes to the next nearest of these with room
_CHUNK = 4_096  # rows read and assigned at a time: their scores against every cell stay small


@dataclass(frozen=True)
class Cells:
    """What `write_cells` wrote: the manifest's `record_vectors.cells`."""

    count: int
    of_size: int
    nprobe: int

    def manifest(self) -> dict:
        return {"path": CELLS_DIR, "count": self.count, "of_size": self.of_size, "nprobe": self.nprobe}


def _chunks(path: Path, n: int, dim: int) -> Iterator[tuple[int, np.ndarray]]:
    """(first position, float32 rows) of the float16 file, `_CHUNK` rows at a time."""
    with open(path, "rb") as f:
        for first in range(0, n, _CHUNK):
            m = min(_CHUNK, n - first)
            yield first, np.frombuffer(f.read(2 * dim * m), dtype="<f2").reshape(m, dim).astype(np.float32)


def _nearest(rows: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """The cell of each row: highest dot product, the lower cell on a tie (argmax takes the first); `_CHUNK`
    rows at a time."""
    out = np.empty(len(rows), np.uint32)
    for i in range(0, len(rows), _CHUNK):
        out[i:i + _CHUNK] = np.argmax(rows[i:i + _CHUNK] @ centroids.T, axis=1)
    return out


def fit_centroids(path: Path, n: int, dim: int, count: int) -> np.ndarray:
    """`count` unit centroids fitted on an evenly spaced sample of the `n` rows."""
    size = min(n, SAMPLE_PER_CELL * count)
    wanted = (np.arange(size, dtype=np.int64) * n) // size
    sample = np.empty((size, dim), np.float32)
    for first, rows in _chunks(path, n, dim):
        lo, hi = np.searchsorted(wanted, [first, first + len(rows)])
        sample[lo:hi] = rows[wanted[lo:hi] - first]
    centroids = sample[(np.arange(count) * size) // count].copy()
    for _ in range(ITERATIONS):
        cell = _nearest(sample, centroids)
        order = np.argsort(cell, kind="stable")
        members = np.bincount(cell, minlength=count)
        starts = np.concatenate([[0], np.cumsum(members)[:-1]])
        filled = members > 0
        sums = np.add.reduceat(sample[order], starts[filled], axis=0)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        ok = norms[:, 0] > 0
        update = np.flatnonzero(filled)[ok]
        centroids[update] = sums[ok] / norms[ok]  # an empty cell keeps its centroid
    return centroids


def assign(path: Path, n: int, dim: int, centroids: np.ndarray) -> np.ndarray:
    """The cell of each of the `n` rows: the nearest of its CHOICES nearest cells that still has room, in
    bundle order (all of them full: the emptiest cell)."""
    count = len(centroids)
    cap = math.ceil(CAP * n / count)
    fill = np.zeros(count, np.int64)
    cell = np.empty(n, np.uint32)
    for first, rows in _chunks(path, n, dim):
        scores = rows @ centroids.T
        k = min(CHOICES, count)
        near = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        near_scores = np.take_along_axis(scores, near, 1)
        order = np.lexsort((near, -near_scores), axis=1)  # best first, the lower cell on a tie
        near = np.take_along_axis(near, order, 1)
        best = near[:, 0]
        if np.all(fill + np.bincount(best, minlength=count) <= cap):  # no cell fills up in this chunk
            cell[first:first + len(rows)] = best
            fill += np.bincount(best, minlength=count)
            continue
        fills = fill.tolist()
        for r, choices in enumerate(near.tolist()):
            c = next((c for c in choices if fills[c] < cap), None)
            if c is None:
                c = min(range(count), key=fills.__getitem__)
            cell[first + r] = c
            fills[c] += 1
        fill = np.array(fills, np.int64)
    return cell


def write_cells(out: Path, vectors: Path, n: int, dim: int, cell_records: int) -> Cells:
    """Cells of about `cell_records` records (one cell, exact answers, up to `cell_records`) under
    out/data/cells: `centroids.bin` (float16 rows), `cell-NNNN.bin` (uint32 member count m, m ascending
    uint32 positions, their m float16 vectors as in record_vectors.bin), `of-NNNN.bin` (uint32 cell of
    each position, OF_SIZE positions a file); all little-endian."""
    folder = Path(out) / CELLS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    count = max(1, math.ceil(n / cell_records))
    if count == 1:
        centroids = np.zeros((1, dim), np.float32)
        cell = np.zeros(n, np.uint32)
    else:
        centroids = fit_centroids(vectors, n, dim, count)
        cell = assign(vectors, n, dim, centroids)
    (folder / "centroids.bin").write_bytes(centroids.astype("<f2").tobytes())
    for k in range(0, max(n, 1), OF_SIZE):
        (folder / f"of-{k // OF_SIZE:04d}.bin").write_bytes(cell[k:k + OF_SIZE].astype("<u4").tobytes())
    order = np.argsort(cell, kind="stable")  # positions ascending within each cell
    bounds = np.concatenate([[0], np.cumsum(np.bincount(cell, minlength=count))])
    row = 2 * dim
    fd = os.open(vectors, os.O_RDONLY)
    try:
        for c in range(count):
            members = order[bounds[c]:bounds[c + 1]].astype("<u4")
            with open(folder / f"cell-{c:04d}.bin", "wb") as f:
                f.write(np.uint32(len(members)).astype("<u4").tobytes() + members.tobytes())
                for p in members:
                    f.write(os.pread(fd, row, int(p) * row))
    finally:
        os.close(fd)
    return Cells(count=count, of_size=OF_SIZE, nprobe=min(NPROBE, count))


def read_cells(out: Path, dim: int, count: int) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray], np.ndarray]:
    """The cells `write_cells` wrote under out/data/cells (the reader of the benchmarks and tests; the page
    has its own, similar.js): (centroids, each cell's positions, each cell's float16 vectors, the cell of
    each position)."""
    folder = Path(out) / CELLS_DIR
    centroids = np.frombuffer((folder / "centroids.bin").read_bytes(), "<f2").reshape(count, dim)
    members, vectors = [], []
    for c in range(count):
        raw = (folder / f"cell-{c:04d}.bin").read_bytes()
        m = int(np.frombuffer(raw[:4], "<u4")[0])
        members.append(np.frombuffer(raw[4:4 + 4 * m], "<u4"))
        vectors.append(np.frombuffer(raw[4 + 4 * m:], "<f2").reshape(m, dim))
    of = np.concatenate([np.frombuffer(p.read_bytes(), "<u4") for p in sorted(folder.glob("of-*.bin"))])
    return centroids, members, vectors, of

