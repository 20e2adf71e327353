"""The `mercury-static` command line: a thin layer over the library."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import signal
from pathlib import Path
from typing import Callable, List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from mercury_static import __version__
from mercury_static.core.records import InputError
from mercury_static.core.terminal import console as make_console, line

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Semantic-assisted labeling of source/summary inconsistencies as a static web bundle.")
console = make_console(stderr=True)


class _WarningLines(logging.Handler):
    """The library's warnings (e.g. a prior annotation dropped) as one safe `warning:` line each."""

    def emit(self, record: logging.LogRecord) -> None:
        console.print(line(f"warning: {record.getMessage()}", "yellow"), soft_wrap=True)


@app.callback()
def _setup() -> None:
    log = logging.getLogger("mercury_static")
    if not any(isinstance(h, _WarningLines) for h in log.handlers):
        log.addHandler(_WarningLines())
        log.propagate = False


_FOLDED_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]+):/(?!/)")


def _absolute(value):
    if isinstance(value, Path):
        _not_a_url(value)
        return Path(os.path.abspath(value))
    if isinstance(value, list) and all(isinstance(v, Path) for v in value):
        for v in value:
            _not_a_url(v)
        return [Path(os.path.abspath(v)) for v in value]
    return value


def _not_a_url(path: Path) -> None:
    """A URL given where a local path is expected is one line, its secrets removed: pathlib folded its `//`,
    so it would otherwise be printed as a missing file with its password in it."""
    from mercury_static.merge.storage_errors import redact

    text = str(path)
    if _FOLDED_URL.match(text):
        url = _FOLDED_URL.sub(r"\1://", text, count=1)
        fail(f"{redact(url)}: a URL where a local file or folder is "
             "expected (merge, progress and review read s3:// and WebDAV addresses as inputs)")


def command(name: str | None = None):
    """A subcommand whose path arguments are made absolute against the user's working folder, once, at the
    CLI edge: the library never depends on where it runs (esbuild, for one, runs in another folder).
    Symlinks are kept (not resolved), so that the output checks still see them."""
    def register(function):
        @functools.wraps(function)
        def run(**kwargs):
            return function(**{k: _absolute(v) for k, v in kwargs.items()})
        return app.command(name)(run)
    return register


def fail(message: str, code: int = 2):
    """Print one clear error line and exit (no traceback)."""
    console.print(Text.assemble(("error:", "bold red"), " ", line(message)), soft_wrap=True)
    raise typer.Exit(code)


def _interrupted(signum, frame):
    raise KeyboardInterrupt


def say(message: str, style: str | None = None) -> None:
    console.print(line(message, style), soft_wrap=True)


@contextlib.contextmanager
def input_errors():
    """Turn bad-input exceptions into one line and exit code 2."""
    from mercury_static.assist.model_export import ModelError

    try:
        yield
    except (InputError, ModelError) as e:
        fail(str(e))
    except OSError as e:
        fail(f"{e.filename}: {e.strerror}" if e.filename else f"{e.strerror or e}")


@contextlib.contextmanager
def progress_steps():
    """A rich progress bar per long step; yields the `step(description, total)` hook of build()."""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        def step(description: str, total: int):
            task = progress.add_task(description, total=total)
            return lambda n: progress.advance(task, n)
        yield step


def ranker_items(items: List[str]) -> dict:
    """``--ranker-option KEY=VALUE`` items, typed and ranged by ranker_options (one line and exit 2 if bad)."""
    from mercury_static.assist.ranker_options import parse_items

    with input_errors():
        return parse_items(items)


def said_report(summary: dict, report: Path) -> None:
    """Where the report is, and its headline figures in one line."""
    from mercury_static.report.files import report_paths
    from mercury_static.report.sections import headline

    json_path, html_path = report_paths(report)
    say(f"report: {html_path} (and {json_path})" if html_path else f"report: {json_path}")
    say(headline(summary))


