"""A selection's vector from its tokens in context, in the real page: the worker runs the open record's rows
in idle time, and a selection in them is answered from its tokens, with the vector tokens.py computes."""

from __future__ import annotations

import numpy as np
import pytest

from mercury_static.assist.tokens import blend, selection_vector
from mercury_static.bundle.contents import load_bundle

from pagedriver import open_page, query, query_vector, select, wait, wait_model

pytestmark = pytest.mark.browser

WARM = """(side) => { const r = pd.record();
    return Boolean(r) && r[side].tokenRows.length > 0 && r[side].tokenRows.every(Boolean); }"""


def python_vector(bundle, record_id: str, side: str, span: tuple[int, int], embedder) -> np.ndarray:
    stored = getattr(bundle.record(record_id), f"{side}_text")
    vec = selection_vector(embedder.token_rows(stored.text, [tuple(r) for r in stored.rows]), *span)
    assert vec is not None
    return vec


@pytest.mark.parametrize("side, needle", [("summary", "2.3 million euros"), ("source", "local foundation")])
def test_a_selection_is_answered_from_its_tokens_as_python_computes_it(page, bundle_server, demo_bundle, embedder,
                                                                       side, needle):
    open_page(page, bundle_server)
    wait_model(page, timeout=60_000)
    wait(page, WARM, side, timeout=60_000)
    record = query(page, "() => pd.record().id")
    text = query(page, "(side) => pd.record()[side].text", side)
    if needle not in text:
        needle = " ".join(text.split()[2:5])
    span = select(page, side, needle)
    assert query(page, "() => pd.assist().kind") == "model" and not query(page, "() => pd.assist().pending")
    # answered at once from the tokens (the ranking did not wait for the worker), then refined by the mean
    # with the span's own vector (the default `selection`: blend), which the worker computes meanwhile
    assert query(page, "() => pd.timings().modelMs") < 1000
    wait(page, "() => pd.assist().refined === true", timeout=30_000)
    got = np.array(query_vector(page), dtype=np.float32)
    tokens = python_vector(load_bundle(demo_bundle), record, side, span, embedder)
    want = blend(tokens, embedder.embed([text[span[0]:span[1]]])[0])
    assert float(got @ want) >= 0.9999
