"""The sharded record index: shard layout, id → position with one shard, term postings that
give what a full scan gives (split prefixes and bitmap lists included), byte-identical rewrites,
and the build writing every record into it."""

from __future__ import annotations

import base64
import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from mercury_static.bundle.contents import ShardLimits
from mercury_static.bundle.record_index import (META_SEP, PREFIX, IndexRow, encode_postings, fnv1a, fold, list_bytes,
                                                meta_terms, read_columns, shard_of, split_prefixes, text_words,
                                                word_key, words, write_index)

N = 20_000
K = 64  # records per index shard: 313 shards
SPLIT = 700  # split a prefix whose lists weigh more: "12" and then "123" are split
TOPICS = ["model-a", "Model-B", "cnn", "xsum", "Ünïcode", "日本語"]


def generated_rows(n: int = N) -> list[IndexRow]:
    """Rows like a big bundle's: ids with astral and accented characters, titles of varied words. Row i
    depends on i alone, so the first n of the N made once are the n rows (the tests only read them)."""
    assert n <= N
    return _all_rows()[:n]


@lru_cache(maxsize=1)
def _all_rows() -> list[IndexRow]:
    rows = []
    for i in range(N):
        rid = f"rec-{i}" if i % 97 else f"𝔯é-{i}"
        title = f"Summary {i} of topic {TOPICS[i % len(TOPICS)]} · part {i % 13}"
        rows.append(IndexRow(id=rid, title=title, tags=[TOPICS[i % 5], str(i % 7)], shard=i // 500,
                             text_shards=[i // 300, i // 300 + 1],
                             meta={"topic": TOPICS[i % 4], "score": i % 11, "many": ["x", f"y{i % 3}"]},
                             text_words=text_words(f"The source of {i % 29} says {TOPICS[i % 3]}; summary {i}.")))
    return rows


def read(data: Path, name: str):
    return json.loads((data / name).read_text(encoding="utf-8"))


def decode(postings: list[int] | str) -> list[int]:
    """Positions from a posting list: deltas, or the base64 of a bitmap (the page's decodePostings)."""
    if isinstance(postings, str):
        bits = np.unpackbits(np.frombuffer(base64.b64decode(postings), dtype=np.uint8), bitorder="little")
        return np.flatnonzero(bits).tolist()
    out, p = [], 0
    for k, d in enumerate(postings):
        p = d if k == 0 else p + d
        out.append(p)
    return out


def filter_word(data: Path, word: str) -> tuple[list[int], str]:
    """What the page's `RecordIndex.wordPositions` answers, read as it reads: one term shard, that of the
    word's key (a split prefix: its union); the shard's file name beside."""
    top = read(data, "index.json")
    split = set(top.get("split", []))
    name = f"terms-{shard_of(word_key(word, split), top['term_shards']):04d}.json"
    shard = read(data, name)
    if len(word) < PREFIX:
        return decode(shard["words"].get(word, [])), name
    if word in split:
        return decode(shard["prefixes"][word]), name
    return sorted({p for w, lst in shard["words"].items() if w.startswith(word) for p in decode(lst)}), name


def row_words(rows: list[IndexRow]) -> dict[str, list[int]]:
    """Every word of every row (id, title, tags, text words) with the positions of the rows that hold it:
    what `scan` reads, each row's words taken once rather than once a query."""
    table: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        for w in {*words(" ".join([r.id, r.title, *r.tags])), *r.text_words}:
            table.setdefault(w, []).append(i)
    return table


def scan(table: dict[str, list[int]], query: str) -> list[int]:
    """The records having a word that `query` prefixes (a one-character query: that word only), from the
    words of every row (`row_words`)."""
    if len(query) < PREFIX:
        return table.get(query, [])
    return sorted({i for w, rows in table.items() if w.startswith(query) for i in rows})


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    data = tmp_path_factory.mktemp("index")
    rows = generated_rows()
    counts = write_index(data, rows, K, 5_000, visible_meta=["topic", "score", "many"], split_bytes=SPLIT)
    return data, rows, counts


def test_index_shards_hold_the_rows_in_order(index):
    data, rows, counts = index
    top = read(data, "index.json")
    assert (top["format"], top["version"]) == ("mercury-static/record-index", 2)  # formats.RECORD_INDEX
    assert top["count"] == N and top["index_size"] == K
    assert top["index_shards"] == counts.index_shards == -(-N // K)
    got = []
    for n in range(top["index_shards"]):
        shard = read(data, f"index-{n:04d}.json")
        assert shard["first"] == n * K and len(shard["ids"]) == (K if n < top["index_shards"] - 1 else N - n * K)
        got += list(zip(shard["ids"], shard["titles"], shard["tags"], shard["shard"], shard["text_shards"],
                        shard["meta"]))
    assert got == [(r.id, r.title, r.tags, r.shard, r.text_shards, r.meta) for r in rows]
    assert not (data / f"index-{top['index_shards']:04d}.json").exists()


def test_every_id_is_found_in_the_one_shard_its_hash_names(index):
    data, rows, counts = index
    top = read(data, "index.json")
    shards = [read(data, f"ids-{i:04d}.json")["ids"] for i in range(top["id_shards"])]
    assert sum(map(len, shards)) == N
    for pos, r in enumerate(rows):
        assert shards[shard_of(r.id, top["id_shards"])][r.id] == pos
    assert max(map(len, shards)) < 3 * K  # hashing spreads the ids: no shard near the whole index


def test_term_postings_match_a_full_scan(index):
    data, rows, _ = index
    top = read(data, "index.json")
    terms = [read(data, f"terms-{i:04d}.json") for i in range(top["term_shards"])]
    assert top["term_shards"] > 10
    split = top["split"]
    assert {"12", "123", "th"} <= set(split) and not {"1", "1234", "the"} & set(split), split  # "the": no longer word
    lists = [lst for t in terms for part in ("words", "meta", "prefixes") for lst in t[part].values()]
    assert any(isinstance(lst, str) for lst in lists) and any(isinstance(lst, list) for lst in lists)
    table = row_words(rows)
    queries = ["model", "mo", "ünï", "日本", "𝔯é", "summary", "7", "rec", "part", "says", "source", "28", "the",
               "12", "123", "12345", "1234", "1239", "mode", "zzz", "1999"]
    for query in map(fold, queries):  # the page folds the filter's words (𝔯é: ré)
        # a filter word reads the one shard of its key and matches every word it prefixes there; a
        # shorter one than the prefix only the same word (a one-character prefix would read every shard)
        hit, _ = filter_word(data, query)
        assert hit == scan(table, query) and (hit or query == "zzz"), query
    for name, value in [("topic", "Model-B"), ("many", "y2"), ("topic", "xsum")]:
        key = name + META_SEP + value
        postings = terms[shard_of(key, top["term_shards"])]["meta"].get(key, [])
        want = [i for i, r in enumerate(rows) if value in (r.meta[name] if isinstance(r.meta[name], list)
                                                           else [r.meta[name]])]
        assert decode(postings) == want and want
    assert all(not k.startswith("score" + META_SEP) for t in terms for k in t["meta"])  # numbers: ranges


def test_posting_lists_are_deltas_or_a_bitmap_whichever_is_shorter():
    for positions in ([0], [5], [0, 1], [3, 900], list(range(0, 1000, 3)), list(range(7, 5000)), [8, 9, 10, 15, 16],
                      list(range(0, 100_000, 17)), list(range(0, 100_000, 18))):
        got = encode_postings(np.array(positions, dtype=np.int32))
        deltas = [positions[0]] + [b - a for a, b in zip(positions, positions[1:])]
        bitmap = np.zeros(positions[-1] // 8 * 8 + 8, dtype=bool)
        bitmap[positions] = True
        b64 = base64.b64encode(np.packbits(bitmap, bitorder="little").tobytes()).decode()
        assert got == (b64 if len(json.dumps(b64)) < len(json.dumps(deltas).replace(" ", "")) else deltas), positions
        assert decode(got) == positions
    assert encode_postings(np.array([], dtype=np.int32)) == []
    assert isinstance(encode_postings(np.arange(1_000_000, dtype=np.int32)), str)  # a bit a record, not a delta of 1 each
    assert list_bytes(1_000_000, 1_000_000) == len(json.dumps(encode_postings(np.arange(1_000_000, dtype=np.int32))))
    assert abs(list_bytes(100, 1_000_000) - len(json.dumps([0] + [10_000] * 99).replace(" ", ""))) < 5  # even gaps


def test_split_prefixes_are_the_heavy_ones_that_begin_a_longer_word():
    terms = sorted([("co", 1), ("coal", 1), ("cod", 1), ("con", 1), ("cons", 1), ("const", 1), ("constant", 1), ("x", 9),
                    ("zz", 1000), ("zzz", 1)])
    weights = {w: list_bytes(n, 1000) for w, n in terms}
    assert weights["co"] == 6 and weights["zz"] == 170  # a word in every record: its bitmap
    assert split_prefixes(terms, 1000, 1_000) == []
    assert split_prefixes(terms, 1000, 175) == ["zz"]  # 176 > 175: a heavy word with a longer one after it
    assert split_prefixes(terms, 1000, 18) == ["co", "con", "zz"]  # co: 7 words, con: 4, cons: 3 (= 18)
    assert split_prefixes(terms, 1000, 5) == ["co", "coa", "con", "cons", "const", "consta", "constan", "zz"]
    assert split_prefixes([("zz", 1000)], 1000, 5) == []  # one word: nothing to split it into


def test_a_heavy_prefix_is_split_so_that_no_term_shard_holds_it_whole(tmp_path):
    """One prefix (`co`) holding most postings, as `co` and `th` of English texts. Sharded by two
    characters it all lands in one term shard (before version 2, what a filter word `co…` read); split, the
    largest term shard stays near the limit and every filter word still gives the scan's answer."""
    rows = [IndexRow(id=f"r{i}", title="", tags=[], shard=0, text_shards=[0],
                     text_words=tuple(sorted({f"co{(i * 37 + k * 101) % 9000}" for k in range(20)} | {"the", "a"})))
            for i in range(4_000)]
    write_index(tmp_path, rows, 100, 5_000, split_bytes=20_000)
    sizes = [p.stat().st_size for p in tmp_path.glob("terms-*.json")]
    assert sum(sizes) > 400_000 and max(sizes) < 3 * 20_000, (sum(sizes), max(sizes))  # the limit + a mean shard
    table = row_words(rows)
    for query in ["co", "co1", "co12", "co123", "co1234", "co8999", "co9", "th", "the", "a", "c", "zz"]:
        hit, _ = filter_word(tmp_path, query)
        assert hit == scan(table, query), query


def test_fnv1a_is_the_32_bit_fnv1a_of_the_utf8_bytes():
    assert fnv1a("") == 0x811C9DC5 and fnv1a("a") == 0xE40C292C and fnv1a("foobar") == 0xBF9CF968
    assert fnv1a("é") == fnv1a("é".encode().decode())  # the bytes, not the code points or UTF-16 units


def test_rewrite_is_byte_identical_and_a_duplicate_id_is_refused(tmp_path):
    rows = generated_rows(500)
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        write_index(tmp_path / name, iter(rows), 50, 300, visible_meta=["topic"])
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "b").iterdir())
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    (tmp_path / "c").mkdir()
    with pytest.raises(ValueError, match="duplicate record id 'rec-1'"):
        write_index(tmp_path / "c", [rows[1], rows[1]], 50, 300)


def test_empty_index(tmp_path):
    counts = write_index(tmp_path, [], 10, 10)
    assert (counts.records, counts.index_shards) == (0, 0)
    assert read(tmp_path, "index.json")["count"] == 0 and read(tmp_path, "ids-0000.json") == {"ids": {}}


def test_the_build_writes_every_record_into_the_index(build_bundle, tmp_path):
    rows = [{"id": f"r{i}", "source": f"Source {i} says the budget grew.", "summary": f"Summary {i}.",
             "topic": f"t{i % 3}"} for i in range(23)]
    path = tmp_path / "small.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    out = build_bundle([path], name="index-small", shards=ShardLimits(records=4, index_records=5, term_postings=20))
    data = out / "data"
    top = read(data, "index.json")
    assert top["count"] == 23 and top["index_shards"] == 5 and top["term_shards"] > 1
    sliced = {k: [] for k in ("ids", "titles", "tags", "shard", "text_shards")}
    for n in range(5):
        shard = read(data, f"index-{n:04d}.json")
        assert shard["first"] == 5 * n
        for k in sliced:
            sliced[k] += shard[k]
    stored = [(n, r) for n in range(read(out, "manifest.json")["shards"]["records"])
              for r in read(data, f"records-{n:04d}.json")["records"]]
    assert sliced == {"ids": [r["id"] for r in rows], "titles": [r["summary"] for r in rows],
                      "tags": [[r["topic"]] for r in rows], "shard": [n for n, _ in stored],
                      "text_shards": [[r["source_shard"], r["summary_shard"]] for _, r in stored]}
    assert [n for n, _ in stored] == [i // 4 for i in range(23)]
    assert read_columns(data) == sliced
    assert not (data / "records.json").exists()  # the one-file index of older bundles: no reader needs it


def test_the_filter_words_are_those_of_both_texts_too(build_bundle, tmp_path):
    """A word late in the summary (past the row title) and a word only in the source are terms,
    with every other word of either text; each record posts a word once."""
    summary = ("The council met on Monday and, after a long debate about the harbour and its many ferries, "
               "approved the plan put forward by Councillor Warburton.")
    rows = [{"id": "r0", "source": "The ferry plan was tabled in 2015. Its cost is unknown.", "summary": summary},
            {"id": "r1", "source": "A bakery opened.", "summary": "A bakery opened near the harbour."}]
    path = tmp_path / "two.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    data = build_bundle([path], name="index-texts") / "data"
    top = read(data, "index.json")
    posted = {}
    for n in range(top["term_shards"]):
        for word, postings in read(data, f"terms-{n:04d}.json")["words"].items():
            posted[word] = decode(postings)
    assert "warburton" not in words(read(data, "index-0000.json")["titles"][0])  # past the title
    assert posted["warburton"] == [0] and posted["2015"] == [0] and posted["tabled"] == [0]
    assert posted["harbour"] == [0, 1] and posted["bakery"] == [1]
    every = {w for r in rows for w in words(r["source"] + " " + r["summary"] + " " + r["id"])}
    assert every <= set(posted)


def reference_index(rows: list[IndexRow], index_records: int, term_postings: int, visible_meta: list[str],
                    split_bytes: int) -> dict[str, bytes]:
    """The index as the first writer wrote it, every id and posting in memory until the end, the split
    prefixes found by weighing every prefix of every word: its files' bytes by name (kept in memory, not
    written), which the streaming `IndexWriter` must give."""
    from mercury_static.bundle.contents import dumps

    ids, postings, columns, n_index = {}, {}, {}, 0
    files: dict[str, bytes] = {}

    def write(name: str, obj) -> None:
        files[name] = dumps(obj).encode("utf-8")

    def flush(first: int):
        nonlocal columns, n_index
        write(f"index-{n_index:04d}.json", {"first": first, **columns})
        columns, n_index = {}, n_index + 1

    for pos, row in enumerate(rows):
        if pos and pos % index_records == 0:
            flush(pos - index_records)
        ids[row.id] = pos
        for name, value in (("ids", row.id), ("titles", row.title), ("tags", row.tags),
                            ("shard", row.shard), ("text_shards", row.text_shards)):
            columns.setdefault(name, []).append(value)
        meta = {k: row.meta[k] for k in visible_meta if k in row.meta}
        if visible_meta:
            columns.setdefault("meta", []).append(meta)
        for term in [*dict.fromkeys(words(" ".join([row.id, row.title or "", *row.tags])) + list(row.text_words)),
                     *meta_terms(meta)]:
            p = postings.setdefault(term, [])
            if not p or p[-1] != pos:
                p.append(pos)
    count = len(rows)
    if columns:
        flush(count - 1 - (count - 1) % index_records)
    n_ids = max(1, -(-count // index_records))
    id_shards = [{} for _ in range(n_ids)]
    for record_id, p in ids.items():
        id_shards[shard_of(record_id, n_ids)][record_id] = p
    for i, shard in enumerate(id_shards):
        write(f"ids-{i:04d}.json", {"ids": shard})
    n_terms = max(1, -(-sum(map(len, postings.values())) // term_postings))
    weight: dict[str, int] = {}
    longer: set[str] = set()
    for t, p in postings.items():
        for n in range(PREFIX, len(t) + 1 if META_SEP not in t else 0):
            weight[t[:n]] = weight.get(t[:n], 0) + list_bytes(len(p), count)
            if n < len(t):
                longer.add(t[:n])
    split = sorted(prefix for prefix in longer if weight[prefix] > split_bytes)
    term_shards = [{"words": {}, "meta": {}, "prefixes": {}} for _ in range(n_terms)]
    for t, p in postings.items():
        meta = META_SEP in t
        key = t if meta else word_key(t, set(split))
        term_shards[shard_of(key, n_terms)]["meta" if meta else "words"][t] = encode_postings(np.array(p, np.int32))
    for prefix in split:
        union = sorted({pos for t, p in postings.items() if META_SEP not in t and t.startswith(prefix) for pos in p})
        term_shards[shard_of(prefix, n_terms)]["prefixes"][prefix] = encode_postings(np.array(union, np.int32))
    for i, shard in enumerate(term_shards):
        write(f"terms-{i:04d}.json", shard)
    top = {"format": "mercury-static/record-index", "version": 2, "count": count, "index_size": index_records,
           "prefix": PREFIX, "split": split, "index_shards": n_index,
           "id_shards": n_ids, "term_shards": n_terms, "meta": visible_meta}
    write("index.json", top)
    return files


@pytest.mark.parametrize("n, k, t, meta, split", [(3_000, 7, 13, ["topic", "score", "many"], 500),
                                                  (200, 1, 1, [], 1), (500, 1_000, 100_000, ["many"], 10**6),
                                                  (64 * 5, 64, 250, ["topic"], 300), (0, 3, 3, [], 1)])
def test_streaming_writer_gives_the_bytes_of_the_in_memory_one(tmp_path, n, k, t, meta, split):
    """Spooled ids and postings, read back one shard at a time, write what holding them all wrote: with
    index shards of 1 record and term shards of 1 posting, an index in one shard, a last shard just full,
    every prefix that begins a longer word split (split = 1), none split."""
    rows = generated_rows(n)
    write_index(tmp_path, iter(rows), k, t, visible_meta=meta, split_bytes=split)
    want = reference_index(rows, k, t, meta, split)
    got = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(got) == sorted(want) and len(want) > (3 if n else 2)
    assert [name for name in want if got[name] != want[name]] == []


def test_a_duplicate_id_is_named_within_a_shard_and_across_shards(tmp_path):
    rows = generated_rows(40)
    for i, (dup, at) in enumerate([(3, 5), (3, 25), (12, 13)]):
        (tmp_path / str(i)).mkdir()
        with pytest.raises(ValueError, match=f"duplicate record id 'rec-{dup}'"):
            write_index(tmp_path / str(i), rows[:at] + [rows[dup]] + rows[at:], 10, 30)


@pytest.mark.slow
def test_the_writers_memory_does_not_grow_with_the_records(tmp_path):
    """Python's heap (tracemalloc) while writing 10,000 and 40,000 rows: ids and postings are spooled
    (sqlite's page cache is capped apart: SPOOL_CACHE_KB), so only a shard's rows and the largest term
    shard are held. Holding them all grew with the records."""
    import tracemalloc

    def rows(n: int):
        for i in range(n):
            yield IndexRow(id=f"rec-{i}", title=f"Summary {i} of topic {i % 97} part {i % 13}", tags=[f"m{i % 5}"],
                           shard=i // 500, text_shards=[i // 300, i // 300 + 1], meta={"topic": f"t{i % 4}"})

    def peak_mb(n: int) -> float:
        (tmp_path / str(n)).mkdir()
        tracemalloc.start()
        try:
            write_index(tmp_path / str(n), rows(n), 1000, 100_000, ["topic"])
            return tracemalloc.get_traced_memory()[1] / 2**20
        finally:
            tracemalloc.stop()

    small, large = peak_mb(10_000), peak_mb(40_000)
    assert large - small < 2, (small, large)
