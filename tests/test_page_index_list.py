"""The page on the sharded record index at 20,000 records in 100 index shards: the list, the
filters, the status counts, export and import each read only the index shards they need (requests counted),
and the page never requests data/records.json."""

from __future__ import annotations

import json

import pytest

from mercury_static.bundle.contents import ShardLimits

from pagedriver import current_id, wait_current, wait_open, wait_saved

pytestmark = pytest.mark.browser

N, K = 20_000, 200
TOPICS = ["tulips", "ferries", "chess", "bridges", "bakeries"]
SETTINGS = """metadata:
  - {name: topic, title: Topic, type: terms, values: [tulips, ferries, chess, bridges, bakeries]}
  - {name: score, title: Score, type: integer}
"""


@pytest.fixture(scope="module")
def big(build_bundle, tmp_path_factory):
    """20,000 tiny records over 5 distinct texts; a unique word `w<i>` in each title, a terms and an integer
    property."""
    d = tmp_path_factory.mktemp("index-list")
    (d / "big.jsonl").write_text("\n".join(json.dumps({
        "id": f"b{i:05d}", "title": f"Record w{i} about {TOPICS[i % 5]}", "topic": TOPICS[i % 5], "score": i % 100,
        "source": f"This report is about {TOPICS[i % 5]}. It has two sentences.",
        "summary": f"A note on {TOPICS[i % 5]}."}) for i in range(N)), encoding="utf-8")
    (d / "settings.yaml").write_text(SETTINGS, encoding="utf-8")
    return build_bundle([d / "big.jsonl"], name="index-list", settings=d / "settings.yaml",
                        shards=ShardLimits(index_records=K))


class Requests:
    """The bundle files a page requests (names under data/)."""

    def __init__(self, page):
        self.names: list[str] = []
        page.on("request", lambda r: self.names.append(r.url.rsplit("/", 1)[-1]) if "/data/" in r.url else None)

    def index_shards(self) -> set[int]:
        return {int(f[6:10]) for f in self.names if f.startswith("index-")}

    def of(self, prefix: str) -> set[str]:
        return {f for f in self.names if f.startswith(prefix)}


def open_page(page, base: str, annotator: str = "alice", record: str | None = None) -> None:
    page.route("**/models/**", lambda route: route.abort())
    page.goto(f"{base}?annotator={annotator}" + (f"#record={record}" if record else ""), timeout=120_000)
    page.wait_for_selector("body[data-ready]", timeout=120_000)
    wait_open(page, timeout=120_000)
    page.wait_for_selector("#record-list li[data-record]", timeout=120_000)


def scroll_list(page, row: int) -> None:
    page.evaluate("(row) => { const l = document.getElementById('record-list'); "
                  "l.scrollTop = row * parseFloat(getComputedStyle(l).getPropertyValue('--row')); }", row)


def shown(page) -> list[str]:
    return page.locator("#record-list li[data-record]").evaluate_all("els => els.map(e => e.dataset.record)")


