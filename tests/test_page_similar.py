"""Similar records over k-means cells in the page: a bundle of 64 records in cells of 4 (16
cells, nprobe 8). Opening the card reads one of-file, the centroids and exactly the bundle's nprobe cells
(never record_vectors.bin), and shows the top 10 of the records in those cells, as brute force over them
gives it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pagedriver import open_page
from page_settings import faithbench_like
from test_page import block_model

from mercury_static.bundle.contents import ShardLimits
from mercury_static.bundle.record_cells import read_cells
from mercury_static.bundle.record_index import read_columns

pytestmark = pytest.mark.browser


def test_similar_records_read_the_nearest_cells_only(page, build_bundle, tmp_path_factory, serve_dir):
    data, settings = faithbench_like(tmp_path_factory.mktemp("fb-cells"), n=64)
    bundle = build_bundle([data], name="fb-cells", settings=settings,
                          shards=ShardLimits(cell_records=4, index_records=16))
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    rv = manifest["record_vectors"]
    assert rv["cells"] == {"path": "data/cells", "count": 16, "of_size": 16384, "nprobe": 8}
    ids = read_columns(bundle / "data")["ids"]
    cents, members, vectors, of = read_cells(bundle, rv["dim"], 16)
    base = serve_dir(bundle)
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url.removeprefix(base)))
    block_model(page)
    open_page(page, base, "0")
    assert not any(u.startswith("data/cells/") for u in requested)  # nothing before the card opens
    before = len(requested)
    page.locator("#similar > summary").click()  # the card opens on record 0
    for n, rid in enumerate(("0", "37", "63")):
        if n:
            before = len(requested)
        page.evaluate("(id) => { location.hash = 'record=' + id; }", rid)
        page.wait_for_function("(id) => document.querySelector('#similar-list')?.dataset.for === id", arg=rid,
                               timeout=60_000)
        shown = page.locator("#similar-list li").evaluate_all("els => els.map(e => e.dataset.record)")
        i = ids.index(rid)
        own = int(of[i])
        q = vectors[own][list(members[own]).index(i)].astype(np.float64)
        near = sorted(range(16), key=lambda c: (-(cents[c].astype(np.float64) @ q), c))
        probe = [own] + [c for c in near if c != own][:7]
        pos = np.concatenate([members[c] for c in probe])
        scores = np.concatenate([vectors[c].astype(np.float64) @ q for c in probe])
        order = sorted((k for k in range(len(pos)) if pos[k] != i), key=lambda k: (-scores[k], pos[k]))[:10]
        assert shown == [ids[pos[k]] for k in order]
        got = [u for u in requested[before:] if u.startswith("data/cells/")]
        read = {f"data/cells/cell-{c:04d}.bin" for c in probe}
        if n == 0:  # the first query: the of-file, the centroids and its probe's cells, each once
            assert sorted(got) == sorted(read | {"data/cells/of-0000.bin", "data/cells/centroids.bin"})
        else:  # later ones: only the cells not read yet
            assert set(got) <= read and len(got) == len(set(got))
    assert not any("record_vectors" in u for u in requested)
    assert float(page.locator("#similar").get_attribute("data-ms")) >= 0
