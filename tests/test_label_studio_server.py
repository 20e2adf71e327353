"""The Label Studio round trip against a running Label Studio (the `label-studio` package from PyPI, in its own
venv, pinned: `make label-studio`, which `.ci/run` runs): a tasks file and a labeling config of two Text fields with Labels and Relations
build a bundle; three annotators work on it in Chromium and their exports merge with `--format label-studio`; a project made from the written
config imports the tasks with their annotations through Label Studio's REST API; its JSON export builds back to
the same annotations, every span, label, relation, note and annotator."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import REPO
from pagedriver import export_file, open_page, select, wait, wait_saved
from test_page import block_model

from mercury_static.bundle.contents import load_bundle
from mercury_static.merge.pipeline import merge_files

pytestmark = pytest.mark.slow

LABEL_STUDIO = Path(os.environ.get("LABEL_STUDIO_BIN", REPO / ".cache" / "label-studio-venv" / "bin" / "label-studio"))
TOKEN = "mercury-static-test-token-0123456789"
ADMIN = "admin@example.org"
START_TIMEOUT = 180
CONFIG = """<View>
  <Text name="source" value="$source"/>
  <Labels name="source_labels" toName="source">
    <Label value="Intrinsic"/><Label value="Extrinsic"/>
  </Labels>
  <Text name="summary" value="$summary"/>
  <Labels name="summary_labels" toName="summary">
    <Label value="Intrinsic"/><Label value="Extrinsic"/>
  </Labels>
  <Relations><Relation value="evidence"/></Relations>