@command()
def build(
    inputs: List[Path] = typer.Argument(..., help="CSV, JSON, JSONL, Mercury dump, SummHay topic or Parquet files, "
                                        "or folders of Parquet files or of a saved 🤗 dataset."),
    out: Path = typer.Option(..., "-o", "--out", help="Output folder of the bundle."),
    fmt: str = typer.Option("auto", "--format", help="auto|csv|json|jsonl|mercury|summhay|qags|parquet|label-studio"),
    source_field: str = typer.Option("source", help="Field/column holding the source text."),
    summary_field: str = typer.Option("summary", help="Field/column holding the summary text."),
    id_field: Optional[str] = typer.Option(None, help="Field/column holding the record id."),
    model: Optional[Path] = typer.Option(None, help="Local Hugging Face sentence-embedding folder (default: the "
                                         "shipped all-MiniLM-L6-v2; another model needs the export extra)."),
    title: Optional[str] = typer.Option(None, help="Title shown in the page."),
    labels: Optional[Path] = typer.Option(None, help="Label tree, YAML or JSON."),
    guidelines: Optional[Path] = typer.Option(None, help="Annotator guidelines, Markdown or text."),
    settings: Optional[Path] = typer.Option(None, help="Dataset settings (YAML/JSON, or Argilla's settings.json): "
                                            "fields, questions, metadata, suggestions, distribution."),
    suggestions: Optional[Path] = typer.Option(None, help="Suggestions, JSON Lines of {record_id, question, value, "
                                               "score, agent}."),
    ranker_option: List[str] = typer.Option([], "--ranker-option", help="KEY=VALUE ranker option (repeatable; "
                                            "stored in the manifest)."),
    engine: str = typer.Option("local", help="Where sentences are embedded: local (this machine's threads) or "
                               "ray (Ray Data; needs the ray extra). The bundle is the same."),
    workers: Optional[int] = typer.Option(None, min=1, help="Embedding workers (threads, or Ray actors; default: "
                                          "CPUs, at most 4 locally)."),
    ray_address: Optional[str] = typer.Option(None, help="A running Ray cluster (auto, or ray://HOST:10001); "
                                              "default: start a local Ray for this build."),
):
    """Build a static annotation bundle from dataset files."""
    from mercury_static.pipeline.steps import BuildOptions, build as run_build

    options = BuildOptions(fmt=fmt, source_field=source_field, summary_field=summary_field, id_field=id_field,
                           model=model, title=title, labels=labels, guidelines=guidelines, settings=settings,
                           suggestions=suggestions, ranker=ranker_items(ranker_option), engine=engine,
                           workers=workers, ray_address=ray_address)
    if engine not in ("local", "ray"):
        fail(f"--engine {engine}: expected local or ray")
    if ray_address and engine != "ray":
        fail("--ray-address: only with --engine ray")
    with input_errors(), progress_steps() as step:
        manifest = run_build(inputs, out, options, step=step)
    c = manifest["counts"]
    console.print(Text.assemble(("built", "green"), line(
        f" {out}: {c['records']} records, {c['texts']} distinct texts, {c['sentences']} sentences, "
        f"bundle id {manifest['bundle_id']}")), soft_wrap=True)
    say(f"preview: mercury-static serve {out}")


@command()
def assign(
    bundle: Path = typer.Argument(..., help="A bundle folder."),
    annotators: str = typer.Option(..., help="Annotator names, comma-separated: alice,bob,carol."),
    overlap: int = typer.Option(1, help="How many annotators see each record (Argilla's min_submitted)."),
    checks: Optional[Path] = typer.Option(None, "--checks", help="Known answers (a gold file, a merged file or a "
                                          "Mercury dump): their records, already in the bundle, are mixed into "
                                          "every queue as check records; the answers stay in this file."),
    check_rate: float = typer.Option(0.1, "--check-rate", help="The share of check records in each queue."),
    seed: Optional[str] = typer.Option(None, "--seed", help="Seed of the queues' order and of the check records' "
                                       "places (default: the bundle id)."),
):
    """Give each annotator a deterministic queue covering every record `overlap` times (stored in the bundle)."""
    from mercury_static.bundle.assign import assign_bundle, parse_annotators

    with input_errors():
        manifest = assign_bundle(bundle, parse_annotators(annotators), overlap,
                                 _check_records(checks) if checks else None, check_rate, seed)
    q = manifest["queues"]
    say(f"assigned {manifest['counts']['records']} records to {len(q['annotators'])} annotators, "
        f"overlap {q['overlap']}: {bundle / q['path']}")
    if checks:
        say(f"check records mixed into every queue at rate {check_rate}; keep {checks} for merge --checks "
            "(not in the bundle)")


