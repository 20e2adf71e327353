"""The record filter on texts beyond ASCII: the index's words (record_index.words, Python, at build) and the
page's (recordindex.js, at the filter) are one rule, tested for parity on hard strings, and a real index
written in Python finds "café", "İstanbul", "हिन्दी" and "สวัสดี" through the page's own lookup (node)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import REPO
from mercury_static.bundle.record_index import IndexRow, text_words, words, write_index

HARD = ["café", "cafe\u0301", "CAFÉ", "İstanbul", "ISTANBUL", "istanbul", "ıstanbul", "हिन्दी भाषा", "सत्यमेव जयते",
        "สวัสดี ครับ", "ΟΔΟΣ οδός Σίσυφος", "ｆｕｌｌ ｗｉｄｔｈ", "ﬁle ﬂow", "Straße STRASSE", "Ⅻ ½ ²", "日本語テキスト",
        "Ǆemal ǅ", "ﾊﾝｶｸ", "e\u0301\u0300 a\u0308", "model-a 3.2_x", "😀 emoji 𝔯é", "Ärger über Öl", "ŉ ǰ ΐ",
        "Kelvin K, Ångström Å", "\u200bzero\u200dwidth", "עִבְרִית", "العَرَبِيَّة", "한국어 한글"]
TEXTS = ["Welcome to İSTANBUL, said the guide.", "A small cafe\u0301 by the sea.", "हिन्दी में लिखा गया लेख।",
         "คำทักทาย สวัสดี ในภาษาไทย", "Nothing to see here."]
QUERIES = {"café": [1], "CAFÉ": [1], "cafe\u0301": [1], "İstanbul": [0], "istanbul": [0], "हिन्दी": [2],
           "สวัสดี": [3], "caf": [1], "नहीं": []}


def node(script: str, tmp_path) -> object:
    if shutil.which("node") is None:
        pytest.skip("node not installed")
    path = tmp_path / "run.mjs"
    path.write_text(script, encoding="utf-8")
    done = subprocess.run(["node", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_words_are_one_rule_in_python_and_the_page(tmp_path):
    module = (REPO / "site_template/app/data/recordindex.js").as_uri()
    js = node(f"import {{ words }} from {json.dumps(module)};\n"
              f"console.log(JSON.stringify({json.dumps(HARD, ensure_ascii=True)}.map((t) => words(t))));\n", tmp_path)
    assert [words(t) for t in HARD] == js
    assert words("हिन्दी") == ["हिन्दी"] and words("สวัสดี") == ["สวัสดี"]  # combining marks stay in the word
    assert words("cafe\u0301") == words("CAFÉ") == ["café"] and words("İstanbul") == words("ISTANBUL") == ["istanbul"]


def test_the_page_finds_them_in_an_index_written_in_python(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    rows = [IndexRow(id=f"r{i}", title=f"record {i}", tags=[], shard=0, text_shards=[0], text_words=text_words(t))
            for i, t in enumerate(TEXTS)]
    write_index(data, rows, 100, 2_000)
    module = (REPO / "site_template/app/data/recordindex.js").as_uri()
    query = (REPO / "site_template/app/state/listquery.js").as_uri()
    got = node(f"""import {{ readFileSync }} from 'node:fs';
import {{ fold, RecordIndex }} from {json.dumps(module)};
import {{ selectPositions }} from {json.dumps(query)};
const index = await RecordIndex.open(async (p) => JSON.parse(readFileSync({json.dumps(str(tmp_path))} + '/' + p, 'utf8')));
const out = {{}};
for (const q of {json.dumps(list(QUERIES), ensure_ascii=True)}) {{
  const words = fold(q).split(/\\s+/).filter(Boolean);  // as the list's filter box reads it
  const found = await selectPositions(index, {{ words, status: null, queue: null, statusOf: new Map(),
    metadata: [], conds: new Map(), sort: {{ key: '' }} }});
  out[q] = [...found];
}}
console.log(JSON.stringify(out));
""", tmp_path)
    assert got == QUERIES


def test_every_combining_mark_of_this_python_lies_in_the_planes_scanned():
    """The word class scans only `MARK_PLANES`: every code point of category M that this Python's Unicode
    knows must be in them (a later Unicode that put marks elsewhere fails here first)."""
    import sys
    import unicodedata

    from mercury_static.bundle.record_index import MARK_PLANES

    bounds = [0, *(b for plane in MARK_PLANES for b in plane), sys.maxunicode + 1]  # between the planes
    gaps = [range(a, b) for a, b in zip(bounds[0::2], bounds[1::2])]
    assert sum(map(len, gaps)) + sum(b - a for a, b in MARK_PLANES) == sys.maxunicode + 1
    assert [c for gap in gaps for c in gap if unicodedata.category(chr(c))[0] == "M"] == []
