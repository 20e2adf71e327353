"""The page on the sharded record index at 20,000 records in 100 index shards (issue 15 §1): the list, the
filters, the status counts, export and import each read only the index shards they need (requests counted),
and the page never requests data/records.json."""

from __future__ import annotations

import json

import pytest

from mercury_static.bundle import ShardLimits

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
    page.wait_for_function("() => mercuryStatic.store.state.current.record", timeout=120_000)
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
    page.wait_for_function("() => mercuryStatic.store.state.current.id === 'b10052'", timeout=120_000)
    assert page.locator('#record-list li[data-record="b10052"]').get_attribute("aria-current") == "true"
