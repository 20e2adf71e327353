"""Real servers on loopback for the tests: moto's S3 server and wsgidav (WebDAV) for the collect tests, and a web
server process of the hosting recipes (nginx, Caddy) waited for and stopped."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def serving(proc: subprocess.Popen, base: str, path: str, name: str) -> Iterator[None]:
    """Wait until the server process `proc` answers `path` of `base` with 200 (failing the test with its stderr if
    it exits or takes over 20 s), then stop it after the block."""
    import pytest
    from test_precompress import request

    deadline = time.monotonic() + 20
    while True:
        try:
            if request(base, path)[0] == 200:
                break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"{name} did not start: {proc.stderr.read() if proc.stderr else ''}")
        time.sleep(0.1)
    try:
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class S3Server:
    """moto's S3 server on one loopback port, stoppable and restartable there (its objects live in this
    process, so they survive a restart, as a real bucket survives a network outage)."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = None

    def start(self):
        from moto.server import ThreadedMotoServer

        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()

    def stop(self):
        self.server.stop()
        self.server = None

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.url, region_name="us-east-1")


PAGE_CORS = {"allow_origin": "*", "allow_headers": "Authorization, Content-Type", "allow_methods": "PUT"}
"""What a WebDAV server must answer for the page's uploads from any origin."""


class DavServer:
    """wsgidav serving a folder on loopback, with one user (`team`/`secret`) and CORS for the page (`cors`:
    wsgidav's CORS settings, None for none); a GET of a path in `refused` is answered 403 (a file the user may
    not read, as a server's permissions do)."""

    def __init__(self, root: Path, refused: set[str] | None = None, cors: dict | None = PAGE_CORS):
        self.root = root
        self.refused = refused or set()
        self.cors = cors
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.server = None

    def start(self):
        from socketserver import ThreadingMixIn
        from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

        from werkzeug.wsgi import LimitedStream
        from wsgidav.wsgidav_app import WsgiDAVApp

        class Threaded(ThreadingMixIn, WSGIServer):
            daemon_threads = True

        class Quiet(WSGIRequestHandler):
            def log_message(self, *args):
                pass

        config = {
            "host": "127.0.0.1", "port": self.port, "provider_mapping": {"/": str(self.root)},
            "simple_dc": {"user_mapping": {"*": {"team": {"password": "secret"}}}},
            "http_authenticator": {"domain_controller": None, "accept_basic": True, "accept_digest": False,
                                   "default_to_digest": False},
            **({"cors": self.cors} if self.cors is not None else {}),
            "verbose": 0, "logging": {"enable": False}, "lock_storage": True,
        }
        dav = WsgiDAVApp(config)

        def app(environ, start_response):
            # wsgidav reads a body to its end, as cheroot (its usual server) delimits it; wsgiref does not
            environ["wsgi.input"] = LimitedStream(environ["wsgi.input"], int(environ.get("CONTENT_LENGTH") or 0))
            if environ["REQUEST_METHOD"] == "GET" and environ.get("PATH_INFO") in self.refused:
                start_response("403 Forbidden", [("Content-Length", "0")])
                return [b""]
            return dav(environ, start_response)

        self.server = make_server("127.0.0.1", self.port, app, server_class=Threaded,
                                  handler_class=Quiet)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class BrokenServer:
    """A TCP server on loopback that fails the way a broken network does: `silent` accepts connections and
    never answers, `close` reads the request and closes the connection, `partial` sends the start of an
    answer (headers promising more) and closes."""

    def __init__(self, mode: str):
        self.mode = mode
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        self.running = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.mode == "silent":
                self.held.append(conn)  # open, never answered
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket):
        with conn:
            conn.settimeout(5)
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                if self.mode == "partial":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: 5000\r\n\r\n"
                                 b"<?xml version=\"1.0\"?><ListBucketResult><Contents><Key>round1/a")
            except OSError:
                pass

    def stop(self):
        self.running = False
        self.sock.close()
        for conn in self.held:
            conn.close()
