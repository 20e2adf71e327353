"""The model's download as the annotator sees it: bytes and a time left in the top bar, over a slow link."""

from __future__ import annotations

import json
import re
import time
from urllib.parse import urlsplit

import pytest

from pagedriver import READY, model_badge
from throttle import Link

pytestmark = pytest.mark.browser


def test_the_top_bar_shows_the_models_download_in_bytes_and_time_left(demo_bundle, serve_dir, browser):
    manifest = json.loads((demo_bundle / "manifest.json").read_text())
    whole = manifest["model"]["download"]
    link = Link(urlsplit(serve_dir(demo_bundle)).port, 20e6, 40)  # about six seconds of download
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(link.url + "?annotator=alice")
    page.wait_for_selector(READY)
    seen: list[dict] = []
    deadline = time.time() + 120
    while time.time() < deadline:
        badge = model_badge(page)
        seen.append(badge)
        if badge["status"] in ("ready", "failed"):
            break
        time.sleep(0.1)
    ctx.close()
    assert seen[-1]["status"] == "ready" and seen[-1]["text"] == "model: ready"
    loading = [b for b in seen if b["status"] == "loading" and b["loaded"] is not None]
    shares = [int(m.group(1)) for b in loading if (m := re.fullmatch(r"model: (\d+)%", b["text"]))]
    assert len(set(s for s in shares if 0 < s < 100)) >= 3, [b["text"] for b in seen]
    assert shares == sorted(shares)
    assert all(b["total"] == whole for b in loading)
    assert any(f"of {whole / 1e6:.1f} MB" in b["title"] and re.search(r"about \d+ s left", b["title"])
               for b in loading), [b["title"] for b in loading]
    # every byte the worker fetched was counted: the runtime's wasm and the model folder's files
    assert max(b["loaded"] for b in loading) == whole
    assert link.bytes_down < 0.7 * whole  # and they came compressed
