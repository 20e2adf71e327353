"""Storage failures as one line: bounded time per request, what each failure means and what to do, and secrets
removed from every address and message (used by collect.py and cors.py)."""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit, urlunsplit

from mercury_static.core.records import InputError

ATTEMPTS = 2
"""Tries of each storage request (one retry): a storage that is down fails fast instead of backing off for
minutes."""
HIDDEN = "***"


def timeout() -> float:
    """Seconds a storage connect or read may take (MERCURY_STATIC_STORAGE_TIMEOUT, default 10): long enough
    for a slow link, short enough that a server that never answers is reported while the user waits."""
    try:
        value = float(os.environ.get("MERCURY_STATIC_STORAGE_TIMEOUT") or 10)
    except ValueError:
        value = 10.0
    return value if 0 < value < 3600 else 10.0


class StorageError(InputError):
    """The storage could not be used: the message says what happened and what to do; `file` is the storage
    address with its secrets removed."""

    def __init__(self, source: str, message: str):
        super().__init__(redact(source), None, None, scrub(message))


def redact(url: str) -> str:
    """A storage or page URL fit to print: no user name or password, no query or fragment (a presigned
    signature, a link's secret), the rest exactly as given (never through pathlib, which folds `//`)."""
    text = str(url)
    try:
        parts = urlsplit(text)
    except ValueError:
        return scrub(text)
    if not parts.scheme or not parts.netloc:
        return scrub(text)
    host = parts.netloc.rsplit("@", 1)[-1]
    netloc = f"{HIDDEN}@{host}" if "@" in parts.netloc else host
    return urlunsplit((parts.scheme, netloc, parts.path, HIDDEN if parts.query else "",
                       HIDDEN if parts.fragment else ""))


_USERINFO = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s]*@")
_SECRET_ENV = ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN")


def scrub(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` with the userinfo of any URL in it, the given secrets and the AWS secret key and token of the
    environment replaced by ***: library messages (botocore's, httpx's) may quote a request."""
    out = _USERINFO.sub(rf"\1{HIDDEN}@", str(text))
    for secret in (*secrets, *(os.environ.get(k) or "" for k in _SECRET_ENV)):
        if len(secret) >= 3:
            out = out.replace(secret, HIDDEN)
    return out


NO_CREDENTIALS = ("no S3 credentials on this machine: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or "
                  "AWS_PROFILE), then run again")
_NEEDS_EXTRA = "pip install 'mercury-static[collect]'"
_TIMEOUTS = {"ReadTimeoutError", "ConnectTimeoutError", "TimeoutException", "TimeoutError", "FSTimeoutError",
             "ServerTimeoutError", "timeout"}
_CLOSED = {"ConnectionClosedError", "RemoteProtocolError", "ReadError", "WriteError", "ServerDisconnectedError",
           "ClientPayloadError", "IncompleteRead", "ConnectionResetError", "ResponseStreamingError",
           "ProtocolError", "BrokenPipeError", "ConnectionAbortedError", "ResponseParserError",
           "RemoteDisconnected", "BadStatusLine"}
_UNREACHABLE = {"EndpointConnectionError", "ConnectError", "ConnectionRefusedError", "ClientConnectorError",
                "gaierror", "ProxyConnectionError", "SSLError", "URLError"}
_BAD_S3_KEYS = {"InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken",
                "AuthorizationHeaderMalformed"}


class _HTTPStatus(Exception):
    """An HTTP answer other than success, from a request made here (WebDAV reads)."""

    def __init__(self, status_code: int):
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop(0)
        if e is not None and all(e is not seen for seen in out):
            out.append(e)
            todo += [e.__cause__, e.__context__]
    return out


def _status(chain: list[BaseException]) -> tuple[int | None, str]:
    """The HTTP status and S3 error code found in an exception chain."""
    for e in chain:
        response = getattr(e, "response", None)
        if isinstance(response, dict):  # botocore's ClientError
            code = str(response.get("Error", {}).get("Code", ""))
            status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            return (int(status) if status else (int(code) if code.isdigit() else None)), code
        for attr in ("status_code", "code", "status"):
            value = getattr(e, attr, None)
            if isinstance(value, int) and 100 <= value < 600:
                return value, ""
        value = getattr(response, "status_code", None)
        if isinstance(value, int):
            return value, ""
    return None, ""


def explain(exc: BaseException) -> tuple[str, bool]:
    """What a storage failure means for the user and what to do, and whether it is about the whole storage
    (unreachable, refused, a missing package) rather than one file. Matched by class names along the
    exception chain: s3fs, aiobotocore, httpx and urllib each wrap the same few causes differently."""
    chain = _chain(exc)
    names = {c.__name__ for e in chain for c in type(e).__mro__}
    if names & {"ImportError", "ModuleNotFoundError"}:
        return f"reading this storage needs the collect extra (fsspec, s3fs, webdav4): {_NEEDS_EXTRA}", True
    if names & {"NoCredentialsError", "PartialCredentialsError"}:
        return NO_CREDENTIALS, True
    text = " ".join(str(e) for e in chain).lower()
    if "ConnectionRefusedError" in names or "connection refused" in text:  # urllib3 calls it a connect timeout
        return "connection refused: check that the server is up and the address right", True
    if names & _TIMEOUTS:
        return (f"no answer within {timeout():g} s ({ATTEMPTS} tries): check that the server is up and the "
                "address right, then try again"), True
    if names & _CLOSED:
        return (f"the connection was closed before the answer was complete ({ATTEMPTS} tries): try again; if "
                "it keeps failing, check the server"), True
    status, code = _status(chain)
    if status is None and names & _UNREACHABLE:
        why = "host not found" if "gaierror" in names else "cannot connect"
        return f"{why}: check that the server is up and the address right", True
    if code in _BAD_S3_KEYS:
        return (f"the storage refused the S3 credentials ({code}): check AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)"), True
    if status == 401:
        return ("the storage refused the user name or password (HTTP 401): check the user name and password "
                "in the address"), True
    if status == 403 or "PermissionError" in names:
        return "access denied (HTTP 403): check the credentials' rights on this bucket or folder", False
    if status in (404, 409) or code in ("NoSuchBucket", "NoSuchKey") or "FileNotFoundError" in names:
        return "not found: check the bucket and folder in the address", False
    if status is not None:
        return f"the storage answered HTTP {status}{f' ({code})' if code else ''}: try again later", False
    return f"cannot read ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else '-'})", False
