"""A layout that stays put at 1440×900, 1280×720 and 1024×768 (real Chromium, real bundles)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mercury_static.bundle.contents import load_bundle
from pagedriver import select_range, set_model, show_message, wait, wait_current, wait_open
from page_fixtures import faithbench_dump

pytestmark = pytest.mark.browser

SIZES = [(1440, 900), (1280, 720), (1024, 768)]
SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@pytest.fixture(scope="module")
def fb_bundle(build_bundle, tmp_path_factory):
    return build_bundle([faithbench_dump(tmp_path_factory.mktemp("fb") / "batch.json")], name="fb", title="FaithBench batch")


def open_at(context, base, size, record="0", annotator="alice"):
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.route("**/models/**", lambda route: route.abort())
    page.goto(f"{base}?annotator={annotator}" + (f"#record={record}" if record else ""))
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    wait_open(page, timeout=60_000)
    page.keyboard.press("Escape")
    page.errors = errors
    return page


def topbar_lines(page) -> int:
    """Distinct line boxes of the top bar's visible children (1 when it keeps one line); fails when one
    of them is pushed out of the window instead."""
    r = page.evaluate("""() => {
        const kids = [...document.querySelector('.topbar').children]
            .filter(e => e.offsetParent !== null && e.getBoundingClientRect().height > 0);
        const tops = kids.map(e => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; });
        const lines = [];
        for (const t of tops.sort((a, b) => a - b)) if (!lines.length || t - lines[lines.length - 1] > 8) lines.push(t);
        const out = kids.filter(e => { const r = e.getBoundingClientRect(); return r.left < 0 || r.right > innerWidth + 0.5; })
            .map(e => e.className || e.dataset.action);
        return {lines: lines.length, out}; }""")
    assert not r["out"], f"outside the window: {r['out']}"
    return r["lines"]


def inside_viewport(page, selector) -> bool:
    return page.evaluate("""(sel) => { const el = document.querySelector(sel); const r = el.getBoundingClientRect();
        return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }""", selector)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_topbar_one_line_and_footer_visible(context, fb_bundle, serve_dir, size):
    page = open_at(context, serve_dir(fb_bundle), size, annotator="alice-marie-the-second")
    # the longest forms of the slots whose text changes
    set_model(page, "failed", "no wasm")
    page.evaluate("""() => { const el = document.getElementById('unexported');
        el.textContent = '12345 not exported'; el.dataset.count = '12345'; }""")
    if size[0] >= 1280:
        assert topbar_lines(page) == 1
    for state in ("loading", "ready"):
        set_model(page, state)
        if size[0] >= 1280:
            assert topbar_lines(page) == 1
    # record 0 has 14 suggestions: Submit / Discard stay in the viewport, in a footer
    assert page.locator("#suggestions li").count() == 14
    for sel in ('.finish [data-action="submit"]', '.finish [data-action="discard"]'):
        assert inside_viewport(page, sel), sel
    page.locator("#suggestions li").last.scroll_into_view_if_needed()
    assert inside_viewport(page, '.finish [data-action="submit"]')
    assert not page.errors


def test_validation_message_in_the_draft_card_not_a_banner(context, fb_bundle, serve_dir):
    page = open_at(context, serve_dir(fb_bundle), (1280, 720), record="1")
    top = page.evaluate("() => document.getElementById('pane-source').getBoundingClientRect().top")
    select_range(page, "summary", 4, 20)
    wait(page, "() => pd.draft().summary")
    page.keyboard.press("Enter")  # no label picked
    msg = page.locator("#draft #draft-message")
    assert "label" in msg.inner_text()
    assert msg.is_visible()
    assert page.locator("#banners").inner_text().strip() == ""
    assert page.evaluate("() => document.getElementById('pane-source').getBoundingClientRect().top") == top
    page.keyboard.press("1")  # the message was about the draft as it was: picking a label clears it
    assert msg.inner_text() == ""
    # other messages (an import's result) are a bar below the texts: the panes' tops stay put (the text does
    # not move under the mouse) and no line of text is covered
    show_message(page, "Imported 3 annotations on 2 records from alice.json.")
    assert page.locator("#banners #message").is_visible()
    assert page.evaluate("() => document.getElementById('pane-source').getBoundingClientRect().top") == top
    assert_banners_cover_no_text(page)
    assert not page.errors


def assert_banners_cover_no_text(page):
    overlap = page.evaluate("""() => {
        const b = document.getElementById('banners').getBoundingClientRect();
        return [...document.querySelectorAll('.pane, .side, .records')].filter((el) => {
            const r = el.getBoundingClientRect();
            return r.width && r.height && r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom;
        }).map((el) => el.id || el.className);
    }""")
    assert overlap == [], overlap


def test_a_name_without_a_queue_is_told_below_the_texts(context, demo_bundle, fresh_copy, run, serve_dir):
    """A first visitor of a bundle with queues, under a name that has none: told so, in a note that covers
    neither text (it covered the summary's first line)."""
    bundle = fresh_copy(demo_bundle)
    assert run("assign", bundle, "--annotators", "alice,bob").exit_code == 0
    page = open_at(context, serve_dir(bundle), (1280, 720), record=None, annotator="newcomer")
    message = page.locator("#banners #message")
    message.wait_for()
    assert "No queue for “newcomer”" in message.inner_text()
    assert_banners_cover_no_text(page)
    assert not page.errors


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)])
def test_no_queue_message_reads_whole_beside_the_open_guidelines(context, demo_bundle, fresh_copy, run, serve_dir,
                                                                  size):
    """The first visit opens the guidelines: the note that the name has no queue is not hidden under them."""
    bundle = fresh_copy(demo_bundle)
    assert run("assign", bundle, "--annotators", "alice,bob").exit_code == 0
    page = context.new_page()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.route("**/models/**", lambda route: route.abort())
    page.goto(f"{serve_dir(bundle)}?annotator=carol")
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    message = page.locator("#banners #message")
    message.wait_for()
    assert page.locator("#guidelines").is_visible()
    covered = page.evaluate("""() => {
        const m = document.getElementById('message');
        const r = m.getBoundingClientRect();
        const points = [];
        for (const fx of [0.02, 0.5, 0.98]) for (const fy of [0.25, 0.75]) points.push([r.left + fx * r.width, r.top + fy * r.height]);
        return points.filter(([x, y]) => x >= innerWidth || y >= innerHeight || !m.contains(document.elementFromPoint(x, y)))
            .concat(m.scrollWidth > m.clientWidth + 1 ? ['clipped'] : []);
    }""")
    assert covered == [], covered
    assert "No queue for “carol”" in message.inner_text()


