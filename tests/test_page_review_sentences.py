"""Sentence verdicts and judges in review, end to end (docs/review.md): a bundle with `sentence_verdicts: shown`,
four annotators' version-4 exports written as files, `review`, the review page in real Chromium (each judge's
status, identical spans of two judges as one item accepted at once, a sentence disagreement settled, a sentence
given the reviewer's own verdict and evidence), the review export, and `gold` keeping every settled verdict with
its evidence and provenance, the grouped span once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pagedriver import wait
from test_page_review import download_file, entry, open_review, review_item

from mercury_static.bundle.contents import load_bundle
from mercury_static.review.write_bundle import review_bundle

pytestmark = pytest.mark.browser

SUMMARY = "The tower opened in 1889. It stands in Rome."
SOURCE = "The tower is in Paris. It opened in 1889. Many people visit it."
INTRINSIC = ["Unwanted", "Unwanted.Intrinsic"]
AT = "2026-12-01T10:00:00Z"


def cut(text: str, words: str) -> dict:
    start = text.index(words)
    return {"start": start, "end": start + len(words), "text": words}


def rome(ident: str) -> dict:
    return {"id": ident, "label": INTRINSIC, "note": "", "summary": cut(SUMMARY, "Rome"),
            "source": cut(SOURCE, "Paris"), "created_at": AT, "updated_at": AT}


def verdict(index: int, value: str, evidence=None) -> dict:
    return {"index": index, "verdict": value, **({"evidence": evidence} if evidence is not None else {}),
            "updated_at": AT}


def v4(path: Path, bundle_id: str, annotator: str, *records) -> Path:
    path.write_text(json.dumps({"format": "mercury-static/annotations", "version": 4, "bundle_id": bundle_id,
                                "title": None, "annotator": annotator, "client_id": f"{annotator}-laptop",
                                "exported_at": "2026-12-01T12:00:00Z", "tool_version": "0.1.0",
                                "records": list(records)}), encoding="utf-8")
    return path


def record(rid: str, status: str = "submitted", annotations=(), sentences=()) -> dict:
    return {"record_id": rid, "status": status, "updated_at": AT, "annotations": list(annotations),
            "responses": {}, "sentences": list(sentences)}


def sentence_round(build_bundle, folder: Path, out: Path):
    """r1: alice and carol mark "Rome" alike; on sentence 1 alice says unsupported, carol's span flags it, bob
    says supported (evidence: source sentence 0); everyone supports sentence 0 by source sentence 1; dave
    discarded r1; erin only judged r2; the review bundle written to `out`. -> (review bundle, the bundle's cut of
    r1)."""
    data = folder / "two.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "r1", "source": SOURCE, "summary": SUMMARY},
        {"id": "r2", "source": "Nothing happened today.", "summary": "Nothing happened."}]), encoding="utf-8")
    (folder / "settings.yaml").write_text("sentence_verdicts: shown\n", encoding="utf-8")
    bundle_dir = build_bundle([data], name="sentences", id_field="id", settings=folder / "settings.yaml")
    bundle = load_bundle(bundle_dir)
    r1 = next(r for r in bundle.records if r.id == "r1")
    assert len(r1.summary_text.sentences) == 2 and len(r1.source_text.sentences) == 3
    bid = bundle.manifest["bundle_id"]
    paths = [v4(folder / "alice.json", bid, "alice", record("r1", annotations=[rome("a1")], sentences=[
                 verdict(0, "supported", [1]), verdict(1, "unsupported")])),
             v4(folder / "bob.json", bid, "bob", record("r1", sentences=[
                 verdict(0, "supported", [1]), verdict(1, "supported", [0])])),
             v4(folder / "carol.json", bid, "carol", record("r1", annotations=[rome("c1")], sentences=[
                 verdict(0, "supported", [1])])),
             v4(folder / "dave.json", bid, "dave", record("r1", status="discarded")),
             v4(folder / "erin.json", bid, "erin", record("r2", sentences=[verdict(0, "supported", [0])]))]
    review_bundle(paths, bundle_dir, out)
    return out, r1


@pytest.fixture(scope="module")
def round_(build_bundle, tmp_path_factory):
    return sentence_round(build_bundle, tmp_path_factory.mktemp("sentences"),
                          tmp_path_factory.mktemp("review") / "review-bundle")


def test_judges_groups_and_sentences_reviewed_in_the_page_and_kept_by_gold(page, round_, serve_dir, tmp_path, run):
    review_dir, r1 = round_
    open_review(page, serve_dir(review_dir), record="r1")
    # each judge's status of the record
    status = {li: page.get_attribute(f"#rv-judges li[data-judge={li}]", "data-status")
              for li in ("alice", "bob", "carol", "dave", "erin")}
    assert status == {"alice": "flagged", "bob": "consistent", "carol": "flagged", "dave": "discarded",
                      "erin": "not_opened"}
    assert "not opened" in page.inner_text("#rv-judges li[data-judge=erin]")
    # alice's and carol's identical spans: one item, 2 of 3 judges, accepted at once
    group = page.locator("#rv-items li.rv-item[data-members='alice:a1 carol:c1']")
    assert "2 of 3 judges" in group.inner_text() and page.locator("#rv-items li.rv-item").count() == 1
    group.click()
    page.keyboard.press("a")
    wait(page, """() => ['alice:a1', 'carol:c1'].every((k) =>
        pd.entry('r1')?.review?.['d:' + k]?.value?.action === 'accept')""")
    # the sentences: sentence 1 disputed; focusing it lights bob's evidence (source sentence 0) on the source
    s1 = page.locator("#rv-sentences li[data-sentence='1']")
    assert s1.get_attribute("data-disputed") == "true"
    assert page.locator("#rv-sentences li[data-sentence='0']").get_attribute("data-disputed") == "false"
    shown = s1.inner_text()  # the verdicts by the settings' texts
    assert "alice: Not supported" in shown and "bob: Supported · source 1" in shown
    assert "carol: Not supported (a span on it)" in shown
    s1.locator(".rv-sentence-text").click()
    wait(page, "() => pd.review().sentence === 1")
    lit = page.eval_on_selector_all("#rv-source .rv-l9", "(els) => els.map((e) => e.textContent).join('')")
    assert lit == SOURCE[slice(*r1.source_text.sentences[0])]
    assert SOURCE[slice(*r1.source_text.sentences[0])].strip() in s1.inner_text()  # the evidence as text
    s1.locator("[data-take=alice]").click()
    wait(page, "() => pd.entry('r1')?.review?.['s:1']?.value?.from === 'alice'")
    assert "given by alice, carol" in s1.inner_text()
    # sentence 0: the reviewer's own verdict and evidence (source sentences are numbered from 1 on the page)
    page.select_option("[data-own-verdict='0']", "supported")
    page.fill("[data-own-evidence='0']", "2")
    page.click("[data-own-set='0']")
    wait(page, "() => pd.entry('r1')?.review?.['s:0']?.value?.verdict === 'supported'")
    assert review_item(page, "r1", "s:0") == {"verdict": "supported", "evidence": [1]}
    page.keyboard.press("Escape")
    page.click("[data-rv=adjudicate]")
    wait(page, "() => pd.entry('r1')?.status === 'submitted'")
    export_path = download_file(page, tmp_path)
    doc = json.loads(export_path.read_text(encoding="utf-8"))
    assert doc["version"] == 2
    [entry] = [r for r in doc["records"] if r["record_id"] == "r1"]
    assert [{k: v for k, v in s.items() if k != "updated_at"} for s in entry["sentences"]] == [
        {"sentence": 0, "verdict": "supported", "evidence": [1]}, {"sentence": 1, "from": "alice"}]
    gold_path = tmp_path / "gold.json"
    result = run("gold", export_path, "--bundle", review_dir, "-o", gold_path)
    assert result.exit_code == 0, result.output
    [gold] = json.loads(gold_path.read_text(encoding="utf-8"))
    [span] = gold["annotations"]  # the group: one annotation, both judges
    assert span["provenance"]["judges"] == ["alice", "carol"] and span["summary"]["text"] == "Rome"
    s0, s1_gold = gold["sentences"]
    source1 = r1.source_text.sentences[1]
    assert s0["verdict"] == "supported" and s0["evidence"] == [
        {"sentence": 1, "start": source1[0], "end": source1[1], "text": SOURCE[slice(*source1)]}]
    assert s0["provenance"]["judges"] == ["alice", "bob", "carol"] and s0["provenance"]["action"] == "own"
    assert s1_gold["verdict"] == "unsupported" and "evidence" not in s1_gold
    assert s1_gold["provenance"] == {"judges": ["alice", "carol"], "action": "accepted", "decided_by": "rita",
                                     "decided_at": s1_gold["updated_at"]}
    assert s1_gold["summary"]["text"] == SUMMARY[slice(*r1.summary_text.sentences[1])]


FOUR = "The tower opened in 1889. It stands in Rome. Many people visit it. It is tall."


@pytest.fixture(scope="module")
def agreed_round(build_bundle, tmp_path_factory):
    """r1 of four summary sentences: alice and bob support sentence 0 by source sentence 1 (agreed), differ on
    sentence 1 (disputed), alice alone supports sentence 2 by source sentence 2 (agreed: bob left it unchecked),
    nobody checked sentence 3. -> (review bundle, the bundle's cut of r1)."""
    folder = tmp_path_factory.mktemp("agreed")
    data = folder / "one.jsonl"
    data.write_text(json.dumps({"id": "r1", "source": SOURCE, "summary": FOUR}) + "\n", encoding="utf-8")
    (folder / "settings.yaml").write_text("sentence_verdicts: shown\n", encoding="utf-8")
    bundle_dir = build_bundle([data], name="agreed", id_field="id", settings=folder / "settings.yaml")
    bundle = load_bundle(bundle_dir)
    [r1] = bundle.records
    assert len(r1.summary_text.sentences) == 4 and len(r1.source_text.sentences) == 3
    bid = bundle.manifest["bundle_id"]
    paths = [v4(folder / "alice.json", bid, "alice", record("r1", sentences=[
                 verdict(0, "supported", [1]), verdict(1, "unsupported"), verdict(2, "supported", [2])])),
             v4(folder / "bob.json", bid, "bob", record("r1", sentences=[
                 verdict(0, "supported", [1]), verdict(1, "supported", [0])]))]
    out = tmp_path_factory.mktemp("review") / "review-bundle"
    review_bundle(paths, bundle_dir, out)
    return out, r1


def settled_sentences(page) -> dict:
    return {k: v["value"] for k, v in ((entry(page, "r1") or {}).get("review") or {}).items()
            if k.startswith("s:") and v.get("value")}


def test_the_agreed_sentences_settled_at_once_and_the_sentence_keys(page, agreed_round, serve_dir, tmp_path, run):
    review_dir, r1 = agreed_round
    open_review(page, serve_dir(review_dir), record="r1")
    page.keyboard.press("?")  # the help lists the sentence keys
    page.wait_for_selector("#overlay-help:not([hidden])")
    help_text = page.inner_text("#help-keys")
    assert "accept the agreed sentences" in help_text and "next / previous summary sentence" in help_text
    page.keyboard.press("Escape")
    page.wait_for_selector("#overlay-help", state="hidden")
    button = page.locator("#rv-sentences [data-accept-agreed]")
    assert button.inner_text() == "Accept the 2 agreed sentences"
    button.click()  # one action settles exactly the two agreed sentences, each with the shared verdict
    wait(page, "() => pd.entry('r1')?.review?.['s:2']?.value")
    assert settled_sentences(page) == {"s:0": {"from": "alice"}, "s:2": {"from": "alice"}}
    assert page.locator("#rv-sentences [data-accept-agreed]").count() == 0
    assert "given by alice, bob" in page.inner_text("#rv-sentences li[data-sentence='0']")
    page.keyboard.press("A")  # nothing agreed is left: said, nothing changed
    wait(page, "() => (pd.message() || '').includes('No sentence left')")
    # the keys: w / W walk the sentences, a digit takes that annotator's (legend order) verdict and evidence
    page.keyboard.press("w")
    wait(page, "() => pd.review().sentence === 0")
    page.keyboard.press("w")
    wait(page, "() => pd.review().sentence === 1")
    assert "2" in page.inner_text("#rv-sentences li[data-sentence='1'] [data-take=bob] kbd")
    page.keyboard.press("2")
    wait(page, "() => pd.entry('r1')?.review?.['s:1']?.value?.from === 'bob'")
    for _ in range(4):
        page.keyboard.press("w")
    wait(page, "() => pd.review().sentence === 3")  # the last: w stays there
    page.keyboard.press("1")  # alice did not check sentence 3: said, nothing settled
    wait(page, "() => (pd.message() || '').includes('alice gave no verdict on sentence 4')")
    page.keyboard.press("W")
    wait(page, "() => pd.review().sentence === 2")
    page.keyboard.press("Escape")
    wait(page, "() => pd.review().sentence === null")
    assert set(settled_sentences(page)) == {"s:0", "s:1", "s:2"}
    page.click("[data-rv=adjudicate]")
    wait(page, "() => pd.entry('r1')?.status === 'submitted'")
    export_path = download_file(page, tmp_path)
    gold_path = tmp_path / "gold.json"
    result = run("gold", export_path, "--bundle", review_dir, "-o", gold_path)
    assert result.exit_code == 0, result.output
    [gold] = json.loads(gold_path.read_text(encoding="utf-8"))
    got = {s["sentence"]: (s["verdict"], [e["sentence"] for e in s.get("evidence", [])], s["provenance"]["judges"],
                           s["provenance"]["action"]) for s in gold["sentences"]}
    assert got == {0: ("supported", [1], ["alice", "bob"], "accepted"), 1: ("supported", [0], ["bob"], "accepted"),
                   2: ("supported", [2], ["alice"], "accepted")}
    assert gold["review"]["unsettled_sentences"] == [3]
    assert gold["sentences"][2]["summary"]["text"] == FOUR[slice(*r1.summary_text.sentences[2])]
