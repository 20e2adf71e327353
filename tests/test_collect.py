"""Collecting work in the team's own storage: `links`, the page's upload, merge and progress from
storage, against real servers on loopback (moto's S3 server, wsgidav) and real Chromium."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from mercury_static.merge.collect import links, parse_target

from pagedriver import annotate, current_id, query, wait, wait_left

READY = "body[data-ready]"
S3_TARGET = "s3://collect/round1"


def link_of(result, name: str) -> str:
    [line] = [ln for ln in result.stdout.splitlines() if ln.startswith(f"{name}\t")]
    return line.split("\t", 1)[1]


def open_link(page, link: str):
    page.route("**/models/**", lambda route: route.abort())
    page.route("**/vendor/**", lambda route: route.abort())
    page.goto(link)
    page.wait_for_selector(READY)
    page.keyboard.press("Escape")


def annotate_and_submit(page):
    """Annotate the current record's first summary word and submit it, as an annotator does (mouse, keys)."""
    record = current_id(page)
    word = query(page, "() => pd.pane('summary').view.text.split(' ')[0]")
    annotate(page, word, "1")
    wait(page, "(id) => Object.keys(pd.entry(id)?.annotations || {}).length", record)
    page.keyboard.press("s")
    wait(page, "(id) => pd.entry(id)?.status === 'submitted'", record)
    wait_left(page, record)
    return record


def objects(server, prefix="round1/"):
    got = server.client().list_objects_v2(Bucket="collect", Prefix=prefix)
    return {o["Key"]: server.client().get_object(Bucket="collect", Key=o["Key"])["Body"].read()
            for o in got.get("Contents", [])}


def wait_for(page, predicate, timeout=60.0):
    """Poll `predicate` while the page runs (the context's request routes are served only while Playwright
    waits: a plain sleep would hold every request of the page)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        page.wait_for_timeout(250)
    raise AssertionError("timed out")


def upload_state(page) -> tuple[str, str]:
    el = page.locator("#upload-status")
    return el.get_attribute("data-state"), el.inner_text()


def export_bytes(page, tmp_path: Path) -> bytes:
    with page.expect_download() as dl:
        page.click('header [data-action="export"]')
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    return path.read_bytes()


def same_but_time(uploaded: bytes, exported: bytes) -> bool:
    """Equal bytes once each file's exported_at is set to the same value (the one thing two exports of the
    same work differ in)."""
    stamp = re.compile(rb'"exported_at": "[^"]*"')
    return stamp.sub(b'"exported_at": "T"', uploaded) == stamp.sub(b'"exported_at": "T"', exported)


@pytest.fixture
def collect_bundle(demo_bundle, fresh_copy, serve_dir):
    bundle = fresh_copy(demo_bundle)
    return bundle, serve_dir(bundle)


# ------------------------------------------------------------------------------------------------ links

def test_links_allow_exactly_the_storage_origin_and_carry_the_secret_in_the_fragment(run, s3, dav, collect_bundle):
    bundle, base = collect_bundle
    result = run("links", bundle, "--annotators", "alice,bob", "--collect", S3_TARGET, "--endpoint", s3.url,
                 "--expires", "7d", "--url", base)
    assert result.exit_code == 0, result.output
    alice, bob = link_of(result, "alice"), link_of(result, "bob")
    assert alice.startswith(f"{base}?annotator=alice#collect=") and alice != bob
    assert "policy" not in alice.split("#")[0] and "signature" not in alice.split("#")[0]
    html = (bundle / "index.html").read_text(encoding="utf-8")
    assert f"connect-src 'self' {s3.url};" in html
    # a second run for another storage replaces the origin: one storage origin, never two
    r = run("links", bundle, "--annotators", "alice", "--collect", dav.url.replace("http://", "http://team:secret@"))
    assert r.exit_code == 0, r.output
    html = (bundle / "index.html").read_text(encoding="utf-8")
    assert f"connect-src 'self' {dav.url.rstrip('/')};" in html and s3.url not in html
    for bad in (["--expires", "soon"], ["--collect", "ftp://x/y"], ["--annotators", "alice,,bob"]):
        args = {"--annotators": "alice", "--collect": S3_TARGET, "--expires": "1d"}
        args[bad[0]] = bad[1]
        r = run("links", bundle, *[x for kv in args.items() for x in kv])
        assert r.exit_code == 2 and "error:" in r.output and len(r.output.strip().splitlines()) == 1, r.output


# ------------------------------------------------------------------------------------- page: S3 upload


def alice_s3_link(run, bundle, s3, base) -> str:
    """alice's personal link to the test S3 server, as `links` prints it."""
    return link_of(run("links", bundle, "--annotators", "alice", "--collect", S3_TARGET, "--endpoint", s3.url,
                       "--url", base), "alice")