VISIBLE = """(sel) => {
    // the element is in the window and on top at its centre (not under another box, not scrolled away)
    const el = document.querySelector(sel);
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && el.contains(document.elementFromPoint(x, y));
}"""


def test_a_phone_keeps_submit_in_view_and_opens_the_list_where_it_is_scrolled(context, demo_bundle, serve_dir):
    page = open_at(context, serve_dir(demo_bundle), (390, 844), record="harbor-lighthouse")
    for action in ("submit", "discard"):  # at rest, and with the column scrolled half way: always in view
        assert page.evaluate(VISIBLE, f".finish [data-action={action}]"), action
    page.evaluate("() => { const l = document.querySelector('.layout'); l.scrollTop = l.scrollHeight / 2; }")
    assert page.evaluate("() => document.querySelector('.layout').scrollTop") > 200
    assert page.evaluate(VISIBLE, ".finish [data-action=submit]")
    page.click("[data-action=toggle-list]")
    page.wait_for_selector("#record-list li[data-position=\"0\"] button")
    assert page.evaluate(VISIBLE, "#record-list li[data-position=\"0\"] button")  # from the first
    box = page.evaluate("() => { const r = document.getElementById('records').getBoundingClientRect(); "
                        "return [r.top, r.bottom, document.querySelector('.topbar').getBoundingClientRect().bottom]; }")
    assert box[0] >= box[2] - 1 and box[1] <= 844 and box[1] - box[0] > 400, box
    assert not page.errors


def test_1024_lists_collapse_texts_keep_60_percent(context, fb_bundle, serve_dir):
    page = open_at(context, serve_dir(fb_bundle), (1024, 768))
    texts = "() => [...document.querySelectorAll('.pane')].reduce((a, p) => a + p.getBoundingClientRect().width, 0)"
    assert page.evaluate(texts) >= 0.6 * 1024
    assert page.evaluate("() => document.querySelector('.pane[data-pane=summary]').getBoundingClientRect().width") > 250
    assert not page.locator("#records").is_visible()
    assert page.locator("#side").is_visible()
    # the list opens (key and button) as a drawer over the texts: they keep their width
    page.keyboard.press("[")
    assert page.locator("#records").is_visible()
    assert page.evaluate(texts) >= 0.6 * 1024
    page.locator('#record-list li[data-record="3"] button').click()
    wait_current(page, '3')
    assert not page.locator("#records").is_visible()  # picking a record closes the drawer
    page.click('[data-action="toggle-list"]')
    assert page.locator("#records").is_visible()
    # the side panel collapses too: the texts take the whole width
    page.keyboard.press("Escape")
    page.locator("#pane-source").focus()
    page.keyboard.press("]")
    assert not page.locator("#side").is_visible()
    assert page.evaluate(texts) >= 0.95 * 1024 - 260
    page.keyboard.press("]")
    assert page.locator("#side").is_visible()
    assert inside_viewport(page, '.finish [data-action="submit"]')
    # hidden again, it opens when a draft starts (its form shows the labels and messages)
    page.keyboard.press("]")
    assert not page.locator("#side").is_visible()
    select_range(page, "summary", 4, 20)
    wait(page, "() => pd.draft().summary")
    assert page.locator("#draft").is_visible()
    assert not page.errors


