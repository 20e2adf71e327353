"""Precompressed siblings (`FILE.br`, `FILE.gz`) of a bundle's larger files, written by `build`, so a first visit
downloads fewer bytes from any host that serves them (`serve`, nginx `brotli_static`/`gzip_static`, Caddy
`precompressed`, S3 objects with `Content-Encoding`: docs/bundle.md) and the same bytes as before from one that
does not.

Brotli for browsers (they all accept it from an HTTPS host and from localhost), gzip for every other client and
host. The files that are the same in every bundle (the runtime, the model's weights) are compressed once at
the best levels and kept in the model cache under the hash of their bytes: brotli's best level is slow on the
runtime's wasm, and saves much of its gzip. The bundle's own files (data, page, the model's graph and
vocabulary) are compressed at each build at cheap levels, quick and light on memory.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import brotli

from mercury_static.bundle.page import link_or_copy

ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
"""Content-Encoding and sibling suffix, the one to send first when a request accepts both."""
SUFFIXES = tuple(suffix for _, suffix in ENCODINGS)
MIN_BYTES = 1024
"""Smaller files gain less than a request's headers."""
MAX_RATIO = 0.9
"""A sibling is written only when it is at most this fraction of its file (float16 vectors barely compress)."""
BROTLI_FROM = 0.8
"""A cached file gets brotli's best level only where gzip took a fifth off: the int8 weights barely compress,
and brotli's slow best level would gain little on them."""
EXTENSIONS = frozenset({".html", ".js", ".mjs", ".css", ".json", ".wasm", ".onnx", ".weights", ".bin", ".svg"})
SKIPPED = frozenset({"manifest.json", "index.html"})
"""Rewritten in place by later commands (`tune --apply`, `assign`; `links` sets the page's security policy): a
sibling would go stale."""


def cached(rel: Path) -> bool:
    """Whether a file is the same in every bundle (the runtime, the model's weights; the graph and tokenizer
    carry the bundle's own vocabulary): compressed once, cached."""
    return rel.parts[0] == "vendor" or (rel.parts[0] == "models" and rel.suffix == ".weights")


def gzip_bytes(data: bytes, level: int) -> bytes:
    """gzip with no name and no time in its header: the same bytes give the same file."""
    return gzip.compress(data, compresslevel=level, mtime=0)


def brotli_bytes(data: bytes, level: int) -> bytes:
    """Brotli with a window no larger than the file: the same bytes, and a small file's compressor does not
    take the largest window's memory."""
    return brotli.compress(data, quality=level, lgwin=max(10, min(24, (len(data) - 1).bit_length())))


COMPRESSORS: dict[str, tuple[str, Callable[[bytes], bytes], Callable[[bytes], bytes]]] = {
    ".gz": ("9", lambda d: gzip_bytes(d, 9), lambda d: gzip_bytes(d, 6)),
    ".br": ("11-fit", lambda d: brotli_bytes(d, 11), lambda d: brotli_bytes(d, 5)),
}
"""Suffix -> (the cached level's name, the best level, for cached files; the build's level, for a bundle's own
files). Brotli's level 5 comes close to level 9 on the data and the page, and its hash table is a small part
of level 9's, which a build would hold at its peak. A cached file is named by its level too, so that a change
of level is never served from an older cache."""


def cached_sibling(data: bytes, cache: Path, suffix: str) -> Path:
    """The best-level compression of `data`, from `cache` (by its sha256) or compressed into it (renamed into
    place)."""
    path = cache / f"{hashlib.sha256(data).hexdigest()}-{COMPRESSORS[suffix][0]}{suffix}"
    if not path.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{suffix[1:]}-", dir=cache)
        with os.fdopen(fd, "wb") as f:
            f.write(COMPRESSORS[suffix][1](data))
        os.replace(tmp, path)
    return path


def wanted(folder: Path, path: Path) -> bool:
    """Whether `path` (a file of the bundle `folder`) gets a sibling."""
    rel = path.relative_to(folder)
    return (path.suffix in EXTENSIONS and rel.as_posix() not in SKIPPED and path.stat().st_size >= MIN_BYTES)


def write_siblings(folder: Path, cache: Path) -> int:
    """Write `FILE.gz` beside each file of `folder` that compresses well, and `FILE.br` where brotli's is smaller
    still; returns how many siblings were written."""
    written = 0
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and wanted(folder, p)):
        data = path.read_bytes()
        limit = MAX_RATIO * len(data)
        for suffix in (".gz", ".br"):  # gzip first: brotli's sibling must beat it
            target = path.with_name(path.name + suffix)
            if cached(path.relative_to(folder)):
                if suffix == ".br" and limit > BROTLI_FROM * len(data):
                    continue
                source = cached_sibling(data, cache, suffix)
                if source.stat().st_size <= limit:
                    link_or_copy(source, target)
                    os.utime(target)  # not older than its file, written by this build: else never sent
                    written += 1
                    limit = source.stat().st_size - 1
                continue
            packed = COMPRESSORS[suffix][2](data)
            if len(packed) <= limit:
                target.write_bytes(packed)
                written += 1
                limit = len(packed) - 1
    return written


def accepted(header: str, encoding: str) -> bool:
    """Whether an Accept-Encoding header value allows `encoding` (named or `*`, with a q-value above 0)."""
    allowed: dict[str, bool] = {}
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name.strip():
            allowed[name.strip().lower()] = q > 0
    alias = allowed.get("x-gzip") if encoding == "gzip" else None
    return allowed.get(encoding, alias if alias is not None else allowed.get("*", False))


def sibling_for(path: Path, header: str) -> tuple[Path, str] | None:
    """The sibling of `path` to send for a request's Accept-Encoding, and its Content-Encoding: brotli before
    gzip, only one not older than the file (a file changed after the build is sent as it is now)."""
    if not path.is_file():
        return None
    mtime = path.stat().st_mtime_ns
    for encoding, suffix in ENCODINGS:
        sibling = path.with_name(path.name + suffix)
        if sibling.is_file() and sibling.stat().st_mtime_ns >= mtime and accepted(header, encoding):
            return sibling, encoding
    return None