@pytest.mark.browser
def test_page_uploads_its_export_to_s3_byte_equal_to_export(run, s3, collect_bundle, page, tmp_path):
    bundle, base = collect_bundle
    link = alice_s3_link(run, bundle, s3, base)
    open_link(page, link)
    assert "collect=" not in page.evaluate("() => location.href")  # the secret is off the address at once
    annotate_and_submit(page)
    client = query(page, "() => pd.clientId()")
    key = f"round1/alice/{client}.json"
    wait_for(page, lambda: key in objects(s3))
    page.wait_for_function("() => document.querySelector('#upload-status').dataset.state === 'uploaded'")
    assert page.locator("#upload-status").inner_text() == "uploaded just now"
    uploaded = objects(s3)[key]
    assert same_but_time(uploaded, export_bytes(page, tmp_path))
    assert json.loads(uploaded)["records"][0]["status"] == "submitted"
    # the link was kept for this bundle: a reload without the fragment still uploads
    page.goto(f"{base}?annotator=alice")
    page.wait_for_selector(READY)
    page.wait_for_function("() => document.querySelector('#upload-status').dataset.state === 'uploaded'")


@pytest.mark.browser
def test_storage_down_then_back_the_upload_catches_up(run, s3, collect_bundle, page):
    bundle, base = collect_bundle
    link = alice_s3_link(run, bundle, s3, base)
    open_link(page, link)
    s3.stop()
    first = annotate_and_submit(page)
    page.wait_for_function("() => document.querySelector('#upload-status').dataset.state === 'retrying'",
                           timeout=30_000)
    state, text = upload_state(page)
    assert text.startswith("NOT uploaded: server unreachable") and text.endswith("retrying"), text
    second = annotate_and_submit(page)  # annotating goes on while the storage is away
    s3.start()
    page.wait_for_function("() => document.querySelector('#upload-status').dataset.state === 'uploaded'",
                           timeout=60_000)
    [(key, body)] = objects(s3).items()  # one key for this browser: nothing duplicated
    got = {r["record_id"]: r["status"] for r in json.loads(body)["records"]}
    assert got == {first: "submitted", second: "submitted"}  # nothing lost


@pytest.mark.browser
def test_two_browsers_of_one_annotator_write_two_keys_merge_unites_them(run, s3, collect_bundle, browser, tmp_path):
    bundle, base = collect_bundle
    link = alice_s3_link(run, bundle, s3, base)
    done = []
    for _ in range(2):
        ctx = browser.new_context()
        page = ctx.new_page()
        open_link(page, link)
        done.append(annotate_and_submit(page))
        page.wait_for_function("() => document.querySelector('#upload-status').dataset.state === 'uploaded'")
        ctx.close()
    keys = sorted(objects(s3))
    assert len(keys) == 2 and all(k.startswith("round1/alice/") for k in keys)
    out = tmp_path / "merged.json"
    r = run("merge", f"{S3_TARGET}/", "--bundle", bundle, "-o", out)
    assert r.exit_code == 0, r.output
    assert "exported from 2 browsers" in r.output
    merged = json.loads(out.read_text(encoding="utf-8"))
    records = merged["records"] if isinstance(merged, dict) else merged
    rec = next(x for x in records if x["id"] == done[1])
    assert len(rec["annotations"]) == 1  # both browsers annotated the same record: the newest change wins


