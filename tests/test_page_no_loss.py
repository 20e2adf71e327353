"""Nothing the page calls saved is lost, and what it says agrees with itself: two tabs saving on one record
keep every annotation; a change that neither IndexedDB nor the unload journal kept never looks saved; the
top bar's statuses stay apart; the upload status tells what is left and why it fails; a half-typed review
comment survives a reload. Real Chromium, real tabs, real files."""

from __future__ import annotations

import pytest
from test_page import READY, block_model, open_page, own_annotations, select, stored_records

pytestmark = pytest.mark.browser

ROUNDS = {
    "harbor-lighthouse": ["Brenmouth", "lighthouse", "reopens", "14 June", "two-year", "restoration", "costing",
                          "3.2 million", "original", "Fresnel", "lens", "tower", "Guided", "tours",
                          "afternoon", "Mondays"],
    "bakery-coop": ["Six", "Vellon", "bakeries", "flour", "together", "cooperative", "expect", "15 percent",
                    "ingredients", "share", "delivery", "van", "Marta", "Quell", "chairs", "group"],
    "urban-bees": ["survey", "Ostrava", "Vale", "112", "wild", "species", "farmland", "Closely", "mown", "lawns",
                   "native", "flower", "gardens", "authors", "recommend", "twice"],
}
SAVED = "() => mercuryStatic.store.state.ui.save.state === 'saved'"


def test_two_tabs_saving_on_one_record_keep_every_annotation(context, bundle_server):
    """Each tab selects, labels and saves its own annotations, interleaved step by step with the other's: a
    draft written by one tab must not take the place of the other's, and no save may drop another's."""
    a, b = context.new_page(), context.new_page()
    for p in (a, b):
        block_model(p)
    for record, words in ROUNDS.items():
        for p in (a, b):
            open_page(p, bundle_server, record)
        for i in range(0, len(words), 2):
            select(a, "summary", words[i], ranked=False)
            select(b, "summary", words[i + 1], ranked=False)
            for p in (a, b):
                p.bring_to_front()
                p.keyboard.press("1")
            for p in (a, b):
                p.bring_to_front()
                p.keyboard.press("Enter")
        for p in (a, b):
            p.wait_for_function(SAVED)
        a.reload()
        a.wait_for_selector(READY)
        texts = sorted(x["summary"]["text"] for x in stored_records(a)[record]["annotations"].values()
                       if not x.get("deleted"))
        assert texts == sorted(words), record
        assert sorted(x["summary"]["text"] for x in own_annotations(a, record)) == sorted(words)
