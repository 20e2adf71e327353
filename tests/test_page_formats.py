"""The page refuses a bundle of another format version with one clear message (never a half-working page)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser


def test_a_bundle_of_another_version_is_refused(page, demo_bundle, fresh_copy, serve_dir):
    copy = fresh_copy(demo_bundle)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["version"] = 2
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    page.goto(serve_dir(copy) + "?annotator=alice")
    page.wait_for_function("() => document.body.innerText.includes('Cannot open this bundle')")
    text = page.inner_text("body")
    assert "bundle version 2 is not the version this page reads (1)" in text
    assert page.evaluate("() => document.body.dataset.ready") is None
