"""The virtual record list: thousands of records, only the rows in view in the DOM."""

from __future__ import annotations

import json

import pytest

from mercury_static.bundle.record_index import read_columns

from pagedriver import go_to, query, select_range, wait_open

pytestmark = pytest.mark.browser

N = 2000
TOPICS = ["tulips", "ferries", "chess", "bridges", "bakeries"]


@pytest.fixture(scope="module")
def many_bundle(build_bundle, tmp_path_factory):
    """2,000 tiny records over 5 distinct sources and summaries (few texts to embed)."""
    rows = [{"id": f"rec-{i:04d}", "title": f"Record {i} about {TOPICS[i % 5]}",
             "source": f"This report is about {TOPICS[i % 5]}. It has two sentences.",
             "summary": f"A note on {TOPICS[i % 5]}."} for i in range(N)]
    path = tmp_path_factory.mktemp("many") / "many.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return build_bundle([path], name="many")


def rows(page) -> list[str]:
    return page.locator("#record-list li[data-record]").evaluate_all("els => els.map(e => e.dataset.record)")


def current_row_in_view(page) -> bool:
    return page.evaluate("""() => { const li = document.querySelector('#record-list li[aria-current]');
        if (!li) return false;
        const r = li.getBoundingClientRect(), b = document.getElementById('record-list').getBoundingClientRect();
        return r.top >= b.top - 1 && r.bottom <= b.bottom + 1; }""")


def wait_current(page, rid: str) -> None:
    wait_open(page, rid)


def test_virtual_record_list(page, many_bundle, serve_dir):
    page.route("**/models/**", lambda route: route.abort())
    page.goto(serve_dir(many_bundle) + "?annotator=alice#record=rec-1500")
    page.wait_for_selector("body[data-ready]")
    wait_current(page, "rec-1500")
    page.wait_for_selector('#record-list li[data-record="rec-1500"][aria-current="true"]')

    # far fewer rows than records, the deep-linked record rendered, highlighted and scrolled into view
    shown = rows(page)
    assert 5 < len(shown) < 80
    assert "rec-1500" in shown and current_row_in_view(page)
    assert page.locator("#record-list li[aria-current]").count() == 1
    assert page.evaluate("document.getElementsByTagName('*').length") < 1500
    # the list scrolls over all records: its content is as tall as N rows
    row_h = page.locator('#record-list li[data-record="rec-1500"]').evaluate("e => e.offsetHeight")
    assert abs(page.evaluate("document.getElementById('record-list').scrollHeight") - N * row_h) < 2 * row_h

    # status icons: submit moves to the next record; both rows show their state
    page.keyboard.press("s")
    wait_current(page, "rec-1501")
    assert page.locator('#record-list li[data-record="rec-1500"]').get_attribute("data-status") == "submitted"
    assert page.locator('#record-list li[data-record="rec-1501"]').get_attribute("aria-current") == "true"

    # scrolling to the end renders the last rows, still only a window of them
    page.evaluate("() => { const l = document.getElementById('record-list'); l.scrollTop = l.scrollHeight; }")
    page.wait_for_selector('#record-list li[data-record="rec-1999"]')
    assert len(rows(page)) < 80 and "rec-1500" not in rows(page)

    # filter: 400 records match a topic; rows stay a window; a unique title shows one row, a click opens it
    page.fill("#record-filter", "about chess")
    page.wait_for_function("() => document.getElementById('record-list').dataset.total === '400'")
    shown = rows(page)
    assert 5 < len(shown) < 80 and all(int(r[4:]) % 5 == 2 for r in shown)
    page.fill("#record-filter", "record 1232 ")
    page.wait_for_function("() => document.getElementById('record-list').dataset.total === '1'")
    assert rows(page) == ["rec-1232"]
    page.locator('#record-list li[data-record="rec-1232"] button').click()
    wait_current(page, "rec-1232")
    assert page.locator('#record-list li[data-record="rec-1232"]').get_attribute("aria-current") == "true"

    # keyboard: arrows walk the filtered list (beyond the rendered rows with End), Enter opens the focused one
    page.fill("#record-filter", "about chess")
    page.wait_for_function("() => document.getElementById('record-list').dataset.total === '400'")
    assert current_row_in_view(page)  # rec-1232 is in the filter: kept in view
    page.locator('#record-list li[data-record="rec-1232"] button').focus()
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    focused = page.evaluate("document.activeElement.closest('li').dataset.record")
    assert focused == "rec-1247"
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.closest('li').dataset.record") == "rec-1997"
    page.keyboard.press("Enter")
    wait_current(page, "rec-1997")

    # a deep link while filtered to something else: the record opens; clearing the filter shows its row
    page.evaluate("() => { location.hash = '#record=rec-0043'; }")
    wait_current(page, "rec-0043")
    assert "rec-0043" not in rows(page)
    page.fill("#record-filter", "")
    page.wait_for_selector('#record-list li[data-record="rec-0043"][aria-current="true"]')
    assert current_row_in_view(page) and len(rows(page)) < 80
    assert page.locator('#record-list li[data-record="rec-0043"] .rec-title').text_content() == "Record 43 about bridges"


