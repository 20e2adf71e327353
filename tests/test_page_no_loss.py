"""Nothing the page calls saved is lost, and what it says agrees with itself: two tabs saving on one record
keep every annotation; a change that neither IndexedDB nor the unload journal kept never looks saved; the
top bar's statuses stay apart; the upload status tells what is left and why it fails; a half-typed review
comment survives a reload. Real Chromium, real tabs, real files."""

from __future__ import annotations

import json

import pytest
from test_page import READY, annotate, block_model, export_file, open_page, own_annotations, select, stored_records

pytestmark = pytest.mark.browser

ROUNDS = {
    "harbor-lighthouse": ["Brenmouth", "lighthouse", "reopens", "14 June", "two-year", "restoration", "costing",
                          "3.2 million", "original", "Fresnel", "lens", "tower", "Guided", "tours",
                          "afternoon", "Mondays"],
    "bakery-coop": ["Six", "Vellon", "bakeries", "flour", "together", "cooperative", "expect", "15 percent",
                    "ingredients", "share", "delivery", "van", "Marta", "Quell", "chairs", "group"],
    "urban-bees": ["survey", "Ostrava", "Vale", "112", "wild", "species", "farmland", "Closely", "mown", "lawns",
                   "native", "flower", "gardens", "authors", "recommend", "twice"],
}
HOLD = """async () => {
    const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
    const db = await req(indexedDB.open('mercury-static'));
    const os = db.transaction('entries', 'readwrite').objectStore('entries');
    window.holding = true;
    window.released = new Promise((ok) => { os.transaction.oncomplete = ok; });
    const spin = () => { if (window.holding) os.get('nothing').onsuccess = spin; };
    spin(); }"""
SAVED = "() => mercuryStatic.store.state.ui.save.state === 'saved'"


def test_two_tabs_saving_on_one_record_keep_every_annotation(context, bundle_server):
    """Each tab selects, labels and saves its own annotations, interleaved step by step with the other's: a
    draft written by one tab must not take the place of the other's, and no save may drop another's."""
    a, b = context.new_page(), context.new_page()
    for p in (a, b):
        block_model(p)
    for record, words in ROUNDS.items():
        for p in (a, b):
            open_page(p, bundle_server, record)
        for i in range(0, len(words), 2):
            select(a, "summary", words[i], ranked=False)
            select(b, "summary", words[i + 1], ranked=False)
            for p in (a, b):
                p.bring_to_front()
                p.keyboard.press("1")
            for p in (a, b):
                p.bring_to_front()
                p.keyboard.press("Enter")
        for p in (a, b):
            p.wait_for_function(SAVED)
        a.reload()
        a.wait_for_selector(READY)
        texts = sorted(x["summary"]["text"] for x in stored_records(a)[record]["annotations"].values()
                       if not x.get("deleted"))
        assert texts == sorted(words), record
        assert sorted(x["summary"]["text"] for x in own_annotations(a, record)) == sorted(words)


def test_a_change_neither_store_kept_never_looks_saved(browser, bundle_server, tmp_path):
    """An export holding a 10 MB note, imported, then the page reloaded while it still says "saving": the unload
    journal cannot hold that much, so the next load either has the annotation or says it was NOT saved and
    offers Export (the save indicator in its error state)."""
    ctx = browser.new_context(accept_downloads=True)
    try:
        p = ctx.new_page()
        block_model(p)
        open_page(p, bundle_server, "harbor-lighthouse")
        annotate(p, "Brenmouth", "1", note="small")
        exported = export_file(p, tmp_path)
    finally:
        ctx.close()
    [rec] = [r for r in exported["records"] if r["record_id"] == "harbor-lighthouse"]
    rec["annotations"][0]["note"] = "x" * 10_000_000
    path = tmp_path / "big.json"
    path.write_text(json.dumps(exported), encoding="utf-8")

    ctx = browser.new_context(accept_downloads=True)
    try:
        p = ctx.new_page()
        block_model(p)
        asked = []
        p.on("dialog", lambda d: (asked.append(d.type), d.accept()))
        open_page(p, bundle_server, "harbor-lighthouse")
        p.set_input_files("#import-file", str(path))
        p.wait_for_function("() => mercuryStatic.store.state.ui.save.state === 'saving'")
        p.reload()
        p.wait_for_selector(READY)
        p.wait_for_function("() => document.body.dataset.record === 'harbor-lighthouse'")
        kept = [a for a in own_annotations(p, "harbor-lighthouse") if len(a["note"]) == 10_000_000]
        assert kept or asked == ["beforeunload"]  # asked before it left with a change it could not keep
        if not kept:
            assert p.locator("#save-status").get_attribute("data-state") == "error"
            assert p.locator("#save-status").inner_text() == "NOT saved"
            banner = p.locator("#storage-error")
            assert "NOT saved" in banner.inner_text() and "harbor-lighthouse" in banner.inner_text()
            assert banner.locator("button").inner_text() == "Export my work to a file"
            p.wait_for_timeout(300)  # a later save does not turn it back to "saved" in this load
            annotate(p, "lighthouse", "1")
            p.wait_for_timeout(500)
            assert p.locator("#save-status").get_attribute("data-state") == "error"
        p.reload()  # said once: the next load starts clean
        p.wait_for_selector(READY)
        p.wait_for_function("() => !document.querySelector('#storage-error')")
    finally:
        ctx.close()

    # the same, made certain: another page of the origin holds the database busy, so the import's write waits
    ctx = browser.new_context(accept_downloads=True)
    try:
        p, holder = ctx.new_page(), ctx.new_page()
        block_model(p)
        asked = []
        p.on("dialog", lambda d: (asked.append(d.type), d.accept()))
        open_page(p, bundle_server, "harbor-lighthouse")
        holder.goto(bundle_server + "manifest.json")
        holder.evaluate(HOLD)
        p.bring_to_front()
        p.set_input_files("#import-file", str(path))
        p.wait_for_function("() => mercuryStatic.store.state.ui.save.state === 'saving'")
        p.reload(wait_until="commit")
        holder.evaluate("() => { window.holding = false; return window.released; }")
        p.wait_for_selector(READY)
        p.wait_for_function("() => document.body.dataset.record === 'harbor-lighthouse'")
        assert asked == ["beforeunload"]
        assert not [a for a in own_annotations(p, "harbor-lighthouse") if len(a["note"]) == 10_000_000]
        assert p.locator("#save-status").get_attribute("data-state") == "error"
        assert p.locator("#save-status").inner_text() == "NOT saved"
        banner = p.locator("#storage-error")
        assert "NOT saved" in banner.inner_text() and "harbor-lighthouse" in banner.inner_text()
        assert banner.locator("button").inner_text() == "Export my work to a file"
        annotate(p, "lighthouse", "1")  # a later save does not turn it back to "saved" in this load
        p.wait_for_function("() => !mercuryStatic.store.state.draft.summary")
        p.wait_for_timeout(500)
        assert p.locator("#save-status").get_attribute("data-state") == "error"
        p.reload()  # said once: the next load starts clean
        p.wait_for_selector(READY)
        p.wait_for_function("() => document.querySelector('#save-status').dataset.state !== 'error'")
        assert not p.locator("#storage-error").count()
    finally:
        ctx.close()
