"""Tuned ranker options in the real page: options applied to a served bundle (no rebuild) reach the page on its next
reload, the work stored before is still there, and the help panel says which ranker runs."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from pagedriver import READY, annotate, open_page, own_annotations
from test_page import block_model, stored_records

pytestmark = pytest.mark.browser


def ranker_line(page) -> str:
    page.keyboard.press("?")
    expect(page.locator("#overlay-help")).to_be_visible()
    text = page.locator("#ranker-info").inner_text()
    page.keyboard.press("Escape")
    return text


def test_applied_options_reach_the_page_and_keep_the_work(page, demo_bundle, fresh_copy, serve_dir):
    from mercury_static.bundle.ranker_file import apply_options

    bundle = fresh_copy(demo_bundle)
    base = serve_dir(bundle)
    block_model(page)
    open_page(page, base, "harbor-lighthouse")
    assert ranker_line(page) == "ranker: fused-v5 (default)"
    annotate(page, "3.2 million euros", "3", note="source says 2.3", source="2.3 million euros")
    page.wait_for_function("() => document.getElementById('save-status').dataset.state === 'saved'",
                           timeout=30_000)
    [before] = own_annotations(page, "harbor-lighthouse")
    assert "harbor-lighthouse" in stored_records(page)

    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    apply_options(bundle, {**manifest["ranker"], "w_bm25": 0.5, "w_dense": 0.125},
                  {"pairs": 412, "records": 80, "date": "2026-12-03", "from": ["alice.json", "bob.json"]})

    page.reload()
    page.wait_for_selector(READY)
    page.wait_for_function("() => document.body.dataset.record === 'harbor-lighthouse'")
    assert own_annotations(page, "harbor-lighthouse") == [before]
    expect(page.locator(f'#annotations li[data-annotation="{before["id"]}"]')).to_have_count(1)
    assert page.locator("[data-earlier]").count() == 0  # the same storage key: nothing to import
    assert ranker_line(page) == "ranker: tuned on 412 pairs, 2026-12-03"