</View>
"""
LABELS = ["Intrinsic", "Extrinsic"]
"""The config's labels in their order: the page's number keys."""
TASKS = [
    {"id": 1, "data": {"source": "The Eiffel Tower is in Paris. It was completed in 1889.",
                       "summary": "The Eiffel Tower, completed in 1899, is in Rome."}},
    {"id": 2, "data": {"source": "Alice met Bob at noon 🕛. They had lunch.",
                       "summary": "🎉 Alice met Bob at midnight. They had dinner."}},
    {"id": 3, "data": {"source": "Nothing happened today.", "summary": "Nothing happened."}},
]
TEXTS = {str(t["id"]): t["data"] for t in TASKS}


def span(record_id: str, side: str, quoted: str) -> dict:
    start = TEXTS[record_id][side].index(quoted)
    return {"start": start, "end": start + len(quoted), "text": quoted}


def ann(ident: str, record_id: str, quoted: str, label: str, source: str | None = None, note: str = "") -> dict:
    return {"id": ident, "label": [label], "note": note, "summary": span(record_id, "summary", quoted),
            "source": span(record_id, "source", source) if source else None,
            "created_at": "2026-12-06T09:00:00Z", "updated_at": "2026-12-06T10:00:00Z"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Api:
    """Label Studio's REST API with the admin's token."""

    def __init__(self, base: str, token: str):
        self.base, self.token = base, token

    def __call__(self, method: str, path: str, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(f"{self.base}{path}", data=data, method=method, headers={
            "Authorization": f"Token {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            raise AssertionError(f"{method} {path}: {e.code} {e.read().decode('utf-8', 'replace')[:2000]}") from e
        return json.loads(text) if text else None


def _up(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/health", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def label_studio(tmp_path_factory):
    """A Label Studio on a free loopback port, SQLite in a temporary data folder, an admin with a known API
    token; stopped after the module's tests."""
    if not os.access(LABEL_STUDIO, os.X_OK):
        pytest.skip(f"Label Studio is not installed at {LABEL_STUDIO} (run `make label-studio`, or set "
                    "LABEL_STUDIO_BIN)")
    data = tmp_path_factory.mktemp("label-studio")
    port = free_port()
    env = {**os.environ, "LABEL_STUDIO_BASE_DATA_DIR": str(data), "DJANGO_DB": "sqlite",
           "LABEL_STUDIO_USERNAME": ADMIN, "LABEL_STUDIO_PASSWORD": "mercury-static-pw",
           "LABEL_STUDIO_USER_TOKEN": TOKEN}
    log = open(data / "server.log", "wb")
    server = subprocess.Popen([str(LABEL_STUDIO), "start", "--no-browser", "--internal-host", "127.0.0.1",
                               "--port", str(port), "--data-dir", str(data),
                               "--enable-legacy-api-token"],
                              env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _up(base):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = (data / "server.log").read_text(encoding="utf-8", errors="replace")[-3000:]
                how = (f"exited with code {server.returncode}" if server.returncode is not None
                       else f"did not start within {START_TIMEOUT} s")
                pytest.fail(f"Label Studio {how}:\n{tail}")
            time.sleep(1)
        yield Api(base, TOKEN)
    finally:
        _stop(server)
        log.close()


def _stop(server: subprocess.Popen) -> None:
    """The server's process group ended (TERM, then KILL after 30 s); one already gone is not an error."""
    for sig, timeout in ((signal.SIGTERM, 30), (signal.SIGKILL, None)):
        try:
            os.killpg(server.pid, sig)
        except ProcessLookupError:
            break
        try:
            server.wait(timeout=timeout)
            break
        except subprocess.TimeoutExpired:
            continue


def _key(a: dict) -> tuple:
    source = a["source"] and (a["source"]["start"], a["source"]["end"], a["source"]["text"])
    return (a["annotator"], tuple(a["label"]), a["summary"]["start"], a["summary"]["end"], a["summary"]["text"],
            source, a["note"])


def work_in_chromium(browser, base: str, annotator: str, folder: Path, plan: dict[str, list[tuple]]) -> Path:
    """An annotator's session in Chromium, with the mouse and keys: for each record, its spans (summary text,
    label, source text or None, note), then submitted; the export file the header's button downloads."""
    ctx = browser.new_context(accept_downloads=True, service_workers="block")
    try:
        page = ctx.new_page()
        block_model(page)
        for record, spans in plan.items():
            open_page(page, base, record, annotator)
            for summary, label, source, note in spans:
                select(page, "summary", summary, ranked=False)
                if source:
                    select(page, "source", source, ranked=False)
                page.keyboard.press(str(LABELS.index(label) + 1))
                if note:
                    page.fill("#draft-note", note)
                    page.locator("#draft-note").blur()
                page.keyboard.press("Enter")
            wait(page, "([id, n]) => Object.keys(pd.entry(id)?.annotations || {}).length === n", [record, len(spans)])
            page.keyboard.press("s")
            wait(page, "(id) => pd.entry(id)?.status === 'submitted'", record)
        wait_saved(page)
        out = folder / annotator
        out.mkdir()
        export_file(page, out)
        [path] = out.glob("*.json")
        return path
    finally:
        ctx.close()


@pytest.mark.browser
def test_merge_imports_into_label_studio_and_comes_back(label_studio, run, stand_in_model, browser, serve_dir,
                                                        tmp_path):
    api = label_studio
    tasks, config = tmp_path / "tasks.json", tmp_path / "config.xml"
    tasks.write_text(json.dumps(TASKS, ensure_ascii=False), encoding="utf-8")
    config.write_text(CONFIG, encoding="utf-8")
    built = run("build", tasks, "--settings", config, "--model", stand_in_model, "-o", tmp_path / "bundle")
    assert built.exit_code == 0, built.output
    bundle = load_bundle(tmp_path / "bundle")
    base = serve_dir(bundle.dir)
    files = [
        work_in_chromium(browser, base, "alice", tmp_path, {
            "1": [("Rome", "Intrinsic", "Paris", "the source says Paris"), ("1899", "Intrinsic", "1889", "")],
            "2": [("midnight", "Intrinsic", "noon 🕛", "wrong time 🕛")]}),
        work_in_chromium(browser, base, "bob", tmp_path, {"1": [("Rome", "Extrinsic", None, "")], "3": []}),
        work_in_chromium(browser, base, "carol", tmp_path, {
            "2": [("dinner", "Extrinsic", "lunch", ""), ("Alice", "Intrinsic", None, "")]}),
    ]
    out = tmp_path / "ls"
    merged = run("merge", *files, "--bundle", bundle.dir, "--format", "label-studio", "-o", out)
    assert merged.exit_code == 0, merged.output

    # a user per annotator (Label Studio's completed_by is a member's id), then the project and the import
    names = {v: k for k, v in json.loads((out / "annotators.json").read_text(encoding="utf-8")).items()}
    users = {name: api("POST", "/api/users/", {"username": name, "email": f"{name}@example.org"})["id"]
             for name in names.values()}
    written = json.loads((out / "tasks.json").read_text(encoding="utf-8"))
    for task in written:
        for annotation in task["annotations"]:
            annotation["completed_by"] = users[names[annotation["completed_by"]]]
    project = api("POST", "/api/projects/", {"title": "mercury-static round trip",
                                             "label_config": (out / "config.xml").read_text(encoding="utf-8")})
    imported = api("POST", f"/api/projects/{project['id']}/import", written)
    assert (imported["task_count"], imported["annotation_count"]) == (
        len(written), sum(len(t["annotations"]) for t in written)), imported

    # what Label Studio holds: every task, annotator and result item as imported
    back = api("GET", f"/api/projects/{project['id']}/export?exportType=JSON")
    by_record = {t["data"]["record_id"]: t for t in back}
    assert sorted(by_record) == sorted(t["data"]["record_id"] for t in written)
    for task in written:
        held = by_record[task["data"]["record_id"]]
        assert held["data"] == task["data"]
        want = sorted((a["completed_by"], json.dumps(a["result"], sort_keys=True)) for a in task["annotations"])
        got = sorted((a["completed_by"], json.dumps(a["result"], sort_keys=True)) for a in held["annotations"])
        assert got == want, task["data"]["record_id"]
    assert any(r["type"] == "relation" for t in back for a in t["annotations"] for r in a["result"])

    # and Label Studio's export builds back to the merge's annotations, annotators by name
    again = tmp_path / "again"
    again.mkdir()
    (again / "export.json").write_text(json.dumps(back, ensure_ascii=False), encoding="utf-8")
    (again / "annotators.json").write_text(json.dumps(users), encoding="utf-8")
    rebuilt = run("build", again / "export.json", "--settings", out / "config.xml", "--model", stand_in_model,
                  "-o", tmp_path / "rebuilt")
    assert rebuilt.exit_code == 0, rebuilt.output
    rebuilt_bundle = load_bundle(tmp_path / "rebuilt")
    records = merge_files(files, bundle).records
    assert sum(len(r["annotations"]) for r in records) == 6
    for r in records:
        want = sorted(_key(a) for a in r["annotations"])
        assert sorted(_key(a) for a in rebuilt_bundle.record(r["id"]).prior_annotations) == want, r["id"]
    assert {a["annotator"] for r in rebuilt_bundle.records for a in r.prior_annotations} == {"alice", "bob", "carol"}
