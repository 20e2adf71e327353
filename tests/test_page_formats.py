"""The page refuses a bundle of another format version with one clear message (never a half-working page)."""

from __future__ import annotations

import json

import pytest

from pagedriver import READY, wait_open

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


def index_v1(bundle):
    """Rewrite a bundle's record index as version 1 was written: no format name, no split prefixes, every
    posting list as deltas (version 2 writes a dense list as a base64 bitmap)."""
    import base64

    index = json.loads((bundle / "data/index.json").read_text(encoding="utf-8"))
    assert not index.pop("split", []), "the demo bundle has a split prefix: version 1 cannot express it"
    del index["format"]
    index["version"] = 1
    (bundle / "data/index.json").write_text(json.dumps(index), encoding="utf-8")
    for shard in (bundle / "data").glob("terms-*.json"):
        terms = json.loads(shard.read_text(encoding="utf-8"))
        assert not terms.pop("prefixes", {})
        for kind in ("words", "meta"):
            for term, posting in terms.get(kind, {}).items():
                if isinstance(posting, str):  # a bitmap: bit p % 8 of byte p // 8 for each position p
                    bits = base64.b64decode(posting)
                    positions = [8 * i + b for i, byte in enumerate(bits) for b in range(8) if byte >> b & 1]
                    terms[kind][term] = [q - p for p, q in zip([0, *positions], positions)]
        shard.write_text(json.dumps(terms), encoding="utf-8")


def unnamed_copy(demo_bundle, fresh_copy, queues_version=None):
    """A copy of the demo bundle with queues for alice and bob, as the tool wrote it before the record
    index and the queues had a format name: index.json with `version: 1` only, the bare {annotator: ids}
    (or, with `queues_version`, a named queues file of that version)."""
    from mercury_static.bundle.assign import assign_bundle

    copy = fresh_copy(demo_bundle)
    manifest = assign_bundle(copy, ["alice", "bob"], 1)
    index_v1(copy)
    path = copy / manifest["queues"]["path"]
    doc = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(doc["queues"] if queues_version is None else {**doc, "version": queues_version}),
                    encoding="utf-8")
    return copy, doc["queues"]


def test_a_bundle_built_before_the_index_and_queues_had_names_opens(page, demo_bundle, fresh_copy, serve_dir):
    from test_page import block_model

    copy, queues = unnamed_copy(demo_bundle, fresh_copy)
    block_model(page)
    page.goto(serve_dir(copy) + "?annotator=alice")
    page.wait_for_selector(READY)
    wait_open(page, queues["alice"][0])
    assert page.inner_text("#progress-text") == f"0 / {len(queues['alice'])} of your queue"


def test_a_queues_file_of_another_version_is_refused_in_words(page, demo_bundle, fresh_copy, serve_dir):
    from test_page import block_model

    copy, _ = unnamed_copy(demo_bundle, fresh_copy, queues_version=3)
    block_model(page)
    page.goto(serve_dir(copy) + "?annotator=alice")
    page.wait_for_selector(READY)
    page.wait_for_function("() => document.body.innerText.includes('Your queue could not be read')")
    assert "field 'version': unsupported version 3 of mercury-static/queues (this page reads versions 1 and 2)" \
        in page.inner_text("body")