def test_shard_cache_keeps_only_recent_shards(page, build_bundle, tmp_path, serve_dir):
    """Record shards are cached least-recently-used (a few per kind): switching back to a recent record
    fetches nothing, to an old one fetches its shard again, and that record still opens and ranks."""
    from mercury_static.bundle.contents import ShardLimits

    rows = [{"id": f"r{i:03d}", "source": f"The {TOPICS[i % 5]} report number {i % 7} is short. It ends here.",
             "summary": f"A summary about {TOPICS[i % 5]}."} for i in range(40)]
    path = tmp_path / "shards.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    bundle = build_bundle([path], name="shards", shards=ShardLimits(records=2, text_chars=200))
    index = read_columns(bundle / "data")
    assert max(index["shard"]) >= 15
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url.rsplit("/", 1)[-1]) if "/data/" in r.url else None)
    page.route("**/models/**", lambda route: route.abort())
    page.goto(serve_dir(bundle) + "?annotator=alice")
    page.wait_for_selector("body[data-ready]")

    def visit(rid: str) -> list[str]:
        fetched.clear()
        go_to(page, rid)
        wait_current(page, rid)
        page.wait_for_timeout(150)  # the prefetch of the next record
        return [f for f in fetched if f.startswith("records-")]

    for i in range(0, 40, 4):  # ten record shards (and the prefetched next ones)
        visit(f"r{i:03d}")
    assert visit("r036") == []  # recent: still cached
    assert visit("r000") == [f"records-{index['shard'][0]:04d}.json"]  # evicted long ago: fetched again
    # the re-fetched record is complete: its texts, vectors and the precomputed ranking work
    query(page, "async () => { const r = pd.record();"
                " await r.source.vectorsReady; await r.summary.vectorsReady; }")
    s, e = query(page, "() => { const t = pd.pane('summary').view.text; return [0, t.length]; }")
    select_range(page, "summary", s, e)
    page.wait_for_selector('#pane-source .s[data-rank="1"]')


def test_shared_source_shard_is_not_fetched_again(page, build_bundle, tmp_path, serve_dir):
    """A record's texts are requested with its record shard (the index names their shards), but a source
    shared by every record stays open: its shard is fetched once, however many records are visited."""
    from mercury_static.bundle.contents import ShardLimits

    shared = " ".join(f"The {TOPICS[i % 5]} section {i} of the shared report." for i in range(12))
    rows = [{"id": f"s{i:03d}", "source": shared, "summary": f"Summary {i} about {TOPICS[i % 5]} and more."}
            for i in range(30)]
    path = tmp_path / "shared.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    bundle = build_bundle([path], name="shared-source", shards=ShardLimits(records=2, text_chars=120))
    index = read_columns(bundle / "data")
    source_shard = index["text_shards"][0][0]
    assert all(t[0] == source_shard for t in index["text_shards"]) and len({t[1] for t in index["text_shards"]}) > 8
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url.rsplit("/", 1)[-1]) if "/data/" in r.url else None)
    page.route("**/models/**", lambda route: route.abort())
    page.goto(serve_dir(bundle) + "?annotator=alice")
    page.wait_for_selector("body[data-ready]")
    for i in range(0, 30, 3):
        go_to(page, f"s{i:03d}")
        wait_current(page, f"s{i:03d}")
        page.wait_for_timeout(100)
    texts = [f for f in fetched if f.startswith("texts-")]
    assert texts.count(f"texts-{source_shard:04d}.json") == 1
    assert f"texts-{index['text_shards'][27][1]:04d}.json" in texts  # summaries: each one's own shard
