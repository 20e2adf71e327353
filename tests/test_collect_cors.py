"""`links` checks that the storage allows the page's uploads from where the bundle is served (CORS), with the
preflight a browser sends, before it hands out links or changes the bundle: against moto's S3 server (bucket
CORS rules set with put_bucket_cors) and wsgidav, with and without CORS for the page's origin."""

from __future__ import annotations

import pytest
from collect_servers import DavServer
from test_collect import S3_TARGET
from test_collect_errors import SECRET, dav_url, one_error, short_timeouts  # noqa: F401 (an autouse fixture)

ORIGIN = "https://pages.example.org"
NOT_CHECKED = "CORS not checked"


@pytest.fixture
def links_bundle(stand_in_demo, fresh_copy):
    return fresh_copy(stand_in_demo)


def s3_links(run, s3, bundle, *args):
    return run("links", bundle, "--annotators", "alice,bob", "--collect", S3_TARGET, "--endpoint", s3.url, *args)


def set_cors(s3, origins: list[str], methods: tuple[str, ...] = ("POST",)):
    s3.client().put_bucket_cors(Bucket="collect", CORSConfiguration={"CORSRules": [
        {"AllowedOrigins": origins, "AllowedMethods": list(methods), "AllowedHeaders": ["*"]}]})


def test_s3_with_cors_for_the_page_origin_gets_links(run, s3, links_bundle):
    set_cors(s3, [ORIGIN])
    for args in (("--origin", ORIGIN), ("--url", f"{ORIGIN}/round1/?lang=en"), ("--origin", f"{ORIGIN}:443/x")):
        r = s3_links(run, s3, links_bundle, *args)
        assert r.exit_code == 0, r.output
        assert r.stdout.count("#collect=") == 2 and NOT_CHECKED not in r.output, r.output


def test_s3_without_cors_for_the_page_origin_is_one_line_and_changes_nothing(run, s3, links_bundle):
    set_cors(s3, ["https://other.example.org"])
    index = (links_bundle / "index.html").read_text(encoding="utf-8")
    for args in (("--origin", ORIGIN), ("--url", f"{ORIGIN}/b/"), ("--origin", "http://other.example.org")):
        r = s3_links(run, s3, links_bundle, *args)
        one_error(r, f"error: {S3_TARGET}: ", "does not allow the page's uploads from", "CORS",
                  "CORS rule to the bucket", "POST", ORIGIN if "pages" in args[1] else "http://other.example.org ")
        assert "#collect=" not in r.output
    assert (links_bundle / "index.html").read_text(encoding="utf-8") == index  # its CSP untouched


def test_webdav_with_cors_gets_links(run, dav, links_bundle):
    r = run("links", links_bundle, "--annotators", "alice", "--collect", dav_url(dav), "--origin", ORIGIN)
    assert r.exit_code == 0 and "#collect=" in r.stdout and NOT_CHECKED not in r.output, r.output


@pytest.mark.parametrize("cors, words", [
    (None, ("the preflight was answered HTTP",)),
    ({"allow_origin": "https://other.example.org", "allow_headers": "Authorization, Content-Type",
      "allow_methods": "PUT"}, ()),
    ({"allow_origin": "*", "allow_headers": "*", "allow_methods": "PUT"}, ("authorization not in",)),
    ({"allow_origin": "*", "allow_headers": "Authorization, Content-Type", "allow_methods": "POST"},
     ("PUT is not in",)),
])
def test_webdav_without_cors_for_the_page_is_one_line_without_secrets(run, links_bundle, tmp_path, cors, words):
    (tmp_path / "dav" / "drop").mkdir(parents=True)
    server = DavServer(tmp_path / "dav", cors=cors)
    server.start()
    try:
        index = (links_bundle / "index.html").read_text(encoding="utf-8")
        r = run("links", links_bundle, "--annotators", "alice", "--collect", dav_url(server), "--url", f"{ORIGIN}/b/")
        line = one_error(r, f"error: http://***@127.0.0.1:{server.port}/drop/: ", ORIGIN, "WebDAV server",
                         "Access-Control-Allow-Headers Authorization, Content-Type", *words)
        assert "secret" not in r.output and "team:" not in line and "//team" not in line, line
        assert (links_bundle / "index.html").read_text(encoding="utf-8") == index
    finally:
        server.stop()


