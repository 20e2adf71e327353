"""The page on the sharded record index: a deep link and the first record are found with an
ids shard and index shards 0 and the record's, never every index shard; a bundle whose index is
missing says so in one line."""

from __future__ import annotations

import json
import shutil

import pytest

from mercury_static.bundle.contents import ShardLimits
from mercury_static.bundle.record_index import fnv1a

from pagedriver import wait_open

pytestmark = pytest.mark.browser

N, K = 30, 4
TOPICS = ["tulips", "ferries", "chess", "bridges", "bakeries"]


@pytest.fixture(scope="module")
def index_bundle(build_bundle, tmp_path_factory):
    rows = [{"id": f"r{i:02d}", "title": f"Record {i} about {TOPICS[i % 5]}",
             "source": f"This report is about {TOPICS[i % 5]}. It has two sentences.",
             "summary": f"A note on {TOPICS[i % 5]}." + (" Approved by Councillor Warburton." if i == 7 else "")}
            for i in range(N)]
    path = tmp_path_factory.mktemp("index-page") / "rows.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return build_bundle([path], name="index-page", shards=ShardLimits(records=3, index_records=K, term_postings=40))


def wait_current(page, rid: str) -> None:
    wait_open(page, rid, timeout=60_000)


def boot_reads(page) -> list[str]:
    """The data/ files requested before the record list was mounted (which then reads its visible rows'
    index shards: tests/test_page_index_list.py): the boot path's reads, from resource timing."""
    page.wait_for_function("() => performance.getEntriesByName('mercury-first-paint').length", timeout=60_000)
    return page.evaluate("""() => { const t = performance.getEntriesByName('mercury-first-paint')[0].startTime;
        return performance.getEntriesByType('resource').filter((e) => e.startTime < t && e.name.includes('/data/'))
            .map((e) => e.name.split('/').pop()); }""")


def test_deep_link_reads_one_ids_shard_and_the_records_index_shard(page, index_bundle, serve_dir):
    top = json.loads((index_bundle / "data" / "index.json").read_text())
    assert top["index_shards"] == -(-N // K) and top["id_shards"] > 1
    page.route("**/models/**", lambda route: route.abort())
    page.goto(serve_dir(index_bundle) + "?annotator=alice#record=r21", timeout=60_000)
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    wait_current(page, "r21")
    fetched = boot_reads(page)
    assert [f for f in fetched if f.startswith("ids-")] == [f"ids-{fnv1a('r21') % top['id_shards']:04d}.json"]
    assert sorted({f for f in fetched if f.startswith("index-")}) == ["index-0000.json", f"index-{21 // K:04d}.json"]
    page.wait_for_selector('#record-list li[data-record="r21"][aria-current="true"]', timeout=60_000)

    # an unknown deep link: the first record, and a message naming the id
    page.goto(serve_dir(index_bundle) + "?annotator=alice#record=nope", timeout=60_000)
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    wait_current(page, "r00")
    assert "nope" in page.locator("body").inner_text()


def test_a_bundle_without_its_index_says_so(page, index_bundle, serve_dir, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(index_bundle, broken)
    (broken / "data" / "index.json").unlink()
    page.route("**/models/**", lambda route: route.abort())
    page.goto(serve_dir(broken) + "?annotator=alice", timeout=60_000)
    page.wait_for_function("document.body.innerText.includes('Cannot open this bundle')", timeout=60_000)
    assert "data/index.json: HTTP 404" in page.locator("body").inner_text()


def test_next_to_do_walks_index_shards_in_order(page, index_bundle, serve_dir):
    """Submitting moves to the next record to do; a reload opens the first record without stored work,
    having read the index shards up to it, not the whole index."""
    base = serve_dir(index_bundle)  # one origin: the stored work is the origin's
    page.route("**/models/**", lambda route: route.abort())
    page.goto(base + "?annotator=nextdo", timeout=60_000)
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    wait_current(page, "r00")
    page.wait_for_selector('#record-list li[data-record="r00"][aria-current="true"]', timeout=60_000)
    for i in range(9):
        page.keyboard.press("s")
        wait_current(page, f"r{i + 1:02d}")
        page.wait_for_selector(f'#record-list li[data-record="r{i + 1:02d}"][aria-current="true"]', timeout=60_000)
    page.goto(base + "?annotator=nextdo", timeout=60_000)
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    wait_current(page, "r09")
    fetched = boot_reads(page)
    assert sorted({f for f in fetched if f.startswith("index-")}) == [f"index-{n:04d}.json" for n in range(9 // K + 1)]


def test_20000_records_open_first_and_last_with_few_index_shards(page, build_bundle, tmp_path, serve_dir):
    """A generated 20,000-record bundle in 100 index shards: the first record, then a deep link to the
    last one, each read at most its own index shard beyond shard 0, and one ids shard for the link."""
    n, k = 20_000, 200
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"b{i:05d}", "title": f"Record {i} about {TOPICS[i % 5]}",
                                          "source": f"This report is about {TOPICS[i % 5]}. It has two sentences.",
                                          "summary": f"A note on {TOPICS[i % 5]}."}) for i in range(n)), encoding="utf-8")
    bundle = build_bundle([path], name="index-20k", shards=ShardLimits(index_records=k))
    top = json.loads((bundle / "data" / "index.json").read_text())
    assert top["count"] == n and top["index_shards"] == n // k
    base = serve_dir(bundle)
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url.rsplit("/", 1)[-1]) if "/data/" in r.url else None)
    page.route("**/models/**", lambda route: route.abort())
    page.goto(base + "?annotator=alice", timeout=120_000)
    page.wait_for_selector("body[data-ready]", timeout=120_000)
    wait_current(page, "b00000")
    assert {f for f in fetched if f.startswith(("index-", "ids-"))} == {"index-0000.json"}
    fetched.clear()
    page.goto(base + "?annotator=alice#record=b19999", timeout=120_000)
    page.wait_for_selector("body[data-ready]", timeout=120_000)
    wait_current(page, "b19999")
    # (shards already read by this tab may come from the HTTP cache, with no request)
    read = {f for f in fetched if f.startswith(("index-", "ids-"))}
    assert f"index-{(n - 1) // k:04d}.json" in read and read <= {
        "index-0000.json", f"index-{(n - 1) // k:04d}.json", f"ids-{fnv1a('b19999') % top['id_shards']:04d}.json"}
    page.wait_for_selector('#record-list li[data-record="b19999"][aria-current="true"]', timeout=120_000)


