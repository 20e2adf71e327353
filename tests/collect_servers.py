"""Real storage servers on loopback for the collect tests: moto's S3 server and wsgidav (WebDAV)."""

from __future__ import annotations

import socket
import threading
import urllib.request
from pathlib import Path

import pytest


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


@pytest.fixture
def s3(monkeypatch):
    """A moto S3 server with a bucket `collect` open to browser uploads from any origin (CORS)."""
    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
                 "AWS_SESSION_TOKEN": "testing"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    server = S3Server()
    server.start()
    urllib.request.urlopen(urllib.request.Request(f"{server.url}/moto-api/reset", method="POST"))  # no bucket left
    monkeypatch.setenv("AWS_ENDPOINT_URL", server.url)
    client = server.client()
    client.create_bucket(Bucket="collect")
    client.put_bucket_cors(Bucket="collect", CORSConfiguration={"CORSRules": [
        {"AllowedOrigins": ["*"], "AllowedMethods": ["POST"], "AllowedHeaders": ["*"]}]})
    yield server
    if server.server is not None:
        server.stop()


class DavServer:
    """wsgidav serving a folder on loopback, with one user (`team`/`secret`) and CORS for the page."""

    def __init__(self, root: Path):
        self.root = root
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.server = None

    def start(self):
        from werkzeug.serving import make_server
        from wsgidav.wsgidav_app import WsgiDAVApp

        config = {
            "host": "127.0.0.1", "port": self.port, "provider_mapping": {"/": str(self.root)},
            "simple_dc": {"user_mapping": {"*": {"team": {"password": "secret"}}}},
            "http_authenticator": {"domain_controller": None, "accept_basic": True, "accept_digest": False,
                                   "default_to_digest": False},
            "cors": {"allow_origin": "*", "allow_headers": "Authorization, Content-Type"},
            "verbose": 0, "logging": {"enable": False}, "lock_storage": True,
        }
        self.server = make_server("127.0.0.1", self.port, WsgiDAVApp(config), threaded=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def dav(tmp_path):
    root = tmp_path / "dav"
    (root / "drop").mkdir(parents=True)
    server = DavServer(root)
    server.start()
    yield server
    server.stop()
