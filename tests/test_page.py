"""The annotator page in real Chromium against real bundles.

Fixtures come from conftest.py: `bundle_server` (the demo bundle over HTTP), `build_bundle`, `serve_dir`,
`context` (fails on any request leaving loopback) and `page` (fails on uncaught page errors).
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from mercury_static.bundle.contents import load_bundle
from mercury_static.formats import EXPORT

from pagedriver import READY, annotate, current_draft, current_id, export_file, open_page, own_annotations, pane_text, query, ranked, select, set_min_score, wait, wait_left, wait_model, wait_open

pytestmark = pytest.mark.browser


# ----------------------------------------------------------------------------------------- helpers

STORED = """async () => {
    const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
    const db = await req(indexedDB.open('mercury-static'));
    const os = db.transaction('entries').objectStore('entries');
    const [keys, values] = await Promise.all([req(os.getAllKeys()), req(os.getAll())]);
    db.close();
    return keys.map((k, i) => [k, values[i]]);
}"""


def stored_records(page, annotator: str = "alice") -> dict[str, dict]:
    """{record id: entry} as stored in the page's IndexedDB (work key of `annotator`, first key)."""
    return {k[2]: v for k, v in page.evaluate(STORED)
            if k[0].endswith(f":{annotator}") and k[1] == "r"}


def block_model(page):
    """Make the in-browser model unavailable (as on a browser without wasm)."""
    page.route("**/models/**", lambda route: route.abort())
    page.route("**/vendor/**", lambda route: route.abort())


@pytest.fixture(scope="module")
def demo(demo_bundle):
    return load_bundle(demo_bundle)


# ------------------------------------------------------------------------------------------- tests

def test_selection_ranks_evidence_first_with_the_model(page, bundle_server):
    open_page(page, bundle_server, "harbor-lighthouse")
    set_min_score(page, 0)
    wait_model(page, timeout=60_000)
    select(page, "summary", "every afternoon except Mondays")
    wait(page, "() => pd.assist().kind === 'model'")
    top = ranked(page, "source")
    assert top[1] == "Guided tours will run every afternoon except Mondays."
    # k = 5 by default; min score 0 shows the best two and, beyond them, only sentences within 0.15 of the
    # best (a 6-sentence source no longer lights nearly everything)
    shown = query(page, "() => pd.assist().results.length")
    assert len(top) == shown and 2 <= shown <= 3
    # graded by absolute score, with the score on the element, best first
    scores = [float(page.locator(f'.s[data-side="source"][data-rank="{r}"]').get_attribute("data-score"))
              for r in range(1, shown + 1)]
    assert min(scores) >= 0 and all(x >= scores[0] - 0.15 for x in scores[2:])
    assert scores == sorted(scores, reverse=True)
    levels = page.locator(".s[data-rank]").evaluate_all("els => els.map(e => e.dataset.level)")
    assert set(levels) <= {"1", "2", "3"}
    assert page.locator("#model-status").get_attribute("data-status") == "ready"


def test_precomputed_fallback_when_model_cannot_load(page, bundle_server):
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    wait(page, "() => pd.modelStatus() === 'failed'")
    assert "precomputed" in page.locator("#model-status").inner_text()
    set_min_score(page, 0)
    select(page, "summary", "Guided tours run every afternoon except Mondays.")
    assert query(page, "() => pd.assist().kind") == "precomputed"
    assert ranked(page, "source")[1].startswith("Guided tours will run every afternoon except Mondays.")
    # k and the minimum score are live controls
    page.fill("#ctl-k", "2")
    page.locator("#ctl-k").dispatch_event("change")
    assert len(ranked(page, "source")) <= 2
    set_min_score(page, 0.9)
    assert all(float(s) >= 0.9 for s in page.locator(".s[data-rank]").evaluate_all(
        "els => els.map(e => e.dataset.score)"))


