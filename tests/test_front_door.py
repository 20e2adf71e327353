"""The paths a new user walks first, as they walk them: `make demo` in a fresh clone, exactly as the README
says, then the page in Chromium; and `mercury-static build X -o RELATIVE` from any working folder.

The fresh clone installs everything itself (its own .venv, npm ci, the model export): a few minutes with
warm pip and npm caches, which is what a user's second machine, and CI, have."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO, TEST_CACHE

from pagedriver import READY, pane_text, select, set_min_score

pytestmark = pytest.mark.browser


def tree(root: Path) -> dict[str, str]:
    """Every file's digest and every folder (an empty leftover folder counts too)."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "/"
            for p in sorted(root.rglob("*"))}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def first_visit(page, url: str, failed: list[str]) -> None:
    """A first visitor: types a name, sees a record, selects summary words, sees source sentences light up;
    no request of the page fails."""
    page.on("requestfailed", lambda r: failed.append(f"{r.url} ({r.failure})"))
    page.on("response", lambda r: failed.append(f"{r.url} (HTTP {r.status})") if r.status >= 400 else None)
    page.goto(url)
    page.locator("#annotator-dialog").wait_for()
    page.fill("#annotator-dialog input", "newcomer")
    page.keyboard.press("Enter")
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")  # the guidelines panel of a first visit
    text = pane_text(page, "summary")
    assert len(text) > 40
    page.wait_for_selector("#pane-summary .text[data-complete]", state="attached", timeout=30_000)
    page.wait_for_selector("#pane-source .text[data-complete]", state="attached", timeout=30_000)
    set_min_score(page, 0)
    words = re.search(r"\w+(?:\W+\w+){2}", text).group(0)
    select(page, "summary", words)
    lit = page.locator('.s[data-side="source"][data-rank]')
    assert lit.count() >= 1 and lit.first.get_attribute("data-level") in {"1", "2", "3"}


def test_make_demo_in_a_fresh_clone(browser, tmp_path):
    """`git clone`, `make demo PORT=…` as the README shows it: the page works in Chromium, nothing in the
    clone changed (git status clean), and the clone still passes `make lint` (a leftover in site_template/app
    once failed it). Its pip does not byte-compile what it installs (`PIP_COMPILE=0`): the demo imports a
    small part of it, which Python compiles as it loads; the install itself is the same. Its `make lint` starts
    from a copy of this checkout's mypy cache when there is one (CI lints the checkout first): mypy still reads
    every file and checks again each one whose bytes changed, so a leftover or an error still fails it."""
    clone = tmp_path / "mercury-static"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    readme = (clone / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^make demo\b", readme, re.M), "the README's first command is `make demo`"
    port = free_port()
    log = (tmp_path / "make-demo.log").open("w")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not p.startswith(sys.prefix))
    env["PIP_COMPILE"] = "0"  # no bytecode for all of torch and Ray up front: the modules a run imports compile then
    proc = subprocess.Popen(["make", "demo", f"PORT={port}"], cwd=clone, stdout=log, stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 1500
        while True:
            assert proc.poll() is None, (tmp_path / "make-demo.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "make demo did not serve in 25 min"
            if "serving" in (tmp_path / "make-demo.log").read_text() and _answers(url):
                break
            time.sleep(1)
        context = browser.new_context()
        failed: list[str] = []
        try:
            first_visit(context.new_page(), url, failed)
        finally:
            context.close()
        assert not failed, failed
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
        log.close()
    status = subprocess.run(["git", "status", "--porcelain", "--ignored=no"], cwd=clone, capture_output=True,
                            text=True, check=True).stdout
    assert status == "", status
    if (REPO / ".mypy_cache").is_dir():  # mypy checks again every file whose bytes differ from its cache's
        shutil.copytree(REPO / ".mypy_cache", clone / ".mypy_cache")
    lint = subprocess.run(["make", "lint"], cwd=clone, capture_output=True, text=True, env=env)
    assert lint.returncode == 0, lint.stdout[-3000:] + lint.stderr[-3000:]
    shutil.rmtree(clone, ignore_errors=True)  # its .venv is large


def _answers(url: str) -> bool:
    from urllib.request import urlopen

    try:
        with urlopen(url, timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.mark.parametrize("where", ["checkout root", "another folder", "a subfolder"])
def test_build_with_a_relative_out_from_any_folder(where, browser, serve_dir, tmp_path):
    """`mercury-static build INPUT -o bundle` as most people type it, from three working folders: the
    bundle is whole (the page loads, a selection lights sentences) and the checkout's page template is
    byte-identical afterwards (the packed page was once written into site_template/app)."""
    template = tree(REPO / "site_template")
    cwd = {"checkout root": REPO, "another folder": tmp_path / "elsewhere",
           "a subfolder": tmp_path / "elsewhere" / "sub"}[where]
    cwd.mkdir(parents=True, exist_ok=True)
    out = Path(".cache") / f"rel-{where.replace(' ', '-')}" if cwd == REPO else Path("bundle")
    data = os.path.relpath(EXAMPLES / "demo.jsonl", cwd)
    labels = os.path.relpath(EXAMPLES / "labels.yaml", cwd)
    cli = Path(sys.executable).parent / "mercury-static"
    env = {**os.environ, "MERCURY_STATIC_CACHE": str(TEST_CACHE), "HF_HUB_OFFLINE": "1"}
    try:
        built = subprocess.run([str(cli), "build", data, "-o", str(out), "--labels", labels], cwd=cwd, env=env,
                               capture_output=True, text=True, timeout=600)
        assert built.returncode == 0, built.stdout + built.stderr
        assert tree(REPO / "site_template") == template
        bundle = cwd / out
        assert (bundle / "app" / "main.js").is_file() and not [p for p in bundle.parent.iterdir()
                                                                if p.name.startswith(f".{out.name}.")]
        context = browser.new_context()
        failed: list[str] = []
        try:
            first_visit(context.new_page(), serve_dir(bundle), failed)
        finally:
            context.close()
        assert not failed, failed
    finally:
        if cwd == REPO:
            shutil.rmtree(REPO / out, ignore_errors=True)