def listed(page) -> list[str]:
    return page.locator("#record-list li[data-record]").evaluate_all("els => els.map(e => e.dataset.record)")


def filtered(page, text: str, want: list[str]) -> None:
    page.fill("#record-filter", text)
    page.wait_for_function("(w) => JSON.stringify([...document.querySelectorAll('#record-list li[data-record]')]"
                           ".map(e => e.dataset.record)) === JSON.stringify(w)", arg=want, timeout=30_000)


def test_the_filter_finds_any_word_of_either_text(page, index_bundle, bundle_server, serve_dir):
    """A word late in the summary or only in the source finds its record, over the term index
    (30 records in 8 index shards) and where one index shard holds every row (the demo: substring matching of
    the row, the texts' words through the term index)."""
    page.route("**/models/**", lambda route: route.abort())
    page.goto(serve_dir(index_bundle) + "?annotator=kim")
    page.wait_for_selector("#record-list li[data-record]", timeout=60_000)
    filtered(page, "warburton", ["r07"])
    filtered(page, "Warb", ["r07"])  # a prefix of the word
    filtered(page, "councillor tulips", [])  # every word must match
    filtered(page, "sentences bridges", ["r03", "r08", "r13", "r18", "r23", "r28"])  # a source word and a summary word
    page.goto(bundle_server + "?annotator=kim")
    page.wait_for_selector("#record-list li[data-record]", timeout=60_000)
    filtered(page, "Mondays", ["harbor-lighthouse"])  # late in the summary, past the row's title
    filtered(page, "tickets", ["harbor-lighthouse"])  # only in the source
    filtered(page, "lighthouse tickets", ["harbor-lighthouse"])  # the id's word and a text's
    # a word of several parts is matched against the row only (each part alone is in every text: `a`)
    filtered(page, "model-a", ["harbor-lighthouse", "urban-bees", "city-marathon", "startup-funding",
                               "markup-safety", "reef-survey", "wind-farm", "museum-theft"])
