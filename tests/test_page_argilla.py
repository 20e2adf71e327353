"""A bundle built from an Argilla 2.8 settings.json in the page: the span labels show
their Argilla texts (the exported label stays the value), and a span question that does not allow
overlapping spans offers one label per span and no span over another.

Real Chromium, a bundle really built (`build --settings settings.json`, the test model), texts from
page_fixtures.py."""

from __future__ import annotations

import json
import random

import pytest
from pagedriver import open_page, own_annotations, query, select, wait
from page_fixtures import sentence
from test_argilla_roundtrip import argilla_settings
from test_page import block_model

pytestmark = pytest.mark.browser


def argilla_bundle(build_bundle, folder, overlapping: bool):
    rng = random.Random(11)
    rows = [{"id": f"r{i}", "context": " ".join(sentence(rng, 10 * i + j) for j in range(5)),
             "answer": " ".join(sentence(rng, 10 * i + j) for j in (1, 3)), "question": f"Question {i}?",
             "model": "m-a", "hhem": 0.5, "length": 10} for i in range(3)]
    data, given = folder / "data.jsonl", folder / "settings.json"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    given.write_text(json.dumps(argilla_settings(overlapping)), encoding="utf-8")
    return build_bundle([data], name=f"argilla-page-{overlapping}", id_field="id", settings=given,
                        source_field="context", summary_field="answer"), rows


@pytest.fixture(scope="module")
def one_label(build_bundle, tmp_path_factory, serve_dir):
    bundle, rows = argilla_bundle(build_bundle, tmp_path_factory.mktemp("argilla-page"), overlapping=False)
    return serve_dir(bundle), rows


def label_rows(page) -> list[tuple[str, str, str]]:
    return page.locator("#draft .label-choice").evaluate_all(
        "els => els.map(l => { const i = l.querySelector('input'); return [i.value, i.type, l.textContent.trim()]; })")


def test_label_texts_shown_values_kept(page, one_label):
    url, rows = one_label
    block_model(page)
    open_page(page, url, "r0")
    assert label_rows(page) == [["fabricated", "radio", "1 Fabricated fact"],
                                ["contradicted", "radio", "2 Contradicts the context"]]
    words = rows[0]["answer"].split()
    select(page, "summary", " ".join(words[1:3]), ranked=False)
    page.keyboard.press("1")
    page.keyboard.press("2")  # one label per span: the second replaces the first
    assert query(page, "() => pd.draft().labels") == ["contradicted"]
    page.keyboard.press("Enter")
    wait(page, "() => Object.keys(pd.entry('r0')?.annotations || {}).length === 1")
    assert [a["label"] for a in own_annotations(page, "r0")] == [["contradicted"]]  # the value, not the text
    chips = page.locator("#annotations .chip").evaluate_all("els => els.map(e => [e.textContent, e.title])")
    assert chips == [["Contradicts the context", "contradicted"]]
    assert page.locator("#label-legend .legend-item").all_inner_texts() == ["Fabricated fact", "Contradicts the context"]


def test_no_span_over_another(page, one_label):
    """allow_overlapping false: a span over characters an annotation covers is refused with a message."""
    url, rows = one_label
    block_model(page)
    open_page(page, url, "r1")
    words = rows[1]["answer"].split()
    select(page, "summary", " ".join(words[1:4]), ranked=False)
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    wait(page, "() => Object.keys(pd.entry('r1')?.annotations || {}).length === 1")
    # a press inside the still selected text would drag it: the annotator clicks elsewhere first
    page.evaluate("() => window.getSelection().removeAllRanges()")
    select(page, "summary", " ".join(words[2:6]), ranked=False)
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    page.wait_for_selector("#draft-message:not([hidden])")
    assert "does not allow overlapping spans" in page.locator("#draft-message").inner_text()
    assert len(own_annotations(page, "r1")) == 1
    page.evaluate("() => window.getSelection().removeAllRanges()")
    select(page, "summary", " ".join(words[6:8]), ranked=False)  # beside it: saved
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    wait(page, "() => Object.keys(pd.entry('r1')?.annotations || {}).length === 2")


def test_visible_options(page, one_label):
    """Argilla's visible_options 3 of the four topics: three shown, the fourth behind "Show 1 more" (and shown
    once chosen, by its key)."""
    url, _ = one_label
    block_model(page)
    open_page(page, url, "r2")
    topics = page.locator('fieldset[data-question="topics"]')
    shown = "els => els.filter(e => e.offsetParent !== null).map(e => e.textContent.trim())"
    assert topics.locator(".q-option").evaluate_all(shown) == ["1 A", "2 B", "3 C"]
    assert topics.locator('[data-action="more-options"]').inner_text() == "Show 1 more"
    topics.locator('[data-action="more-options"]').click()
    assert topics.locator(".q-option").evaluate_all(shown) == ["1 A", "2 B", "3 C", "4 D"]
    assert topics.locator('[data-action="more-options"]').inner_text() == "Show fewer"
    topics.locator('.q-option input[data-value="d"]').check()
    topics.locator('[data-action="more-options"]').click()
    assert topics.locator(".q-option").evaluate_all(shown) == ["1 A", "2 B", "3 C", "4 D"]  # chosen: stays
    verdict = page.locator('fieldset[data-question="verdict"]')  # visible_options = its 3 options: all, no button
    assert verdict.locator('[data-action="more-options"]').count() == 0
