"""Nothing the page calls saved is lost, and what it says agrees with itself: two tabs saving on one record
keep every annotation; a change that neither IndexedDB nor the unload journal kept never looks saved; the
top bar's statuses stay apart; the upload status tells what is left and why it fails; a half-typed review
comment survives a reload. Real Chromium, real tabs, real files."""

from __future__ import annotations

import json

import pytest
from pagedriver import READY, annotate, export_file, open_page, own_annotations, query, select, wait
from test_collect import annotate_and_submit, link_of, open_link
from test_page_review import open_review, review_server, team  # noqa: F401 - fixtures
from test_page import block_model, stored_records

pytestmark = pytest.mark.browser


@pytest.fixture
def collect_bundle(demo_bundle, fresh_copy, serve_dir):
    bundle = fresh_copy(demo_bundle)
    return bundle, serve_dir(bundle)

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
SAVED = "() => pd.saveState() === 'saved'"


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
            wait(p, SAVED)
        a.reload()
        a.wait_for_selector(READY)
        texts = sorted(x["summary"]["text"] for x in stored_records(a)[record]["annotations"].values()
                       if not x.get("deleted"))
        assert texts == sorted(words), record
        assert sorted(x["summary"]["text"] for x in own_annotations(a, record)) == sorted(words)


def test_a_change_neither_store_kept_never_looks_saved(browser, bundle_server, tmp_path):
    """An export holding a note of ten million characters, imported, then the page reloaded while it still says "saving": the unload
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
        wait(p, "() => pd.saveState() === 'saving'")
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
        wait(p, "() => pd.saveState() === 'saving'")
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
        wait(p, "() => !pd.draft().summary")
        p.wait_for_timeout(500)
        assert p.locator("#save-status").get_attribute("data-state") == "error"
        p.reload()  # said once: the next load starts clean
        p.wait_for_selector(READY)
        p.wait_for_function("() => document.querySelector('#save-status').dataset.state !== 'error'")
        assert not p.locator("#storage-error").count()
    finally:
        ctx.close()


# ------------------------------------------------------------------------------- the upload tells the truth

def dav_link(run, bundle, dav, base) -> str:
    url = dav.url.replace("http://", "http://team:secret@") + "drop/"
    return link_of(run("links", bundle, "--annotators", "alice", "--collect", url, "--url", base), "alice")


def puts(page) -> list[str]:
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url) if r.method == "PUT" else None)
    return seen


def not_cut(page, selector: str) -> bool:
    return page.evaluate("(s) => { const el = document.querySelector(s); return el.scrollWidth <= el.clientWidth; }",
                         selector)


@pytest.mark.parametrize("case", ["folder missing", "blocked by the page's policy"])
def test_an_upload_that_cannot_succeed_says_why_and_stops(run, dav, collect_bundle, page, case):
    bundle, base = collect_bundle
    link = dav_link(run, bundle, dav, base)
    if case == "folder missing":  # removed after `links` checked it: WebDAV answers 409
        (dav.root / "drop").rmdir()
    else:  # the bundle rebuilt or copied after `links`: its policy lacks the storage
        html = bundle / "index.html"
        html.write_text(html.read_text(encoding="utf-8").replace(f" {dav.url.rstrip('/')};", ";"), encoding="utf-8")
    sent = puts(page)
    open_link(page, link)
    annotate_and_submit(page)
    page.wait_for_function("() => document.querySelector('#upload-status').dataset.state === 'failed'", timeout=30_000)
    el = page.locator("#upload-status")
    expected = "NOT uploaded: storage folder missing" if case == "folder missing" \
        else "NOT uploaded: page not allowed to reach the storage"
    assert el.inner_text() == expected and not_cut(page, "#upload-status")
    title = el.get_attribute("title")
    assert "coordinator" in title and "Export still works" in title
    if case != "folder missing":
        assert "mercury-static links" in title
    assert page.evaluate("() => getComputedStyle(document.querySelector('#upload-status')).fontWeight") == "600"
    tried = len(sent)
    page.wait_for_timeout(7_000)  # past two backoff steps: no retry of what cannot succeed
    assert len(sent) == tried
    assert el.get_attribute("data-state") == "failed"


def test_with_a_storage_link_the_page_counts_what_is_not_uploaded_and_keeps_statuses_apart(run, dav, collect_bundle,
                                                                                               page):
    bundle, base = collect_bundle
    open_link(page, dav_link(run, bundle, dav, base))
    annotate_and_submit(page)
    page.wait_for_function("() => document.querySelector('#upload-status').dataset.state === 'uploaded'",
                           timeout=30_000)
    page.wait_for_function("() => document.querySelector('#save-status').dataset.state === 'saved'")
    assert page.locator("#upload-status").inner_text() == "uploaded just now"
    assert page.locator("#unexported").inner_text() == "all uploaded"  # nothing exported, yet all delivered
    query(page, "() => pd.showAllDone(true)")
    assert page.locator("#all-done-export").inner_text() == "Everything is uploaded: your coordinator has all your work."
    query(page, "() => pd.showAllDone(false)")
    # the two statuses never read as one phrase: apart, with a rule between them
    gap = page.evaluate("""() => {
        const a = document.querySelector('#save-status').getBoundingClientRect();
        const b = document.querySelector('#upload-status');
        const st = getComputedStyle(b);
        return {gap: b.getBoundingClientRect().left + parseFloat(st.paddingLeft) - a.right,
                rule: st.borderLeftStyle !== 'none' && parseFloat(st.borderLeftWidth) >= 1};
    }""")
    assert gap["gap"] >= 8 and gap["rule"], gap
    # a change after the upload: counted as not uploaded until the next upload has it
    annotate_and_submit(page)
    assert page.locator("#unexported").inner_text().endswith("not uploaded")
    page.wait_for_function("() => document.querySelector('#unexported').textContent === 'all uploaded'",
                           timeout=30_000)


# ------------------------------------------------------------------------------- a review comment half typed

def test_a_half_typed_review_comment_survives_a_reload(page, review_server):  # noqa: F811 - the fixture
    open_review(page, review_server)
    record = page.evaluate("() => document.body.dataset.record")
    page.keyboard.press("Shift+C")
    page.wait_for_selector("#rv-comment:focus")
    page.keyboard.type("the source says 2.3, not")
    page.reload()
    page.wait_for_selector("body[data-ready]")
    page.wait_for_function("(id) => document.body.dataset.record === id", arg=record)
    page.wait_for_selector("#rv-comment")
    assert page.locator("#rv-comment").input_value() == "the source says 2.3, not"
    page.locator("#rv-comment").focus()
    page.keyboard.press("End")
    page.keyboard.type(" 3.2")
    page.keyboard.press("Enter")
    wait(page, "(id) => Object.keys(pd.entry(id)?.review || {})"
               ".some((k) => k.startsWith('c:'))", record)
    [text] = query(page, """(id) => Object.entries(pd.entry(id).review)
        .filter(([k]) => k.startsWith('c:')).map(([, v]) => v.value.text)""", record)
    assert text == "the source says 2.3, not 3.2"
    page.reload()  # posted: no box comes back
    page.wait_for_selector("body[data-ready]")
    page.wait_for_function("(id) => document.body.dataset.record === id", arg=record)
    page.wait_for_timeout(300)
    assert not page.locator("#rv-comment").count()
