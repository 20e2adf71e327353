"""A selection's vector from its tokens in context, in the real page: the worker runs the open record's rows
in idle time, and a selection in them is answered from its tokens, with the vector tokens.py computes."""

from __future__ import annotations

import numpy as np
import pytest

from mercury_static.assist.tokens import blend, selection_vector
from mercury_static.bundle.contents import load_bundle
from test_page import open_page, select, state

pytestmark = pytest.mark.browser

WARM = """(side) => { const r = mercuryStatic.store.state.current.record;
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
    page.wait_for_function("() => mercuryStatic.store.state.model.status === 'ready'", timeout=60_000)
    page.wait_for_function(WARM, arg=side, timeout=60_000)
    record = state(page, "s.current.record.id")
    text = state(page, f"s.current.record.{side}.text")
    if needle not in text:
        needle = " ".join(text.split()[2:5])
    span = select(page, side, needle)
    assert state(page, "s.assist.kind") == "model" and not state(page, "s.assist.pending")
    # answered at once from the tokens (the ranking did not wait for the worker), then refined by the mean
    # with the span's own vector (the default `selection`: blend), which the worker computes meanwhile
    assert page.evaluate("() => mercuryStatic.timings().modelMs") < 1000
    page.wait_for_function("() => mercuryStatic.store.state.assist.refined === true", timeout=30_000)
    got = np.array(page.evaluate("() => mercuryStatic.queryVector()"), dtype=np.float32)
    tokens = python_vector(load_bundle(demo_bundle), record, side, span, embedder)
    want = blend(tokens, embedder.embed([text[span[0]:span[1]]])[0])
    assert float(got @ want) >= 0.9999