def test_click_highlighted_sentence_pairs_it_then_trim(page, bundle_server):
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    set_min_score(page, 0)
    select(page, "summary", "3.2 million euros")
    target = page.locator('.s[data-side="source"]', has_text="The project cost 2.3 million euros")
    assert target.get_attribute("data-rank")
    target.click()
    draft = current_draft(page)
    text = pane_text(page, "source")
    assert text[draft["source"][0]:draft["source"][1]].startswith("The project cost 2.3 million euros")
    select(page, "source", "2.3 million euros", ranked=False)  # trim inside the paired sentence
    draft = current_draft(page)
    assert text[draft["source"][0]:draft["source"][1]] == "2.3 million euros"
    assert draft["anchor"] == "summary"


def test_create_edit_delete_and_reload(page, bundle_server):
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    annotate(page, "3.2 million euros", "3", note="source says 2.3", source="2.3 million euros")
    anns = own_annotations(page, "harbor-lighthouse")
    assert len(anns) == 1
    a = anns[0]
    assert a["label"] == ["Unwanted", "Unwanted.Intrinsic"]
    assert a["summary"]["text"] == "3.2 million euros" and a["source"]["text"] == "2.3 million euros"
    assert a["note"] == "source says 2.3"
    item = page.locator(f'#annotations li[data-annotation="{a["id"]}"]')
    assert "3.2 million euros" in item.inner_text()

    # hovering shows both spans
    item.hover()
    page.wait_for_function("() => CSS.highlights.get('ms-hover') && CSS.highlights.get('ms-hover').size === 2")

    page.reload()
    page.wait_for_selector(READY)
    item = page.locator(f'#annotations li[data-annotation="{a["id"]}"]')
    assert item.count() == 1

    item.locator('[data-action="edit"]').click()
    page.keyboard.press("3")  # untick Intrinsic
    page.keyboard.press("4")  # tick Extrinsic
    page.keyboard.press("Enter")
    edited = own_annotations(page, "harbor-lighthouse")
    assert [x["label"] for x in edited] == [["Unwanted", "Unwanted.Extrinsic"]]
    assert edited[0]["id"] == a["id"] and edited[0]["created_at"] == a["created_at"]
    assert edited[0]["updated_at"] > a["updated_at"]

    page.locator(f'#annotations li[data-annotation="{a["id"]}"] [data-action="delete"]').click()
    assert own_annotations(page, "harbor-lighthouse") == []
    page.reload()
    page.wait_for_selector(READY)
    assert page.locator("#annotations li[data-annotation]").count() == 0
    assert own_annotations(page, "harbor-lighthouse") == []
    assert "null" not in page.inner_text("#annotations")  # an absent legend is no text at all


def test_second_tab_sees_changes_and_nothing_is_overwritten(context, bundle_server):
    a = context.new_page()
    b = context.new_page()
    for p in (a, b):
        p.route("**/models/**", lambda route: route.abort())
        open_page(p, bundle_server, "bakery-coop")
    annotate(a, "about 15 percent", "1")
    b.wait_for_selector("#annotations li[data-annotation]")  # without reload: the storage event
    # tab B, which has not reloaded, adds its own annotation: A's must survive in storage
    annotate(b, "Marta Quell chairs the group", "2")
    a.wait_for_function("() => document.querySelectorAll('#annotations li[data-annotation]').length === 2")
    stored = stored_records(a)
    texts = sorted(x["summary"]["text"] for x in stored["bakery-coop"]["annotations"].values())
    assert texts == ["Marta Quell chairs the group", "about 15 percent"]
    # a status change in B shows in A's record list
    b.keyboard.press("s")
    a.wait_for_selector('#record-list li[data-record="bakery-coop"][data-status="submitted"]')

    # a newer write that A has not seen (written straight into the database: no tab is told) survives
    # A's next save, which merges with the stored entry inside its transaction
    a.evaluate("""async () => {
        const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
        const db = await req(indexedDB.open('mercury-static'));
        const os = db.transaction('entries', 'readwrite').objectStore('entries');
        const key = (await req(os.getAllKeys())).find(k => k[0].endsWith(':alice') && k[1] === 'r' && k[2] === 'bakery-coop');
        const w = await req(os.get(key));
        w.annotations.ghost = {id: 'ghost', label: ['Benign'], note: 'from elsewhere',
          summary: {start: 0, end: 3, text: 'Six'}, source: null,
          created_at: '2099-01-01T00:00:00.000Z', updated_at: '2099-01-01T00:00:00.000Z'};
        await req(os.put(w, key));
        db.close(); }""")
    annotate(a, "share a delivery van", "2")
    a.wait_for_selector('#save-state[data-state="saved"]')
    stored = stored_records(a)
    notes = {x.get("note") for x in stored["bakery-coop"]["annotations"].values()}
    assert "from elsewhere" in notes and len(stored["bakery-coop"]["annotations"]) == 4
    assert stored["bakery-coop"]["status"] == "submitted"
    # and A shows it (the merged entry came back from the write)
    a.wait_for_selector('#annotations li[data-annotation="ghost"]')


