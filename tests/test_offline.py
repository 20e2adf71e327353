"""The page offline after a first visit (site_template/app/sw.js, offline.js): it opens, the annotator works,
the work is saved, and the upload to the team's storage waits for the network, in real Chromium against the
real S3 (moto) and WebDAV (wsgidav) test servers."""

from __future__ import annotations

import json
import re
import time

import pytest

from conftest import EXAMPLES, REPO
from pagedriver import go_to, open_page, own_annotations, pane_text, query, wait, wait_model, wait_open, wait_saved
from mercury_static.bundle.contents import ShardLimits
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


def write_jsonl(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def reloaded_without_the_old_worker(page, new: str) -> None:
    """Wait until the page, having found another build's worker in control, unregistered it and loaded again
    (no controller, or the new build's)."""
    from playwright.sync_api import Error

    check = """(id) => sessionStorage.getItem('mercury-static:worker-reset:' + id) === '1'
        && document.readyState === 'complete'
        && (!navigator.serviceWorker.controller || navigator.serviceWorker.controller.scriptURL.includes(id))"""
    deadline = time.monotonic() + 60
    while True:
        try:
            if page.evaluate(check, new):
                return
        except Error:  # the context is replaced by the reload
            pass
        assert time.monotonic() < deadline, "the page did not load again without the old build's worker"
        time.sleep(0.2)


def cache_names(page) -> list[str]:
    return query(page, CACHED_JS)["names"]


@pytest.mark.browser
@pytest.mark.service_workers
def test_a_rebuilt_bundle_replaces_its_cache_and_keeps_the_annotators_work(run, serve_dir, context, tmp_path):
    """A bundle rebuilt in its folder with one more record (a new bundle id): on the next visit online the page
    resets the old build's worker and loads again, the model gets ready (a hand-over between two builds' workers
    stalled it), the old build's cache is gone and the new one holds every file, and the annotator's work of the
    first build is there to take over."""
    rows = [json.loads(line) for line in (EXAMPLES / "demo.jsonl").read_text(encoding="utf-8").splitlines() if line]
    write_jsonl(tmp_path / "v1.jsonl", rows[:3])
    write_jsonl(tmp_path / "v2.jsonl", rows[:4])
    folder = tmp_path / "site"

    def build(name):
        result = run("build", tmp_path / name, "-o", folder, "--title", "Rebuilt", "--labels", EXAMPLES / "labels.yaml")
        assert result.exit_code == 0, result.output
        return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]

    old = build("v1.jsonl")
    base = serve_dir(folder)
    page = context.new_page()
    page.goto(base + "?annotator=alice")
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")
    wait_model(page, timeout=120_000)
    wait_for(page, lambda: cached(page, base) == set(NEEDED))
    assert [n.endswith(" " + old) for n in cache_names(page)] == [True]
    record = annotate_and_submit(page)
    wait_saved(page)

    new = build("v2.jsonl")
    assert new != old
    page.reload()  # online: the old build's worker still controls the page, which resets it and loads again
    reloaded_without_the_old_worker(page, new)
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")
    offer = page.locator("[data-earlier]")
    offer.wait_for()
    assert "earlier build" in offer.inner_text() and "1 record" in offer.inner_text()
    offer.locator('[data-action="import-earlier"]').click()
    wait(page, "(id) => pd.entry(id)?.status === 'submitted'", record)
    assert len(own_annotations(page, record)) == 1
    wait_saved(page)
    go_to(page, rows[3]["id"])  # the new build's record
    wait_open(page, rows[3]["id"])
    wait_model(page, timeout=120_000)
    wait_for(page, lambda: [n.endswith(" " + new) for n in cache_names(page)] == [True]
             and cached(page, base) == set(NEEDED))
    manifest = query(page, """async (base) => (await (await caches.match(base + 'manifest.json')).json()).bundle_id""",
                     base)
    assert manifest == new


@pytest.mark.browser
@pytest.mark.service_workers
def test_the_records_ahead_are_kept_for_offline_without_being_opened(build_bundle, serve_dir, context):
    """A bundle of a record per shard: opening the first record stores the files of the records ahead (the page
    itself prefetches only the next one), so offline a record five ahead, never opened, opens with its texts."""
    ids = [json.loads(line)["id"] for line in (EXAMPLES / "demo.jsonl").read_text(encoding="utf-8").splitlines()]
    bundle = build_bundle([EXAMPLES / "demo.jsonl"], name="keep-ahead", labels=EXAMPLES / "labels.yaml",
                          shards=ShardLimits(records=1, text_chars=200))
    assert (bundle / "data" / "records-0005.json").is_file()
    base = serve_dir(bundle)
    page = context.new_page()
    page.goto(base + "?annotator=alice")
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")
    wait_open(page, ids[0])
    index = json.loads((bundle / "data" / "index-0000.json").read_text(encoding="utf-8"))
    files = {"data/ids-0000.json", f"data/records-{index['shard'][5]:04d}.json",
             *(f"data/{kind}-{n:04d}.{ext}" for n in index["text_shards"][5] for kind, ext in (("texts", "json"), ("vectors", "bin")))}
    assert index["ids"][5] == ids[5] and "data/texts-0005.json" not in files  # not the first record's shards
    wait_for(page, lambda: files <= {u[len(base):] for u in query(page, CACHED_JS)["urls"]})
    context.set_offline(True)
    go_to(page, ids[5])
    wait_open(page, ids[5], timeout=30_000)
    assert pane_text(page, "summary") and pane_text(page, "source")
    [before] = [line for line in (EXAMPLES / "demo.jsonl").read_text(encoding="utf-8").splitlines()
                if json.loads(line)["id"] == ids[5]]
    assert pane_text(page, "summary") == json.loads(before)["summary"]


@pytest.mark.browser
def test_a_worker_that_never_takes_control_holds_the_model_back_only_for_the_wait(browser, bundle_server):
    """A service worker that registers and never takes control (Playwright's blocked one stays installing):
    the model's worker starts once the page has waited `CONTROL_WAIT_MS` for it, not before and not never. A
    page without the service worker API (every other browser test's) starts it at once."""
    wait_ms = int(re.search(r"CONTROL_WAIT_MS = (\d+);", (REPO / "site_template" / "app" / "offline.js")
                            .read_text(encoding="utf-8")).group(1))
    started = {}
    for worker_api in (True, False):
        context = browser.new_context(service_workers="block", worker_api=worker_api)
        try:
            page = context.new_page()
            open_page(page, bundle_server)
            assert query(page, "() => 'serviceWorker' in navigator") is worker_api
            wait_model(page, timeout=60_000)
            started[worker_api] = page.evaluate(  # when the model's worker was made: its script requested
                "performance.getEntriesByType('resource').find((e) => e.name.endsWith('/embed-worker.js')).startTime")
        finally:
            context.close()
    assert started[True] >= wait_ms > started[False], started
