"""Navigation for a day's work (real Chromium, FaithBench- and SummHay-shaped bundles)."""

from __future__ import annotations


import pytest

from mercury_static.bundle.record_index import read_columns

from pagedriver import current_id, describe, wait, wait_open
from page_fixtures import faithbench_dump, summhay_topic

pytestmark = pytest.mark.browser

N = 12


@pytest.fixture(scope="module")
def fb_bundle(build_bundle, tmp_path_factory):
    return build_bundle([faithbench_dump(tmp_path_factory.mktemp("fb") / "batch.json", n=N)], name="fb")


@pytest.fixture(scope="module")
def sh_bundle(build_bundle, tmp_path_factory):
    return build_bundle([summhay_topic(tmp_path_factory.mktemp("sh") / "topic.json", n_docs=30)], name="sh",
                        fmt="summhay")


def goto(page, base, record=None, annotator="alice"):
    page.route("**/models/**", lambda route: route.abort())
    page.goto(f"{base}?annotator={annotator}" + (f"#record={record}" if record is not None else ""))
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    wait_open(page, timeout=60_000)
    page.keyboard.press("Escape")
    page.wait_for_selector("#record-list li[data-record]")


def current(page) -> str:
    return current_id(page)


def wait_current(page, rid: str):
    try:
        wait_open(page, rid)
    except Exception:  # say where the page is (a rare timeout of this test under load)
        print("page state:", describe(page))
        raise


def shown_rows(page) -> list[str]:
    return page.locator("#record-list li[data-record]").evaluate_all("els => els.map(e => e.dataset.record)")


def test_first_todo_next_todo_and_all_done(context, fb_bundle, serve_dir):
    base = serve_dir(fb_bundle)
    page = context.new_page()
    goto(page, base, record="0")
    page.keyboard.press("s")
    wait_current(page, "1")
    page.keyboard.press("d")
    wait_current(page, "2")
    # without #record=, a reload opens the first record not done
    page.goto(f"{base}?annotator=alice")
    page.wait_for_selector("body[data-ready]")
    wait_current(page, "2")
    # "t": the next record still to do, skipping done ones (4 is done, so 3 -> 5)
    page.evaluate("() => { location.hash = 'record=4'; }")
    wait_current(page, "4")
    page.keyboard.press("s")
    wait_current(page, "5")
    page.evaluate("() => { location.hash = 'record=3'; }")
    wait_current(page, "3")
    page.keyboard.press("t")
    wait_current(page, "5")
    page.evaluate("() => { location.hash = 'record=0'; }")
    wait_current(page, "0")
    page.keyboard.press("t")
    wait_current(page, "2")
    # finishing every record leads to "all done" with the export reminder
    assert page.locator("#all-done").is_hidden()
    for _ in range(N - 3):
        before = current(page)
        page.keyboard.press("s")
        wait(page, "(b) => pd.currentId() !== b || pd.allDone()", before)
    page.wait_for_selector("#all-done:not([hidden])")
    text = page.locator("#all-done").inner_text()
    assert f"All {N} records done" in text and "Export" in text and "coordinator" in text
    assert page.locator("#all-done button[data-action=export]").is_visible()
    page.keyboard.press("Escape")
    assert page.locator("#all-done").is_hidden()
    # a reload without #record= says so again
    page.goto(f"{base}?annotator=alice")
    page.wait_for_selector("#all-done:not([hidden])")


def test_filter_by_status_and_metadata_and_keys(page, fb_bundle, serve_dir):
    goto(page, serve_dir(fb_bundle), record="1")
    page.keyboard.press("s")  # 1 submitted (model-a)
    wait_current(page, "2")
    page.keyboard.press("s")  # 2 submitted (model-b)
    wait_current(page, "3")
    page.fill("#record-filter", "model-a")
    page.wait_for_function(f"() => document.getElementById('record-list').dataset.total === '{N // 2}'")
    assert shown_rows(page) == [str(i) for i in range(1, N, 2)]
    page.fill("#record-filter", "model-a submitted")
    page.wait_for_function("() => document.getElementById('record-list').dataset.total === '1'")
    assert shown_rows(page) == ["1"]
    # status buttons (with counts in words: the list's legend) combine with the text filter
    page.fill("#record-filter", "model-b")
    page.click('#status-filter button[data-status="todo"]')
    page.wait_for_function(f"() => document.getElementById('record-list').dataset.total === '{N // 2 - 1}'")
    assert "2" not in shown_rows(page) and "0" in shown_rows(page)
    legend = page.locator("#status-filter").inner_text()
    assert "submitted" in legend and "2" in legend and "to do" in legend
    page.click('#status-filter button[data-status="todo"]')
    # ArrowDown from the filter box moves into the list, Enter opens the first match
    page.fill("#record-filter", "model-b")
    page.locator("#record-filter").press("ArrowDown")
    assert page.evaluate("() => document.activeElement.closest('li[data-record]')?.dataset.record") == "0"
    page.keyboard.press("ArrowDown")
    assert page.evaluate("() => document.activeElement.closest('li[data-record]')?.dataset.record") == "2"
    page.keyboard.press("Enter")
    wait_current(page, "2")
    page.fill("#record-filter", "model-b")
    page.locator("#record-filter").press("Enter")
    wait_current(page, "0")


