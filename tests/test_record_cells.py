"""Similar records at scale: the k-means cells of the record vectors are deterministic, hold
every record exactly once with its stored vector, and a bundle up to `cell_records` records is one cell."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mercury_static.bundle.record_cells import CELLS_DIR, OF_SIZE, read_cells, write_cells

DIM = 16


def clustered(path: Path, n: int, seed: int = 3) -> np.ndarray:
    """`n` unit float16 vectors around 30 directions (the file record_vectors.bin would be); float32 back."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(30, DIM))
    x = centres[rng.integers(0, 30, n)] + 0.6 * rng.normal(size=(n, DIM))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    path.write_bytes(x.astype("<f2").tobytes())
    return x.astype("<f2").astype(np.float32)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_every_record_is_in_exactly_one_cell_with_its_vector(tmp_path):
    n = 20_000  # two of-files
    x = clustered(tmp_path / "rv.bin", n)
    cells = write_cells(tmp_path / "a", tmp_path / "rv.bin", n, DIM, 400)
    assert cells.count == 50 and cells.manifest() == {"path": "data/cells", "count": 50, "of_size": OF_SIZE,
                                                      "nprobe": 8}
    centroids, members, vectors, of = read_cells(tmp_path / "a", DIM, cells.count)
    assert len(of) == n
    every = np.concatenate(members)
    assert len(every) == n and np.array_equal(np.sort(every), np.arange(n))
    for c, (m, v) in enumerate(zip(members, vectors)):
        assert np.all(np.diff(m.astype(np.int64)) > 0) and np.all(of[m] == c)
        assert np.array_equal(v, x[m])
    sizes = [len(m) for m in members]
    assert max(sizes) <= 2 * n // 50 and sum(s > 0 for s in sizes) > 25  # at most CAP × the mean: bounded reads
    # each record sits in its nearest cell (the page probes the centroids nearest to the query)
    centroids = centroids.astype(np.float32)
    assert np.allclose(np.linalg.norm(centroids, axis=1), 1, atol=2e-3)
    nearest = np.argmax(x @ centroids.T, axis=1)
    assert np.mean(nearest == of) > 0.9  # the rest spilled from a full cell to a near one
    assert all(c in np.argsort(-(x[i] @ centroids.T))[:4] for i, c in enumerate(of))


def test_a_dense_cluster_spills_into_neighbouring_cells(tmp_path):
    """Half the records nearly one vector: no cell holds more than twice the mean (the page reads a cell
    whole), and every record still goes to one of its nearest cells."""
    n = 8_000
    x = clustered(tmp_path / "rv.bin", n)
    x[::2] = x[0] + 1e-3 * np.random.default_rng(1).normal(size=(n // 2, DIM))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    (tmp_path / "rv.bin").write_bytes(x.astype("<f2").tobytes())
    cells = write_cells(tmp_path / "a", tmp_path / "rv.bin", n, DIM, 200)
    _, members, _, of = read_cells(tmp_path / "a", DIM, cells.count)
    assert cells.count == 40 and max(map(len, members)) <= 2 * n // 40
    assert sorted(np.concatenate(members).tolist()) == list(range(n))


def test_cells_are_deterministic(tmp_path):
    n = 3_000
    clustered(tmp_path / "rv.bin", n)
    write_cells(tmp_path / "a", tmp_path / "rv.bin", n, DIM, 100)
    write_cells(tmp_path / "b", tmp_path / "rv.bin", n, DIM, 100)
    a, b = files(tmp_path / "a" / CELLS_DIR), files(tmp_path / "b" / CELLS_DIR)
    assert len(a) == 30 + 2 and a == b


def test_up_to_cell_records_one_cell_holds_every_record_in_bundle_order(tmp_path):
    n = 500
    x = clustered(tmp_path / "rv.bin", n)
    cells = write_cells(tmp_path / "a", tmp_path / "rv.bin", n, DIM, 500)
    assert (cells.count, cells.nprobe) == (1, 1)
    _, members, vectors, of = read_cells(tmp_path / "a", DIM, 1)
    assert np.array_equal(members[0], np.arange(n)) and np.array_equal(vectors[0], x) and not of.any()
    # the cell file is the record vectors file behind its count and positions: the page's exact scan
    raw = (tmp_path / "a" / CELLS_DIR / "cell-0000.bin").read_bytes()
    assert raw[4 + 4 * n:] == (tmp_path / "rv.bin").read_bytes()
