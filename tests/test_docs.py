"""The docs as tested text: the site builds with `mkdocs build --strict`, the CLI reference is what the
command tree generates (`cog --check`), and every ```bash block of README.md and docs/*.md runs as written.

The blocks of one file run in order in one scratch folder (a later block uses what an earlier one built), so
run a file's blocks together (`-k README`), not one alone."""

from __future__ import annotations

import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from mktestdocs import grab_code_blocks

from conftest import REPO, TEST_CACHE

DOC_FILES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
VENV_BIN = Path(sys.executable).parent
MAKE_ONLY = "make targets: CI runs make lint and make test, and the fresh-clone test runs make demo"


def doc_env() -> dict:
    """A reader's shell in a checkout: the venv's commands first, this worktree's code, the tests' model cache."""
    return {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(REPO),
            "MERCURY_STATIC_CACHE": str(TEST_CACHE), "HF_HUB_OFFLINE": "1"}


def run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=kwargs.pop("cwd", REPO), env=doc_env(), capture_output=True, text=True,
                          timeout=kwargs.pop("timeout", 600), **kwargs)


def test_site_builds_strict(tmp_path):
    """A broken link or anchor, a page missing from the nav or a missing page fails the build."""
    done = run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")])
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "cli" / "index.html").is_file()


def test_cli_reference_is_the_command_tree():
    """docs/cli.md's synopsis and options are generated from the CLI (`cog -r docs/cli.md` after a change)."""
    done = run([sys.executable, "-m", "cogapp", "--check", "docs/cli.md"])
    assert done.returncode == 0, ("docs/cli.md is not what the CLI generates; run cog -r docs/cli.md\n"
                                  + done.stdout + done.stderr)


def test_cli_reference_lists_what_help_prints():
    """Each command's section of docs/cli.md names exactly the options its `--help` prints."""
    from typer.testing import CliRunner

    from mercury_static.cli import app

    page = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (\S+)\n(.*?)(?=^## |\Z)", page, re.M | re.S))
    options = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
    names = re.findall(r"^mercury-static (\S+)", sections["Synopsis"], re.M)
    assert names and set(names) <= set(sections)
    for name in names:
        shown = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
        assert shown.exit_code == 0, shown.output
        helped = set(options.findall(shown.output)) - {"--help"}
        documented = set(options.findall("\n".join(re.findall(r"^- `([^`]+)`", sections[name], re.M))))
        assert documented == helped, f"{name}: docs/cli.md {sorted(documented)} != --help {sorted(helped)}"


def test_every_fence_is_bash_or_named():
    """A shell block is ```bash (run below) or ```text (shown only): a ```sh or unnamed one would escape the test."""
    for path in DOC_FILES:
        text = path.read_text(encoding="utf-8")
        inline = [line for line in text.splitlines() if "```" in line and not line.lstrip().startswith("```")]
        assert not inline, f"{path.name}: ``` inside a line would open a block for grab_code_blocks: {inline}"
        fences = re.findall(r"^\s*```(.*)$", text, re.M)
        openings = fences[::2]
        assert len(fences) % 2 == 0, f"{path.name}: an unclosed fence"
        bad = [tag for tag in openings if tag.strip() in ("", "sh", "shell", "console", "zsh")]
        assert not bad, f"{path.name}: fences without a language or with a shell other than bash: {bad}"


def shell_blocks():
    for path in DOC_FILES:
        for index, code in enumerate(grab_code_blocks(path.read_text(encoding="utf-8"), lang="bash")):
            yield pytest.param(path, code, id=f"{path.relative_to(REPO)}:{index + 1}")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """One folder per document, holding a copy of examples/: its blocks run there in order, as a reader's would."""
    folders: dict[Path, Path] = {}

    def folder(path: Path) -> Path:
        if path not in folders:
            folders[path] = tmp_path_factory.mktemp(f"docs-{path.stem}")
            shutil.copytree(REPO / "examples", folders[path] / "examples")
        return folders[path]

    return folder


def commands(code: str) -> list[str]:
    return [line.strip() for line in code.splitlines() if line.strip() and not line.strip().startswith("#")]


@pytest.mark.slow
@pytest.mark.parametrize("path, code", list(shell_blocks()))
def test_shell_block_runs(path, code, scratch):
    lines = commands(code)
    if all(line.split()[0] == "make" for line in lines):
        pytest.skip(MAKE_ONLY)
    folder = scratch(path)
    if any(line.startswith("mercury-static serve") for line in lines):
        assert len(lines) == 1, f"{path.name}: `mercury-static serve` blocks; give it a block of its own:\n{code}"
        serve_and_fetch(lines[0], folder)
        return
    done = run(["bash", "-euo", "pipefail", "-c", code], cwd=folder)
    assert done.returncode == 0, (f"{path.name}: this block exits {done.returncode}:\n{code}\n"
                                  f"stdout: {done.stdout[-3000:]}\nstderr: {done.stderr[-3000:]}")


def serve_and_fetch(line: str, folder: Path) -> None:
    """The serve line on a free port, in the background: the page and its entry module are fetched, then the
    server is stopped."""
    proc = subprocess.Popen(shlex.split(line) + ["--port", "0"], cwd=folder, env=doc_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said: queue.Queue = queue.Queue()

    def read() -> None:
        for out in proc.stderr:
            said.put(out)
        said.put(None)  # the server stopped

    threading.Thread(target=read, daemon=True).start()
    try:
        printed = []
        while not printed or "serving" not in printed[-1]:
            try:
                out = said.get(timeout=60)
            except queue.Empty:
                pytest.fail(f"`{line}` printed no `serving` line in 60 s: {printed}")
            if out is None:
                pytest.fail(f"`{line}` stopped: {''.join(printed)}")
            printed.append(out)
        url = re.search(r"http://\S+:\d+/", printed[-1])
        assert url, printed[-1]
        for name, expected in (("index.html", b"<html"), ("app/main.js", b"import")):
            with urllib.request.urlopen(url.group(0) + name, timeout=30) as response:
                assert response.status == 200 and expected in response.read().lower(), name
    finally:
        proc.terminate()
        proc.wait(timeout=30)
