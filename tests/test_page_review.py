"""The review mode of the page (docs/review.md): three annotators' real exports of a real bundle with
questions -> `review` -> a reviewer adjudicates in real Chromium, keyboard only -> the review export -> gold.
Review work is saved like annotation work: reload, a killed browser, two tabs, an unreadable stored entry."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from conftest import CHROMIUM_ARGS, REPO, chromium_path
from pagedriver import query, wait
from test_page import STORED, block_model
from test_page_safety import browser_pid

from mercury_static.bundle.contents import load_bundle
from mercury_static.review.write_bundle import review_bundle

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ANNOTATORS = ["alice", "bob", "carol"]
INTRINSIC = ["Unwanted", "Unwanted.Intrinsic"]
HOSTILE = '<img src=x onerror="window.pwned=1">'
RECORDS = 12  # annotated by all three; the bundle has 21
SAVED = "() => document.querySelector('#save-status').dataset.state === 'saved'"


def words(text: str) -> list[tuple[int, int]]:
    """(start, end) of each space-separated word."""
    out, at = [], 0
    for w in text.split(" "):
        out.append((at, at + len(w)))
        at += len(w) + 1
    return out


def span(text: str, start: int, end: int) -> dict:
    return {"start": start, "end": end, "text": text[start:end]}


def ann(ident: str, label: list[str], summary: dict, source: dict | None = None, note: str = "") -> dict:
    return {"id": ident, "label": label, "note": note, "summary": summary, "source": source,
            "created_at": "2026-12-01T09:00:00Z", "updated_at": "2026-12-01T09:00:00Z"}


@pytest.fixture(scope="module")
def team(build_bundle, tmp_path_factory):
    """The demo with its settings (verdict, quality, … and HHEM suggestions), and three annotators who disagree on
    the first RECORDS records: alice marks the first two words (with a source span), bob words 4-5, carol word 7;
    alice and carol say hallucinated, bob consistent. -> (bundle dir, review bundle dir, {record id: summary})."""
    bundle_dir = build_bundle([EXAMPLES / "demo.jsonl"], name="review-team", settings=EXAMPLES / "settings.yaml")
    bundle = load_bundle(bundle_dir)
    folder = tmp_path_factory.mktemp("team")
    summaries, docs = {}, {a: [] for a in ANNOTATORS}
    for rec in bundle.records[:RECORDS]:
        text, source = rec.summary_text.text, rec.source_text.text
        summaries[rec.id] = text
        w = words(text)
        marks = {"alice": ann("a1", INTRINSIC, span(text, w[0][0], w[1][1]), span(source, *words(source)[0]), HOSTILE),
                 "bob": ann("b1", ["Benign"], span(text, w[3][0], w[4][1]), note="fair paraphrase"),
                 "carol": ann("c1", ["Questionable"], span(text, w[6][0], w[6][1]))}
        verdicts = {"alice": "hallucinated", "bob": "consistent", "carol": "hallucinated"}
        for a in ANNOTATORS:
            docs[a].append({"record_id": rec.id, "status": "submitted", "updated_at": "2026-12-01T10:00:00Z",
                            "annotations": [marks[a]], "responses": {"verdict": verdicts[a]},
                            "suggestions": {"shown": True, "accepted": {}}})
    paths = []
    for a in ANNOTATORS:
        path = folder / f"{a}.json"
        path.write_text(json.dumps({"format": "mercury-static/annotations", "version": 2,
                                    "bundle_id": bundle.manifest["bundle_id"], "title": None, "annotator": a,
                                    "client_id": f"{a}-laptop", "exported_at": "2026-12-01T12:00:00Z",
                                    "tool_version": "0.1.0", "records": docs[a]}), encoding="utf-8")
        paths.append(path)
    out = tmp_path_factory.mktemp("review") / "review-bundle"
    review_bundle(paths, bundle_dir, out)
    return bundle_dir, out, summaries


@pytest.fixture(scope="module")
def review_server(team, serve_dir) -> str:
    return serve_dir(team[1])


def open_review(page, base: str, reviewer: str = "rita", record: str | None = None):
    block_model(page)
    page.goto(f"{base}?annotator={quote(reviewer)}" + (f"#record={quote(record)}" if record else ""))
    page.wait_for_selector("body[data-ready]")
    page.wait_for_function("() => document.body.dataset.record")
    return page


def current(page) -> str:
    return page.evaluate("() => document.body.dataset.record")


def entry(page, record: str) -> dict:
    return query(page, """(id) => JSON.parse(JSON.stringify(pd.entry(id) || null))""",
                       record)


def review_item(page, record: str, key: str):
    return (entry(page, record) or {}).get("review", {}).get(key, {}).get("value")


def download_file(page, tmp_path: Path, key: str = "E") -> Path:
    with page.expect_download() as dl:
        page.keyboard.press(key)
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    return path


def download(page, tmp_path: Path, key: str = "E") -> dict:
    return json.loads(download_file(page, tmp_path, key).read_text(encoding="utf-8"))


def press(page, key: str, until: str, arg=None):
    page.keyboard.press(key)
    wait(page, until, arg)


def focus_key(page, key: str):
    """ArrowDown until annotation `key` is the selected one (keyboard only)."""
    for _ in range(6):
        if query(page, "() => pd.review().focus") == key:
            return
        page.keyboard.press("ArrowDown")
    assert query(page, "() => pd.review().focus") == key


def test_a_reviewer_adjudicates_ten_records_keyboard_only_and_the_gold_holds_exactly_that(page, team, review_server,
                                                                                              tmp_path, run):
    bundle_dir, review_dir, summaries = team
    open_review(page, review_server)
    header = json.loads((review_dir / "data" / "review.json").read_text(encoding="utf-8"))
    rows = json.loads((review_dir / "data" / "review-order-0000.json").read_text(encoding="utf-8"))["rows"]
    assert current(page) == rows[0]["id"]  # the most contested record opens first
    assert page.evaluate("() => window.pwned") is None and page.locator("#rv-items img, #rv-summary img").count() == 0
    assert HOSTILE in page.inner_text("#rv-items")  # the note shows as text
    # every annotator's spans, one lane each, on the summary; the source span of alice's annotation on the source
    for lane in range(3):
        assert page.locator(f"#rv-summary .rv-l{lane}").count() >= 1
    assert page.locator("#rv-source .rv-l0").count() == 1
    page.keyboard.press("Alt+1")  # hide alice
    page.wait_for_function("() => !document.querySelector('#rv-summary .rv-l0')")
    page.keyboard.press("Alt+1")
    page.wait_for_function("() => document.querySelector('#rv-summary .rv-l0')")
    page.keyboard.press("?")  # the help lists the review keys
    page.wait_for_selector("#overlay-help:not([hidden])")
    assert "accept the annotation as gold" in page.inner_text("#help-keys")
    page.keyboard.press("Escape")
    page.wait_for_selector("#overlay-help", state="hidden")
    # the question side by side with the suggestion and its score
    q = page.inner_text("#rv-questions")
    assert "alice: hallucinated" in q and "bob: consistent" in q and "score" in q
    decided = []
    for n in range(10):
        rid = current(page)
        text = summaries[rid]
        w = words(text)
        focus_key(page, "alice:a1")
        press(page, "a", "(id) => pd.entry(id)?.review?.['d:alice:a1']?.value?.action === 'accept'", rid)
        focus_key(page, "bob:b1")
        page.keyboard.press("e")
        page.wait_for_selector("#rv-ed-summary-start:focus")
        page.keyboard.press("Tab")  # to the end of the summary span: one word more
        page.keyboard.press("Control+a")
        page.keyboard.type(str(w[5][1]))
        press(page, "Enter", "(id) => pd.entry(id)?.review?.['d:bob:b1']?.value?.action === 'edit'", rid)
        focus_key(page, "carol:c1")
        press(page, "r", "(id) => pd.entry(id)?.review?.['d:carol:c1']?.value?.action === 'reject'", rid)
        if n == 1:  # the reviewer's own answer: 0, then the options by keyboard
            page.keyboard.press("0")
            page.wait_for_selector("[data-own=verdict]:focus")
            page.keyboard.press("ArrowDown")
            press(page, "Enter", "(id) => pd.entry(id)?.review?.['q:verdict']?.value?.value", rid)
        else:
            press(page, "1", "(id) => pd.entry(id)?.review?.['q:verdict']?.value?.from === 'alice'", rid)
        page.keyboard.press("c")  # on the selected annotation (carol's)
        page.wait_for_selector("#rv-comment:focus")
        page.keyboard.type(f"too vague {n}")
        press(page, "Enter", "(id) => Object.keys(pd.entry(id)?.review || {}).some((k) => k.startsWith('c:'))", rid)
        if n == 0:
            page.keyboard.press("Shift+C")
            page.wait_for_selector("#rv-comment:focus")
            page.keyboard.type("hard one")
            press(page, "Enter", "(id) => Object.keys(pd.entry(id).review).filter((k) => k.startsWith('c:')).length === 2", rid)
        press(page, "s", "(id) => document.body.dataset.record !== id", rid)
        decided.append((rid, span(text, w[3][0], w[5][1])))
    page.wait_for_function(SAVED)
    assert page.inner_text("#progress-text") == f"10 / {header['counts']['records']} adjudicated"
    # the filter "not adjudicated": the other records only
    page.click("#rv-filter-unreviewed")
    wait(page, "(n) => pd.review().order?.length === n", header["counts"]["records"] - 10)
    # Mercury's view: alice's annotations across the records
    press(page, "ArrowDown", "() => pd.review().focus")
    page.keyboard.press("v")
    page.wait_for_function(f"() => document.querySelectorAll('#rv-by-annotator tbody tr').length === {RECORDS}")
    page.keyboard.press("Escape")
    export_path = download_file(page, tmp_path)
    data = json.loads(export_path.read_text(encoding="utf-8"))
    assert data["format"] == "mercury-static/review" and data["version"] == 2 and data["reviewer"] == "rita"
    assert (data["bundle_id"], data["review_id"], data["merge_sha256"]) == (
        header["bundle_id"], header["review_id"], header["merge_sha256"])
    by_id = {r["record_id"]: r for r in data["records"]}
    assert sorted(by_id) == sorted(rid for rid, _ in decided)
    for n, (rid, edited) in enumerate(decided):
        r = by_id[rid]
        assert r["adjudicated"] is True and r["added"] == []
        d = r["decisions"]
        assert {k: v["action"] for k, v in d.items()} == {"alice:a1": "accept", "bob:b1": "edit", "carol:c1": "reject"}
        assert d["bob:b1"]["summary"] == edited and d["bob:b1"]["label"] == ["Benign"]
        assert d["bob:b1"]["note"] == "fair paraphrase" and d["bob:b1"]["source"] is None
        assert r["answers"] == ({"verdict": {"value": "consistent"}} if n == 1 else {"verdict": {"from": "alice"}})
        notes = [(c["on"], c["text"], c["author"]) for c in r["comments"]]
        assert notes == [("carol:c1", f"too vague {n}", "rita")] + ([("record", "hard one", "rita")] if n == 0 else [])
        assert all(c["time"].endswith("Z") for c in r["comments"])
    gold_of(run, review_dir, tmp_path, export_path, decided, summaries)


def gold_of(run, review_dir: Path, tmp_path: Path, export_path: Path, decided: list, summaries: dict):
    """`gold` of the export (the CLI): exactly what was decided, with provenance; the others listed, not filled."""
    gold_path, report_path = tmp_path / "gold.json", tmp_path / "report.json"
    res = run("gold", export_path, "--bundle", review_dir, "-o", gold_path, "--report", report_path)
    assert res.exit_code == 0, res.output
    gold = json.loads(gold_path.read_text(encoding="utf-8"))
    records = gold["records"] if isinstance(gold, dict) else gold
    by_id = {r["id"]: r for r in records}
    assert sorted(by_id) == sorted(rid for rid, _ in decided)
    for n, (rid, edited) in enumerate(decided):
        g = by_id[rid]
        text = summaries[rid]
        w = words(text)
        kept = {(a["provenance"]["proposed_by"], a["provenance"]["action"]): a for a in g["annotations"]}
        assert set(kept) == {("alice", "accepted"), ("bob", "edited")}  # carol's rejected: not gold
        alice, bob = kept["alice", "accepted"], kept["bob", "edited"]
        assert alice["summary"] == span(text, w[0][0], w[1][1]) and alice["label"] == INTRINSIC
        assert alice["note"] == HOSTILE and alice["source"]["start"] == 0
        assert bob["summary"] == edited and bob["label"] == ["Benign"]
        for a in (alice, bob):
            assert a["provenance"]["decided_by"] == "rita" and a["provenance"]["decided_at"].startswith("20")
        [resp] = g["responses"]
        assert resp["annotator"] == "rita"
        assert resp["values"] == {"verdict": "consistent" if n == 1 else "hallucinated"}
        assert resp["provenance"] == ({"verdict": {"from": "rita", "own": True}} if n == 1 else {"verdict": {"from": "alice"}})
        assert [c["text"] for c in g["review"]["comments"]][:1] == [f"too vague {n}"] or n == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["counts"]["gold"] == 10
    assert {r["record_id"] for r in report["not_adjudicated"]}.isdisjoint(by_id)
    q = {a["annotator"]: a for a in report["quality"]["annotators"]}
    assert (q["alice"]["span_precision"], q["alice"]["accuracy"]["verdict"]) == (1.0, 0.9)  # her answer taken 9 times
    assert (q["bob"]["span_precision"], q["bob"]["accuracy"]["verdict"]) == (1.0, 0.1)  # his span widened, kept
    assert q["carol"]["span_precision"] == 0.0  # every span of hers rejected
    assert report["quality"]["changed"][0]["record_id"] == decided[1][0]  # the one with the reviewer's own answer


def test_the_first_contested_record_needs_only_the_first_shards(page, review_server):
    """What keeps the first record fast at any size (10,000 x 3: benchmarks/RESULTS.md, bench_review_page.py): the
    order comes from the bundle, and before the first record the page reads the header, the first order shard
    and the first records shard of the review data, nothing more of it (the rest comes after, for the list)."""
    t0 = time.perf_counter()
    open_review(page, review_server)
    wall = time.perf_counter() - t0
    first, before = page.evaluate("""() => {
        const t = performance.getEntriesByName('mercury-review-first-record')[0].startTime;
        return [t, performance.getEntriesByType('resource').filter((e) => e.startTime <= t)
            .map((e) => e.name.split('/').pop())]; }""")
    assert sorted(n for n in before if n.startswith("review") and n.endswith(".json")) == [
        "review-order-0000.json", "review-records-0000.json", "review.json"]
    assert not any(n.endswith((".onnx", ".wasm")) for n in before)  # no model
    assert first < 10_000 and wall < 30  # generous: the figure is measured in the benchmark


def test_the_top_bar_opens_the_rounds_report(page, review_server):
    """The review bundle's dashboard: report.html beside the page, linked from its top bar, its records'
    links back into this page."""
    open_review(page, review_server)
    assert page.get_attribute(".topbar a.dashboard-link", "href") == "report.html"
    page.goto(f"{review_server}report.html")
    assert page.locator("figure[data-chart] svg").count() >= 3
    first = page.get_attribute("#t-adjudication a", "href")
    assert first.startswith("index.html#record=")
    page.click("#t-adjudication a")
    page.wait_for_selector("body[data-ready]")
    page.wait_for_function("() => document.body.dataset.record")
    assert current(page) == unquote(first.split("=", 1)[1])


def test_the_reviewers_own_annotation_by_keyboard_and_its_delete(page, review_server, tmp_path):
    open_review(page, review_server)
    rid = current(page)
    page.keyboard.press("+")
    page.wait_for_selector("#rv-ed-summary-start:focus")
    page.keyboard.type("0")
    page.keyboard.press("Tab")
    page.keyboard.type("3")
    assert page.inner_text("#rv-ed-summary-text") == f"“{query(page, '() => pd.review().texts.summary.slice(0, 3)')}”"
    for _ in range(3):  # past the source span (none): the first label
        page.keyboard.press("Tab")
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    wait(page, "(id) => Object.keys(pd.entry(id)?.annotations || {}).length", rid)
    [added] = download(page, tmp_path)["records"][0]["added"]
    assert (added["summary"]["start"], added["summary"]["end"], added["label"]) == (0, 3, ["Questionable"])
    assert query(page, "() => pd.review().focus") == added["id"]
    assert page.locator("#rv-summary .rv-l8").count() == 1  # drawn as gold
    page.keyboard.press("r")  # delete it
    page.wait_for_function("() => !document.querySelector('#rv-summary .rv-l8')")
    page.wait_for_function(SAVED)
    assert download(page, tmp_path)["records"] == []


def test_filters_by_annotator_pair_question_and_metadata(page, review_server, team):
    open_review(page, review_server)
    order = "() => pd.review().order"
    page.select_option("#rv-filter-annotator", "bob")
    wait(page, f"() => ({order})()?.length === {RECORDS}")  # the records bob worked on
    page.select_option("#rv-filter-pair", "alice\ncarol")
    wait(page, f"() => ({order})()?.length === {RECORDS}")
    page.select_option("#rv-filter-question", "verdict")  # alice and carol said hallucinated, bob consistent
    wait(page, f"() => ({order})()?.length === {RECORDS}")
    page.fill("#rv-filter-text", "transport")  # a metadata value (topic) of two records, one of them annotated
    page.keyboard.press("Enter")
    wait(page, f"() => ({order})()?.length === 1")
    rows = query(page, f"() => ({order})().map((p) => pd.review().data.rows[p].id)")
    assert rows == ["bridge-closure"] and "bridge-closure" in team[2]
    assert page.locator("#rv-list li[data-record]").count() == 1
    page.keyboard.press("n")  # the walk follows the filter
    page.wait_for_function("() => document.body.dataset.record === 'bridge-closure'")
    page.fill("#rv-filter-text", "")
    page.keyboard.press("Enter")
    page.select_option("#rv-filter-annotator", "")
    page.select_option("#rv-filter-pair", "")
    page.select_option("#rv-filter-question", "")
    wait(page, f"() => ({order})() === null")


# --------------------------------------------------------------------------- saved like annotation work

def decide_first(page) -> str:
    """Accept alice's annotation on the open record (keyboard); returns the record id once it is saved."""
    rid = current(page)
    focus_key(page, "alice:a1")
    press(page, "a", "(id) => pd.entry(id)?.review?.['d:alice:a1']", rid)
    page.wait_for_function(SAVED)
    return rid