def test_list_scrolled_anywhere_reads_only_the_visible_rows_shards(page, big, serve_dir):
    req = Requests(page)
    open_page(page, serve_dir(big))
    assert req.index_shards() == {0}
    scroll_list(page, N)  # the end: placeholders first, filled when shard 99 arrives
    page.wait_for_selector('#record-list li[data-record="b19999"]', timeout=120_000)
    page.wait_for_function("() => !document.querySelector('#record-list li.rec-placeholder')", timeout=120_000)
    assert req.index_shards() == {0, N // K - 1}
    assert len(shown(page)) < 80
    scroll_list(page, 10_050)  # the middle: shard 50 only
    page.wait_for_selector('#record-list li[data-record="b10050"]', timeout=120_000)
    page.wait_for_function("() => !document.querySelector('#record-list li.rec-placeholder')", timeout=120_000)
    assert req.index_shards() == {0, 50, N // K - 1}
    page.locator('#record-list li[data-record="b10052"] button').click()
    wait_current(page, 'b10052', timeout=120_000)
    assert page.locator('#record-list li[data-record="b10052"]').get_attribute("aria-current") == "true"
    assert "records.json" not in req.names


def go_to(page, rid: str) -> None:
    page.evaluate("(id) => { window.location.hash = 'record=' + encodeURIComponent(id); }", rid)
    wait_open(page, rid, timeout=120_000)


def counts(page) -> dict[str, str]:
    return page.locator("#status-filter button[data-status]").evaluate_all(
        "els => Object.fromEntries(els.map(b => [b.dataset.status, b.querySelector('.status-count').textContent]))")


def total(page, n: int) -> None:
    page.wait_for_function("(n) => document.getElementById('record-list').dataset.total === String(n)", arg=n,
                           timeout=120_000)


def test_status_counts_of_records_far_apart_are_right_after_a_reload(page, big, serve_dir):
    """Submitted, discarded and in-progress records in shards 0, 50, 75 and 99: after a reload the counts
    (todo = count - the rest) and the status filter come from the stored work's ids through the ids
    shards, reading no index shard but those of the rows shown."""
    base = serve_dir(big)
    open_page(page, base, annotator="counter")
    page.keyboard.press("s")  # b00000 submitted
    wait_current(page, 'b00001', timeout=120_000)
    go_to(page, "b10000")
    page.keyboard.press("d")  # discarded
    go_to(page, "b19999")
    page.keyboard.press("s")
    go_to(page, "b15000")
    page.keyboard.press("s")
    go_to(page, "b15000")
    page.click('.finish [data-action="reopen"]')  # back to in progress
    page.wait_for_function("() => document.querySelector('#status-filter [data-status=in_progress] .status-count')"
                           ".textContent === '1'", timeout=120_000)
    wait_saved(page, timeout=120_000)

    req = Requests(page)
    open_page(page, base, annotator="counter")
    want = {"todo": str(N - 4), "in_progress": "1", "submitted": "2", "discarded": "1"}
    page.wait_for_function("(w) => [...document.querySelectorAll('#status-filter button[data-status]')].every("
                           "(b) => b.querySelector('.status-count').textContent === w[b.dataset.status])", arg=want,
                           timeout=120_000)
    assert page.locator("#progress-text").inner_text() == f"3 / {N} done"
    assert current_id(page) == "b00001"  # the first one to do
    # the ids shards placing the work are read after the first record shows, never before it
    before_first = page.evaluate("""() => { const t = performance.getEntriesByName('mercury-first-record')[0].startTime;
        return performance.getEntriesByType('resource').filter((e) => e.startTime < t).map((e) => e.name); }""")
    assert not [u for u in before_first if "/data/ids-" in u] and req.of("ids-")
    assert req.index_shards() == {0}
    page.click('#status-filter button[data-status="submitted"]')
    total(page, 2)
    page.wait_for_selector('#record-list li[data-record="b19999"]', timeout=120_000)
    assert shown(page) == ["b00000", "b19999"]
    assert page.locator('#record-list li[data-record="b19999"]').get_attribute("data-status") == "submitted"
    assert req.index_shards() == {0, N // K - 1}
    page.click('#status-filter button[data-status="submitted"]')
    page.click('#status-filter button[data-status="todo"]')
    total(page, N - 4)
    assert "records.json" not in req.names


def test_filters_read_only_the_shards_they_need(page, big, serve_dir):
    req = Requests(page)
    open_page(page, serve_dir(big))
    page.fill("#record-filter", "w12345")  # one term shard (the postings of "w1…"), then the row's index shard
    total(page, 1)
    page.wait_for_selector('#record-list li[data-record="b12345"]', timeout=120_000)
    assert req.index_shards() == {0, 12345 // K} and len(req.of("terms-")) == 1
    page.fill("#record-filter", "")
    total(page, N)
    page.click("#meta-filters summary")
    page.check('fieldset[data-meta="topic"] input[data-value="chess"]')  # meta postings: no index shard
    total(page, N // 5)
    assert req.index_shards() == {0, 12345 // K}
    assert all(int(r[1:]) % 5 == 2 for r in shown(page))
    page.uncheck('fieldset[data-meta="topic"] input[data-value="chess"]')
    total(page, N)
    # a range narrowed by the text filter reads only the kept records' shards: w1234 and w12340…w12349
    page.fill("#record-filter", "w1234")
    total(page, 11)
    before = req.index_shards()
    page.fill('fieldset[data-meta="score"] input[data-bound="lo"]', "40")
    total(page, 10)
    assert shown(page) == [f"b{i:05d}" for i in range(12340, 12350)]
    assert req.index_shards() - before <= {1234 // K, 12340 // K}
    # sorted by score, descending: the highest score first, still the 10 records
    page.select_option("#record-sort", "meta:score|-1")
    page.wait_for_function("() => document.querySelector('#record-list li[data-record]')?.dataset.record === 'b12349'",
                           timeout=120_000)
    total(page, 10)
    assert "records.json" not in req.names


def test_export_then_import_into_a_fresh_profile_by_position(browser, big, serve_dir, tmp_path):
    """Records labelled in shards 0, 38 and 99: the export holds exactly them, in bundle order, and reads no
    shard (their positions are placed as they are labelled); imported into a fresh profile they are
    restored (counts and rows, and again after a reload), found through their ids shards alone."""
    base = serve_dir(big)
    ctx = browser.new_context(accept_downloads=True)
    page = ctx.new_page()
    open_page(page, base, annotator="porter")
    page.keyboard.press("s")
    wait_current(page, 'b00001', timeout=120_000)
    go_to(page, "b19998")
    page.keyboard.press("s")
    go_to(page, "b07777")
    page.keyboard.press("d")
    page.wait_for_function(f"() => document.getElementById('progress-text').textContent === '3 / {N} done'",
                           timeout=120_000)
    req = Requests(page)
    with page.expect_download(timeout=120_000) as dl:
        page.click('header [data-action="export"]')
    path = tmp_path / "export.json"
    dl.value.save_as(path)
    exported = json.loads(path.read_text(encoding="utf-8"))
    assert [(r["record_id"], r["status"]) for r in exported["records"]] == [
        ("b00000", "submitted"), ("b07777", "discarded"), ("b19998", "submitted")]
    assert not req.of("index-") and not req.of("ids-")
    ctx.close()

    ctx = browser.new_context()
    page = ctx.new_page()
    req = Requests(page)
    open_page(page, base, annotator="porter")
    page.set_input_files("#import-file", str(path))
    page.wait_for_selector("#message", timeout=120_000)
    assert "Imported 0 annotations on 3 records" in page.locator("#message").inner_text()
    want = {"todo": str(N - 3), "in_progress": "0", "submitted": "2", "discarded": "1"}
    page.wait_for_function("(w) => [...document.querySelectorAll('#status-filter button[data-status]')].every("
                           "(b) => b.querySelector('.status-count').textContent === w[b.dataset.status])", arg=want,
                           timeout=120_000)
    # each record was checked against its texts: its own index shard, no other
    assert req.index_shards() <= {0, 7777 // K, 19998 // K}
    page.reload(timeout=120_000)
    page.wait_for_selector("body[data-ready]", timeout=120_000)
    page.wait_for_function("(w) => [...document.querySelectorAll('#status-filter button[data-status]')].every("
                           "(b) => b.querySelector('.status-count').textContent === w[b.dataset.status])", arg=want,
                           timeout=120_000)
    page.click('#status-filter button[data-status="submitted"]')
    total(page, 2)
    page.wait_for_selector('#record-list li[data-record="b19998"][data-status="submitted"]', timeout=120_000)
    assert "records.json" not in req.names
    ctx.close()


def test_the_page_never_requests_records_json(page, big, serve_dir):
    """Open, deep link, scroll, filter, sort, next to do: not one request for data/records.json."""
    req = Requests(page)
    open_page(page, serve_dir(big), record="b15555")
    scroll_list(page, 3_000)
    page.wait_for_selector('#record-list li[data-record="b03000"]', timeout=120_000)
    page.fill("#record-filter", "bakeries")
    total(page, N // 5)
    page.click("#meta-filters summary")
    page.select_option("#record-sort", "status")
    total(page, N // 5)
    page.keyboard.press("Escape")
    page.locator("#pane-summary").click()
    page.keyboard.press("s")
    wait_current(page, 'b15556', timeout=120_000)
    assert "records.json" not in req.names


def test_work_whose_ids_shard_cannot_be_read_is_still_exported(browser, big, serve_dir, tmp_path):
    """Stored work on b00003 and b12345; the next session cannot read the ids shards, so they are not
    placed: the export holds them all the same (after the records placed, said in a message)."""
    base = serve_dir(big)
    ctx = browser.new_context(accept_downloads=True)
    page = ctx.new_page()
    open_page(page, base, annotator="keeper", record="b12345")
    page.keyboard.press("s")
    go_to(page, "b00003")
    page.keyboard.press("d")
    wait_current(page, 'b00004', timeout=120_000)
    wait_saved(page, timeout=120_000)
    page.route("**/data/ids-*.json", lambda route: route.abort())
    page.goto("about:blank")
    open_page(page, base, annotator="keeper")
    assert current_id(page) == "b00000"
    page.keyboard.press("d")  # the open record: placed with its change
    wait_current(page, 'b00001', timeout=120_000)
    with page.expect_download(timeout=120_000) as dl:
        page.click('header [data-action="export"]')
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    records = json.loads(path.read_text(encoding="utf-8"))["records"]
    assert [(r["record_id"], r["status"]) for r in records] == [
        ("b00000", "discarded"), ("b00003", "discarded"), ("b12345", "submitted")]
    page.wait_for_selector("#message", timeout=120_000)
    assert "2 records with work could not be looked up" in page.locator("#message").inner_text()
    page.wait_for_function("() => document.getElementById('unexported').dataset.count === '0'", timeout=120_000)
    ctx.close()
