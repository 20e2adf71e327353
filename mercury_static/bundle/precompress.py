"""Precompressed siblings (`FILE.gz`) of a bundle's larger files, written by `build`, so a first visit downloads
fewer bytes from any host that serves them (`serve`, nginx `gzip_static`, Caddy `precompressed`, S3 objects
with `Content-Encoding`: docs/bundle.md) and the same bytes as before from one that does not.

gzip only: brotli saved little more on the files that dominate a first visit (the int8 weights and the graph
hardly compress; the runtime's wasm does, but brotli's better levels take a minute on it) and would add a
dependency and a module every host must load. The runtime's and the model's files are the same for every
bundle, so their siblings are compressed once at the best level and kept in the model cache under the hash
of their bytes; the data and the page are compressed at each build at gzip's default level.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
from pathlib import Path

from mercury_static.bundle.page import link_or_copy

SUFFIX = ".gz"
MIN_BYTES = 1024
"""Smaller files gain less than a request's headers."""
MAX_RATIO = 0.9
"""A sibling is written only when it is at most this fraction of its file (float16 vectors barely compress)."""
EXTENSIONS = frozenset({".html", ".js", ".mjs", ".css", ".json", ".wasm", ".onnx", ".weights", ".bin", ".svg"})
SKIPPED = frozenset({"manifest.json", "index.html"})
"""Rewritten in place by later commands (`tune --apply`, `assign`; `links` sets the page's security policy): a
sibling would go stale."""
CACHED = ("vendor", "models")
"""Top folders whose files are the same in every bundle (the runtime, the model): compressed once, cached."""


def gzip_bytes(data: bytes, level: int) -> bytes:
    """gzip with no name and no time in its header: the same bytes give the same file."""
    return gzip.compress(data, compresslevel=level, mtime=0)


def cached_gzip(data: bytes, cache: Path) -> Path:
    """The best-level gzip of `data`, from `cache` (by its sha256) or compressed into it (renamed into place)."""
    path = cache / f"{hashlib.sha256(data).hexdigest()}{SUFFIX}"
    if not path.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".gz-", dir=cache)
        with os.fdopen(fd, "wb") as f:
            f.write(gzip_bytes(data, 9))
        os.replace(tmp, path)
    return path


def wanted(folder: Path, path: Path) -> bool:
    """Whether `path` (a file of the bundle `folder`) gets a sibling."""
    rel = path.relative_to(folder)
    return (path.suffix in EXTENSIONS and rel.as_posix() not in SKIPPED and path.stat().st_size >= MIN_BYTES)


def write_siblings(folder: Path, cache: Path) -> int:
    """Write `FILE.gz` beside each file of `folder` that compresses well; returns how many were written."""
    written = 0
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and wanted(folder, p)):
        data = path.read_bytes()
        target = path.with_name(path.name + SUFFIX)
        if path.relative_to(folder).parts[0] in CACHED:
            source = cached_gzip(data, cache)
            if source.stat().st_size <= MAX_RATIO * len(data):
                link_or_copy(source, target)
                written += 1
            continue
        packed = gzip_bytes(data, 6)
        if len(packed) <= MAX_RATIO * len(data):
            target.write_bytes(packed)
            written += 1
    return written


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header value allows gzip (`gzip` or `*`, with a q-value above 0)."""
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
    return allowed.get("gzip", allowed.get("x-gzip", allowed.get("*", False)))
