"""`train`: the bundle's model fine-tuned on the team's pairs, end to end with the real model and torch on a
small fixture (a few pairs, one epoch): the held-out check, the model written only when it gains, the
trained folder a rebuild uses (the same bundle id, its exports still merge, the manifest naming the model),
the same hash from the same inputs, and nothing left by an interrupted run. The page side (the page ranks
as eval does with the trained model) is the last test here."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import TEST_CACHE
from pagedriver import open_page, query_vector, ranked, select, wait, wait_model
from test_tune import export, files_of, manifest
from tune_fixture import OPTIONS, write_dump

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def dump(tmp_path_factory) -> Path:
    return write_dump(tmp_path_factory.mktemp("train") / "pairs.json")


@pytest.fixture(scope="module")
def fixture_bundle(build_bundle, dump) -> Path:
    return build_bundle([dump], name="train", ranker=OPTIONS)


def cli(*args, env: dict | None = None):
    from typer.testing import CliRunner

    from mercury_static.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args], env={"MERCURY_STATIC_CACHE": str(TEST_CACHE),
                                                                    **(env or {})})
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


@pytest.fixture(scope="module")
def trained(dump, fixture_bundle, tmp_path_factory) -> tuple[Path, dict]:
    """The fixture's pairs trained on (one epoch, two folds): the model folder and the report."""
    where = tmp_path_factory.mktemp("trained")
    result = cli("train", dump, "--bundle", fixture_bundle, "-o", where / "team-model", "--epochs", 1, "--folds", 2,
                 "--report", where / "report.json")
    assert result.exit_code == 0, result.output
    assert "trained: held-out MRR gain" in result.output
    return where / "team-model", json.loads((where / "report.json").read_text(encoding="utf-8"))


pytestmark = pytest.mark.slow


def test_train_gains_on_held_out_sources_and_writes_the_model(trained, dump):
    model, report = trained
    # cosine prefers the fixture's decoy: the current model never ranks the gold first; the trained one learns
    # that the names decide, on sources it never saw
    assert report["held_out"]["mrr"]["gain"]["low"] > 0.1
    assert report["held_out"]["r1"]["current"]["mean"] == 0.0
    assert report["recommended"] and report["sha256"]
    assert report["pairs"] == 36 and len(report["used"]) == 36 and report["folds"] == 2
    training = json.loads((model / "training.json").read_text(encoding="utf-8"))
    assert training["format"] == "mercury-static/training" and training["from"] == [dump.name]
    assert training["pairs"] == 36 and training["settings"]["epochs"] == 1
    ranker = json.loads((model / "ranker.json").read_text(encoding="utf-8"))
    assert ranker["format"] == "mercury-static/ranker-options" and ranker["ranker"] == report["ranker"]


def test_a_rebuild_with_the_trained_model_keeps_the_bundle_id_and_names_the_model(trained, dump, fixture_bundle,
                                                                                     build_bundle, tmp_path):
    model, report = trained
    rebuilt = build_bundle([dump], name="rebuilt", ranker=OPTIONS, model=model)
    before, after = manifest(fixture_bundle), manifest(rebuilt)
    assert after["bundle_id"] == before["bundle_id"]  # the work stored and exported under it still matches
    assert after["model"]["name"] == "team-model" and after["model"]["sha256"] == report["sha256"]
    assert after["model"]["sha256"] != before["model"]["sha256"]
    assert after["model"]["trained"] == json.loads((model / "training.json").read_text(encoding="utf-8"))
    assert "trained" not in before["model"]
    # the ranker fitted for the model comes with it; an explicit option still wins
    fitted = json.loads((model / "ranker.json").read_text(encoding="utf-8"))["ranker"]
    assert after["ranker"] == {**fitted, **OPTIONS}
    # an export made on the bundle before the rebuild merges against the rebuilt one
    from mercury_static.bundle.contents import load_bundle

    old = export(tmp_path / "alice.json", fixture_bundle, load_bundle(fixture_bundle).records[0])
    merged = cli("merge", old, "--bundle", rebuilt, "-o", tmp_path / "merged.json", "--report", tmp_path / "r.json")
    assert merged.exit_code == 0, merged.output
    assert json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))[0]["annotations"]
    # eval with the trained model ranks with its ranker, as the page of a bundle built with it, and says so
    evaluated = cli("eval", dump, "--model", model, "--report", tmp_path / "eval.json")
    assert evaluated.exit_code == 0, evaluated.output
    said = json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))
    assert said["model"]["name"] == "team-model" and said["model"]["trained"]["pairs"] == 36
    assert said["options"] == fitted
    assert "trained on 36 pairs" in " ".join(evaluated.output.split())
    # merge's report and the manifest say which model the bundle was made with
    said = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["model"]
    assert said == {"name": "team-model", "sha256": report["sha256"],
                    "trained": {"pairs": 36, "records": 36, "from": [dump.name]}}
    from mercury_static.formats import Manifest

    assert Manifest.from_json(after, "manifest.json").model.trained["pairs"] == 36


