"""The page offline after a first visit (site_template/app/sw.js, offline.js): it opens, the annotator works,
the work is saved, and the upload to the team's storage waits for the network, in real Chromium against the
real S3 (moto) and WebDAV (wsgidav) test servers."""

from __future__ import annotations

import json

import pytest

from pagedriver import query, wait, wait_model, wait_open
from test_collect import READY, alice_s3_link, annotate_and_submit, link_of, objects, upload_state, wait_for

CACHED_JS = """async () => {
  const names = await caches.keys();
  const urls = [];
  for (const name of names) for (const req of await (await caches.open(name)).keys()) urls.push(req.url);
  return {names, urls};
}"""
NEEDED = ("index", "app/main.js", "app/embed-worker.js", "vendor/ort-wasm-simd-threaded.wasm",
          "vendor/transformers.min.js", "/onnx/model_quantized.onnx", "/onnx/model_quantized.weights",
          "manifest.json", "data/index.json")


def cached(page, base: str) -> set[str]:
    """What the bundle's cache holds, by NEEDED name (the page itself as `index`)."""
    urls = query(page, CACHED_JS)["urls"]
    return {n for n in NEEDED if (base in urls if n == "index" else any(u.endswith(n) for u in urls))}


@pytest.fixture
def collect_bundle(demo_bundle, fresh_copy, serve_dir):
    bundle = fresh_copy(demo_bundle)
    return bundle, serve_dir(bundle)


def the_link(kind, request, run, bundle, base) -> tuple[str, object]:
    if kind == "s3":
        s3 = request.getfixturevalue("s3")
        return alice_s3_link(run, bundle, s3, base), s3
    dav = request.getfixturevalue("dav")
    url = dav.url.replace("http://", "http://team:secret@") + "drop/"
    return link_of(run("links", bundle, "--annotators", "alice", "--collect", url, "--url", base), "alice"), dav


def stored(kind, server) -> list[dict]:
    """The records of the exports the storage holds."""
    if kind == "s3":
        bodies = list(objects(server).values())
    else:
        bodies = [p.read_bytes() for p in (server.root / "drop").glob("*.json")]
    return [r for body in bodies for r in json.loads(body)["records"]]


@pytest.mark.browser
@pytest.mark.service_workers
@pytest.mark.parametrize("kind", ["s3", "webdav"])
def test_offline_after_a_first_visit_work_is_saved_and_uploads_wait(kind, request, run, collect_bundle, context):
    bundle, base = collect_bundle
    link, server = the_link(kind, request, run, bundle, base)
    page = context.new_page()
    page.goto(link)
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")
    wait_model(page, timeout=120_000)
    wait_for(page, lambda: cached(page, base) == set(NEEDED))
    assert page.locator("#offline-status").is_hidden()

    context.set_offline(True)
    page.reload()
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")
    assert page.locator("#offline-status").is_visible()
    wait_open(page)
    wait_model(page, timeout=120_000)  # the model from the cache
    record = annotate_and_submit(page)
    wait(page, "() => document.querySelector('#upload-status').dataset.state === 'waiting'", timeout=30_000)
    state, text = upload_state(page)
    assert text == "NOT uploaded: waiting for the network", text
    page.wait_for_timeout(3000)  # past the upload's debounce: still waiting, nothing sent
    assert upload_state(page)[0] == "waiting" and stored(kind, server) == []

    context.set_offline(False)
    wait(page, "() => document.querySelector('#upload-status').dataset.state === 'uploaded'", timeout=60_000)
    assert page.locator("#offline-status").is_hidden()
    assert [(r["record_id"], r["status"]) for r in stored(kind, server)] == [(record, "submitted")]
