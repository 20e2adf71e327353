"""Preview a bundle over HTTP on loopback (ES modules and wasm cannot load from file://)."""

from __future__ import annotations

import functools
import http.server
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


def make_server(directory: str | Path, host: str = "127.0.0.1", port: int = 8000) -> http.server.ThreadingHTTPServer:
    """A threaded HTTP server for `directory` (port 0 picks a free port)."""
    directory = Path(directory)
    if not (directory / "manifest.json").is_file():
        raise FileNotFoundError(f"{directory}: not a mercury-static bundle (no manifest.json)")
    handler = functools.partial(BundleHandler, directory=str(directory))
    return http.server.ThreadingHTTPServer((host, port), handler)