def test_the_same_inputs_and_seed_give_the_same_model(trained, dump, fixture_bundle, tmp_path):
    model, report = trained
    again = cli("train", dump, "--bundle", fixture_bundle, "-o", tmp_path / "again", "--epochs", 1, "--folds", 2,
                "--report", tmp_path / "report.json")
    assert again.exit_code == 0, again.output
    second = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert second["sha256"] == report["sha256"]
    assert (tmp_path / "again" / "model.safetensors").read_bytes() == (model / "model.safetensors").read_bytes()
    assert second["held_out"] == report["held_out"]


def test_no_gain_keeps_the_current_model_and_writes_nothing(build_bundle, tmp_path):
    """Summaries that repeat their evidence word for word: the current model already ranks every gold first,
    so nothing can gain and the model is not written."""
    samples = []
    for i in range(24):
        gold = f"Station {i} recorded {10 + i} millimetres of rain on day {i}."
        source = f"The weather service keeps records. {gold} Nobody complained about the forecast."
        start = source.index(gold)
        samples.append({"sample_id": f"s{i}", "source": source, "summary": gold, "metadata": {},
                        "annotations": [{"annot_id": f"a{i}", "annotator_name": "fx", "label": ["Benign"],
                                         "note": "", "summary_span": gold, "summary_start": 0,
                                         "summary_end": len(gold), "source_span": gold, "source_start": start,
                                         "source_end": start + len(gold)}]})
    dump = tmp_path / "same.json"
    dump.write_text(json.dumps({"samples": samples}), encoding="utf-8")
    bundle = build_bundle([dump], name="same")
    result = cli("train", dump, "--bundle", bundle, "-o", tmp_path / "m", "--epochs", 1, "--folds", 2)
    assert result.exit_code == 0, result.output
    assert "not trained: the held-out MRR gain" in result.output
    assert not (tmp_path / "m").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_pairs_used_and_skipped_are_one_line_each(dump, fixture_bundle, tmp_path):
    """An annotation without evidence is no pair (said, not an error); too few pairs is one line, exit 2."""
    doc = json.loads(dump.read_text(encoding="utf-8"))
    for s in doc["samples"][:30]:
        for a in s["annotations"]:
            a.update(source_span=None, source_start=None, source_end=None)
    few = tmp_path / "few.json"
    few.write_text(json.dumps(doc), encoding="utf-8")
    result = cli("train", few, "--bundle", fixture_bundle, "-o", tmp_path / "m")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert sum("not a pair:" in x and "no source span" in x for x in lines) == 30
    assert lines[-1].startswith("error:") and "6 pairs" in lines[-1] and "at least 20" in lines[-1]
    assert not (tmp_path / "m").exists()


def test_too_few_pairs_over_several_files_is_refused_before_fine_tuning_is_announced(dump, fixture_bundle,
                                                                                       tmp_path):
    """The count spans every input: the line names them all, and nothing says "fine-tuning" first."""
    doc = json.loads(dump.read_text(encoding="utf-8"))
    parts = []
    for i, samples in enumerate((doc["samples"][:2], doc["samples"][2:4], doc["samples"][4:5])):
        parts.append(tmp_path / f"part{i}.json")
        parts[-1].write_text(json.dumps({"samples": samples}), encoding="utf-8")
    result = cli("train", *parts, "--bundle", fixture_bundle, "-o", tmp_path / "m")
    assert result.exit_code == 2 and "fine-tuning" not in result.output, result.output
    assert result.output.strip().splitlines() == [
        f"error: {', '.join(map(str, parts))}: 5 pairs (a summary span paired with a source span) in 3 file(s); "
        "train needs at least 20"]