@pytest.mark.browser
def test_an_expired_link_says_so_and_keeps_local_work(s3, collect_bundle, page, tmp_path):
    bundle, base = collect_bundle
    target = parse_target(S3_TARGET, s3.url)
    made = links(bundle, ["alice"], target, 60, base, time.time() - 3600)  # expired an hour... minus a minute ago
    open_link(page, made["alice"])
    record = annotate_and_submit(page)
    page.wait_for_function("() => document.querySelector('#upload-status').dataset.state === 'expired'")
    assert page.locator("#upload-status").inner_text() == "NOT uploaded: link expired"
    assert "ask your coordinator for a new one" in page.locator("#upload-status").get_attribute("title")
    assert objects(s3) == {}
    data = json.loads(export_bytes(page, tmp_path))  # local work intact, Export works
    assert [r["record_id"] for r in data["records"]] == [record]


@pytest.mark.browser
def test_the_csp_blocks_any_other_origin(run, s3, collect_bundle, page):
    bundle, base = collect_bundle
    link = alice_s3_link(run, bundle, s3, base)
    open_link(page, link)
    other = "http://127.0.0.1:9/x"
    outcome = page.evaluate("""async ([allowed, other]) => {
        const violations = [];
        document.addEventListener('securitypolicyviolation', (e) => violations.push(e.blockedURI));
        const reach = (u) => fetch(u).then(() => 'reached', () => 'failed');
        const a = await reach(allowed);
        const b = await reach(other);
        await new Promise((r) => setTimeout(r, 200)); // the violation events are queued
        return {a, b, violations};
    }""", [f"{s3.url}/moto-api/", other])
    assert outcome["a"] == "reached" and outcome["b"] == "failed"
    assert [v for v in outcome["violations"] if v.startswith("http://127.0.0.1")] == [other]


# --------------------------------------------------------------------------------- merge from storage

def put_exports(tmp_path: Path, bundle_dir: Path) -> list[Path]:
    """Two annotators' exports (one of them from two browsers) as files on disk."""
    from mercury_static.bundle.contents import load_bundle

    b = load_bundle(bundle_dir)
    recs = b.records[:2]

    def export(name, client, rec, when):
        summary = rec.summary
        word = summary.split(" ")[0]
        doc = {"format": "mercury-static/annotations", "version": 2, "bundle_id": b.manifest["bundle_id"],
               "title": b.manifest["title"], "annotator": name, "client_id": client,
               "exported_at": "2026-11-29T12:00:00Z", "tool_version": b.manifest["tool_version"],
               "records": [{"record_id": rec.id, "status": "submitted", "updated_at": when, "responses": {},
                            "suggestions": {"shown": True, "accepted": {}},
                            "annotations": [{"id": f"{name}-{client}", "label": [b.manifest["labels"][0]],
                                             "note": "", "summary": {"start": 0, "end": len(word), "text": word},
                                             "source": None, "created_at": when, "updated_at": when}]}]}
        path = tmp_path / "disk" / name / f"{client}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        return path

    return [export("alice", "laptop", recs[0], "2026-11-29T10:00:00Z"),
            export("alice", "desktop", recs[0], "2026-11-29T11:00:00Z"),
            export("bob", "b1", recs[1], "2026-11-29T10:30:00Z")]


