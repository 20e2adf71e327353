"""Preview a bundle over HTTP on loopback (ES modules and wasm cannot load from file://)."""

from __future__ import annotations

import datetime
import email.utils
import functools
import http.server
import os
import sys
import urllib.parse
from pathlib import Path

from mercury_static.bundle.precompress import sibling_for

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".wasm": "application/wasm",
    ".onnx": "application/octet-stream",
    ".bin": "application/octet-stream",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}


class BundleHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with correct MIME types; revalidated at every use (`no-cache`), so a rebuilt bundle shows
    at once; a file's precompressed sibling (precompress.py) sent instead when the request accepts it."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Vary", "Accept-Encoding")
        super().end_headers()

    def send_head(self):
        """The file's `.br` or `.gz` sibling with its `Content-Encoding` and the file's own type and date, when
        the request accepts it (sibling_for); else the file as it is (SimpleHTTPRequestHandler)."""
        path = Path(self.translate_path(self.path))
        if path.is_dir() and urllib.parse.urlsplit(self.path).path.endswith("/"):
            path = path / "index.html"
        found = sibling_for(path, self.headers.get("Accept-Encoding", ""))
        if found is None:
            return super().send_head()
        sibling, encoding = found
        mtime = int(path.stat().st_mtime)
        since = self.headers.get("If-Modified-Since")
        if since and "If-None-Match" not in self.headers:
            try:
                ims = email.utils.parsedate_to_datetime(since)
                unchanged = mtime <= ims.replace(tzinfo=ims.tzinfo or datetime.timezone.utc).timestamp()
            except (TypeError, ValueError, IndexError, OverflowError):
                unchanged = False
            if unchanged:
                self.send_response(304)
                self.end_headers()
                return None
        f = open(sibling, "rb")  # noqa: SIM115 — closed by the handler after copying it
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
        self.send_header("Last-Modified", self.date_time_string(mtime))
        self.end_headers()
        return f

    def log_message(self, format, *args):  # quiet: a preview server, not an access log
        pass


class BundleServer(http.server.ThreadingHTTPServer):
    """Threaded server that stays quiet when a browser drops a connection (an aborted fetch, a closed tab)."""

    daemon_threads = True

    def __init__(self, directory: str | Path, host: str, port: int):
        super().__init__((host, port), functools.partial(BundleHandler, directory=str(directory)))

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def make_server(directory: str | Path, host: str = "127.0.0.1", port: int = 8000) -> BundleServer:
    """A threaded HTTP server for a bundle folder (port 0 picks a free port)."""
    directory = Path(directory)
    if not (directory / "manifest.json").is_file():
        raise FileNotFoundError(f"{directory}: not a mercury-static bundle (no manifest.json)")
    return BundleServer(directory, host, port)
