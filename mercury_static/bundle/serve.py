"""Preview a bundle over HTTP on loopback (ES modules and wasm cannot load from file://)."""

from __future__ import annotations

import functools
import http.server
import sys
from pathlib import Path

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
    """Static files with correct MIME types; no caching, so a rebuilt bundle shows at once."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

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
