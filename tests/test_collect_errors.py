"""Storage that fails: every command that reads or links a storage (links, merge, progress, review) says so in
one line naming the storage without its secrets, exits 2, and ends in bounded time; no output line ever
shows a password or a key. Against real servers on loopback: moto's S3 server, wsgidav, and TCP servers that
drop or never answer."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from collect_servers import BrokenServer, DavServer, free_port
from test_collect import S3_TARGET, put_exports

SECRET = "s3cret"
TIMEOUT = 2


@pytest.fixture(autouse=True)
def short_timeouts(monkeypatch):
    monkeypatch.setenv("MERCURY_STATIC_STORAGE_TIMEOUT", str(TIMEOUT))


def commands(bundle: Path, source: str, tmp_path: Path, endpoint: str | None = None) -> dict[str, list]:
    """Each command that touches a storage, pointed at `source`."""
    links = ["links", bundle, "--annotators", "alice", "--collect", source]
    if endpoint:
        links += ["--endpoint", endpoint]
    return {"links": links,
            "merge": ["merge", source, "--bundle", bundle, "-o", tmp_path / "merged.json"],
            "progress": ["progress", source, "--bundle", bundle],
            "review": ["review", source, "--bundle", bundle, "-o", tmp_path / "review"]}


def one_error(result, *words: str) -> str:
    """The result is exactly one `error:` line and exit 2, holding every word of `words` and no secret."""
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert SECRET not in result.output and "Traceback" not in result.output, result.output
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def dav_url(server, password="secret", folder="drop/") -> str:
    return server.url.replace("http://", f"http://team:{password}@") + folder


@pytest.fixture
def links_bundle(stand_in_demo, fresh_copy):
    return fresh_copy(stand_in_demo)


# ------------------------------------------------------------------------------------------------- S3

def test_s3_without_credentials(run, s3, links_bundle, tmp_path, monkeypatch):
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for name, args in commands(links_bundle, f"{S3_TARGET}/", tmp_path, s3.url).items():
        line = one_error(run(*args), "no S3 credentials", "AWS_ACCESS_KEY_ID")
        assert line.startswith(f"error: {S3_TARGET}/: "), (name, line)
    assert not (tmp_path / "review").exists() and not (tmp_path / "merged.json").exists()


def test_s3_server_down(run, s3, links_bundle, tmp_path, monkeypatch):
    down = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("AWS_ENDPOINT_URL", down)
    for args in commands(links_bundle, f"{S3_TARGET}/", tmp_path, down).values():
        one_error(run(*args), "connection refused", "check that the server is up")


@pytest.mark.parametrize("mode", ["close", "partial"])
def test_s3_connection_dropped_midway(run, s3, links_bundle, tmp_path, monkeypatch, mode):
    broken = BrokenServer(mode)
    monkeypatch.setenv("AWS_ENDPOINT_URL", broken.url)
    try:
        for name, args in commands(links_bundle, f"{S3_TARGET}/", tmp_path, broken.url).items():
            if name == "links" and mode == "partial":
                continue  # a HEAD answer has no body to cut
            one_error(run(*args), "closed before the answer was complete", "2 tries")
    finally:
        broken.stop()


@pytest.mark.parametrize("kind", ["s3", "webdav"])
def test_a_server_that_never_answers_ends_in_bounded_time(run, s3, links_bundle, tmp_path, monkeypatch, kind):
    monkeypatch.setenv("MERCURY_STATIC_STORAGE_TIMEOUT", "0.5")
    silent = BrokenServer("silent")
    monkeypatch.setenv("AWS_ENDPOINT_URL", silent.url)
    source, endpoint = (f"{S3_TARGET}/", silent.url) if kind == "s3" else (f"{silent.url}/dav/", None)
    try:
        for name, args in commands(links_bundle, source, tmp_path, endpoint).items():
            start = time.monotonic()
            one_error(run(*args), "no answer within 0.5 s (2 tries)")
            assert time.monotonic() - start < 5, name  # two tries of half a second each, and their pause
    finally:
        silent.stop()


def test_merge_reads_an_s3_key_with_hash_and_spaces(run, s3, stand_in_demo, tmp_path):
    files = put_exports(tmp_path, stand_in_demo)
    names = ["alice/lap#top.json", "alice/desk top%20.json", "bob/b1.json"]
    for f, key in zip(files, names):
        s3.client().put_object(Bucket="collect", Key=f"round1/{key}", Body=f.read_bytes())
    r = run("merge", f"{S3_TARGET}/", "--bundle", stand_in_demo, "-o", tmp_path / "m.json")
    assert r.exit_code == 0, r.output
    assert "exported from 2 browsers" in r.output


# ---------------------------------------------------------------------------------------------- WebDAV

def test_webdav_wrong_password(run, dav, links_bundle, tmp_path):
    for args in commands(links_bundle, dav_url(dav, SECRET), tmp_path).values():
        line = one_error(run(*args), "HTTP 401", "check the user name and password")
        assert line.startswith(f"error: http://***@127.0.0.1:{dav.port}/drop/: "), line
        assert "team" not in line


def test_webdav_server_down(run, links_bundle, tmp_path):
    url = f"http://team:{SECRET}@127.0.0.1:{free_port()}/drop/"
    for args in commands(links_bundle, url, tmp_path).values():
        one_error(run(*args), "connection refused")


def test_webdav_folder_with_a_hash_in_a_name_and_an_unreadable_file(run, stand_in_demo, tmp_path):
    root = tmp_path / "dav"
    (root / "drop").mkdir(parents=True)
    files = put_exports(tmp_path, stand_in_demo)
    names = ["alice--lap#top.json", "alice--desk 100%.json", "bob--b1.json"]
    for f, name in zip(files, names):
        (root / "drop" / name).write_bytes(f.read_bytes())
    (root / "drop" / "carol--c1.json").write_bytes(files[2].read_bytes())
    server = DavServer(root, refused={"/drop/carol--c1.json"})
    server.start()
    try:
        url = dav_url(server)
        r = run("merge", url, "--bundle", stand_in_demo, "-o", tmp_path / "m.json")
        assert r.exit_code == 1, r.output
        skipped = [ln for ln in r.output.splitlines() if ln.startswith("skipped:")]
        assert skipped == [f"skipped: http://***@127.0.0.1:{server.port}/drop/carol--c1.json: cannot read "
                           "(access denied (HTTP 403): check the credentials' rights on this bucket or folder)"]
        merged = (tmp_path / "m.json").read_text(encoding="utf-8")
        assert "alice-lap" in merged or "alice-desk" in merged
        assert "exported from 2 browsers" in r.output  # both of alice's files were read
        strict = run("merge", url, "--bundle", stand_in_demo, "-o", tmp_path / "s.json", "--strict")
        one_error(strict, "carol--c1.json", "HTTP 403")
    finally:
        server.stop()


# ----------------------------------------------------------------------------------- missing packages

BLOCK = """import os, sys
for name in os.environ.get("BLOCK_MODULES", "").split(","):
    if name:
        sys.modules[name] = None  # import fails as if the package were not installed