def test_quota_full_says_so_and_export_still_works(page, bundle_server, tmp_path):
    block_model(page)
    open_page(page, bundle_server, "council-vote")
    # a real quota: the origin gets `quotaSize` (Chromium's own quota override), then another database fills it
    cdp = page.context.new_cdp_session(page)
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": bundle_server.rstrip("/"), "quotaSize": 2 << 20})
    page.evaluate("""async () => {
        const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
        const open = indexedDB.open('filler', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('x');
        const db = await req(open);
        let i = 0, size = 1 << 19;
        while (size >= 256) {
            const tx = db.transaction('x', 'readwrite');
            const bytes = new Uint8Array(size); // random: not compressible
            for (let o = 0; o < size; o += 65536) crypto.getRandomValues(bytes.subarray(o, o + 65536));
            tx.objectStore('x').put(bytes, i++);
            const ok = await new Promise((r) => { tx.oncomplete = () => r(true); tx.onabort = () => r(false); });
            if (!ok) size = Math.floor(size / 4);
        }
        db.close();
    }""")
    summary = pane_text(page, "summary")
    span = summary.split(".")[0][:30].rsplit(" ", 1)[0]  # whole words: a drag snaps to them
    annotate(page, span, "2")
    banner = page.locator("#storage-error")
    banner.wait_for()
    assert "storage is full" in banner.inner_text().lower()
    assert "export" in banner.inner_text().lower()
    data = export_file(page, tmp_path)
    recs = {r["record_id"]: r for r in data["records"]}
    assert recs["council-vote"]["annotations"][0]["summary"]["text"] == span


def test_export_format_and_code_point_offsets_with_emoji(page, bundle_server, demo, tmp_path):
    block_model(page)
    open_page(page, bundle_server, "space-exhibit")
    # spans after non-BMP characters (🚀, 𝔘) in both texts
    annotate(page, "𝔘-shaped sleeping bag", "3", source="𝔘-shaped sleeping bag used by astronauts")
    annotate(page, "8月1日", "3", source="7月1日")
    page.keyboard.press("d")  # discard this one… (moves to the next record)
    wait_left(page, 'space-exhibit')
    data = export_file(page, tmp_path)
    assert data["format"] == EXPORT.name and data["version"] == EXPORT.version
    assert data["bundle_id"] == demo.manifest["bundle_id"]
    assert data["annotator"] == "alice" and data["client_id"]
    assert data["title"] == demo.manifest["title"] and data["tool_version"] == demo.manifest["tool_version"]
    assert data["exported_at"].endswith("Z") and len(data["exported_at"]) == 20
    assert set(data) == {"format", "version", "bundle_id", "title", "annotator", "client_id", "exported_at",
                         "tool_version", "records"}
    [rec] = data["records"]
    assert rec["record_id"] == "space-exhibit" and rec["status"] == "discarded"
    record = demo.record("space-exhibit")
    assert len(rec["annotations"]) == 2
    for a in rec["annotations"]:
        assert set(a) == {"id", "label", "note", "summary", "source", "created_at", "updated_at", "elapsed_ms"}
        assert record.summary[a["summary"]["start"]:a["summary"]["end"]] == a["summary"]["text"]
        assert record.source[a["source"]["start"]:a["source"]["end"]] == a["source"]["text"]
    texts = {a["summary"]["text"] for a in rec["annotations"]}
    assert texts == {"𝔘-shaped sleeping bag", "8月1日"}
    # the counter of unexported changes resets on export
    assert page.locator("#unexported").get_attribute("data-count") == "0"


