"""`serve`: a bundle on a local address."""

from __future__ import annotations

from pathlib import Path

from mercury_static.bundle.serve import BundleServer, make_server
from mercury_static.core.records import InputError


def serve(directory: Path, host: str, port: int) -> BundleServer:
    """The server of `directory` on `host:port`, bound and not yet serving; an address that cannot be bound is
    one line naming it."""
    try:
        return make_server(directory, host, port)
    except (OSError, UnicodeError) as e:
        raise InputError(f"{host}:{port}", None, None, getattr(e, "strerror", None) or str(e)) from None
