"""Session fixtures: the real exported model and the stand-in one, real bundles, a real HTTP server and a real
Chromium. Which model a test uses: docs/development.md, *Which model a test uses*."""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
SHARED_DATA = REPO.parent / "shared" / "data"
TEST_CACHE = REPO / ".cache" / "test-models"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def chromium_path() -> str | None:
    """$CHROMIUM, else Debian's /usr/bin/chromium, else None (Playwright's own browser)."""
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@contextmanager
def cache_lock():
    """pytest-xdist's workers share the cache: the first exports while the others wait, then load its copy."""
    TEST_CACHE.mkdir(parents=True, exist_ok=True)
    with open(TEST_CACHE / ".export.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def exported_model():
    """The default model as exported into the test cache: its ONNX file and its page form (builds embed
    with the page form, whether shipped or exported)."""
    from mercury_static.assist.model_export import default_model_path, ensure_model

    with cache_lock():
        return ensure_model(default_model_path(), cache_dir=TEST_CACHE)


@pytest.fixture(scope="session")
def stand_in_model() -> Path:
    """The stand-in model's folder (tests/stand_in_model.py), exported into the test cache: what `--model`
    and `BuildOptions.model` take, for tests that do not measure the model."""
    from stand_in_model import ensure_stand_in

    with cache_lock():
        return ensure_stand_in(TEST_CACHE)


@pytest.fixture(scope="session")
def embedder(exported_model):
    from mercury_static.assist.embed import Embedder

    return Embedder(exported_model.dir)


REAL_MODEL_MARKS = ("browser", "slow")
"""Tests whose bundles `build_bundle` builds with the default model: the page runs it, and the slow tests
measure it (scale, memory, training); every other test gets the stand-in unless it says `model=`."""
_running = {"real_model": False}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _running["real_model"] = any(item.get_closest_marker(mark) for mark in REAL_MODEL_MARKS)


@pytest.fixture(scope="session")
def build_bundle(stand_in_model, tmp_path_factory):
    """Build a bundle with the test model cache: `build_bundle(inputs, **options) -> Path`. The model is
    `model=` when given (None: the shipped default, as `BuildOptions` reads it), else the default model
    for a test marked browser or slow, the stand-in for the others."""
    from mercury_static.pipeline.steps import BuildOptions, build

    def _build(inputs, name: str = "bundle", **options) -> Path:
        out = tmp_path_factory.mktemp("bundles") / name
        options.setdefault("model", None if _running["real_model"] else stand_in_model)
        build([Path(p) for p in inputs], out, BuildOptions(cache_dir=TEST_CACHE, **options))
        return out

    return _build


@pytest.fixture(scope="session")
def demo_bundle(build_bundle) -> Path:
    """The demo with the default model (the page's tests run it)."""
    return build_bundle([EXAMPLES / "demo.jsonl"], name="demo", labels=EXAMPLES / "labels.yaml",
                        guidelines=EXAMPLES / "guidelines.md", title="Demo", model=None)


@pytest.fixture(scope="session")
def stand_in_demo(build_bundle, stand_in_model) -> Path:
    """The demo with the stand-in model: for tests of the bundle that do not read its vectors' meaning (named,
    not left to `build_bundle`'s default: a session fixture is built for whichever test asks first)."""
    return build_bundle([EXAMPLES / "demo.jsonl"], name="demo", labels=EXAMPLES / "labels.yaml",
                        guidelines=EXAMPLES / "guidelines.md", title="Demo", model=stand_in_model)


@pytest.fixture(scope="session")
def serve_dir():
    """Serve any folder on a free loopback port: `serve_dir(path) -> base URL` (ends with '/')."""
    from mercury_static.bundle.serve import BundleServer

    servers = []

    def _serve(directory: Path) -> str:
        server = BundleServer(directory, "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}/"

    yield _serve
    for s in servers:
        s.shutdown()
        s.server_close()


@pytest.fixture(scope="session")
def bundle_server(demo_bundle, serve_dir) -> str:
    """Base URL of the demo bundle."""
    return serve_dir(demo_bundle)


@pytest.fixture(scope="session")
def modules_server(demo_bundle, serve_dir, tmp_path_factory) -> str:
    """Base URL of a copy of the demo bundle whose app/ holds the page's modules as written (a bundle gets
    them packed, bundle/page.py): for tests that import one module, e.g. `import('./app/assist/rank.js')`."""
    copy = tmp_path_factory.mktemp("modules") / "bundle"
    shutil.copytree(demo_bundle, copy, ignore=shutil.ignore_patterns("app"))
    shutil.copytree(REPO / "site_template" / "app", copy / "app")
    return serve_dir(copy)


NO_SERVICE_WORKERS = "delete Navigator.prototype.serviceWorker;"
"""A page without the service worker API, as Chromium gives a page served over plain http from another host."""


class Browser:
    """The browser, whose contexts block service workers unless a test asks for them: a bundle's service worker
    fetches past `page.route`, so a test that makes the model unavailable would get it from the worker.

    A blocked context's pages also go without the API (`NO_SERVICE_WORKERS`) unless `worker_api=True`: there
    a worker registers and never takes control, so every page would wait the longest the page waits for one
    (offline.js's `CONTROL_WAIT_MS`) before starting the model; test_offline.py keeps that case."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, worker_api: bool = False, **options):
        options.setdefault("service_workers", "block")
        context = self._browser.new_context(**options)
        if options["service_workers"] == "block" and not worker_api:
            context.add_init_script(NO_SERVICE_WORKERS)
        return context

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        yield Browser(b)
        b.close()


@pytest.fixture
def context(browser, request):
    """A fresh browser context (own localStorage) that fails the test if any request leaves loopback; service
    workers allowed only for a test marked `service_workers`."""
    allowed = request.node.get_closest_marker("service_workers") is not None
    ctx = browser.new_context(accept_downloads=True, service_workers="allow" if allowed else "block")
    foreign: list[str] = []

    def check(route):
        url = route.request.url
        if url.startswith(("http://127.0.0.1", "data:", "blob:")):
            route.continue_()
        else:
            foreign.append(url)
            route.abort()

    ctx.route("**/*", check)
    yield ctx
    ctx.close()
    assert not foreign, f"requests left the page's origin: {foreign}"


@pytest.fixture
def page(context):
    """A page whose uncaught errors fail the test."""
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    assert not errors, f"uncaught errors in the page: {errors}"


LONGEST_FIRST = ("test_parquet_in.py", "test_train.py", "test_engine_ray.py", "test_front_door.py",
                 "test_page_no_loss.py", "test_page_safety.py", "test_page_longtext.py", "test_page_keyboard.py",
                 "test_docs.py", "test_page_layout.py", "test_page_questions.py", "test_page.py",
                 "test_parity_browser.py", "test_offline.py", "test_page_storage.py", "test_page_review.py",
                 "test_long_source.py", "test_collect.py", "test_wheel.py", "test_model.py", "test_streaming.py")
"""Files of the slow and browser run by their wall time, longest first (those of minutes, then those of half a
minute or more), run before the others so that, with a test file per worker (`--dist loadfile
--no-loadscope-reorder`, as `make test` runs them), the run ends on files of seconds: no worker is left with a
long one while the other has finished."""


def pytest_collection_modifyitems(config, items):
    if not SHARED_DATA.is_dir():
        skip = pytest.mark.skip(reason="../shared/data is absent")
        for item in items:
            if "shared_data" in item.keywords:
                item.add_marker(skip)
    for item in items:  # `--reruns` is for the browser tests (a loaded machine times out a few of their steps)
        if item.get_closest_marker("browser") is None:
            item.add_marker(pytest.mark.flaky(reruns=0))
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest as collected


@pytest.fixture
def fresh_copy(tmp_path):
    """Copy a bundle folder into tmp (for tests that modify it), as a review bundle copies one (its browser
    runtime linked: no test rewrites it)."""
    from mercury_static.bundle.page import copy_bundle_file

    def _copy(src: Path) -> Path:
        dst = tmp_path / src.name
        shutil.copytree(src, dst, copy_function=copy_bundle_file)
        return dst
    return _copy


@pytest.fixture
def run(exported_model, monkeypatch):
    """The CLI in-process with the test model cache: `run(*args) -> typer's Result`. A traceback, or an
    exception other than the CLI's own exit, fails the test (bad input must be one line, exit 2)."""
    from typer.testing import CliRunner

    from mercury_static.cli import app

    monkeypatch.setenv("MERCURY_STATIC_CACHE", str(TEST_CACHE))

    def invoke(*args):
        result = CliRunner().invoke(app, [str(a) for a in args])
        assert "Traceback" not in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        return result
    return invoke


@pytest.fixture
def s3(monkeypatch):
    """A moto S3 server with a bucket `collect` open to browser uploads from any origin (CORS)."""
    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
                 "AWS_SESSION_TOKEN": "testing"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    import urllib.request

    from collect_servers import S3Server

    server = S3Server()
    server.start()
    urllib.request.urlopen(urllib.request.Request(f"{server.url}/moto-api/reset", method="POST"))  # no bucket left
    monkeypatch.setenv("AWS_ENDPOINT_URL", server.url)
    client = server.client()
    client.create_bucket(Bucket="collect")
    client.put_bucket_cors(Bucket="collect", CORSConfiguration={"CORSRules": [
        {"AllowedOrigins": ["*"], "AllowedMethods": ["POST"], "AllowedHeaders": ["*"]}]})
    yield server
    if server.server is not None:
        server.stop()


@pytest.fixture
def dav(tmp_path):
    """wsgidav serving a fresh folder holding `drop/` (user `team`, password `secret`)."""
    from collect_servers import DavServer

    root = tmp_path / "dav"
    (root / "drop").mkdir(parents=True)
    server = DavServer(root)
    server.start()
    yield server
    server.stop()