def test_import_restores_refuses_other_bundles_and_keeps_newer_work(browser, bundle_server, tmp_path):
    ctx1 = browser.new_context(accept_downloads=True)
    p1 = ctx1.new_page()
    p1.route("**/models/**", lambda route: route.abort())
    open_page(p1, bundle_server, "urban-bees")
    summary = pane_text(p1, "summary")
    first = summary.split(" ")[0]
    annotate(p1, first, "1", note="old note")
    p1.keyboard.press("s")
    exported = export_file(p1, tmp_path)
    ctx1.close()
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exported), encoding="utf-8")

    ctx2 = browser.new_context()
    p2 = ctx2.new_page()
    p2.route("**/models/**", lambda route: route.abort())
    open_page(p2, bundle_server, "urban-bees")
    assert own_annotations(p2, "urban-bees") == []  # a cleared browser

    # another bundle's file is refused with a clear message, nothing imported
    other = dict(exported, bundle_id="0000000000000000", title="Another bundle")
    (tmp_path / "other.json").write_text(json.dumps(other), encoding="utf-8")
    p2.set_input_files("#import-file", str(tmp_path / "other.json"))
    p2.wait_for_selector("#message")
    assert "another bundle" in p2.locator("#message").inner_text()
    assert own_annotations(p2, "urban-bees") == []

    p2.set_input_files("#import-file", str(path))
    p2.wait_for_function("() => document.querySelectorAll('#annotations li[data-annotation]').length === 1")
    [a] = own_annotations(p2, "urban-bees")
    assert a["note"] == "old note"
    assert p2.locator('#record-list li[data-record="urban-bees"]').get_attribute("data-status") == "submitted"

    # edit locally (newer), then import the old file again: the newer note stays
    p2.locator('#annotations [data-action="edit"]').click()
    p2.fill("#draft-note", "new note")
    p2.locator("#draft-note").blur()
    p2.keyboard.press("Enter")
    p2.set_input_files("#import-file", str(path))
    p2.wait_for_selector("#message")
    [a] = own_annotations(p2, "urban-bees")
    assert a["note"] == "new note"
    ctx2.close()


def test_untrusted_text_is_inert(page, bundle_server):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    block_model(page)
    open_page(page, bundle_server, "markup-safety")
    for side in ("source", "summary"):
        # a pane's blocks get their text in idle time: wait until all of it is in the DOM
        page.wait_for_selector(f"#pane-{side} .text[data-complete]", state="attached")
        pane = page.locator(f"#pane-{side}")
        assert "<script>alert(1)</script>" in pane.inner_text()
        assert pane.locator("img, script").count() == 0
        # the DOM text equals the record text exactly (markers are CSS-generated)
        assert query(page, "(side) => document.getElementById(`pane-${side}`).textContent"
                           " === pd.pane(side).view.text", side)
    kinds = set(page.locator("#pane-source .ctl").evaluate_all("els => els.map(e => e.dataset.ctl)"))
    assert {"RLO", "ZWSP"} <= kinds
    assert page.locator("#pane-source .ctl").first.evaluate("e => getComputedStyle(e).unicodeBidi") == "isolate"
    annotate(page, "<img src=x onerror=alert(1)>", "1")
    assert page.locator("img").count() == 0
    assert dialogs == []