@pytest.mark.shared_data
def test_real_faithbench_batch(context, build_bundle, serve_dir):
    """The real batch the issue was found on: readable rows, one-line top bar, Submit in view at 1440×900."""
    path = SHARED_DATA / "faithbench" / "batch_1.json"
    if not path.exists():
        pytest.skip("../shared/data/faithbench is absent")
    bundle = build_bundle([path], name="batch1")
    page = open_at(context, serve_dir(bundle), (1440, 900), record=None)
    page.wait_for_selector("#record-list li[data-record]")
    titles = page.locator("#record-list li[data-record] .rec-title").evaluate_all("els => els.map(e => e.textContent)")
    assert titles and not any(t.strip().isdigit() for t in titles)
    assert topbar_lines(page) == 1
    # the record with the most suggestions: the footer stays in view
    rec = max(load_bundle(bundle).records, key=lambda r: len(r.prior_annotations))
    page.evaluate("(id) => { location.hash = 'record=' + encodeURIComponent(id); }", rec.id)
    wait_open(page, rec.id)
    assert page.locator("#suggestions li").count() == len(rec.prior_annotations) > 0
    assert inside_viewport(page, '.finish [data-action="submit"]')
    assert not page.errors


# ------------------------------------------------------------- any screen, nothing overlaps

ALL_SIZES = [(390, 844), (1024, 768), (1280, 720), (1440, 900), (1920, 1080)]
SHOTS = Path(__file__).resolve().parent.parent / ".cache" / "screenshots"

# The page's controls and text boxes, each shown one: none may intersect another (a box inside another is
# its content, not an overlap), none may leave the window, and the ones whose text must be read whole
# (READ_WHOLE) are not cut by an ellipsis. Overlays (help, guidelines, the all-done card, the list drawer
# below 1200 px) are opened on purpose and are not part of the resting layout.
LAYOUT_CHECK = """() => {
    const READ_WHOLE = ['#model-status', '.who', '#rec-pos', '#progress-text', '#save-status', '#unexported',
        '.pane-title', '#toast', '.banner', '.finish button', '.topbar button', '.q-heading', '.question legend'];
    const SEL = ['.topbar > *', '.pane-title', '.scroller', '.minimap', '#banners', '#toast', '.side-scroll', '.finish',
        '.questions', '.fields', '#records:not(.drawer)', '#record-list li button'];
    const shown = (el) => {
        if (!el.getClientRects().length) return false;
        const r = el.getBoundingClientRect(), st = getComputedStyle(el);
        return r.width > 0 && r.height > 0 && st.visibility !== 'hidden';
    };
    const els = [...new Set(SEL.flatMap((s) => [...document.querySelectorAll(s)]))].filter(shown)
        .filter((el) => !(el.closest('#records') && ['absolute', 'fixed'].includes(getComputedStyle(document.getElementById('records')).position)));
    const name = (el) => el.id ? '#' + el.id : (el.className ? '.' + String(el.className).split(' ')[0] : el.tagName)
        + (el.dataset.action ? `[${el.dataset.action}]` : '');
    // what shows of a box inside the scrolling columns (a phone's) is what the columns' box shows of it
    const cols = document.querySelector('.layout').getBoundingClientRect();
    const seen = (el) => { const r = el.getBoundingClientRect(); if (!el.closest('.layout')) return r;
        return {left: r.left, right: r.right, top: Math.max(r.top, cols.top), bottom: Math.min(r.bottom, cols.bottom)}; };
    const overlaps = [];
    for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
        const a = els[i], b = els[j];
        if (a.contains(b) || b.contains(a)) continue;
        const p = seen(a), q = seen(b);
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left), h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 0.5 && h > 0.5) overlaps.push(`${name(a)} × ${name(b)}`);
    }
    // out of the window: sideways anywhere; downwards outside the columns (on a phone they scroll)
    const outside = els.filter((el) => { const r = el.getBoundingClientRect();
        return r.left < -0.5 || r.right > innerWidth + 0.5
            || (!el.closest('.layout') && (r.top < -0.5 || r.bottom > innerHeight + 0.5)); }).map(name);
    const clipped = [...new Set(READ_WHOLE.flatMap((s) => [...document.querySelectorAll(s)]))].filter(shown)
        .filter((el) => el.scrollWidth > el.clientWidth + 1).map(name);
    const panes = [...document.querySelectorAll('.scroller')].map((el) => { const r = el.getBoundingClientRect();
        return [Math.round(r.width), Math.round(r.height)]; });
    return {overlaps, outside, clipped, panes, wide: document.documentElement.scrollWidth <= innerWidth};
}"""