def test_no_known_origin_says_cors_was_not_checked(run, s3, dav, links_bundle):
    set_cors(s3, ["https://other.example.org"])  # would be refused, were the origin known
    for r in (s3_links(run, s3, links_bundle),
              run("links", links_bundle, "--annotators", "alice", "--collect", dav_url(dav), "--url", "b/")):
        assert r.exit_code == 0, r.output
        assert sum(NOT_CHECKED in ln for ln in r.output.splitlines()) == 1, r.output


def test_a_bad_origin_is_one_line(run, dav, links_bundle):
    for bad in ("javascript:alert(1)", "ftp://team.example.org", "team.example.org", "https://",
                f"https://u:{SECRET}@team.example.org", "https://team.example.org:99999"):
        one_error(run("links", links_bundle, "--annotators", "alice", "--collect", dav_url(dav), "--origin", bad),
                  "--origin")


def test_the_preflight_is_read_by_the_fetch_rules():
    from mercury_static.merge.cors import Upload, page_origin, problem

    put = Upload("http://h/x.json", "PUT", ("authorization", "content-type"))
    post = Upload("http://h/b", "POST", ())
    ok = {"Access-Control-Allow-Origin": ORIGIN, "Access-Control-Allow-Methods": "GET, PUT",
          "Access-Control-Allow-Headers": "Content-Type, Authorization"}
    assert problem(200, ok, ORIGIN, put) is None
    assert problem(204, {**ok, "Access-Control-Allow-Origin": "*"}, ORIGIN, put) is None
    assert problem(200, {"Access-Control-Allow-Origin": ORIGIN}, ORIGIN, post) is None  # POST needs no listing
    assert "403" in problem(403, ok, ORIGIN, put)
    assert "not https://pages.example.org" in problem(200, {**ok, "Access-Control-Allow-Origin": "https://x"},
                                                     ORIGIN, put)
    assert "PUT is not" in problem(200, {**ok, "Access-Control-Allow-Methods": "POST"}, ORIGIN, put)
    assert problem(200, {**ok, "Access-Control-Allow-Methods": "*"}, ORIGIN, put) is None
    # a wildcard never covers Authorization (Fetch standard)
    assert "authorization not" in problem(200, {**ok, "Access-Control-Allow-Headers": "*"}, ORIGIN, put)
    assert page_origin(None, "https://Pages.Example.org:443/b/?x=1#y") == ORIGIN
    assert page_origin("http://h:8080/p", "https://ignored/") == "http://h:8080"
    assert page_origin(None, "index.html") is None


def test_the_origin_is_the_one_a_browser_sends():
    """A browser's Origin header: lower-case, the host in punycode (UTS #46, non-transitional, as the URL
    standard), no default port, no path; an origin with spaces around it is refused naming --origin."""
    from mercury_static.core.records import InputError
    from mercury_static.merge.cors import page_origin

    for given, sent in (("https://bücher.example/", "https://xn--bcher-kva.example"),
                        ("HTTPS://Team.Example:443/round1/?x", "https://team.example"),
                        ("http://straße.example:8080", "http://xn--strae-oqa.example:8080"),
                        ("https://[::1]:8443/", "https://[::1]:8443")):
        assert page_origin(given, "") == sent, given
    with pytest.raises(InputError) as caught:
        page_origin("  https://team.example  ", "")
    assert str(caught.value).startswith("--origin: ") and "spaces" in str(caught.value)


def test_s3_with_cors_for_the_punycode_origin_takes_the_unicode_one(run, s3, links_bundle):
    set_cors(s3, ["https://xn--bcher-kva.example"])
    r = s3_links(run, s3, links_bundle, "--origin", "https://bücher.example/")
    assert r.exit_code == 0, r.output
    assert r.stdout.count("#collect=") == 2 and NOT_CHECKED not in r.output, r.output


def test_an_origin_with_spaces_is_one_line_naming_origin(run, dav, links_bundle):
    one_error(run("links", links_bundle, "--annotators", "alice", "--collect", dav_url(dav), "--origin",
                  "  https://team.example  "), "--origin", "spaces")