@pytest.fixture(scope="module")
def hostile_bundle(build_bundle, tmp_path_factory):
    """A Mercury dump with markup in ids, metadata, notes and guidelines, and prior annotations."""
    d = tmp_path_factory.mktemp("hostile")
    xss = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    source = "The dam holds 40 million cubic metres of water. It was finished in 1971. 🌊 Engineers inspect it yearly."
    summary = "The dam, finished in 1971, holds 50 million cubic metres. It is inspected every year."
    samples = [{
        "sample_id": f"r1{xss}", "source": source, "summary": summary,
        "metadata": {"title": f"Dam {xss}", xss: xss + "\u202egnp.exe", "score": 0.5},
        "annotations": [{
            "annot_id": 7, "annotator_name": f"bob{xss}", "label": ["Unwanted", "Unwanted.Intrinsic"],
            "note": f"note {xss}", "summary_span": "50 million cubic metres", "summary_start": 34,
            "summary_end": 57, "source_span": "40 million cubic metres", "source_start": 14, "source_end": 37,
        }],
    }, {"sample_id": "r2", "source": "Plain source text here.", "summary": "Plain summary.", "annotations": []}]
    (d / "dump.json").write_text(json.dumps({"samples": samples}, ensure_ascii=False), encoding="utf-8")
    (d / "guide.md").write_text(f"# Rules {xss}\n\n- **be** careful with {xss}\n- `code`\n\nText *em*.\n",
                                encoding="utf-8")
    return build_bundle([d / "dump.json"], name="hostile", guidelines=d / "guide.md", title=f"T {xss}")


def test_hostile_metadata_guidelines_and_prior_annotations(page, hostile_bundle, serve_dir):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    block_model(page)
    base = serve_dir(hostile_bundle)
    page.goto(base + "?annotator=" + quote("<b>eve</b>"))
    page.wait_for_selector(READY)
    guide = page.locator("#guidelines")
    assert guide.is_visible()  # opens on the first visit
    assert guide.locator("h3").count() == 1 and guide.locator("li strong").count() == 1
    assert guide.locator("em").count() == 1 and guide.locator("code").count() == 1
    page.keyboard.press("Escape")
    assert not guide.is_visible()
    page.locator("#record-info details summary").click()
    assert "onerror" in page.locator("#record-info").inner_text()
    assert page.locator('#record-info .ctl[data-ctl="RLO"]').count() == 1  # inert outside the panes too
    assert page.locator("img").count() == 0 and page.locator("body script").count() == 0
    assert page.locator("#annotator").inner_text() == "<b>eve</b>"

    # the prior annotation is a suggestion; accepting copies it into the annotator's own
    sugg = page.locator("#suggestions li[data-prior]")
    assert sugg.count() == 1 and "onerror" in sugg.inner_text()
    sugg.hover()
    page.wait_for_function("() => CSS.highlights.get('ms-hover') && CSS.highlights.get('ms-hover').size === 2")
    sugg.locator('[data-action="accept"]').click()
    rid = current_id(page)
    [a] = own_annotations(page, rid)
    assert a["summary"]["text"] == "50 million cubic metres" and a["source"]["text"] == "40 million cubic metres"
    assert a["label"] == ["Unwanted", "Unwanted.Intrinsic"] and a["id"] != "7"
    assert sugg.locator('[data-action="accept"]').is_disabled()
    assert dialogs == []


