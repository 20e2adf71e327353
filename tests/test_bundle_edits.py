"""Bundle edits are atomic: every command that changes a bundle (build, assign, tune --apply) or writes an
output folder (merge --format argilla) takes the folder's lock and switches in one step. Real processes are
killed at the worst moment and raced against each other; the folder is always the old one or the new one."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO, TEST_CACHE

ENV = {**os.environ, "PYTHONPATH": str(REPO), "MERCURY_STATIC_CACHE": str(TEST_CACHE), "HF_HUB_OFFLINE": "1"}
CLI = "import sys; from mercury_static.cli import app; sys.argv[0] = 'mercury-static'; app()"


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def beside(out: Path) -> list[str]:
    """What lies beside `out` that a command on it made (its temp folders, its lock)."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def cli(*args, hook: str = "", cwd: Path | None = None) -> subprocess.Popen:
    """The CLI in a real process; `hook` is Python run first (to stop or slow it at a chosen point)."""
    return subprocess.Popen([sys.executable, "-c", hook + "\n" + CLI, *map(str, args)], env=ENV, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def consistent(bundle: Path) -> list[str]:
    """The bundle as a page sees it: the manifest names a queues file that exists and holds the same
    annotators (or no queues at all)."""
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    if not manifest.get("queues"):
        return []
    queues = json.loads((bundle / manifest["queues"]["path"]).read_text(encoding="utf-8"))["queues"]
    assert sorted(queues) == sorted(manifest["queues"]["annotators"]), (manifest["queues"], sorted(queues))
    return manifest["queues"]["annotators"]


KILL_ON_RENAME_INTO = """
import os, pathlib, signal
_target, _rename = os.path.abspath({out!r}), pathlib.Path.rename
def _rename_or_die(self, dst):
    if os.path.abspath(dst) == _target:
        os.kill(os.getpid(), signal.SIGKILL)  # killed between moving the old folder aside and the new one in
    return _rename(self, dst)
pathlib.Path.rename = _rename_or_die
"""

SLOW_AFTER_FIRST_WRITE = """
import time
from mercury_static.core import safeio
_write, _calls = safeio.write_file, []
def _slow(*args, **kwargs):
    _write(*args, **kwargs)
    _calls.append(1)
    if len(_calls) == 1:
        time.sleep({seconds})  # a slow disk between the queues file and the manifest
safeio.write_file = _slow
"""

KILL_AFTER_FIRST_WRITE = SLOW_AFTER_FIRST_WRITE.replace("time.sleep({seconds})",
                                                        "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")


@pytest.fixture
def bundle(stand_in_demo, tmp_path) -> Path:
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(stand_in_demo, copy)
    return copy


@pytest.mark.slow
def test_a_build_killed_while_it_replaces_the_bundle_leaves_the_old_or_the_new(bundle, exported_model):
    """SIGKILL at the moment a rebuild would move its new folder into place: `-o` is still a whole bundle
    (with two renames it was gone, the old one left at .bundle.old.*)."""
    old = tree(bundle)
    proc = cli("build", EXAMPLES / "demo.jsonl", "-o", bundle, "--title", "Another",
               hook=KILL_ON_RENAME_INTO.format(out=str(bundle)))
    proc.communicate(timeout=300)
    assert bundle.is_dir(), beside(bundle)
    now = tree(bundle)
    assert now == old or json.loads((bundle / "manifest.json").read_text())["title"] == "Another"
    again = cli("build", EXAMPLES / "demo.jsonl", "-o", bundle)
    assert again.wait(timeout=300) == 0, again.stdout.read()
    assert beside(bundle) == []  # the killed build's leftovers are gone, and no lock file stays


def test_without_an_exchange_a_folder_left_aside_is_put_back(bundle, stand_in_model, run):
    """Where the system cannot swap two folders in one step (two renames), a kill between them leaves
    the old bundle aside; the next command on the folder (here in-process) puts it back before anything else."""
    old = tree(bundle)
    hook = "from mercury_static.bundle import folder as bundle_folder; bundle_folder._exchange = lambda a, b: False\n"
    proc = cli("build", EXAMPLES / "demo.jsonl", "-o", bundle, "--model", stand_in_model,
               hook=hook + KILL_ON_RENAME_INTO.format(out=str(bundle)))
    proc.communicate(timeout=300)
    assert not bundle.exists() and any(".old." in n for n in beside(bundle))  # the case the recovery is for
    assign = run("assign", bundle, "--annotators", "alice,bob")
    assert assign.exit_code == 0, assign.output
    assert "put back in place" in assign.output
    assert {k for k, v in tree(bundle).items() if old.get(k) != v} <= {"manifest.json"} | {
        k for k in tree(bundle) if k.startswith("data/queues-")}
    assert beside(bundle) == []


def test_leftovers_of_killed_builds_are_removed_and_nothing_else(bundle, stand_in_model, run):
    names = [".bundle.abcd1234", ".bundle.work.x1y2z3w4", ".bundle.old.qqqqqqqq"]
    kept = [".bundle.notes", ".bundle.abcd12345", ".other.abcd1234", "bundle-copy"]
    for name in names + kept:
        (bundle.parent / name).mkdir()
        (bundle.parent / name / "f").write_text("x")
    (bundle.parent / ".bundle.zzzz9999.txt").write_text("a file, not a folder")
    assert run("build", EXAMPLES / "demo.jsonl", "-o", bundle, "--model", stand_in_model).exit_code == 0
    left = set(os.listdir(bundle.parent))
    assert not left & set(names)
    assert set(kept) | {".bundle.zzzz9999.txt"} <= left


def test_a_killed_assign_never_leaves_a_manifest_and_queues_of_different_annotators(bundle, run):
    """assign wrote queues.json, then the manifest: a kill between them left a manifest naming alice and
    bob over queues of carol and dave ("0 / 0 of your queue")."""
    assert run("assign", bundle, "--annotators", "alice,bob").exit_code == 0
    proc = cli("assign", bundle, "--annotators", "carol,dave", hook=KILL_AFTER_FIRST_WRITE.format(seconds=0))
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert consistent(bundle) == ["alice", "bob"]


def test_two_assigns_at_once_leave_one_consistent_bundle(bundle, run):
    """A slow assign in a process of its own, a second one in this process while the first holds the lock."""
    slow = cli("assign", bundle, "--annotators", "alice,bob", hook=SLOW_AFTER_FIRST_WRITE.format(seconds=2))
    deadline = time.monotonic() + 60
    while not (bundle.parent / ".bundle.lock").exists() and not list((bundle / "data").glob("queues*.json")):
        assert time.monotonic() < deadline and slow.poll() is None
        time.sleep(0.02)
    fast = run("assign", bundle, "--annotators", "carol,dave")
    assert slow.wait(timeout=120) == 0, slow.stdout.read()
    assert fast.exit_code == 0, fast.output  # it waited for the other one
    assert consistent(bundle) == ["carol", "dave"]  # the later one wins, whole
    assert [p.name for p in (bundle / "data").glob("queues*.json")] == [
        Path(json.loads((bundle / "manifest.json").read_text())["queues"]["path"]).name]


def test_tune_apply_during_an_assign_is_not_reverted(bundle):
    """`tune --apply` rewrote the manifest while an assign that had read it earlier was writing its queues:
    the assign then wrote back the old options ("applied", silently reverted). The assign runs in a process of
    its own, the apply in this one."""
    from mercury_static.bundle.ranker_file import apply_options

    slow = cli("assign", bundle, "--annotators", "alice,bob", hook=SLOW_AFTER_FIRST_WRITE.format(seconds=2))
    deadline = time.monotonic() + 60
    while not list((bundle / "data").glob("queues*.json")):
        assert time.monotonic() < deadline and slow.poll() is None
        time.sleep(0.02)
    apply_options(bundle, {"neighbor": 0.25})  # waits for the assign's lock
    assert slow.wait(timeout=120) == 0
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["ranker"]["neighbor"] == 0.25
    assert consistent(bundle) == ["alice", "bob"]


def test_a_command_waits_for_the_lock_then_says_who_holds_it(bundle, run):
    from mercury_static.bundle.folder import editing
    from mercury_static.core.records import InputError

    held = threading.Event()

    def hold(seconds: float):
        with editing(bundle, "build"):
            held.set()
            time.sleep(seconds)

    t = threading.Thread(target=hold, args=(1.0,))
    t.start()
    held.wait(10)
    started = time.monotonic()
    assert run("assign", bundle, "--annotators", "a,b").exit_code == 0  # waited for it
    assert time.monotonic() - started >= 0.5
    t.join()
    held.clear()
    t = threading.Thread(target=hold, args=(2.0,))
    t.start()
    held.wait(10)
    with pytest.raises(InputError, match=r"another mercury-static command is changing this folder \(build, process"):
        with editing(bundle, "assign", wait=0.2):
            pass
    t.join()
    assert beside(bundle) == []


def test_merge_argilla_does_not_replace_a_users_own_dataset_folder(bundle, run, tmp_path):
    """An Argilla dataset folder of the user's (records.json, .argilla/settings.json) is refused, as build
    refuses a folder it did not write; merge's own output is replaced whole."""
    export = tmp_path / "alice.json"
    manifest = json.loads((bundle / "manifest.json").read_text())
    export.write_text(json.dumps({"format": "mercury-static/annotations", "version": 2,
                                  "bundle_id": manifest["bundle_id"], "annotator": "alice", "records": []}))
    mine = tmp_path / "my-dataset"
    (mine / ".argilla").mkdir(parents=True)
    (mine / "records.json").write_text("[]")
    (mine / ".argilla" / "settings.json").write_text("{}")
    before = tree(mine)
    result = run("merge", export, "--bundle", bundle, "-o", mine, "--format", "argilla")
    assert result.exit_code == 2 and "is not a folder mercury-static wrote" in result.output, result.output
    assert tree(mine) == before
    out = tmp_path / "merged-argilla"
    for _ in range(2):  # written, then replaced whole
        result = run("merge", export, "--bundle", bundle, "-o", out, "--format", "argilla")
        assert result.exit_code == 0, result.output
        assert (out / "records.json").is_file() and (out / ".argilla" / "settings.json").is_file()
    assert beside(out) == []
