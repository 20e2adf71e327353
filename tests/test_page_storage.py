"""The page says "saved" only when it is (part 1): a full disk and a refused write stay "NOT saved"
until that very change is on disk; two tabs save one draft once; an import reads times as instants and leaves
out what merge would refuse, saying so. Real Chromium, a real full filesystem, real tabs and a real file."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import CHROMIUM_ARGS, chromium_path
from pagedriver import READY, export_file, go_to, open_page, own_annotations, pane_text, query, record_work, select, wait, wait_current, wait_left, wait_saved
from test_page import STORED, block_model, stored_records
from test_page_safety import browser_pid

pytestmark = pytest.mark.browser

SAVE = "() => document.querySelector('#save-status').dataset.state"
BIG_NOTE = 2_000_000
"""Characters of a note that IndexedDB stores as a blob file (Chromium writes values this large outside its
database): on a full disk that write fails ("DataError: Failed to write blobs"), a small one still succeeds."""


@pytest.fixture
def tiny_disk():
    """`tiny_disk(path)`: a small tmpfs (`size=`) mounted at `path` for the test (a Chromium profile, or only its IndexedDB
    folder, on it fills it for real); skipped where mounting is not allowed."""
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    mounted = []

    def mount(where: Path) -> Path:
        where.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(where)], capture_output=True,
                              text=True)
        if done.returncode:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill_disk(where: Path, name: str, leave: int = 1 << 20) -> Path:
    """Write until the disk refuses, then give back `leave` bytes: the browser writes to the same disk meanwhile,
    so a size read from statvfs beforehand may already be too large."""
    filler = where / name
    chunk = b"\0" * (1 << 20)
    with filler.open("wb", buffering=0) as f:
        try:
            while True:
                f.write(chunk)
        except OSError as e:
            if e.errno != errno.ENOSPC:
                raise
        size = f.seek(0, os.SEEK_END)
        f.truncate(max(0, size - leave))
    return filler


def test_a_full_disk_stays_not_saved_until_that_change_is_on_disk(browser, bundle_server, tiny_disk, tmp_path):
    profile = tmp_path / "profile"
    disk = tiny_disk(profile / "Default" / "IndexedDB")
    ctx = browser.browser_type.launch_persistent_context(profile, executable_path=chromium_path(),
                                                         headless=True, args=CHROMIUM_ARGS, accept_downloads=True)
    try:
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        block_model(page)
        open_page(page, bundle_server, "harbor-lighthouse")
        select(page, "summary", "3.2 million euros", ranked=False)
        page.keyboard.press("3")
        page.wait_for_function(f"() => ({SAVE})() === 'saved'")
        filler = fill_disk(disk, "filler")
        big_note(page)  # too large for the full disk (a small write still fits)
        page.wait_for_function(f"() => ({SAVE})() === 'error'", timeout=30_000)
        page.keyboard.press("Enter")  # the annotation (BIG_NOTE) fails too; the cleared draft after it is written
        wait(page, """async () => { const d = pd.savedDraft('harbor-lighthouse');
            return d && !d.labels.length; }""")
        page.wait_for_function(f"() => ({SAVE})() !== 'saving'", timeout=30_000)
        page.wait_for_timeout(500)
        stored = {k[1]: v for k, v in page.evaluate(STORED) if k[2] == "harbor-lighthouse"}
        assert stored["d"]["labels"] == [] and "r" not in stored  # the small write is on disk, the large one not
        assert page.evaluate(SAVE) == "error"
        assert page.inner_text("#save-status") == "NOT saved"
        assert page.get_attribute("#save-state", "data-state") == "failed"
        banner = page.locator("#storage-error")
        assert "NOT saved" in banner.inner_text() and "could not write to the disk" in banner.inner_text()
        # the export it offers holds the annotation
        with page.expect_download() as dl:
            banner.locator("button").click()
        dl.value.save_as(tmp_path / "export.json")
        data = json.loads((tmp_path / "export.json").read_text(encoding="utf-8"))
        [rec] = [r for r in data["records"] if r["record_id"] == "harbor-lighthouse"]
        assert len(rec["annotations"][0]["note"]) > BIG_NOTE // 2
        # still "NOT saved" after other small writes succeed; once the disk has room, the next change writes it
        select(page, "summary", "Mondays", ranked=False)  # a new draft: a small write, on disk
        wait(page, "() => pd.savedDraft('harbor-lighthouse').summary")
        page.wait_for_timeout(500)
        assert page.evaluate(SAVE) == "error"
        filler.unlink()
        page.keyboard.press("1")
        page.wait_for_function(f"() => ({SAVE})() === 'saved'", timeout=30_000)
        assert page.locator("#storage-error").count() == 0
        [a] = stored_records(page)["harbor-lighthouse"]["annotations"].values()
        assert a["summary"]["text"] == "3.2 million euros" and len(a["note"]) > BIG_NOTE // 2
    finally:
        ctx.close()


def big_note(page):
    """A long paste into the note (random letters: compression does not shrink them much)."""
    query(page, """(n) => {
        const bytes = new Uint8Array(n);
        for (let o = 0; o < n; o += 65536) crypto.getRandomValues(bytes.subarray(o, o + 65536));
        pd.setNote(Array.from(bytes, (b) => String.fromCharCode(97 + (b % 26))).join(''));
    }""", BIG_NOTE)


def test_a_change_not_saved_survives_a_killed_browser(browser, bundle_server, tiny_disk, tmp_path):
    """IndexedDB's folder alone on a full disk (localStorage still has room): the annotation is NOT saved, and the
    page keeps a copy in localStorage at once (not only when the page goes away), so a browser killed then loses
    nothing: the next load stores it. (Chromium delays writing megabytes of localStorage: a long paste may still
    be lost this way, and the page says NOT saved.)"""
    profile = tmp_path / "profile"
    disk = tiny_disk(profile / "Default" / "IndexedDB")

    def launch():
        ctx = browser.browser_type.launch_persistent_context(profile, executable_path=chromium_path(), headless=True,
                                                             args=CHROMIUM_ARGS)
        pg = ctx.pages[0] if ctx.pages else ctx.new_page()
        block_model(pg)
        return ctx, pg

    ctx, page = launch()
    open_page(page, bundle_server, "harbor-lighthouse")
    select(page, "summary", "3.2 million euros", ranked=False)
    page.keyboard.press("3")
    page.wait_for_function(f"() => ({SAVE})() === 'saved'")
    assert any(disk.iterdir())  # the page's database is on the tiny disk
    filler = fill_disk(disk, "filler", leave=0)
    page.fill("#draft-note", "kept")
    page.locator("#draft-note").blur()
    page.keyboard.press("Enter")
    wait(page, "() => !pd.draft().summary")
    page.wait_for_function(f"() => ({SAVE})() !== 'saving'", timeout=30_000)
    assert page.evaluate(SAVE) == "error"
    assert "could not write to the disk" in page.inner_text("#storage-error")
    time.sleep(7)  # Chromium writes localStorage to disk within 5 s
    os.kill(browser_pid(profile), signal.SIGKILL)
    try:
        ctx.close()
    except Exception:  # noqa: BLE001 - the browser is gone: closing may only report it
        pass
    filler.unlink()
    ctx, page = launch()
    try:
        open_page(page, bundle_server, "harbor-lighthouse")
        [a] = own_annotations(page, "harbor-lighthouse")
        assert (a["summary"]["text"], a["note"]) == ("3.2 million euros", "kept")
        [stored] = stored_records(page)["harbor-lighthouse"]["annotations"].values()
        assert stored["note"] == "kept"
    finally:
        ctx.close()


def test_storage_closed_by_a_full_disk_is_opened_again_once_it_has_room(browser, bundle_server, tiny_disk, tmp_path):
    """A write to a disk with no room at all makes Chromium close the page's database connection (every later
    write: InvalidStateError): the page opens it again, so the first change after room is made saves all."""
    profile = tmp_path / "profile"
    disk = tiny_disk(profile / "Default" / "IndexedDB")
    ctx = browser.browser_type.launch_persistent_context(profile, executable_path=chromium_path(), headless=True,
                                                         args=CHROMIUM_ARGS)
    try:
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        block_model(page)
        open_page(page, bundle_server, "harbor-lighthouse")
        select(page, "summary", "3.2 million euros", ranked=False)
        page.wait_for_function(f"() => ({SAVE})() === 'saved'")
        filler = fill_disk(disk, "filler", leave=0)
        page.keyboard.press("3")
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => ({SAVE})() === 'error'", timeout=30_000)
        filler.unlink()
        select(page, "summary", "Mondays", ranked=False)
        page.wait_for_function(f"() => ({SAVE})() === 'saved'", timeout=30_000)
        [a] = stored_records(page)["harbor-lighthouse"]["annotations"].values()
        assert a["summary"]["text"] == "3.2 million euros"
    finally:
        ctx.close()


def test_a_refused_write_is_not_reported_saved_by_a_later_one(page, bundle_server, demo_bundle):
    """A stored entry that cannot be read is never overwritten (the write is refused): the draft written after
    it does not turn the indicator back to "saved"."""
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    bundle_id = json.loads((demo_bundle / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]
    key = f"mercury-static:v1:{bundle_id}:alice"
    page.evaluate("""async (key) => {
        const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
        const db = await req(indexedDB.open('mercury-static'));
        const tx = db.transaction('entries', 'readwrite');
        tx.objectStore('entries').put({status: 'finished?', annotations: 7}, [key, 'r', 'harbor-lighthouse']);
        await new Promise((ok) => { tx.oncomplete = ok; });
        db.close(); }""", key)
    select(page, "summary", "3.2 million euros", ranked=False)
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    wait(page, "() => !pd.draft().summary")
    page.wait_for_function(f"() => ({SAVE})() !== 'saving'", timeout=30_000)
    page.wait_for_timeout(500)
    assert page.evaluate(SAVE) == "error"
    assert "changed elsewhere and cannot be read" in page.inner_text("#storage-error")
    assert page.locator("#storage-error button").inner_text() == "Export my work to a file"
    # as it says: a reload keeps the unreadable entry aside and saves the work anew (the unload journal)
    page.reload()
    page.wait_for_selector(READY)
    page.wait_for_function(f"() => ({SAVE})() !== 'error'")
    assert "kept aside, untouched" in page.inner_text("#storage-aside")
    [a] = own_annotations(page, "harbor-lighthouse")
    assert a["summary"]["text"] == "3.2 million euros"
    fresh = [v for k, v in page.evaluate(STORED) if k[0] == f"{key}#2" and k[1:] == ["r", "harbor-lighthouse"]]
    assert [x["summary"]["text"] for x in fresh[0]["annotations"].values()] == ["3.2 million euros"]


def test_two_tabs_save_one_draft_once(context, bundle_server, tmp_path):
    a, b = context.new_page(), context.new_page()
    for p in (a, b):
        block_model(p)
    open_page(a, bundle_server, "bakery-coop")
    select(a, "summary", "about 15 percent", ranked=False)
    a.keyboard.press("1")
    wait_saved(a)
    draft_id = query(a, "() => pd.draft().id")  # the id it will be saved as
    open_page(b, bundle_server, "bakery-coop")  # the stored draft shows in the second tab
    wait(b, "() => pd.draft().labels.length === 1")
    b.keyboard.press("n")  # saved there, on the way to the next record
    wait_left(b, 'bakery-coop')
    wait(a, """() => Object.values(pd.entry('bakery-coop')?.annotations || {})
        .length === 1""")
    a.bring_to_front()
    a.keyboard.press("Enter")  # the first tab no longer holds that draft: nothing to save twice
    a.wait_for_timeout(500)
    assert not query(a, "() => pd.draft().summary")
    assert len(own_annotations(a, "bakery-coop")) == 1
    assert [x["id"] for x in stored_records(a)["bakery-coop"]["annotations"].values()] == [draft_id]
    [rec] = [r for r in export_file(a, tmp_path)["records"] if r["record_id"] == "bakery-coop"]
    assert len(rec["annotations"]) == 1


def test_import_compares_instants_clamps_the_future_and_leaves_out_what_merge_refuses(page, bundle_server,
                                                                                         demo_bundle, tmp_path):
    block_model(page)
    open_page(page, bundle_server, "urban-bees")
    summary = pane_text(page, "summary")
    first = summary.split(" ")[0]
    select(page, "summary", first, ranked=False)
    page.keyboard.press("1")
    page.fill("#draft-note", "local edit")
    page.locator("#draft-note").blur()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({SAVE})() === 'saved'")
    [local] = own_annotations(page, "urban-bees")
    # the same annotation exported 8 hours earlier from a clock at +09:00: its text sorts after the local time
    edited = datetime.fromisoformat(local["updated_at"].replace("Z", "+00:00"))
    older = (edited - timedelta(hours=8)).astimezone(timezone(timedelta(hours=9))).isoformat(timespec="seconds")
    assert older > local["updated_at"]
    span = {"start": 0, "end": len(first), "text": first}
    ann = lambda ident, note, at: {"id": ident, "label": ["Benign"], "note": note, "summary": span,  # noqa: E731
                                   "source": None, "created_at": at, "updated_at": at}
    bundle_id = json.loads((demo_bundle / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]
    doc = {"format": "mercury-static/annotations", "version": 2, "bundle_id": bundle_id, "title": "Demo",
           "annotator": "alice", "client_id": "wrong-clock", "exported_at": "9999-01-01T00:00:00Z",
           "records": [
               {"record_id": "urban-bees", "status": "in_progress", "updated_at": older,
                "annotations": [ann(local["id"], "imported, older", older), ann("broken", "half \ud83d of a pair", older)],
                "responses": {}, "suggestions": {"shown": True, "accepted": {"spans": "nobody"}}},
               {"record_id": "harbor-lighthouse", "status": "submitted", "updated_at": "9999-01-01",
                "annotations": [], "responses": {}, "suggestions": {"shown": True, "accepted": {}}},
           ]}
    path = tmp_path / "wrong-clock.json"
    path.write_text(json.dumps(doc), encoding="utf-8")  # the lone surrogate as \ud83d, as a browser writes it
    page.set_input_files("#import-file", str(path))
    page.wait_for_selector("#message")
    message = page.inner_text("#message")
    assert "on 1 record this browser also had work: its newer changes were kept" in message
    assert "Left out 2" in message and "annotation broken: field 'note': lone surrogate U+D83D" in message
    assert "\"nobody\" made no suggestion" in message
    assert "1 time in the file was later than now" in message
    [a] = own_annotations(page, "urban-bees")
    assert a["note"] == "local edit"  # the instant is older, whatever its text says
    entry = stored_records(page)["urban-bees"]
    assert "accepted" not in entry and set(entry["annotations"]) == {local["id"]}
    # the record stamped 9999 was brought back to now: reopening it afterwards wins, after a reload too
    go_to(page, "harbor-lighthouse")
    wait_current(page, 'harbor-lighthouse')
    assert record_work(page, 'harbor-lighthouse')['status'] == "submitted"
    query(page, "() => pd.setStatus('in_progress')")
    page.wait_for_function(f"() => ({SAVE})() === 'saved'")
    page.reload()
    page.wait_for_selector(READY)
    assert record_work(page, 'harbor-lighthouse')['status'] == "in_progress"


def test_import_into_a_fresh_profile_does_not_claim_it_kept_newer_work(page, bundle_server, demo_bundle, tmp_path):
    """A fresh browser has no work to keep; the message says what was imported, nothing more."""
    block_model(page)
    open_page(page, bundle_server, "urban-bees")
    bundle_id = json.loads((demo_bundle / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]
    at = "2026-01-02T03:04:05Z"
    doc = {"format": "mercury-static/annotations", "version": 2, "bundle_id": bundle_id, "title": "Demo",
           "annotator": "alice", "client_id": "elsewhere", "exported_at": at,
           "records": [{"record_id": "harbor-lighthouse", "status": "submitted", "updated_at": at,
                        "annotations": [], "responses": {}, "suggestions": {"shown": True, "accepted": {}}}]}
    path = tmp_path / "alice.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    page.set_input_files("#import-file", str(path))
    page.wait_for_selector("#message")
    message = page.inner_text("#message")
    assert "Imported 0 annotations on 1 record from alice.json." in message
    assert "kept" not in message