def test_navigation_keyboard_deep_link_and_progress(page, bundle_server, demo):
    block_model(page)
    ids = [r.id for r in demo.records]
    open_page(page, bundle_server, ids[3])
    assert current_id(page) == ids[3]
    assert page.locator("#rec-pos").inner_text() == f"4 / {len(ids)}"
    page.keyboard.press("n")
    page.wait_for_function(f"() => location.hash === '#record={quote(ids[4])}'")
    page.keyboard.press("p")
    wait(page, f"() => pd.currentId() === {json.dumps(ids[3])}")
    page.keyboard.press("s")  # submit with no annotation = consistent; moves on
    wait(page, f"() => pd.currentId() === {json.dumps(ids[4])}")
    page.keyboard.press("d")
    assert page.locator("#progress-text").inner_text() == f"2 / {len(ids)} done"
    assert page.locator(f'#record-list li[data-record="{ids[3]}"]').get_attribute("data-status") == "submitted"
    assert page.locator(f'#record-list li[data-record="{ids[4]}"]').get_attribute("data-status") == "discarded"
    page.keyboard.press("?")
    assert page.locator("#overlay-help").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#overlay-help").is_visible()
    page.locator(f'#record-list li[data-record="{ids[0]}"] button').click()
    wait(page, f"() => pd.currentId() === {json.dumps(ids[0])}")
    page.evaluate(f"() => {{ location.hash = '#record={quote(ids[7])}'; }}")
    wait(page, f"() => pd.currentId() === {json.dumps(ids[7])}")


def test_annotator_is_asked_once_and_remembered(page, bundle_server):
    block_model(page)
    page.goto(bundle_server)
    dialog = page.locator("#annotator-dialog")
    dialog.wait_for()
    page.fill("#annotator-dialog input", "carol")
    page.keyboard.press("Enter")
    page.wait_for_selector(READY)
    assert page.locator("#annotator").inner_text() == "carol"
    page.reload()
    page.wait_for_selector(READY)
    assert not dialog.is_visible()
    assert query(page, "() => pd.annotator()") == "carol"


def test_window_api_embeds_with_the_bundled_model(page, bundle_server):
    open_page(page, bundle_server)
    vecs = query(page, "async () => (await pd.embed(['a short text', 'another one']))"
                       ".map(v => Array.from(v))")
    assert len(vecs) == 2 and len(vecs[0]) == 384
    assert abs(sum(x * x for x in vecs[0]) - 1) < 1e-3
    assert query(page, "() => pd.version()") == "0.1.0"


LIVE = ("() => Object.values(pd.entry('harbor-lighthouse')?.annotations || {})"
        ".filter((a) => !a.deleted).length")


def test_changes_still_in_flight_at_a_reload_are_kept_and_a_bad_journal_is_left_alone(page, bundle_server, demo_bundle):
    """The browser aborts an IndexedDB transaction still in flight when its page unloads: three annotations
    saved and the page reloaded at once (as a reload or a closed tab can follow a keypress) lost some in 6 of
    8 rounds before the unload journal. Now every round keeps them all; the next load merges the journal in
    and removes it. A journal it cannot read (another tab's, broken) stays as it is."""
    block_model(page)
    open_page(page, bundle_server, "harbor-lighthouse")
    bundle_id = json.loads((demo_bundle / "manifest.json").read_text(encoding="utf-8"))["bundle_id"]
    bad = f"mercury-static:v1:{bundle_id}:alice:unload:other-tab"
    page.evaluate("(bad) => { localStorage.setItem(bad, '{not json'); }", bad)
    for _ in range(6):
        query(page, """() => { for (let k = 0; k < 3; k++) {
            pd.selectSpan('summary', k * 6, k * 6 + 5); pd.toggleLabel('Benign'); pd.saveDraft(); } }""")
        made = query(page, LIVE)
        page.reload()
        page.wait_for_selector(READY)
        wait_open(page)
        assert query(page, LIVE) == made
        assert len([r for r in stored_records(page)["harbor-lighthouse"]["annotations"].values()
                    if not r.get("deleted")]) == made
    left = page.evaluate("() => Object.keys(localStorage).filter((k) => k.includes(':unload:'))")
    assert left == [bad] and page.evaluate("(bad) => localStorage.getItem(bad)", bad) == "{not json"
