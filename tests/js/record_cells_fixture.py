"""Write the similar-records cells of generated clustered record vectors into argv[1] (two bundles: `many`,
in cells of 200, and `one`, a single cell) and print the brute-force answers the page's lookup is checked
against (similar.test.mjs). Run by the Node test itself, so the fixture follows record_cells.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from mercury_static.bundle.record_cells import write_cells

N, DIM, K = 6_000, 16, 10
QUERIES = [0, 1, 7, 199, 2_500, 2_999, 3_001, 4_096, 5_999]


def brute(x: np.ndarray, i: int) -> list[list]:
    """Top K by float64 dot of the float16 values, the row itself left out, ties by position."""
    scores = x @ x[i]
    order = sorted((j for j in range(len(x)) if j != i), key=lambda j: (-scores[j], j))[:K]
    return [[j, float(scores[j])] for j in order]


def main() -> None:
    out = Path(sys.argv[1])
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(40, DIM))
    x = centres[rng.integers(0, 40, N)] + 0.5 * rng.normal(size=(N, DIM))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    x[2999] = x[3000] = x[3001]  # ties: equal scores come in bundle order
    (out / "rv.bin").write_bytes(x.astype("<f2").tobytes())
    x = x.astype("<f2").astype(np.float64)
    many = write_cells(out / "many", out / "rv.bin", N, DIM, 200)
    one = write_cells(out / "one", out / "rv.bin", 900, DIM, 1_000)
    print(json.dumps({"dim": DIM, "many": many.manifest(), "one": one.manifest(),
                      "brute": {i: brute(x, i) for i in QUERIES},
                      "brute_one": {i: brute(x[:900], i) for i in (0, 450, 899)}}))


if __name__ == "__main__":
    main()
