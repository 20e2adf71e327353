"""The page never loses work: drafts are work, storage is durable at "saved",
unreadable storage is kept aside, odd record ids are ids, undo, and stale assistance is dropped.

Real Chromium, the real demo bundle and model, real IndexedDB; the crash test SIGKILLs the real
browser process of a persistent profile.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from conftest import CHROMIUM_ARGS, chromium_path
from mercury_static.bundle.contents import load_bundle
from pagedriver import READY, annotate, current_draft, current_id, export_file, open_page, own_annotations, query, select, wait, wait_current, wait_left, wait_model, wait_open
from test_page import STORED, block_model, stored_records

pytestmark = pytest.mark.browser

SAVED = '#save-state[data-state="saved"]'


def wait_saved(page):
    page.wait_for_selector(SAVED, timeout=30_000)


def record_status(page, rid: str):
    return query(page, "(rid) => { const r = pd.entries();"
                       " return Object.prototype.hasOwnProperty.call(r, rid) ? r[rid].status : null; }", rid)


# ------------------------------------------------------------------------------ drafts are work

def test_s_with_a_finished_draft_saves_it_first_and_an_unfinished_one_stops(page, bundle_server):
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    select(page, "summary", "3.2 million euros")
    page.keyboard.press("3")
    page.keyboard.press("s")  # the issue: this recorded "consistent" with 0 annotations
    wait_left(page, 'harbor-lighthouse')
    [a] = own_annotations(page, "harbor-lighthouse")
    assert a["summary"]["text"] == "3.2 million euros"
    assert record_status(page, "harbor-lighthouse") == "submitted"

    # unfinished (a span and a note, no label): s stops with the inline choice; nothing is recorded
    rid = current_id(page)
    select(page, "summary", query(page, "() => pd.record().summary.text").split(" ")[0])
    page.fill("#draft-note", "check this")
    page.keyboard.press("Escape")  # leaves the note
    page.keyboard.press("s")
    choice = page.locator("#draft-choice")
    choice.wait_for()
    assert record_status(page, rid) is None and current_id(page) == rid
    assert page.evaluate("() => document.activeElement.dataset.choice") == "stay"  # focused, Enter = stay
    page.keyboard.press("Enter")
    assert not choice.is_visible() and query(page, "() => pd.draft().note") == "check this"
    for key in ("d", "n", "p"):
        page.keyboard.press(key)
        choice.wait_for()
        page.keyboard.press("Escape")  # Esc = stay
        assert current_id(page) == rid and record_status(page, rid) is None
    # a click in the record list stops the same way
    page.locator('#record-list li[data-record="council-vote"] button').click()
    choice.wait_for()
    assert current_id(page) == rid
    page.locator('#draft-choice [data-choice="stay"]').click()
    # throwing it away is the explicit way to submit without it
    page.keyboard.press("s")
    page.locator('#draft-choice [data-choice="discard"]').click()
    wait_left(page, rid)
    assert record_status(page, rid) == "submitted" and own_annotations(page, rid) == []


def test_draft_survives_reload_and_leaving_the_record(page, bundle_server):
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    s = select(page, "summary", "3.2 million euros")
    src = select(page, "source", "2.3 million euros", ranked=False)
    page.fill("#draft-note", "half done")
    wait_saved(page)
    page.reload()
    page.wait_for_selector(READY)
    draft = current_draft(page)
    assert (tuple(draft["summary"]), tuple(draft["source"]), draft["note"]) == (s, src, "half done")
    assert page.locator("#draft-note").input_value() == "half done"
    wait(page, "() => pd.assist().side === 'source'")  # its assistance too
    # a deep link to another record stops the same way; "stay" keeps the address on this record
    page.evaluate("() => { location.hash = '#record=council-vote'; }")
    page.locator('#draft-choice [data-choice="stay"]').click()
    assert current_id(page) == "harbor-lighthouse"
    assert page.evaluate("() => location.hash") == "#record=harbor-lighthouse"
    assert "3.2 million euros" in page.locator('#draft [data-span="summary"]').inner_text()
    # n with it: the choice; "keep it for later" moves on, and coming back restores it
    page.keyboard.press("n")
    page.locator('#draft-choice [data-choice="keep"]').click()
    wait_left(page, 'harbor-lighthouse')
    assert query(page, "() => pd.draft().note") == ""
    page.keyboard.press("p")
    wait(page, "() => pd.record()?.id === 'harbor-lighthouse'")
    draft = current_draft(page)
    assert (tuple(draft["summary"]), tuple(draft["source"]), draft["note"]) == (s, src, "half done")
    # a label finishes it: then leaving saves it as an annotation
    page.keyboard.press("3")
    page.keyboard.press("n")
    wait_left(page, 'harbor-lighthouse')
    [a] = own_annotations(page, "harbor-lighthouse")
    assert (a["summary"]["text"], a["source"]["text"], a["note"]) == ("3.2 million euros", "2.3 million euros", "half done")


PUT_DRAFT = """async ([key, id, value]) => {
    const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
    const db = await req(indexedDB.open('mercury-static'));
    const tx = db.transaction('entries', 'readwrite', { durability: 'strict' });
    tx.objectStore('entries').put(value, [key, 'd', id]);
    await new Promise((ok, ko) => { tx.oncomplete = ok; tx.onerror = () => ko(tx.error); });
    db.close();
}"""


def utf16(text: str, i: int) -> int:
    """The UTF-16 index of code point i of text (the unit of drafts stored by earlier pages)."""
    return len(text[:i].encode("utf-16-le")) // 2


def test_a_utf16_draft_of_the_earlier_page_is_restored_after_an_emoji(page, bundle_server, demo_bundle):
    """Drafts stored before the store kept one unit hold UTF-16 spans and no `unit`: after the page's
    change they are read as such, so a span after an emoji is restored on the same words, saved as such,
    and stored again in code points (`unit: 'cp'`) at the next change."""
    block_model(page)
    open_page(page, bundle_server, "space-exhibit")
    demo = load_bundle(demo_bundle)
    record = demo.record("space-exhibit")
    quote_s, quote_e = "𝔘-shaped sleeping bag", "𝔘-shaped sleeping bag used by astronauts"
    s = record.summary.index(quote_s)
    e = record.source.index(quote_e)
    span_s, span_e = [s, s + len(quote_s)], [e, e + len(quote_e)]
    old = {"anchor": "summary", "summary": [utf16(record.summary, i) for i in span_s],
           "source": [utf16(record.source, i) for i in span_e], "labels": [], "note": "from the old page",
           "editingId": None, "updated_at": "2026-11-30T10:00:00.000Z"}  # today's stored shape, exactly
    assert old["summary"][0] == s + 1 and old["source"][0] > e  # the emoji before them: the units differ
    key = f"mercury-static:v1:{demo.manifest['bundle_id']}:alice"
    page.evaluate(PUT_DRAFT, [key, "space-exhibit", old])
    page.reload()
    page.wait_for_selector(READY)
    wait(page, "() => pd.draft().note === 'from the old page'")
    draft = current_draft(page)
    assert (draft["summary"], draft["source"]) == (span_s, span_e)
    assert quote_s in page.locator('#draft [data-span="summary"]').inner_text()
    page.wait_for_function("() => CSS.highlights.get('ms-draft')?.size === 2")  # drawn on the same words
    assert sorted(page.evaluate("() => [...CSS.highlights.get('ms-draft')].map((r) => r.toString())")) == \
        sorted([quote_s, quote_e])
    wait(page, "() => pd.assist().side === 'source'")  # its assistance too
    # the next change stores it in code points, and a reload restores that as it is
    page.fill("#draft-note", "checked")
    page.locator("#draft-note").blur()
    wait_saved(page)
    [stored] = [v for k, v in page.evaluate(STORED) if k[0] == key and k[1:] == ["d", "space-exhibit"]]
    assert (stored["unit"], stored["summary"], stored["source"]) == ("cp", span_s, span_e)
    page.reload()
    page.wait_for_selector(READY)
    wait(page, "() => pd.draft().note === 'checked'")
    assert (query(page, "() => pd.draft().summary"), query(page, "() => pd.draft().source")) == (span_s, span_e)
    # saved as an annotation: Python's offsets and the quoted text
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    wait(page, "() => !pd.draft().summary")
    [a] = own_annotations(page, "space-exhibit")
    assert a["summary"] == {"start": span_s[0], "end": span_s[1], "text": quote_s}
    assert a["source"] == {"start": span_e[0], "end": span_e[1], "text": quote_e}


def test_esc_in_the_note_leaves_the_field_and_clearing_a_labelled_draft_takes_two_steps(page, bundle_server):
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    select(page, "summary", "3.2 million euros")
    page.keyboard.press("3")
    page.click("#draft-note")
    page.keyboard.type("a note")
    page.keyboard.press("Escape")
    assert page.evaluate("() => document.activeElement.id") != "draft-note"
    d = current_draft(page)
    assert d["summary"] and d["labels"] == ["Unwanted.Intrinsic"] and d["note"] == "a note"
    page.keyboard.press("Escape")  # first step: says what a second one does
    assert "again" in page.locator("#draft-message").inner_text()
    assert query(page, "() => pd.draft().note") == "a note"
    page.keyboard.press("Escape")
    assert current_draft(page) == {"anchor": None, "summary": None, "source": None, "labels": [], "note": "",
                                      "editingId": None}
    # a bare selection clears at once
    select(page, "summary", "3.2 million euros")
    page.keyboard.press("Escape")
    assert query(page, "() => pd.draft().summary") is None


# ------------------------------------------------------------------------------ durable storage

def browser_pid(user_data_dir: Path) -> int:
    """The browser process of a profile: the Chromium process with its --user-data-dir and no --type."""
    flag = f"--user-data-dir={user_data_dir}".encode()
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            args = (p / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if flag in args and not any(a.startswith(b"--type=") for a in args):
            return int(p.name)
    raise AssertionError(f"no browser process for {user_data_dir}")


@pytest.mark.parametrize("delay_ms", [0, 150, 300])
def test_sigkill_of_the_browser_right_after_saved_loses_nothing(browser, bundle_server, tmp_path, delay_ms):
    profile = tmp_path / "profile"
    kind = browser.browser_type

    def launch():
        ctx = kind.launch_persistent_context(profile, executable_path=chromium_path(), headless=True,
                                             args=CHROMIUM_ARGS)
        pg = ctx.pages[0] if ctx.pages else ctx.new_page()
        block_model(pg)
        return ctx, pg

    ctx, pg = launch()
    open_page(pg, bundle_server, "harbor-lighthouse")
    annotate(pg, "3.2 million euros", "3", note="kept", source="2.3 million euros")
    select(pg, "summary", "Mondays")  # and a draft after it
    pg.fill("#draft-note", "draft kept")
    wait(pg, "() => document.querySelector('#save-state').dataset.state === 'saved'"
             " && pd.savedDraft('harbor-lighthouse')?.note === 'draft kept'")
    time.sleep(delay_ms / 1000)
    os.kill(browser_pid(profile), signal.SIGKILL)
    try:
        ctx.close()
    except Exception:  # noqa: BLE001 - the browser is gone: closing may only report it
        pass

    ctx, pg = launch()
    try:
        pg.goto(bundle_server + "?annotator=alice#record=harbor-lighthouse")
        pg.wait_for_selector(READY)
        [a] = own_annotations(pg, "harbor-lighthouse")
        assert (a["summary"]["text"], a["source"]["text"], a["note"]) == ("3.2 million euros", "2.3 million euros", "kept")
        assert query(pg, "() => pd.draft().note") == "draft kept"
        assert pg.locator("#annotations li[data-annotation]").count() == 1
    finally:
        ctx.close()


# ------------------------------------------------------------------------------ unreadable storage

def test_unreadable_storage_is_kept_aside_told_and_downloadable(page, bundle_server, tmp_path, demo_bundle):
    block_model(page)
    bundle_id = json.loads((demo_bundle / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]
    key = f"mercury-static:v1:{bundle_id}:alice"
    open_page(page, bundle_server, "harbor-lighthouse")
    annotate(page, "3.2 million euros", "3")
    wait_saved(page)
    # an older page's value that is not JSON, and a stored entry with a null annotation and a string label
    legacy = '{"records": {"harbor-lighthouse": {"status": "submitted", "annotations": {'
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, legacy])
    page.evaluate("""async (key) => {
        const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
        const db = await req(indexedDB.open('mercury-static'));
        const os = db.transaction('entries', 'readwrite').objectStore('entries');
        const k = [key, 'r', 'harbor-lighthouse'];
        const e = await req(os.get(k));
        e.annotations.broken = null;
        e.annotations.str = {id: 'str', label: 'Unwanted.Extrinsic', note: '', source: null,
          summary: {start: 0, end: 3, text: 'The'}, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z'};
        await req(os.put(e, k));
        db.close(); }""", key)
    before = [kv for kv in page.evaluate(STORED) if kv[0][0] == key]
    page.reload()
    page.wait_for_selector(READY)
    banner = page.locator("#storage-aside")
    banner.wait_for()
    assert "kept aside" in banner.inner_text() and "fresh key" in banner.inner_text()
    # the page started with what could be read (the string label read as its path) and exports it
    anns = {a["id"]: a for a in own_annotations(page, "harbor-lighthouse")}
    assert anns["str"]["label"] == ["Unwanted", "Unwanted.Extrinsic"] and len(anns) == 2
    annotate(page, "every afternoon", "1")
    wait_saved(page)
    data = export_file(page, tmp_path)
    [rec] = [r for r in data["records"] if r["record_id"] == "harbor-lighthouse"]
    assert len(rec["annotations"]) == 3
    # nothing unreadable was overwritten: the old key and the legacy value are as they were
    assert [kv for kv in page.evaluate(STORED) if kv[0][0] == key] == before
    assert page.evaluate("(k) => localStorage.getItem(k)", key) == legacy
    assert {kv[0][0] for kv in page.evaluate(STORED)} == {key, key + "#2"}
    # the raw download holds both values
    with page.expect_download() as dl:
        banner.locator('[data-action="download-raw"]').click()
    raw = Path(dl.value.path()).read_text(encoding="utf-8")
    assert legacy in raw and '"broken",' not in raw and '"Unwanted.Extrinsic"' in raw and "null" in raw
    # and again on the next load: still told, the fresh key keeps the new work
    page.reload()
    page.wait_for_selector(READY)
    page.locator("#storage-aside").wait_for()
    assert len(own_annotations(page, "harbor-lighthouse")) == 3


def test_work_of_an_older_page_in_local_storage_is_carried_over(page, bundle_server, demo_bundle):
    block_model(page)
    bundle_id = json.loads((demo_bundle / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]
    key = f"mercury-static:v1:{bundle_id}:alice"
    open_page(page, bundle_server, "harbor-lighthouse")
    old = {"records": {"harbor-lighthouse": {"status": "submitted", "status_at": "2026-01-01T00:00:00.000Z",
                                             "updated_at": "2026-01-01T00:00:00.000Z", "annotations": {
        "old1": {"id": "old1", "label": ["Benign"], "note": "from v0", "summary": {"start": 0, "end": 3, "text": "The"},
                 "source": None, "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}}}},
           "last_export_at": None}
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, json.dumps(old)])
    page.reload()
    page.wait_for_selector(READY)
    [a] = own_annotations(page, "harbor-lighthouse")
    assert a["note"] == "from v0" and page.locator("#storage-aside").count() == 0
    assert stored_records(page)["harbor-lighthouse"]["annotations"]["old1"]["note"] == "from v0"
    assert page.evaluate("(k) => localStorage.getItem(k)", key) is None  # moved, once durable


# ------------------------------------------------------------------------------ odd record ids

@pytest.fixture(scope="module")
def proto_bundle(build_bundle, tmp_path_factory):
    d = tmp_path_factory.mktemp("proto")
    rows = [{"id": rid, "source": f"The {rid} museum opened in 1990. It has four floors. Entry is free.",
             "summary": f"The {rid} museum opened in 1999 and has four floors."}
            for rid in ("__proto__", "constructor", "toString", "plain")]
    (d / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return build_bundle([d / "p.jsonl"], name="proto", title="Proto")


def test_proto_and_constructor_are_ids_like_any_other(context, browser, proto_bundle, serve_dir, tmp_path):
    base = serve_dir(proto_bundle)
    a = context.new_page()
    block_model(a)
    open_page(a, base, "__proto__")
    assert record_status(a, "constructor") is None
    assert a.locator('#record-list li[data-record="constructor"]').get_attribute("data-status") == "todo"
    annotate(a, "1999", "3")
    a.keyboard.press("s")
    wait_current(a, 'constructor')
    b = context.new_page()
    block_model(b)
    open_page(b, base, "constructor")
    annotate(b, "four floors", "1")  # the second tab's save must not drop __proto__'s annotation
    wait_saved(b)
    a.wait_for_function("() => document.querySelectorAll('#annotations li[data-annotation]').length === 1")
    for p in (a, b):
        assert [x["summary"]["text"] for x in own_annotations(p, "__proto__")] == ["1999"]
        assert record_status(p, "__proto__") == "submitted"
    assert set(stored_records(a)) == {"__proto__", "constructor"}
    a.reload()
    a.wait_for_selector(READY)
    assert a.locator('#record-list li[data-record="__proto__"]').get_attribute("data-status") == "submitted"
    data = export_file(a, tmp_path)
    assert {r["record_id"]: len(r["annotations"]) for r in data["records"]} == {"__proto__": 1, "constructor": 1}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    # import into a cleared browser restores both
    ctx2 = browser.new_context()
    try:
        c = ctx2.new_page()
        block_model(c)
        open_page(c, base, "__proto__")
        c.set_input_files("#import-file", str(path))
        c.wait_for_selector("#message")
        assert [x["summary"]["text"] for x in own_annotations(c, "__proto__")] == ["1999"]
        assert [x["summary"]["text"] for x in own_annotations(c, "constructor")] == ["four floors"]
        assert record_status(c, "__proto__") == "submitted"
    finally:
        ctx2.close()


# ------------------------------------------------------------------------------ undo

def test_undo_delete_edit_submit_and_discard(page, bundle_server):
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    annotate(page, "3.2 million euros", "3", note="first")
    [a] = own_annotations(page, "harbor-lighthouse")
    toast = page.locator("#toast")
    # delete, undone with the toast's button
    page.locator('#annotations [data-action="delete"]').click()
    assert own_annotations(page, "harbor-lighthouse") == []
    assert "deleted" in toast.inner_text()
    toast.locator('[data-action="undo"]').click()
    [back] = own_annotations(page, "harbor-lighthouse")
    assert back["note"] == "first" and back["id"] == a["id"]
    # edit, undone with Ctrl+Z
    page.locator('#annotations [data-action="edit"]').click()
    page.fill("#draft-note", "second")
    page.keyboard.press("Enter")  # Enter in the note saves
    assert own_annotations(page, "harbor-lighthouse")[0]["note"] == "second"
    page.keyboard.press("Control+z")
    assert own_annotations(page, "harbor-lighthouse")[0]["note"] == "first"
    wait_saved(page)
    page.reload()
    page.wait_for_selector(READY)
    assert own_annotations(page, "harbor-lighthouse")[0]["note"] == "first"  # the undo is stored
    # submit and discard: undone, and back on the record
    for key, status in (("s", "submitted"), ("d", "discarded")):
        page.keyboard.press(key)
        wait_left(page, 'harbor-lighthouse')
        assert record_status(page, "harbor-lighthouse") == status
        page.keyboard.press("Control+z")
        wait_current(page, 'harbor-lighthouse')
        assert record_status(page, "harbor-lighthouse") == "in_progress"
    wait_saved(page)
    assert stored_records(page)["harbor-lighthouse"]["status"] == "in_progress"


# ------------------------------------------------------------------------------ assistance state

def test_a_late_model_answer_lights_nothing_after_save_and_the_header_follows_the_record(page, bundle_server):
    open_page(page, bundle_server, "harbor-lighthouse")
    wait_model(page, timeout=60_000)
    # keep the model's worker busy, so the selection's answer arrives after the save
    query(page, "() => { window.busy = pd.embed(Array.from({length: 48}, (_, i) =>"
                " ('a long sentence number ' + i + ' ').repeat(20))); }")
    select(page, "summary", "every afternoon except Mondays")
    assert query(page, "() => pd.assist().kind") == "precomputed"
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    assert len(own_annotations(page, "harbor-lighthouse")) == 1
    page.evaluate("() => window.busy")
    page.wait_for_timeout(500)
    assert query(page, "() => pd.assist().side") is None
    assert page.locator(".s[data-rank]").count() == 0
    assert page.locator("#assist-source").inner_text() == ""
    # a click on a source sentence without a query span makes no draft
    page.locator('.s[data-side="source"]').first.click()
    assert query(page, "() => pd.draft().source") is None
    # the header clears on a record change
    select(page, "summary", "every afternoon except Mondays")
    assert page.locator("#assist-source").inner_text() != ""
    page.keyboard.press("n")
    page.locator('#draft-choice [data-choice="keep"]').click()
    wait(page, "() => pd.record()?.id !== 'harbor-lighthouse'"
               " && pd.record()")
    assert page.locator("#assist-source").inner_text() == ""


# ------------------------------------------------------------------------------ a rebuilt bundle

@pytest.fixture(scope="module")
def two_builds(build_bundle, tmp_path_factory):
    """Two builds of one titled bundle (the second with one summary changed), served from one origin."""
    import shutil

    from conftest import EXAMPLES

    rows = [json.loads(line) for line in (EXAMPLES / "demo.jsonl").read_text(encoding="utf-8").splitlines() if line]
    d = tmp_path_factory.mktemp("rebuilt")
    (d / "v1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[:3]), encoding="utf-8")
    rows[1] = {**rows[1], "summary": "A different summary now. " + rows[1]["summary"]}
    (d / "v2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[:3]), encoding="utf-8")
    root = tmp_path_factory.mktemp("site")
    for name in ("v1", "v2"):
        shutil.copytree(build_bundle([d / f"{name}.jsonl"], name=name, title="Same title",
                                     labels=EXAMPLES / "labels.yaml"), root / name)
    return root, [r["id"] for r in rows[:3]], rows[1]["summary"]


def test_work_under_an_earlier_build_is_offered_and_checked_against_the_texts(page, two_builds, serve_dir):
    block_model(page)
    root, ids, _ = two_builds
    base = serve_dir(root)
    open_page(page, base + "v1/", ids[0])
    first = query(page, "() => pd.record().summary.text").split(" ")[1]
    annotate(page, first, "1")
    page.keyboard.press("s")
    wait_open(page, ids[1])
    annotate(page, query(page, "() => pd.record().summary.text").split(" ")[0], "2")  # its text changes in v2
    wait_saved(page)
    open_page(page, base + "v2/", ids[0])
    offer = page.locator("[data-earlier]")
    offer.wait_for()
    assert "earlier build" in offer.inner_text() and "2 records" in offer.inner_text()
    assert own_annotations(page, ids[0]) == []
    offer.locator('[data-action="import-earlier"]').click()
    page.wait_for_selector("#message")
    assert "1 did not match" in page.locator("#message").inner_text()
    [a] = own_annotations(page, ids[0])
    assert a["summary"]["text"] == first and record_status(page, ids[0]) == "submitted"
    assert own_annotations(page, ids[1]) == []
    wait_saved(page)
    page.reload()
    page.wait_for_selector(READY)
    assert page.locator("[data-earlier]").count() == 0  # answered: not offered again
    assert len(own_annotations(page, ids[0])) == 1


def test_work_saved_under_a_spelling_of_the_name_before_normalisation_is_offered(page, two_builds, serve_dir):
    """An earlier page kept the name as given ("alice" + a zero-width space from a pasted link); the page now
    normalises it to "alice" (names.js), another storage key: that work is offered, not silently out of reach."""
    block_model(page)
    root, ids, _ = two_builds
    base = serve_dir(root)
    open_page(page, base + "v1/", ids[0])
    first = query(page, "() => pd.record().summary.text").split(" ")[1]
    annotate(page, first, "1")
    wait_saved(page)
    bundle_id = json.loads((root / "v1" / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]
    page.evaluate("""async ([from, to]) => {  // the entries as the earlier page stored them, under the raw name
        const db = await new Promise((ok, no) => { const r = indexedDB.open('mercury-static', 1); r.onsuccess = () => ok(r.result); r.onerror = no; });
        const os = db.transaction('entries', 'readwrite').objectStore('entries');
        const range = IDBKeyRange.bound([from], [from, []]);
        const req = (r) => new Promise((ok) => { r.onsuccess = () => ok(r.result); });
        const [keys, values] = [await req(os.getAllKeys(range)), await req(os.getAll(range))];
        keys.forEach((k, i) => { os.put(values[i], [to, k[1], k[2]]); os.delete(k); });
        await new Promise((ok) => { os.transaction.oncomplete = ok; });
    }""", [f"mercury-static:v1:{bundle_id}:alice", f"mercury-static:v1:{bundle_id}:alice\u200b"])
    open_page(page, base + "v1/", ids[0], annotator="alice\u200b")
    assert query(page, "() => pd.annotator()") == "alice" and own_annotations(page, ids[0]) == []
    offer = page.locator("[data-earlier]")
    offer.wait_for()
    assert 'of this bundle, saved under the name "alice\u200b"' in offer.inner_text()
    offer.locator('[data-action="import-earlier"]').click()
    page.wait_for_selector("#message")
    assert "from the work saved under your name as you gave it before" in page.locator("#message").inner_text()
    [a] = own_annotations(page, ids[0])
    assert a["summary"]["text"] == first
    wait_saved(page)
    page.reload()
    page.wait_for_selector(READY)
    assert page.locator("[data-earlier]").count() == 0 and len(own_annotations(page, ids[0])) == 1


def test_paired_sentence_label_colours_and_a_short_source_lights_only_the_related(page, bundle_server):
    open_page(page, bundle_server, "urban-bees")
    wait_model(page, timeout=60_000)
    summary = query(page, "() => pd.record().summary.text")
    sents = query(page, "() => pd.record().summary.sentences")
    n_source = query(page, "() => pd.record().source.sentences.length")
    lit = []
    for s, e in sents:
        select(page, "summary", summary[s:e].strip())
        wait(page, "() => pd.assist().kind === 'model'")
        scores = query(page, "() => pd.assist().results.map(r => r.score)")
        assert all(x >= scores[0] - 0.15 for x in scores[2:])
        lit.append(len(scores))
        page.keyboard.press("Escape")
    assert max(lit) <= 3 < n_source  # top 5 of 6 lit nearly everything
    # the paired sentence: solid border and a "paired" tag, unlike the best match's outline
    select(page, "summary", summary[sents[0][0]:sents[0][1]].strip())
    wait(page, "() => pd.assist().kind === 'model'")
    second = page.locator('.s[data-side="source"][data-rank="2"]')
    second.click()
    paired = page.locator('.s[data-side="source"][data-paired="first"]')
    assert paired.count() == 1 and paired.get_attribute("data-rank") == "2"
    assert paired.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
    assert paired.evaluate("e => getComputedStyle(e, '::before').content") == '"paired"'
    best = page.locator('.s[data-side="source"][data-rank="1"]')
    assert best.evaluate("e => getComputedStyle(e).outlineStyle") == "none"
    # saved annotations are coloured by label, with a legend
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    annotate(page, summary[sents[1][0]:sents[1][1]].strip().split(" ")[0], "2")
    items = page.locator("#annotations li[data-annotation]")
    colours = items.evaluate_all("els => els.map(e => getComputedStyle(e).borderLeftColor)")
    assert len(set(colours)) == 2
    assert page.evaluate("() => ['ms-label-0', 'ms-label-1'].map(n => CSS.highlights.get(n)?.size)") == [2, 1]
    legend = page.locator("#label-legend")
    choices = query(page, "() => pd.labelChoices()")
    assert [t.strip() for t in legend.locator(".legend-item").all_inner_texts()] == [c.replace(".", " › ") for c in choices]
    assert page.locator('.s[data-paired]').count() == 0  # saved: nothing is paired any more