def test_readable_titles_and_one_label_form(page, fb_bundle, serve_dir):
    goto(page, serve_dir(fb_bundle), record="0")
    row = page.locator('#record-list li[data-record="3"] .rec-title')
    summary3 = read_columns(fb_bundle / "data")["titles"][3]
    assert row.inner_text().strip() != "3" and row.inner_text().startswith(summary3[:20])
    # labels read as the guidelines write them, in the form, suggestions and saved annotations
    body = page.locator("body").inner_text()
    assert "Unwanted › Intrinsic" in page.locator("#draft").inner_text()
    assert "Unwanted › Intrinsic" in page.locator("#suggestions").inner_text()
    assert "Unwanted.Intrinsic" not in body
    # the progress is in words (or a legend), not "✓0 ✗0 …0"
    assert "✓" not in page.locator(".topbar").inner_text() and "✗" not in body
    # the form does not conclude "not supported" before anything was decided
    assert "not supported" not in page.locator("#draft").inner_text()
    # "reopen" only on a record that is done
    assert page.locator('.finish [data-action="reopen"]').is_hidden()
    page.locator('#suggestions button[data-action="accept"]').first.click()
    assert "Unwanted › Intrinsic" in page.locator("#annotations").inner_text()
    assert "Unwanted.Intrinsic" not in page.locator("body").inner_text()
    # a change shows the "saved" confirmation
    assert "saved" in page.locator("#save-status").inner_text()
    page.keyboard.press("s")
    wait_current(page, "1")
    page.keyboard.press("p")
    wait_current(page, "0")
    assert page.locator('.finish [data-action="reopen"]').is_visible()


def test_summhay_titles_keep_the_distinct_part(page, sh_bundle, serve_dir):
    goto(page, serve_dir(sh_bundle))
    tails = page.locator("#record-list li[data-record] .rec-title").evaluate_all("""els => els.map(t => {
        const tail = t.querySelector('.rec-tail'), row = t.closest('button').getBoundingClientRect();
        const r = tail ? tail.getBoundingClientRect() : null;
        return {text: tail ? tail.textContent : '', visible: !!r && r.width > 0 && r.right <= row.right + 1
                && tail.scrollWidth <= tail.clientWidth + 1}; })""")
    assert len(tails) == 4
    assert all(t["visible"] for t in tails), tails
    assert {t["text"] for t in tails} == {" · rag_bm25_gpt4", " · full_context_claude3"}


def test_reimport_of_a_just_exported_file_is_not_unexported(browser, fb_bundle, serve_dir, tmp_path):
    base = serve_dir(fb_bundle)
    a = browser.new_context(accept_downloads=True)
    page = a.new_page()
    goto(page, base, record="0")
    page.locator('#suggestions button[data-action="accept"]').first.click()
    page.keyboard.press("s")
    wait_current(page, "1")
    with page.expect_download() as dl:
        page.click('header [data-action="export"]')
    path = tmp_path / "export.json"
    dl.value.save_as(path)
    assert page.locator("#unexported").inner_text() == "all exported"
    a.close()
    # another browser (or this one after clearing it) imports the file: nothing in it is "unexported"
    b = browser.new_context()
    page = b.new_page()
    goto(page, base, record="0")
    page.set_input_files("#import-file", str(path))
    wait(page, "() => Object.keys(pd.entries()).length === 1")
    assert page.locator("#unexported").inner_text() == "all exported"
    assert page.locator("#annotations li").count() == 1
    # a change after the import is unexported again
    page.locator('#suggestions button[data-action="accept"]').nth(1).click()
    page.wait_for_function("() => document.getElementById('unexported').textContent !== 'all exported'",
                           timeout=5_000)
    assert page.locator("#unexported").inner_text() == "1 not exported"
    b.close()
