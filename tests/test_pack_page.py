"""The packed page (bundle/page.py): deterministic, complete, what a bundle ships, and what the page loads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import EXAMPLES

from mercury_static.bundle import page as pack_page
from mercury_static.bundle.page import COPIED, ENTRY, SOURCES, pack


def _tree(folder):
    """The files of a packed page (a bundle's compressed siblings of them aside)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.suffix not in (".gz", ".br")}


def test_packing_is_deterministic_and_preloads_the_entrys_static_imports(tmp_path):
    a, b = pack(SOURCES, tmp_path / "a"), pack(SOURCES, tmp_path / "b")
    assert _tree(tmp_path / "a") == {k: v for k, v in _tree(tmp_path / "b").items()}
    assert a.preload == b.preload
    main = (a.app / ENTRY).read_text(encoding="utf-8")
    static = sorted(set(re.findall(r'^} from "\./([^"]+)";$|^import "\./([^"]+)";$', main, re.M)) - {("", "")})
    assert sorted(x or y for x, y in static) == a.preload
    assert json.loads((tmp_path / "a" / "page.json").read_text(encoding="utf-8"))["preload"] == a.preload
    # nothing of the sources is left as a module of its own but the files loaded by URL
    assert not {p.name for p in a.app.rglob("*.js")} & ({p.name for p in SOURCES.rglob("*.js")}
                                                        - {Path(n).name for n in COPIED} - {ENTRY})


def test_a_relative_folder_is_packed_there(tmp_path, monkeypatch):
    """`build -o bundle` (a relative path): esbuild runs in the sources' folder, so a relative --outdir put the
    page there, not in the bundle, whose page then had no main.js."""
    monkeypatch.chdir(tmp_path)
    before = sorted(SOURCES.rglob("*"))
    page = pack(SOURCES, Path("rel") / "page")
    assert (tmp_path / "rel" / "page" / "app" / ENTRY).is_file() and page.preload
    assert sorted(SOURCES.rglob("*")) == before


def test_every_source_module_is_in_the_packed_page(tmp_path):
    """A module that nothing imports (dead) or that is loaded by URL without being copied would be missing
    from a bundle: esbuild's inputs plus the copied files must be every source module."""
    meta = tmp_path / "meta.json"
    import subprocess

    subprocess.run([str(pack_page.ESBUILD), str(SOURCES / ENTRY), "--bundle", "--splitting", "--format=esm",
                    f"--outdir={tmp_path / 'out'}", f"--metafile={meta}", "--log-level=error"], check=True,
                   cwd=SOURCES)
    inputs = set(json.loads(meta.read_text(encoding="utf-8"))["inputs"])
    assert inputs | {n for n in COPIED if n.endswith(".js")} == {p.relative_to(SOURCES).as_posix()
                                                                 for p in SOURCES.rglob("*.js")}


def test_every_module_a_copied_one_imports_is_copied_too():
    """The worker and its modules are copied, not packed: a module of ours they import must be copied as well
    (assist/weights.js importing data/formats.js left the worker unable to start)."""
    for name in (n for n in COPIED if n.endswith(".js")):
        for target in re.findall(r"""^import .* from '(\.{1,2}/[^']+)';$""", (SOURCES / name).read_text(encoding="utf-8"),
                                 re.M):
            path = (SOURCES / name).parent.joinpath(target).resolve()
            if SOURCES.resolve() in path.parents:  # ../vendor/ is the runtime, served beside app/
                assert path.relative_to(SOURCES.resolve()).as_posix() in COPIED, (name, target)


def test_a_wheel_ships_every_copied_file():
    """pyproject's package data of the packed page (`make wheel`) matches every file pack copies."""
    import tomllib
    from fnmatch import fnmatch

    from conftest import REPO

    globs = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["mercury_static.page"]
    assert all(any(fnmatch(f"app/{name}", g) and g.count("/") == f"app/{name}".count("/") for g in globs)
               for name in COPIED), globs


def test_a_bundle_ships_the_packed_page_and_index_html_preloads_its_chunks(stand_in_demo, tmp_path):
    page = pack(SOURCES, tmp_path / "p")
    packed = _tree(page.app)
    assert (stand_in_demo / "sw.js").read_bytes() == packed.pop("sw.js")  # the service worker: at the root
    assert _tree(stand_in_demo / "app") == packed
    html = (stand_in_demo / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'<link rel="modulepreload" href="app/([^"]+)">', html) == page.preload
    assert re.findall(r'<script type="module"[^>]*src="([^"]+)"', html) == ["app/main.js"]


def test_a_checkout_without_esbuild_is_one_line_before_any_work(run, tmp_path, monkeypatch):
    monkeypatch.setattr(pack_page, "ESBUILD", tmp_path / "no-esbuild")
    out = tmp_path / "bundle"
    result = run("build", EXAMPLES / "demo.jsonl", "-o", out)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "esbuild not found" in lines[0] and "npm ci" in lines[0], result.output
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.browser
def test_the_page_loads_one_module_and_its_chunks_before_the_first_record(demo_bundle, bundle_server, browser):
    """The request chain of some thirty modules was most of the first record's time: the boot path is now
    the entry and the chunks index.html preloads; the lazily imported files wait."""
    html = (demo_bundle / "index.html").read_text(encoding="utf-8")
    preload = re.findall(r'<link rel="modulepreload" href="app/([^"]+)">', html)
    ctx = browser.new_context()
    page = ctx.new_page()
    page.route("**/models/**", lambda route: route.abort())
    page.goto(bundle_server + "?annotator=t")
    page.wait_for_function("() => performance.getEntriesByName('mercury-first-paint').length > 0", timeout=60_000)
    scripts = page.evaluate("""() => {
      const paint = performance.getEntriesByName('mercury-first-paint')[0].startTime;
      return performance.getEntriesByType('resource')
        .filter((e) => e.startTime < paint && e.name.endsWith('.js')).map((e) => e.name.split('/app/').pop());
    }""")
    assert sorted(scripts) == sorted(["main.js", *preload]), scripts
    assert len(preload) <= 10  # all preloaded at once from index.html: one level of requests, not a chain
    ctx.close()


def test_a_pack_is_kept_per_state_of_the_sources(tmp_path):
    """A build packs the page once per state of its sources: an unchanged one is found in the cache, a
    changed module packed again, a cached page damaged by hand packed anew."""
    import shutil

    from mercury_static.bundle.page import packed_page

    sources, cache = tmp_path / "app", tmp_path / "cache"
    shutil.copytree(SOURCES, sources)
    first = packed_page(sources, cache)
    stamp = (first.app.parent / "page.json").stat().st_mtime_ns
    again = packed_page(sources, cache)
    assert again.app == first.app and (again.app.parent / "page.json").stat().st_mtime_ns == stamp
    assert [p.name for p in cache.iterdir()] == [first.app.parent.name]  # no leftover of a pack
    main = sources / ENTRY
    main.write_text(main.read_text(encoding="utf-8") + "\nconsole.debug('changed');\n", encoding="utf-8")
    changed = packed_page(sources, cache)
    assert changed.app != first.app and "changed" in (changed.app / ENTRY).read_text(encoding="utf-8")
    (changed.app.parent / "page.json").unlink()
    assert (packed_page(sources, cache).app / ENTRY).read_text(encoding="utf-8") == \
        (changed.app / ENTRY).read_text(encoding="utf-8")