def test_merge_from_s3_is_byte_identical_to_merge_from_disk(run, s3, stand_in_demo, tmp_path):
    files = put_exports(tmp_path, stand_in_demo)
    for f in files:
        s3.client().put_object(Bucket="collect", Key=f"round1/{f.parent.name}/{f.name}", Body=f.read_bytes())
    disk = sorted(files, key=lambda f: f"{f.parent.name}/{f.name}")
    a = run("merge", *disk, "--bundle", stand_in_demo, "-o", tmp_path / "disk.json", "--report", tmp_path / "d.json")
    b = run("merge", f"{S3_TARGET}/", "--bundle", stand_in_demo, "-o", tmp_path / "s3.json",
            "--report", tmp_path / "s.json")
    assert a.exit_code == b.exit_code == 0, (a.output, b.output)
    assert (tmp_path / "disk.json").read_bytes() == (tmp_path / "s3.json").read_bytes()
    assert (tmp_path / "d.json").read_bytes() == (tmp_path / "s.json").read_bytes()
    assert b"alice-desktop" in (tmp_path / "s3.json").read_bytes()  # alice's newer browser wins her record
    # an empty prefix is one clear line, exit 2
    r = run("merge", "s3://collect/nothing/", "--bundle", stand_in_demo, "-o", tmp_path / "x.json")
    assert r.exit_code == 2 and "holds no .json export" in r.output


def test_merge_from_webdav_is_byte_identical_to_merge_from_disk(run, dav, stand_in_demo, tmp_path):
    files = put_exports(tmp_path, stand_in_demo)
    for f in files:
        (dav.root / "drop" / f"{f.parent.name}--{f.name}").write_bytes(f.read_bytes())
    disk = sorted(files, key=lambda f: f"{f.parent.name}--{f.name}")
    a = run("merge", *disk, "--bundle", stand_in_demo, "-o", tmp_path / "disk.json")
    url = dav.url.replace("http://", "http://team:secret@") + "drop/"
    b = run("merge", url, "--bundle", stand_in_demo, "-o", tmp_path / "dav.json")
    assert a.exit_code == b.exit_code == 0, (a.output, b.output)
    assert (tmp_path / "disk.json").read_bytes() == (tmp_path / "dav.json").read_bytes()


# ------------------------------------------------------------------------------------ page: WebDAV upload

@pytest.mark.browser
def test_page_uploads_to_a_webdav_folder(run, dav, collect_bundle, page, tmp_path):
    bundle, base = collect_bundle
    url = dav.url.replace("http://", "http://team:secret@") + "drop/"
    link = link_of(run("links", bundle, "--annotators", "alice", "--collect", url, "--url", base), "alice")
    assert "secret" not in link.split("#")[0]
    open_link(page, link)
    annotate_and_submit(page)
    client = query(page, "() => pd.clientId()")
    path = dav.root / "drop" / f"alice--{client}.json"
    wait_for(page, path.is_file)
    page.wait_for_function("() => document.querySelector('#upload-status').dataset.state === 'uploaded'")
    assert same_but_time(path.read_bytes(), export_bytes(page, tmp_path))


# ------------------------------------------------------------------------------------------- progress

def test_progress_counts_per_annotator(run, s3, stand_in_demo, tmp_path):
    files = put_exports(tmp_path, stand_in_demo)
    for f in files:
        s3.client().put_object(Bucket="collect", Key=f"round1/{f.parent.name}/{f.name}", Body=f.read_bytes())
    r = run("progress", f"{S3_TARGET}/", "--bundle", stand_in_demo)
    assert r.exit_code == 0, r.output
    rows = {ln.split()[0]: ln for ln in r.stdout.splitlines()[1:]}
    assert set(rows) == {"alice", "bob"}
    assert re.search(r"alice\s+2 browsers\s+\d+ to do\s+0 in progress\s+1 submitted", rows["alice"]), rows["alice"]
    # the report of the round in flight, read from the same storage: merge's figures and the page
    r = run("progress", f"{S3_TARGET}/", "--bundle", stand_in_demo, "--report", tmp_path / "now.html")
    assert r.exit_code == 0, r.output
    report = json.loads((tmp_path / "now.json").read_text(encoding="utf-8"))
    assert sorted(report["progress"]["annotators"]) == ["alice", "bob"]
    assert report["progress"]["annotators"]["alice"]["submitted"] == 1
    assert 'id="t-progress-annotators"' in (tmp_path / "now.html").read_text(encoding="utf-8")