def test_review_work_survives_a_reload_and_is_counted_unexported(page, review_server, tmp_path):
    open_review(page, review_server)
    rid = decide_first(page)
    assert page.inner_text("#unexported") == "1 not exported"
    page.reload()
    page.wait_for_selector("body[data-ready]")
    assert review_item(page, rid, "d:alice:a1") == {"action": "accept"}
    data = download(page, tmp_path)
    assert [r["record_id"] for r in data["records"]] == [rid]
    page.wait_for_function("() => document.querySelector('#unexported').textContent === 'all exported'")
    page.reload()
    page.wait_for_selector("body[data-ready]")
    assert page.inner_text("#unexported") == "all exported"


def test_the_documented_gold_command_picks_the_pages_download(page, review_server, team, tmp_path):
    """README's `gold review-*.json …`, run as written in a folder holding the page's own download beside an
    annotator's export (which it must leave out)."""
    import re
    import subprocess
    import sys

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = re.search(r"`(mercury-static gold review-\*\.json[^`]*)`", readme.replace("\n", " ")).group(1)
    open_review(page, review_server)
    rid = decide_first(page)
    folder = tmp_path / "round"
    folder.mkdir()
    saved = download_file(page, folder)
    (folder / "review-bundle").symlink_to(team[1], target_is_directory=True)
    other = folder / f"{saved.name.removeprefix('review-').split('-')[0]}-alice-20261201T120000Z.json"
    other.write_text(json.dumps({"format": "mercury-static/annotations", "version": 3, "records": []}),
                     encoding="utf-8")  # an annotator's export, as the annotator page names it
    env = {**os.environ, "PYTHONPATH": str(REPO), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((folder / "gold-report.json").read_text(encoding="utf-8"))
    assert report["not_adjudicated"][0] == {"record_id": rid, "touched_by": ["rita"]}  # the download was read


def test_review_work_survives_a_killed_browser(browser, review_server, tmp_path):
    profile = tmp_path / "profile"

    def launch():
        ctx = browser.browser_type.launch_persistent_context(profile, executable_path=chromium_path(), headless=True,
                                                             args=CHROMIUM_ARGS, accept_downloads=True)
        return ctx, ctx.pages[0] if ctx.pages else ctx.new_page()

    ctx, page = launch()
    open_review(page, review_server)
    rid = decide_first(page)
    page.keyboard.press("C")
    page.wait_for_selector("#rv-comment:focus")
    page.keyboard.type("kept")
    page.keyboard.press("Enter")
    page.wait_for_function(SAVED)
    time.sleep(1)
    os.kill(browser_pid(profile), signal.SIGKILL)  # no export, no unload
    try:
        ctx.close()
    except Exception:  # noqa: BLE001 - the browser is gone: closing may only report it
        pass
    ctx, page = launch()
    try:
        open_review(page, review_server)
        assert review_item(page, rid, "d:alice:a1") == {"action": "accept"}
        [c] = download(page, tmp_path)["records"][0]["comments"]
        assert (c["on"], c["text"]) == ("record", "kept")
    finally:
        ctx.close()


def test_a_review_export_imports_into_another_browser_and_a_stale_one_is_refused(browser, review_server, tmp_path):
    first = browser.new_context(accept_downloads=True)
    page = open_review(first.new_page(), review_server)
    rid = decide_first(page)
    path = download_file(page, tmp_path)
    first.close()
    other = browser.new_context()
    try:
        page = open_review(other.new_page(), review_server)
        assert entry(page, rid) is None
        stale = json.loads(path.read_text(encoding="utf-8"))
        stale["merge_sha256"] = "0" * 64
        (tmp_path / "stale.json").write_text(json.dumps(stale), encoding="utf-8")
        page.set_input_files("#import-file", str(tmp_path / "stale.json"))
        page.wait_for_selector("#message")
        assert "stale.json: field 'merge_sha256': a stale review, made on a review bundle of another merge" in page.inner_text("#message")
        assert entry(page, rid) is None
        page.set_input_files("#import-file", str(path))
        page.wait_for_function("() => document.querySelector('#message')?.textContent.startsWith('Imported')")
        assert review_item(page, rid, "d:alice:a1") == {"action": "accept"}
        page.wait_for_function(SAVED)
        page.reload()
        page.wait_for_selector("body[data-ready]")
        assert review_item(page, rid, "d:alice:a1") == {"action": "accept"}
    finally:
        other.close()


def test_two_tabs_keep_each_others_decisions(context, review_server, tmp_path):
    a, b = context.new_page(), context.new_page()
    open_review(a, review_server)
    rid = current(a)
    open_review(b, review_server, record=rid)
    focus_key(a, "alice:a1")
    press(a, "a", "(id) => pd.entry(id)?.review?.['d:alice:a1']", rid)
    b.bring_to_front()
    focus_key(b, "carol:c1")
    press(b, "r", "(id) => pd.entry(id)?.review?.['d:carol:c1']", rid)
    for p in (a, b):  # each tab has the other's decision, live
        wait(p, """(id) => { const r = pd.entry(id)?.review || {};
            return r['d:alice:a1']?.value?.action === 'accept' && r['d:carol:c1']?.value?.action === 'reject'; }""", rid)
        p.wait_for_function(SAVED)
    a.bring_to_front()
    [r] = download(a, tmp_path)["records"]
    assert {k: v["action"] for k, v in r["decisions"].items()} == {"alice:a1": "accept", "carol:c1": "reject"}


def test_an_unreadable_stored_review_is_kept_aside_and_the_work_goes_on(page, review_server, team):
    review_id = json.loads((team[1] / "manifest.json").read_text(encoding="utf-8"))["review"]["review_id"]
    open_review(page, review_server)
    rid = current(page)
    key = f"mercury-static:v1:{review_id}:rita"
    page.evaluate("""async ([key, rid]) => {
        const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
        const db = await req(indexedDB.open('mercury-static'));
        const tx = db.transaction('entries', 'readwrite');
        tx.objectStore('entries').put({status: 'in_progress', annotations: {}, review: {'d:alice:a1': {value: 7}}},
                                      [key, 'r', rid]);
        await new Promise((ok) => { tx.oncomplete = ok; });
        db.close(); }""", [key, rid])
    page.reload()
    page.wait_for_selector("body[data-ready]")
    assert "kept aside, untouched" in page.inner_text("#storage-aside")
    decide_first(page)
    stored = {tuple(k): v for k, v in page.evaluate(STORED)}
    assert stored[(key, "r", rid)]["review"] == {"d:alice:a1": {"value": 7}}  # never overwritten
    assert stored[(f"{key}#2", "r", rid)]["review"]["d:alice:a1"]["value"] == {"action": "accept"}


SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@pytest.mark.shared_data
@pytest.mark.skipif(not (SHARED_DATA / "faithbench").is_dir(), reason="../shared/data/faithbench absent")
def test_a_real_faithbench_batch_reviewed_in_the_page(build_bundle, serve_dir, page, run, tmp_path):
    """FaithBench's batch_3 (three annotators in an original Mercury dump) as the team: the reviewer settles the
    three most contested samples keyboard only, keeping the first annotator's spans; the gold holds exactly those."""
    batch = SHARED_DATA / "faithbench" / "batch_3.json"
    bundle = build_bundle([batch], name="faithbench-review-page")
    out = tmp_path / "review"
    review_bundle([batch], bundle, out)
    header = json.loads((out / "data" / "review.json").read_text(encoding="utf-8"))
    keep = header["annotators"][0]
    open_review(page, serve_dir(out))
    decided = {}
    for _ in range(3):
        rid = current(page)
        rec = query(page, "() => pd.review().rec")
        lanes = {header["annotators"].index(a["annotator"]) for a in rec["annotations"]}
        for lane in lanes:  # every annotator with spans has their lane on the summary
            assert page.locator(f"#rv-summary .rv-l{lane}").count() >= 1
        for _ in rec["annotations"]:
            page.keyboard.press("ArrowDown")
            key = query(page, "() => pd.review().focus")
            who = page.get_attribute(f'#rv-items li[data-key="{key}"]', "data-key").split(":")[0]
            action = "accept" if who == keep else "reject"
            press(page, action[0], "([id, k, a]) => pd.entry(id)?.review?.['d:' + k]?.value?.action === a",
                  [rid, key, action])
        decided[rid] = sorted(a["key"] for a in rec["annotations"] if a["annotator"] == keep)
        press(page, "s", "(id) => document.body.dataset.record !== id", rid)
    page.wait_for_function(SAVED)
    export_path = download_file(page, tmp_path)
    res = run("gold", export_path, "--bundle", out, "-o", tmp_path / "gold.json")
    assert res.exit_code == 0, res.output
    gold = json.loads((tmp_path / "gold.json").read_text(encoding="utf-8"))
    records = gold["records"] if isinstance(gold, dict) else gold
    assert sorted(r["id"] for r in records) == sorted(decided)
    for r in records:
        assert sorted(f"{a['annotator']}:{a['id']}" for a in r["annotations"]) == decided[r["id"]]
        assert {(a["provenance"]["proposed_by"], a["provenance"]["action"], a["provenance"]["decided_by"])
                for a in r["annotations"]} <= {(keep, "accepted", "rita")}