def assert_layout(page, label, min_pane=(280, 120)):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{label}.png"))
    r = page.evaluate(LAYOUT_CHECK)
    assert r["overlaps"] == [], (label, r)
    assert r["outside"] == [], (label, r)
    assert r["clipped"] == [], (label, r)
    assert r["wide"], (label, r)
    for w, h in r["panes"]:
        assert w >= min_pane[0] and h >= min_pane[1], (label, r["panes"])
    return r


@pytest.fixture(scope="module")
def queued_fb(fb_bundle, tmp_path_factory):
    import shutil

    from typer.testing import CliRunner

    from mercury_static.cli import app
    bundle = tmp_path_factory.mktemp("queued") / "fb"
    shutil.copytree(fb_bundle, bundle)
    assert CliRunner().invoke(app, ["assign", str(bundle), "--annotators", "alice-marie-the-second,bob"]).exit_code == 0
    return bundle


@pytest.fixture(scope="module")
def sh_long(build_bundle, tmp_path_factory):
    from page_fixtures import summhay_topic
    return build_bundle([summhay_topic(tmp_path_factory.mktemp("shl") / "topic.json", n_docs=40, subtopics=2)],
                        name="shl", fmt="summhay")


@pytest.fixture(scope="module")
def fbq(build_bundle, tmp_path_factory):
    from page_settings import faithbench_like
    data, settings = faithbench_like(tmp_path_factory.mktemp("fbq"), n=4)
    return build_bundle([data], name="fbq", settings=settings)


def with_messages(page):
    """The longest forms of the top bar's changing slots, a banner and a toast, all at once."""
    set_model(page, "failed", "no wasm")
    page.evaluate("""() => { const el = document.getElementById('unexported');
        el.textContent = '12345 not exported'; el.dataset.count = '12345'; }""")
    show_message(page, "Imported 3 annotations on 2 records from alice.json.")
    page.evaluate("""() => { const t = document.getElementById('toast'); t.hidden = false;
        t.textContent = 'Deleted the annotation. Ctrl+Z: undo'; }""")


@pytest.mark.parametrize("size", ALL_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("kind", ["queue", "long-source", "questions"])
def test_any_screen_nothing_overlaps_or_is_cut(context, queued_fb, sh_long, fbq, serve_dir, size, kind):
    bundle = {"queue": queued_fb, "long-source": sh_long, "questions": fbq}[kind]
    page = open_at(context, serve_dir(bundle), size, record=None, annotator="alice-marie-the-second")
    with_messages(page)
    label = f"{kind}-{size[0]}x{size[1]}"
    min_pane = (300, 150) if size[0] < 700 else (280, 120)
    assert_layout(page, label, min_pane)
    assert topbar_lines(page) >= 1  # nothing out of the window
    if kind == "long-source" and size[0] >= 1200:  # list titles: the distinct tail whole, enough of the head
        rows = page.locator("#record-list .rec-title").evaluate_all("""els => els.map(e => {
            const h = e.querySelector('.rec-head'), t = e.querySelector('.rec-tail');
            return [h.clientWidth, t.scrollWidth - t.clientWidth, t.textContent]; })""")
        assert rows and all(head >= 150 and cut <= 1 for head, cut, _ in rows), rows
    assert "null" not in page.locator("#record-info").inner_text()
    assert not page.errors


def test_no_null_in_the_record_card(context, build_bundle, tmp_path, serve_dir):
    """A metadata value that is null (an empty cell) is left out of the card, not shown as "null"."""
    import json
    path = tmp_path / "nulls.jsonl"
    rows = [{"id": "r1", "source": "It starts. It ends.", "summary": "It starts.",
             "metadata": {"judge": None, "model": "model-a"}}]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    page = open_at(context, serve_dir(build_bundle([path], name="nulls")), (1440, 900), record="r1")
    page.locator("#record-info details summary").click()
    card = page.locator("#record-info").inner_text()
    assert "model-a" in card and "null" not in card, card
    assert not page.errors