def _check_records(path: Path):
    """The check records of a bundle, read from the known answers at `path` (assign, under the bundle's lock)."""
    from mercury_static.bundle.assign import bare_checks
    from mercury_static.merge.check_answers import read_known

    return lambda loaded: bare_checks(loaded, list(read_known(path, loaded)), str(path))


@command()
def serve(
    directory: Path = typer.Argument(..., help="A bundle folder."),
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, help="Port (0 picks a free one)."),
):
    """Serve a bundle locally with the right MIME types."""
    from mercury_static.bundle.serve import make_server

    if not 0 <= port <= 65535:
        fail(f"--port {port}: not a port number (0 to 65535; 0 picks a free one)")
    with input_errors():
        try:
            server = make_server(directory, host, port)
        except (OSError, UnicodeError) as e:
            fail(f"{host}:{port}: {getattr(e, 'strerror', None) or e}")
    say(f"serving {directory} at http://{host}:{server.server_port}/  (Ctrl-C to stop)")
    say("open that address in a browser, type your name, then select words of the summary: the related "
        "sentences of the source light up (? in the page lists the keys)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@command()
def version():
    """Print the tool version."""
    typer.echo(__version__)


@command()
def merge(
    sources: List[str] = typer.Argument(..., metavar="EXPORTS...", help="Export files of the page and/or Mercury "
                                        "dumps; or s3://BUCKET/PREFIX/ or a WebDAV folder URL (every .json there: "
                                        "needs the collect extra)."),
    bundle: Path = typer.Option(..., "--bundle", help="The bundle the annotations were made on."),
    out: Path = typer.Option(..., "-o", "--out", help="Merged dataset file (a folder for --format argilla, "
                             "parquet or label-studio)."),
    fmt: str = typer.Option("mercury-static", "--format", help="mercury-static|mercury|jsonl|argilla|parquet|"
                            "label-studio|sentences"),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the agreement report as JSON; a .html "
                                          "path writes the report page and its JSON beside it (report extra)."),
    review_url: str = typer.Option("review-bundle/", "--review-url", help="The review bundle as the report "
                                   "page links its records (relative to the page, or http(s))."),
    strict: bool = typer.Option(False, "--strict", help="Stop at the first problem (exit 2)."),
    checks: Optional[Path] = typer.Option(None, "--checks", help="The known answers given to assign --checks: "
                                          "each annotator scored on the check records, which stay out of the "
                                          "agreement and of the output."),
    check_threshold: float = typer.Option(0.7, "--check-threshold", help="Flag an annotator whose verdict "
                                          "accuracy or span F1 on the check records is below this."),
    keep_checks: bool = typer.Option(False, "--keep-checks", help="Keep the check records in the merged dataset."),
):
    """Merge annotators' exports into one validated dataset and report agreement (exit 1: something skipped)."""
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.merge.collect import is_remote, local_inputs
    from mercury_static.merge.output import check_dataset_output, write_dataset
    from mercury_static.merge.pipeline import FORMATS, merge_files
    from mercury_static.merge.check_answers import read_known
    from mercury_static.merge.checks_score import Checks
    from mercury_static.printing import print_checks, print_merge
    from mercury_static.report.html import check_review_url

    if fmt not in FORMATS:
        fail(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    exports = [s if is_remote(s) else Path(os.path.abspath(s)) for s in sources]
    protected = [*(e for e in exports if isinstance(e, Path)), bundle]
    with input_errors():
        check_review_url(review_url)
        check_dataset_output(out, fmt, report, protected)
        loaded = load_bundle(bundle)
        scored = Checks(read_known(checks, loaded), check_threshold, keep_checks) if checks else None
        with contextlib.ExitStack() as stack:
            local = local_inputs(exports, stack, strict)
            result = merge_files(local.paths, loaded, fmt, strict, checks=scored)
            result.problems[:0] = local.problems
            local.rename(result.problems)
        write_dataset(result, out, fmt, report, protected, "merge", review_url)
    print_merge(result, make_console(), console)
    print_checks(result.agreement.get("checks"), make_console())
    say(f"wrote {out}")
    if report:
        said_report(result.report(), report)
    raise typer.Exit(result.exit_code)


@command()
def review(
    sources: List[str] = typer.Argument(..., metavar="INPUTS...", help="Export files of the page, Mercury dumps "
                                        "and/or merged files; or s3://BUCKET/PREFIX/ or a WebDAV folder URL (what "
                                        "merge reads)."),
    bundle: Path = typer.Option(..., "--bundle", help="The bundle the annotations were made on."),
    out: Path = typer.Option(..., "-o", "--out", help="The review bundle folder (new, empty, or one build or "
                             "review wrote)."),
    strict: bool = typer.Option(False, "--strict", help="Stop at the first problem (exit 2)."),
):
    """Make a review bundle: the bundle plus every annotator's work, most contested records first (exit 1:
    something skipped)."""
    from mercury_static.merge.collect import is_remote, local_inputs
    from mercury_static.review.write_bundle import review_bundle

    inputs = [s if is_remote(s) else Path(os.path.abspath(s)) for s in sources]
    with input_errors(), contextlib.ExitStack() as stack:
        local = local_inputs(inputs, stack, strict)
        result = review_bundle(local.paths, bundle, out, strict)
        result.problems[:0] = local.problems
        local.rename(result.problems)
    for problem in result.problems:
        say(f"skipped: {problem}")
    for note in result.notes:
        say(f"note: {note}")
    h = result.header
    console.print(Text.assemble(("review bundle", "green"), line(
        f" {out}: {h['counts']['records']} records, {h['counts']['contested']} contested, "
        f"{h['counts']['annotations']} annotations by {', '.join(h['annotators']) or 'nobody'}; "
        f"review id {h['review_id']}")), soft_wrap=True)
    say(f"preview: mercury-static serve {out}")
    raise typer.Exit(result.exit_code)


@command()
def gold(
    reviews: List[Path] = typer.Argument(..., metavar="REVIEW_EXPORTS...", help="Review exports of the page "
                                         "(one or more reviewers)."),
    bundle: Path = typer.Option(..., "--bundle", help="The review bundle the reviewers worked on."),
    out: Path = typer.Option(..., "-o", "--out", help="Gold dataset file (a folder for --format argilla, "
                             "parquet or label-studio)."),
    fmt: str = typer.Option("mercury-static", "--format", help="mercury-static|mercury|jsonl|argilla|parquet|"
                            "label-studio"),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the gold report (what is not adjudicated, "
                                          "reviewer agreement, quality against the gold) as JSON; a .html path "
                                          "writes the report page and its JSON beside it (report extra)."),
    review_url: str = typer.Option("review-bundle/", "--review-url", help="The review bundle as the report "
                                   "page links its records (relative to the page, or http(s))."),
):
    """Write the gold dataset: the adjudicated records with provenance; score annotators and agents against it."""
    from mercury_static.merge.output import check_dataset_output, write_dataset
    from mercury_static.merge.pipeline import DATASET_FORMATS
    from mercury_static.printing import print_gold
    from mercury_static.report.html import check_review_url
    from mercury_static.review.gold import GoldProblems, make_gold

    if fmt not in DATASET_FORMATS:
        fail(f"--format: {fmt!r} is not one of {', '.join(DATASET_FORMATS)}")
    protected = [*reviews, bundle]
    with input_errors():
        check_review_url(review_url)
        check_dataset_output(out, fmt, report, protected)
        try:
            result = make_gold(reviews, bundle, fmt)
        except GoldProblems as e:  # every bad review input, one line each
            for problem in e.problems:
                console.print(Text.assemble(("error:", "bold red"), " ", line(str(problem))), soft_wrap=True)
            raise typer.Exit(2) from None
        write_dataset(result, out, fmt, report, protected, "gold", review_url)
    print_gold(result, make_console(), console)
    say(f"wrote {out}")
    if report:
        said_report(result.report(), report)


@command()
def links(
    bundle: Path = typer.Argument(..., help="A bundle folder (its index.html is changed to allow the storage)."),
    annotators: str = typer.Option(..., help="Annotator names, comma-separated: alice,bob,carol."),
    collect: str = typer.Option(..., "--collect", help="s3://BUCKET/PREFIX, or a WebDAV folder "
                                "https://[USER:PASSWORD@]HOST/…/ (e.g. a Nextcloud file drop)."),
    endpoint: Optional[str] = typer.Option(None, "--endpoint", help="S3-compatible endpoint URL (MinIO, …); "
                                           "default: AWS."),
    expires: str = typer.Option("30d", "--expires", help="How long the links are valid: 30d, 12h, 90m."),
    url: str = typer.Option("index.html", "--url", help="Where the bundle is served, e.g. "
                            "https://team.example/bundle/ (the links start with it)."),
    origin: Optional[str] = typer.Option(None, "--origin", help="The origin the bundle is served from, e.g. "
                                         "https://team.example.org, to check the storage's CORS for it "
                                         "(default: that of an absolute --url)."),
):
    """Print each annotator's personal upload link; the page then uploads its export to that storage."""
    import time

    from mercury_static.merge.collect import (check_annotator_bundle, check_page_url, check_target,
                                              links as make_links, parse_duration, parse_target, redact)
    from mercury_static.merge.cors import page_origin
    from mercury_static.core.names import normalize_name

    names = [normalize_name(n) for n in annotators.split(",")]
    if not all(names) or len(set(names)) != len(names) or any("/" in n for n in names):
        fail(f"--annotators {annotators!r}: expected distinct non-empty names without '/', comma-separated")
    with input_errors():
        target = parse_target(collect, endpoint)
        seconds = parse_duration(expires)
        check_page_url(url)
        cors_origin = page_origin(origin, url)
        check_annotator_bundle(bundle)
        check_target(target, collect)
        made = make_links(bundle, names, target, seconds, url, time.time(), cors_origin, collect)
    for name, link in made.items():
        typer.echo(f"{name}\t{link}")
    if cors_origin is None:
        say("CORS not checked: give --origin (where the bundle is served, e.g. https://team.example.org) or an "
            "absolute --url to check that the storage allows the page's uploads")
    say(f"{bundle}/index.html now allows uploads to {redact(collect)} only; send each annotator their own link")


@command()
def progress(
    source: str = typer.Argument(..., help="s3://BUCKET/PREFIX/, a WebDAV folder URL, or a local folder of exports."),
    bundle: Path = typer.Option(..., "--bundle", help="The bundle the annotations are made on."),
    report: Optional[Path] = typer.Option(None, "--report", help="Also write merge's report of the work so far "
                                          "as JSON; a .html path writes the report page and its JSON beside it."),
    review_url: str = typer.Option("review-bundle/", "--review-url", help="The review bundle as the report "
                                   "page links its records (relative to the page, or http(s))."),
):
    """Print each annotator's counts (to do / in progress / submitted / discarded) and last upload; "to do"
    counts the annotator's queue when the bundle has queues (what their page works through), else every record."""
    from mercury_static.bundle.assign import read_queues
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.core.safeio import write_files
    from mercury_static.merge.collect import is_remote, progress as read_progress
    from mercury_static.merge.storage_errors import redact
    from mercury_static.merge.in_flight import round_report
    from mercury_static.report.files import check_report, report_files
    from mercury_static.report.html import check_review_url

    local = None if is_remote(source) else Path(os.path.abspath(source))
    protected = [bundle, *([local] if local else [])]
    with input_errors():
        if report is not None:
            check_review_url(review_url)
            check_report(report, protected)
        manifest = load_bundle(bundle).manifest
        queues = read_queues(bundle, manifest)
        rows = read_progress(source if is_remote(source) else os.path.abspath(source), manifest["bundle_id"])
    total = manifest["counts"]["records"]
    typer.echo(f"annotator  browsers  to do  in progress  submitted  discarded  last upload  ({total} records"
               + (", to do in each one's queue)" if queues is not None else ")"))
    for p in rows:
        n = len(p.browsers)
        last = p.last_upload.strftime("%Y-%m-%d %H:%M UTC") if p.last_upload else "-"
        queue = None if queues is None else queues.get(p.annotator)
        todo = total - len(p.records) if queue is None else sum(1 for i in queue if i not in p.records)
        typer.echo(f"{p.annotator}  {n} browser{'s' if n != 1 else ''}  {todo} to do  "
                   f"{p.count('in_progress')} in progress  {p.count('submitted')} submitted  "
                   f"{p.count('discarded')} discarded  last upload {last}")
    if not rows:
        say(f"no export of this bundle in {redact(source)} yet")
    if report is not None:
        with input_errors():
            summary = round_report(source, bundle)
            with write_files(report_files(summary, report, review_url), protected):
                pass
        said_report(summary, report)


@command("eval")
def eval_command(
    inputs: List[Path] = typer.Argument(..., help="Mercury dumps (FaithBench) and/or SummHay topic files."),
    fmt: str = typer.Option("auto", "--format", help="auto|mercury|summhay|json|jsonl|csv"),
    k: int = typer.Option(5, "--k", min=1, help="Cut-off of precision@k and nDCG@k."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the scores as JSON."),
    ranker_option: List[str] = typer.Option([], "--ranker-option", help="KEY=VALUE ranker option (repeatable; "
                                            "overrides --options)."),
    options_path: Optional[Path] = typer.Option(None, "--options", help="Ranker options file (tune -o's, or a "
                                                "JSON object of options; default: a trained model's own)."),
    model: Optional[Path] = typer.Option(None, help="Local Hugging Face sentence-embedding folder."),
):
    """Score the page's related-sentence ranking against gold evidence (MRR, recall, nDCG, latency)."""
    import sys

    from mercury_static.bundle.ranker_file import read_options_file
    from mercury_static.tune.evaluate import evaluate
    from mercury_static.printing import print_eval
    from mercury_static.core.safeio import check_writable, dumps, write_file

    from mercury_static.bundle.trained_model import read_training

    options = ranker_items(ranker_option)
    with input_errors():
        if options_path is not None:
            options = {**read_options_file(options_path), **options}
        else:  # as the page of a bundle built with it: a trained model's own ranker options
            options = {**(read_training(model)[1] or {}), **options}
    if report:
        with input_errors():
            check_writable(report, list(inputs))
    with input_errors(), progress_steps() as step:
        result = evaluate(inputs, fmt, k, options, model_path=model, step=step)
    print_eval(result, make_console() if sys.stdout.isatty() else make_console(width=170))
    if report:
        with input_errors():
            write_file(report, (dumps(result.to_dict(), indent=1) + "\n").encode("utf-8"), list(inputs))
        say(f"wrote {report}")


@command()
def tune(
    inputs: List[Path] = typer.Argument(..., help="Merged files, export files of the page and/or Mercury dumps."),
    bundle: Path = typer.Option(..., "--bundle", help="The bundle the annotations were made on."),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="Write the recommended options file."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the figures and both option sets as JSON."),
    apply: bool = typer.Option(False, "--apply", help="Write the recommended options into the bundle's manifest "
                               "(no rebuild; stored work still matches)."),
    folds: int = typer.Option(10, "--folds", min=2, help="Cross-validation folds over records."),
):
    """Fit the ranker's weights to the bundle's own pairs; report the held-out gain (exit 1: something skipped)."""
    from mercury_static.bundle.ranker_file import apply_options, options_file
    from mercury_static.printing import print_tune
    from mercury_static.core.safeio import check_writable, dumps, resolved, write_file
    from mercury_static.tune.tune import load_pairs, tune as run_tune

    protected = [*inputs, bundle]
    with input_errors():
        if out is not None and report is not None and resolved(report) == resolved(out):
            raise InputError(report, None, None, "--report and -o are the same file")
        for path in (out, report):
            if path is not None:
                check_writable(path, protected)
        pairs = load_pairs(inputs, bundle)
        for problem in pairs.problems:
            say(f"skipped: {problem}")
        result = run_tune(pairs, folds)
        if report:
            write_file(report, (dumps(result.to_dict(), indent=1) + "\n").encode("utf-8"), protected)
    print_tune(result, make_console())
    gain = result.scores["mrr"]["gain"]
    if not result.recommended:
        say(f"not recommended: the held-out MRR gain {gain} includes 0 or less; the bundle keeps its options"
            + (f" and {out} is not written" if out else ""))
    else:
        say(f"recommended: held-out MRR gain {gain}", "green")
        tuned = result.provenance()
        with input_errors():
            if out:
                write_file(out, options_file(result.tuned, tuned), protected)
                say(f"wrote {out}")
            if apply:
                manifest = apply_options(bundle, result.tuned, tuned)
                say(f"applied to {bundle}/manifest.json (ranker id {manifest['ranker_id']}; bundle id "
                    f"{manifest['bundle_id']} unchanged): annotators get it on their next reload")
    if report:
        say(f"wrote {report}")
    raise typer.Exit(1 if pairs.problems else 0)


@command()
def train(
    sources: List[str] = typer.Argument(..., metavar="INPUTS...", help="Merged files, export files of the page "
                                        "and/or Mercury dumps; or s3://BUCKET/PREFIX/ or a WebDAV folder URL (what "
                                        "merge reads)."),
    bundle: Path = typer.Option(..., "--bundle", help="The bundle the annotations were made on."),
    out: Path = typer.Option(..., "-o", "--out", help="Folder the trained model is written to (give it to build "
                             "as its model)."),
    base: Optional[Path] = typer.Option(None, "--base", help="The Hugging Face folder to fine-tune (default: the "
                                        "bundle's model when it is the shipped one)."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the figures and the pairs used as JSON."),
    folds: int = typer.Option(5, "--folds", min=2, help="Cross-validation folds over sources."),
    epochs: int = typer.Option(2, "--epochs", min=1, max=20, help="Passes over the pairs."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the order, the negatives and the folds."),
):
    """Fine-tune the similarity model on the team's pairs; keep it only if held-out sources gain (exit 1:
    something skipped)."""
    from mercury_static.core.safeio import check_writable, dumps, write_file
    from mercury_static.merge.collect import is_remote, local_inputs
    from mercury_static.printing import print_train
    from mercury_static.train.finetune import TrainSettings
    from mercury_static.train.train import base_model, check_out, check_train_pairs, clear_leftovers, train as run_train
    from mercury_static.tune.tune import load_pairs

    inputs = [s if is_remote(s) else Path(os.path.abspath(s)) for s in sources]
    protected = [*(i for i in inputs if isinstance(i, Path)), bundle]
    with input_errors(), contextlib.ExitStack() as stack:
        check_out(out, protected)
        clear_leftovers(out)
        if report is not None:
            check_writable(report, protected + [out])
        source = base_model(bundle, base)
        local = local_inputs(inputs, stack)
        pairs = load_pairs(local.paths, bundle)
        pairs.problems[:0] = local.problems
        local.rename(pairs.problems)
        pairs.files = [local.names.get(str(p), str(p)) for p in local.paths]
        for problem in pairs.problems:
            say(f"skipped: {problem}")
        for skipped in pairs.skipped:
            say(f"not a pair: {skipped}")
        check_train_pairs(pairs)
        say(f"{len(pairs.data.queries)} pair(s) on {pairs.records} record(s); fine-tuning {source.name} "
            f"{folds} times for the held-out check, then once on every pair")
    tasks: dict[str, int] = {}
    stopped = signal.signal(signal.SIGTERM, _interrupted)  # a process manager's stop cleans up as Ctrl-C does
    try:
        with input_errors(), progress_steps() as step:
            hooks: dict[str, Callable[[int], None]] = {}

            def progress(stage: str, done: int, total: int) -> None:
                if stage not in hooks:
                    hooks[stage], tasks[stage] = step(stage, total), 0
                hooks[stage](done - tasks[stage])
                tasks[stage] = done

            result = run_train(pairs, source, out, TrainSettings(epochs=epochs, seed=seed), folds,
                               progress=progress)
            if report:
                write_file(report, (dumps(result.to_dict(), indent=1) + "\n").encode("utf-8"), protected)
    except KeyboardInterrupt:
        fail("interrupted: nothing written (the bundle, the model cache and -o are as they were)", 130)
    finally:
        signal.signal(signal.SIGTERM, stopped)
    print_train(result, make_console())
    gain = result.scores["mrr"]["gain"]
    if not result.recommended:
        say(f"not trained: the held-out MRR gain {gain} includes 0 or less; keep the current model ({out} is not "
            "written)")
    else:
        say(f"trained: held-out MRR gain {gain}; wrote {out} (model sha256 {(result.sha256 or '?')[:12]}, "
            f"{result.seconds / 60:.1f} min)", "green")
        say(f"use it: mercury-static build ... --model {out} (same bundle id: annotators keep their work)")
    if report:
        say(f"wrote {report}")
    raise typer.Exit(1 if pairs.problems else 0)
