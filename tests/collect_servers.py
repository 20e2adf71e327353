"""Real storage servers on loopback for the collect tests: moto's S3 server and wsgidav (WebDAV)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path



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


class DavServer:
    """wsgidav serving a folder on loopback, with one user (`team`/`secret`) and CORS for the page."""

    def __init__(self, root: Path):
        self.root = root
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
            "cors": {"allow_origin": "*", "allow_headers": "Authorization, Content-Type", "allow_methods": "PUT"},
            "verbose": 0, "logging": {"enable": False}, "lock_storage": True,
        }
        dav = WsgiDAVApp(config)

        def app(environ, start_response):
            # wsgidav reads a body to its end, as cheroot (its usual server) delimits it; wsgiref does not
            environ["wsgi.input"] = LimitedStream(environ["wsgi.input"], int(environ.get("CONTENT_LENGTH") or 0))
            return dav(environ, start_response)

        self.server = make_server("127.0.0.1", self.port, app, server_class=Threaded,
                                  handler_class=Quiet)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