def test_out_and_base_are_checked_before_any_training(dump, fixture_bundle, tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine", encoding="utf-8")
    for args, says in (
            (["-o", tmp_path / "taken"], "is not a model folder train wrote"),
            (["-o", fixture_bundle / "models"], "would overwrite an input or the bundle"),
            (["-o", tmp_path / "m", "--base", tmp_path], "not a Hugging Face model folder"),
            (["-o", tmp_path / "m", "http://127.0.0.1:9/dav/round1/"], "127.0.0.1:9")):
        result = cli("train", dump, "--bundle", fixture_bundle, *args)
        assert result.exit_code == 2 and says in result.output, result.output
        assert "Traceback" not in result.output
    assert (tmp_path / "taken" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_out_is_replaced_only_when_train_wrote_it_and_base_is_a_model(dump, fixture_bundle, tmp_path):
    """A folder with someone's training.json (another format) and notes, a folder train wrote plus a note of
    the user's, a read-only parent, a base whose config.json is `{}`: each one line naming the folder, exit 2,
    before any training (so at once), and nothing of the user's touched."""
    import stat
    import time

    from mercury_static.train.finetune import WRITTEN

    theirs = tmp_path / "team-model"
    theirs.mkdir()
    (theirs / "training.json").write_text('{"epochs": 3}', encoding="utf-8")
    (theirs / "notes.txt").write_text("mine", encoding="utf-8")
    ours = tmp_path / "trained"
    ours.mkdir()
    (ours / "training.json").write_text('{"format": "mercury-static/training", "version": 1}', encoding="utf-8")
    (ours / "config.json").write_text("{}", encoding="utf-8")
    (ours / WRITTEN).write_text(f"config.json\ntraining.json\n{WRITTEN}\n", encoding="utf-8")
    (ours / "notes.txt").write_text("mine too", encoding="utf-8")
    # a read-only folder (root writes anyway, so as root a folder no one may write in: /sys)
    locked = tmp_path / "locked" if os.geteuid() else Path("/sys")
    locked.mkdir(exist_ok=True)
    base = tmp_path / "base"
    base.mkdir()
    (base / "config.json").write_text("{}", encoding="utf-8")
    if os.geteuid():
        locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        for args, says in (
                (["-o", theirs], f"{theirs}: exists and is not a model folder train wrote"),
                (["-o", ours], f"{ours}: holds 'notes.txt', which train did not write"),
                (["-o", locked / "model"], f"{locked / 'model'}: -o cannot be written in {locked}"),
                (["-o", tmp_path / "m", "--base", base], f"{base / 'config.json'}: field 'model_type': missing")):
            started = time.monotonic()
            result = cli("train", dump, "--bundle", fixture_bundle, *args)
            assert result.exit_code == 2, result.output
            assert result.output.strip().splitlines()[-1].startswith(f"error: {says}"), result.output
            assert "Traceback" not in result.output and time.monotonic() - started < 20
    finally:
        if os.geteuid():
            locked.chmod(stat.S_IRWXU)
    assert (theirs / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert (ours / "notes.txt").read_text(encoding="utf-8") == "mine too"
    assert not (tmp_path / "m").exists() and not (locked / "model").exists()


def test_make_examples_and_batches():
    """Hard negatives from the same source, seeded; a batch never holds two triples sharing a positive."""
    from mercury_static.train.examples import Example
    from mercury_static.train.finetune import batches

    examples = [Example(f"r{i}", f"span {i}", f"sentence {i % 3}", f"other {i}") for i in range(12)]
    for batch in batches(examples, 4, np.random.default_rng(0)):
        positives = [examples[i].positive for i in batch]
        assert len(positives) == len(set(positives))
    order = [i for b in batches(examples, 4, np.random.default_rng(1)) for i in b]
    assert sorted(order) == list(range(12))
    assert batches(examples, 4, np.random.default_rng(1)) == batches(examples, 4, np.random.default_rng(1))


CTRL_C_AS_IN_A_TERMINAL = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
"""A process started in the background of a shell script inherits Ctrl-C ignored, and Python then keeps it
ignored: the run under test answers Ctrl-C as the foreground process of a terminal does, however pytest was
started."""


def test_ctrl_c_leaves_the_bundle_the_cache_and_out_as_they_were(dump, fixture_bundle, tmp_path):
    """An interrupted training (a kill, a SIGTERM, Ctrl-C to the process group, each at a random moment of the
    held-out folds) writes nothing: no -o, no leftover beside it, the bundle and the model cache byte for byte
    as before; the scratch the killed run left is removed by the next run as it starts."""
    import random

    moments = random.Random(7)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "MERCURY_STATIC_CACHE": str(TEST_CACHE), "TMPDIR": str(scratch), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(REPO)}
    bundle_before = files_of(fixture_bundle), (fixture_bundle / "manifest.json").read_bytes()
    cache_before = sorted(p.name for p in (TEST_CACHE / "models").iterdir())
    out = tmp_path / "work" / "m"
    out.parent.mkdir()
    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT):
        proc = subprocess.Popen([sys.executable, "-c", CTRL_C_AS_IN_A_TERMINAL + "from mercury_static.cli import app; app()",
                                 "train", str(dump), "--bundle",
                                 str(fixture_bundle), "-o", str(out), "--epochs", "1", "--folds", "2"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        deadline = time.monotonic() + 120
        mine = f".train-{proc.pid}-*"
        while not any(scratch.glob(f"{mine}/fold-*")) and not any(scratch.glob(f"{mine}/.fold-*")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
            time.sleep(0.2)
        assert [p.name for p in scratch.glob(".train-*")] == [p.name for p in scratch.glob(mine)]  # none dead left
        # a random moment of the folds: at the latest as the last fold starts (on a fast or a loaded machine
        # alike, the signal lands before the run can end)
        moment = time.monotonic() + moments.uniform(0, 4)
        while time.monotonic() < moment and not any(scratch.glob(f"{mine}/fold-1")):
            time.sleep(0.02)
        os.killpg(proc.pid, sig)
        output, _ = proc.communicate(timeout=120)
        if sig != signal.SIGKILL:
            assert proc.returncode == 130, output
            assert "interrupted: nothing written" in output and "Traceback" not in output
            assert not list(scratch.glob(".train-*"))  # (torch keeps caches of its own there)
        else:
            assert list(scratch.glob(mine))  # a kill runs no cleanup: the next run's to remove
        assert not out.exists()
        assert not list(out.parent.iterdir())
        assert (files_of(fixture_bundle), (fixture_bundle / "manifest.json").read_bytes()) == bundle_before
        assert sorted(p.name for p in (TEST_CACHE / "models").iterdir()) == cache_before


@pytest.mark.browser
def test_the_page_ranks_as_eval_does_with_the_trained_model(trained, dump, build_bundle, serve_dir, page):
    """A bundle rebuilt with the trained model: the page's vector for a selection (its tokens in context blended
    with the span) is eval's, and its highlighted order is the ranker's on eval's inputs."""
    from mercury_static.assist.rank import prepare_sentences, rank_sentences
    from mercury_static.assist.ranker_options import validate
    from mercury_static.bundle.contents import text_id
    from mercury_static.tune.evaluate import query_position
    from mercury_static.tune.tune import load_pairs

    model, _ = trained
    bundle = build_bundle([dump], name="page-trained", ranker=OPTIONS, model=model)
    pairs = load_pairs([dump], bundle)  # eval's inputs from the bundle, vectors from its (trained) model
    data, options = pairs.data, validate(manifest(bundle)["ranker"], "manifest")
    j = 0
    query, record = data.queries[j]
    open_page(page, serve_dir(bundle), record=record.id)
    assert page.locator("#model-info").text_content() == "model: team-model, trained on 36 pairs"
    wait_model(page, timeout=60_000)
    wait(page, """() => { const r = pd.record();
        return Boolean(r) && r.summary.tokenRows.length > 0 && r.summary.tokenRows.every(Boolean); }""",
               timeout=60_000)
    span = select(page, "summary", query.text)
    assert span == query.selection
    # the selection is a whole stored sentence: its tokens blended with its stored vector, at once
    wait(page, "() => { const a = pd.assist(); "
               "return a.kind === 'model' && !a.pending; }", timeout=30_000)
    got = np.array(query_vector(page), dtype=np.float32)
    want = data.query_vector(j, options)
    assert float(got @ want) >= 0.9999
    source = data.index[text_id(record.source)]
    sentences = source.sentences()
    context_vec, context_text = data.contexts[j]
    order = rank_sentences(want, query.text, sentences, options, None, context_vec=context_vec,
                           context_text=context_text, query_position=query_position(query, record),
                           prepared=prepare_sentences(sentences, options))
    shown = ranked(page, "source")
    assert shown
    expected = [source.text[source.spans[i][0]:source.spans[i][1]] for i, _ in order[:len(shown)]]
    assert [shown[r] for r in sorted(shown)] == expected