"""


class Out:
    def __init__(self, output: str, exit_code: int):
        self.output, self.exit_code = output, exit_code


END = "--- command ended, exit"
RUN_EACH = f"""import json, sys
from mercury_static.cli import app
for args in json.loads(sys.argv[1]):
    try:
        app(args)
        code = 0
    except SystemExit as e:
        code = e.code or 0
    print("\\n{END}", code, flush=True)
    print("\\n{END}", file=sys.stderr, flush=True)
"""
"""Each command of the list in argv[1], in turn: its output on the process's own stdout and stderr, then a line
marking its end (and its exit code, on stdout)."""


def run_without(tmp_path: Path, modules: str, *commands: list) -> list[Out]:
    """Each command run in one fresh Python process where the `modules` cannot be imported (the package is
    missing when the process starts and stays missing for every command): one process for all of them."""
    site = tmp_path / "block"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCK, encoding="utf-8")
    import mercury_static

    repo = Path(mercury_static.__file__).resolve().parent.parent  # the code under test, wherever it is
    env = {**os.environ, "BLOCK_MODULES": modules, "PYTHONPATH": f"{site}{os.pathsep}{repo}",
           "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    p = subprocess.run([sys.executable, "-c", RUN_EACH, json.dumps([[str(a) for a in c] for c in commands])],
                       capture_output=True, text=True, env=env, timeout=120)
    outs = re.split(rf"\n{re.escape(END)} (-?\d+)\n", p.stdout)
    errs = p.stderr.split(f"\n{END}\n")
    assert len(outs) == 2 * len(commands) + 1 and len(errs) == len(commands) + 1, p.stdout + p.stderr
    assert outs[-1] == errs[-1] == "" and p.returncode == 0, p.stdout + p.stderr
    return [Out(out + err, int(code)) for out, code, err in zip(outs[0::2], outs[1::2], errs)]


def test_fsspec_present_but_the_storage_package_missing(stand_in_demo, links_bundle, tmp_path):
    for modules, source in (("s3fs", f"{S3_TARGET}/"), ("webdav4", f"http://team:{SECRET}@127.0.0.1:9/drop/")):
        args = commands(stand_in_demo, source, tmp_path)
        for result in run_without(tmp_path, modules, args["merge"], args["progress"], args["review"]):
            one_error(result, "collect extra", "pip install 'mercury-static[collect]'")
    [r] = run_without(tmp_path, "botocore", ["links", links_bundle, "--annotators", "alice", "--collect", S3_TARGET,
                                             "--endpoint", "http://127.0.0.1:9"])
    one_error(r, "S3 links need the collect extra (botocore)")
    assert not (tmp_path / "review").exists() and not (tmp_path / "merged.json").exists()  # nothing written


# --------------------------------------------------------------------------------------- secrets, URLs

def test_no_output_line_shows_a_secret(run, dav, links_bundle, stand_in_demo, tmp_path):
    """The test server's password is `secret`: no line of links, merge, progress or review shows it (nor the
    user name), and a URL keeps its `//`."""
    (dav.root / "empty").mkdir()
    drop, empty = dav_url(dav), dav_url(dav, folder="empty/")
    at = f"http://***@127.0.0.1:{dav.port}"
    r = run("links", links_bundle, "--annotators", "alice", "--collect", drop, "--url", "https://example.org/b/")
    assert r.exit_code == 0, r.output
    status = r.output.splitlines()[-1]
    assert f"{at}/drop/ only" in status, status
    merge = run("merge", empty, "--bundle", stand_in_demo, "-o", tmp_path / "m.json")
    assert one_error(merge, "holds no .json export").startswith(f"error: {at}/empty/: ")
    progress = run("progress", empty, "--bundle", stand_in_demo)
    assert f"no export of this bundle in {at}/empty/ yet" in progress.output, progress.output
    (dav.root / "drop" / "bad.json").write_text("{}", encoding="utf-8")
    files = put_exports(tmp_path, stand_in_demo)
    (dav.root / "drop" / "bob--b1.json").write_bytes(files[2].read_bytes())
    review = run("review", drop, "--bundle", stand_in_demo, "-o", tmp_path / "review")
    assert f"skipped: {at}/drop/bad.json: " in review.output, review.output
    for result in (r, merge, progress, review):
        assert "secret" not in result.output and "//team" not in result.output, result.output
        assert "http:/1" not in result.output


def test_redact_removes_userinfo_query_and_fragment():
    from mercury_static.merge.storage_errors import redact, scrub

    assert redact(f"http://drop:{SECRET}@host:8080/dav/round1/") == "http://***@host:8080/dav/round1/"
    assert redact("https://TOKEN@cloud.example/public.php/webdav/") == "https://***@cloud.example/public.php/webdav/"
    assert redact("https://h/x?X-Amz-Signature=abc#collect=xyz") == "https://h/x?***#***"
    assert redact("s3://bucket/round1/") == "s3://bucket/round1/"
    assert scrub(f"failed: http://a:{SECRET}@h/x and {SECRET}", (SECRET,)) == "failed: http://***@h/x and ***"


def test_links_url_must_be_http_and_composes_query_and_fragment(run, dav, links_bundle):
    collect = dav_url(dav)
    for bad in ("javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "//evil.example/x",
                "https:///nohost", "http://a b/"):
        one_error(run("links", links_bundle, "--annotators", "alice", "--collect", collect, "--url", bad), "--url")
    r = run("links", links_bundle, "--annotators", "alice,bob", "--collect", collect, "--url",
            "https://team.example/b/?lang=en")
    assert r.exit_code == 0, r.output
    alice = next(ln for ln in r.stdout.splitlines() if ln.startswith("alice\t")).split("\t")[1]
    assert alice.startswith("https://team.example/b/?lang=en&annotator=alice#collect="), alice
    r = run("links", links_bundle, "--annotators", "alice", "--collect", collect, "--url",
            "https://team.example/b/index.html?annotator=old#top")
    alice = next(ln for ln in r.stdout.splitlines() if ln.startswith("alice\t")).split("\t")[1]
    assert alice.startswith("https://team.example/b/index.html?annotator=alice#top&collect="), alice
    r = run("links", links_bundle, "--annotators", "alice", "--collect", collect)  # the default, relative
    alice = next(ln for ln in r.stdout.splitlines() if ln.startswith("alice\t")).split("\t")[1]
    assert alice.startswith("index.html?annotator=alice#collect="), alice


# ----------------------------------------------------------------------------------- review from storage

@pytest.mark.parametrize("kind", ["s3", "webdav"])
def test_review_reads_storage_like_merge(run, s3, dav, stand_in_demo, tmp_path, kind):
    files = put_exports(tmp_path, stand_in_demo)
    for f in files:
        if kind == "s3":
            s3.client().put_object(Bucket="collect", Key=f"round1/{f.parent.name}/{f.name}", Body=f.read_bytes())
        else:
            (dav.root / "drop" / f"{f.parent.name}--{f.name}").write_bytes(f.read_bytes())
    source = f"{S3_TARGET}/" if kind == "s3" else dav_url(dav)
    r = run("review", source, "--bundle", stand_in_demo, "-o", tmp_path / "review")
    assert r.exit_code == 0, r.output
    disk = run("review", *files, "--bundle", stand_in_demo, "-o", tmp_path / "review-disk")
    review_id = re.compile(r"review id (\w+)")
    header = json.loads((tmp_path / "review" / "data" / "review.json").read_text(encoding="utf-8"))
    assert header["counts"]["annotations"] == 2 and header["annotators"] == ["alice", "bob"], header
    assert review_id.search(disk.output).group(1) == review_id.search(r.output).group(1)  # the same review


def test_a_missing_or_unsupported_storage_is_one_line(run, s3, dav, links_bundle, tmp_path):
    """A bucket or WebDAV folder that does not exist, a scheme that is not storage, credentials in an s3://
    address, a URL where a local path is expected: one line each, no secret, exit 2."""
    for source, endpoint, words in (
            ("s3://nobucket/round1/", s3.url, ("s3://nobucket/round1/: not found",)),
            (dav_url(dav, folder="nofolder/"), None, (f"http://***@127.0.0.1:{dav.port}/nofolder/: not found",)),
            (f"ftp://team:{SECRET}@host/x/", None, ("ftp://***@host/x/: expected s3://",)),
            (f"s3://KEY:{SECRET}@bucket/x/", None, ("s3://***@bucket/x/", "never from the address"))):
        for args in commands(links_bundle, source, tmp_path, endpoint).values():
            one_error(run(*args), *words)
    r = run("merge", f"{S3_TARGET}/", "--bundle", f"http://team:{SECRET}@host/bundle", "-o", tmp_path / "m.json")
    one_error(r, "http://***@host/bundle: a URL where a local file or folder is expected")


def test_links_refuse_a_review_bundle(run, dav, links_bundle):
    """A review bundle's page never uploads: links for it would spend their secret on nothing."""
    index = (links_bundle / "index.html").read_text(encoding="utf-8")
    manifest = json.loads((links_bundle / "manifest.json").read_text(encoding="utf-8"))
    (links_bundle / "manifest.json").write_text(json.dumps({**manifest, "review": {"path": "data/review.json"}}),
                                                encoding="utf-8")
    line = one_error(run("links", links_bundle, "--annotators", "alice", "--collect", dav_url(dav)), "review bundle")
    assert "secret" not in line
    assert (links_bundle / "index.html").read_text(encoding="utf-8") == index  # its CSP untouched
