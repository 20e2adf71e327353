"""One strict JSON reader for every file the tool takes: each reader refuses NaN, Infinity and a key given twice
with one line naming the file, and no module parses JSON past core/safeio.py except the files the tool wrote
itself (listed here, each with its reason)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import REPO
from mercury_static.core.records import InputError

BAD = {
    "nan": '{"format": "mercury-static/training", "version": 1, "pairs": NaN, "neighbor": NaN}',
    "infinity": '{"format": "mercury-static/training", "version": 1, "pairs": Infinity, "neighbor": -Infinity}',
    "duplicate": '{"format": "mercury-static/training", "version": 1, "pairs": 3, "pairs": 4}',
}
"""Each bad file: shaped like the readers' own files, so only the fault can refuse it."""

WRITTEN_BY_THE_TOOL = {
    "mercury_static/bundle/page.py": "esbuild's metafile and the pack cache's page.json, both written by the build",
    "mercury_static/bundle/record_index.py": "read_columns reads back the index the build wrote (tests, tools)",
    "mercury_static/review/write_bundle.py": "the review records `review` wrote, checked by their sha256 first",
    "mercury_static/read/json_docs.py": "the sniff of a first line; the file is then read with safeio.loads",
    "mercury_static/read/parquet.py": "the rows its own reader process sends (pyarrow's values, as they were read in process)",
}


def test_no_module_parses_json_past_the_strict_reader():
    found = {}
    for path in sorted((REPO / "mercury_static").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel == "mercury_static/core/safeio.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "load", "loads") and isinstance(node.func.value, ast.Name) and node.func.value.id == "json":
                found.setdefault(rel, []).append(node.lineno)
    assert set(found) <= set(WRITTEN_BY_THE_TOOL), {k: v for k, v in found.items() if k not in WRITTEN_BY_THE_TOOL}


def _training(folder: Path) -> None:
    from mercury_static.bundle.trained_model import TRAINING_FILE, read_training

    (folder / TRAINING_FILE).write_bytes((folder / "bad.json").read_bytes())
    read_training(folder)


def _ranker_options(folder: Path) -> None:
    from mercury_static.bundle.ranker_file import read_options_file

    read_options_file(folder / "bad.json")


def _settings(folder: Path) -> None:
    from mercury_static.settings.reader import read_settings

    read_settings(folder / "bad.json")


def _manifest(folder: Path) -> None:
    from mercury_static.bundle.contents import load_bundle

    (folder / "manifest.json").write_bytes((folder / "bad.json").read_bytes())
    load_bundle(folder)


def _queues(folder: Path) -> None:
    from mercury_static.bundle.assign import read_queues

    read_queues(folder, {"queues": {"annotators": ["a"], "path": "bad.json"}})


def _links_bundle(folder: Path) -> None:
    from mercury_static.merge.collect import check_annotator_bundle

    (folder / "manifest.json").write_bytes((folder / "bad.json").read_bytes())
    check_annotator_bundle(folder)


def _model_folder(folder: Path) -> None:
    from mercury_static.assist.embed import Embedder

    (folder / "tokenizer_config.json").write_bytes((folder / "bad.json").read_bytes())
    Embedder(folder)


def _model_export(folder: Path) -> None:
    from mercury_static.assist.model_export import ModelError, ensure_model

    (folder / "config.json").write_bytes((folder / "bad.json").read_bytes())
    (folder / "tokenizer.json").write_text("{}", encoding="utf-8")
    try:
        ensure_model(folder, cache_dir=folder / "cache")
    except ModelError as e:
        raise InputError(folder, None, None, str(e)) from None


READERS = [_training, _ranker_options, _settings, _manifest, _queues, _links_bundle, _model_folder, _model_export]


@pytest.mark.parametrize("fault", BAD)
@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.__name__.strip("_"))
def test_every_reader_refuses_nan_infinity_and_a_key_given_twice(tmp_path, reader, fault):
    (tmp_path / "bad.json").write_text(BAD[fault], encoding="utf-8")
    with pytest.raises(InputError) as caught:
        reader(tmp_path)
    line = str(caught.value)
    assert "\n" not in line
    expected = {"nan": ("not a JSON number",), "infinity": ("not a JSON number",),
                "duplicate": ("duplicate key", "given twice")}[fault]
    assert any(e in line for e in expected), line


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity", "1e999", '{"a": 1, "a": 2}'])
def test_a_ranker_option_value_json_cannot_carry_is_refused(raw):
    from mercury_static.assist.ranker_options import parse_items

    with pytest.raises(InputError, match="neighbor"):
        parse_items([f"neighbor={raw}"], "--ranker-option")


def test_a_weights_header_with_nan_is_not_a_weights_file():
    from mercury_static.assist.page_model import read_weights

    header = b'{"format": "mercury-static/weights", "version": 1, "tensors": [], "bytes": NaN}'
    with pytest.raises(InputError, match="not a weights file"):
        read_weights(len(header).to_bytes(4, "little") + header, "weights.bin")


def test_a_manifest_with_nan_is_not_a_bundle_to_replace(tmp_path):
    from mercury_static.bundle.folder import MARKER, is_bundle

    (tmp_path / MARKER).write_text("mercury-static/bundle\n", encoding="utf-8")
    (tmp_path / "manifest.json").write_text('{"format": "mercury-static/bundle", "version": 1, "x": NaN}')
    assert not is_bundle(tmp_path)
    (tmp_path / "manifest.json").write_text('{"format": "mercury-static/bundle", "version": 1, "x": 1}')
    assert is_bundle(tmp_path)
