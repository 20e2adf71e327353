"""The `mercury-static` command line: a thin layer over the library."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Callable, List, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from mercury_static import __version__
from mercury_static.core.records import InputError
from mercury_static.core.terminal import console as make_console, line
from mercury_static.merge.output_formats import DATASET_FORMATS, FORMATS
from mercury_static.read.input_formats import FORMATS as INPUT_FORMATS

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Semantic-assisted labeling of source/summary inconsistencies as a static web bundle.")
console = make_console(stderr=True)

if TYPE_CHECKING:
    from mercury_static.report.model import Report


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


def said_report(summary: Report, report: Path) -> None:
    """Where the report is, and its headline figures in one line."""
    from mercury_static.report.files import report_paths
    from mercury_static.report.sections import headline

    json_path, html_path = report_paths(report)
    say(f"report: {html_path} (and {json_path})" if html_path else f"report: {json_path}")
    say(headline(summary))


def _inputs(sources: List[str]) -> list:
    """Inputs that may be storage addresses: the paths among them made absolute (as `command` does), the
    addresses kept."""
    from mercury_static.merge.collect import is_remote

    return [s if is_remote(s) else Path(os.path.abspath(s)) for s in sources]


# The options several commands share, each defined once: a function of the help where that names the
# command's own input or output, else the whole option.
def bundle_option(help: str):
    return typer.Option("--bundle", help=help)


def out_option(help: str):
    return typer.Option("-o", "--out", help=help)


def report_option(help: str):
    return typer.Option("--report", help=help)


def format_option(names: tuple[str, ...]):
    return typer.Option("--format", help="|".join(names))


def ranker_option(help: str):
    return typer.Option("--ranker-option", help=f"KEY=VALUE ranker option (repeatable; {help}).")


def folds_option(help: str):
    return typer.Option("--folds", min=2, help=help)


Bundle = Annotated[Path, bundle_option("The bundle the annotations were made on.")]
Annotators = Annotated[str, typer.Option(help="Annotator names, comma-separated: alice,bob,carol.")]
Strict = Annotated[bool, typer.Option("--strict", help="Stop at the first problem (exit 2).")]
ReviewUrl = Annotated[str, typer.Option("--review-url", help="The review bundle as the report page links its "
                                        "records (relative to the page, or http(s)).")]


@command()
def build(
    inputs: Annotated[List[Path], typer.Argument(help="CSV, JSON, JSONL, Mercury dump, SummHay topic or Parquet "
                                                 "files, or folders of Parquet files or of a saved 🤗 dataset.")],
    out: Annotated[Path, out_option("Output folder of the bundle.")],
    fmt: Annotated[str, format_option(INPUT_FORMATS)] = "auto",
    source_field: Annotated[str, typer.Option(help="Field/column holding the source text.")] = "source",
    summary_field: Annotated[str, typer.Option(help="Field/column holding the summary text.")] = "summary",
    id_field: Annotated[Optional[str], typer.Option(help="Field/column holding the record id.")] = None,
    model: Annotated[Optional[Path], typer.Option(help="Local Hugging Face sentence-embedding folder (default: the "
                                                  "shipped all-MiniLM-L6-v2; another model needs the export "
                                                  "extra).")] = None,
    title: Annotated[Optional[str], typer.Option(help="Title shown in the page.")] = None,
    labels: Annotated[Optional[Path], typer.Option(help="Label tree, YAML or JSON.")] = None,
    guidelines: Annotated[Optional[Path], typer.Option(help="Annotator guidelines, Markdown or text.")] = None,
    settings: Annotated[Optional[Path], typer.Option(help="Dataset settings (YAML/JSON, or Argilla's "
                                                     "settings.json): fields, questions, metadata, suggestions, "
                                                     "distribution.")] = None,
    suggestions: Annotated[Optional[Path], typer.Option(help="Suggestions, JSON Lines of {record_id, question, "
                                                        "value, score, agent}.")] = None,
    ranker: Annotated[Optional[List[str]], ranker_option("stored in the manifest")] = None,
    engine: Annotated[str, typer.Option(help="Where sentences are embedded: local (this machine's threads) or ray "
                                        "(Ray Data; needs the ray extra). The bundle is the same.")] = "local",
    workers: Annotated[Optional[int], typer.Option(min=1, help="Embedding workers (threads, or Ray actors; default: "
                                                   "CPUs, at most 4 locally).")] = None,
    ray_address: Annotated[Optional[str], typer.Option(help="A running Ray cluster (auto, or ray://HOST:10001); "
                                                       "default: start a local Ray for this build.")] = None,
):
    """Build a static annotation bundle from dataset files."""
    from mercury_static.commands.build import build as run
    from mercury_static.pipeline.steps import BuildOptions

    options = BuildOptions(fmt=fmt, source_field=source_field, summary_field=summary_field, id_field=id_field,
                           model=model, title=title, labels=labels, guidelines=guidelines, settings=settings,
                           suggestions=suggestions, ranker=ranker_items(ranker or []), engine=engine,
                           workers=workers, ray_address=ray_address)
    if engine not in ("local", "ray"):
        fail(f"--engine {engine}: expected local or ray")
    if ray_address and engine != "ray":
        fail("--ray-address: only with --engine ray")
    with input_errors(), progress_steps() as step:
        built = run(inputs, out, options, step)
    console.print(Text.assemble(("built", "green"), line(
        f" {out}: {built.records} records, {built.texts} distinct texts, {built.sentences} sentences, "
        f"bundle id {built.bundle_id}")), soft_wrap=True)
    say(f"preview: mercury-static serve {out}")


@command()
def assign(
    bundle: Annotated[Path, typer.Argument(help="A bundle folder.")],
    annotators: Annotators,
    overlap: Annotated[int, typer.Option(help="How many annotators see each record (Argilla's "
                                         "min_submitted).")] = 1,
    checks: Annotated[Optional[Path], typer.Option("--checks", help="Known answers (a gold file, a merged file or a "
                                                   "Mercury dump): their records, already in the bundle, are mixed "
                                                   "into every queue as check records; the answers stay in this "
                                                   "file.")] = None,
    check_rate: Annotated[float, typer.Option("--check-rate", help="The share of check records in each "
                                              "queue.")] = 0.1,
    seed: Annotated[Optional[str], typer.Option("--seed", help="Seed of the queues' order and of the check records' "
                                                "places (default: the bundle id).")] = None,
):
    """Give each annotator a deterministic queue covering every record `overlap` times (stored in the bundle)."""
    from mercury_static.commands.assign import assign as run

    with input_errors():
        assigned = run(bundle, annotators, overlap, checks, check_rate, seed)
    say(f"assigned {assigned.records} records to {assigned.annotators} annotators, overlap {assigned.overlap}: "
        f"{assigned.queues}")
    if checks:
        say(f"check records mixed into every queue at rate {check_rate}; keep {checks} for merge --checks "
            "(not in the bundle)")


@command()
def serve(
    directory: Annotated[Path, typer.Argument(help="A bundle folder.")],
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).")] = 8000,
):
    """Serve a bundle locally with the right MIME types."""
    from mercury_static.commands.serve import serve as run

    if not 0 <= port <= 65535:
        fail(f"--port {port}: not a port number (0 to 65535; 0 picks a free one)")
    with input_errors():
        server = run(directory, host, port)
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
    sources: Annotated[List[str], typer.Argument(metavar="EXPORTS...", help="Export files of the page and/or "
                                                 "Mercury dumps; or s3://BUCKET/PREFIX/ or a WebDAV folder URL "
                                                 "(every .json there: needs the collect extra).")],
    bundle: Bundle,
    out: Annotated[Path, out_option("Merged dataset file (a folder for --format argilla, parquet or "
                                    "label-studio).")],
    fmt: Annotated[str, format_option(FORMATS)] = "mercury-static",
    report: Annotated[Optional[Path], report_option("Write the agreement report as JSON; a .html path writes the "
                                                    "report page and its JSON beside it (report extra).")] = None,
    review_url: ReviewUrl = "review-bundle/",
    strict: Strict = False,
    checks: Annotated[Optional[Path], typer.Option("--checks", help="The known answers given to assign --checks: "
                                                   "each annotator scored on the check records, which stay out of "
                                                   "the agreement and of the output.")] = None,
    check_threshold: Annotated[float, typer.Option("--check-threshold", help="Flag an annotator whose verdict "
                                                   "accuracy or span F1 on the check records is below "
                                                   "this.")] = 0.7,
    keep_checks: Annotated[bool, typer.Option("--keep-checks", help="Keep the check records in the merged "
                                              "dataset.")] = False,
):
    """Merge annotators' exports into one validated dataset and report agreement (exit 1: something skipped)."""
    from mercury_static.commands.merge import merge as run
    from mercury_static.printing import print_checks, print_merge

    if fmt not in FORMATS:
        fail(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    with input_errors():
        result = run(_inputs(sources), bundle, out, fmt, report, review_url, strict, checks, check_threshold,
                     keep_checks)
    print_merge(result, make_console(), console)
    print_checks(result.agreement.get("checks"), make_console())
    say(f"wrote {out}")
    if report:
        said_report(result.report_model(), report)
    raise typer.Exit(result.exit_code)


@command()
def review(
    sources: Annotated[List[str], typer.Argument(metavar="INPUTS...", help="Export files of the page, Mercury dumps "
                                                 "and/or merged files; or s3://BUCKET/PREFIX/ or a WebDAV folder "
                                                 "URL (what merge reads).")],
    bundle: Bundle,
    out: Annotated[Path, out_option("The review bundle folder (new, empty, or one build or review wrote).")],
    strict: Strict = False,
):
    """Make a review bundle: the bundle plus every annotator's work, most contested records first (exit 1:
    something skipped)."""
    from mercury_static.commands.review import review as run

    with input_errors():
        result = run(_inputs(sources), bundle, out, strict)
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
    reviews: Annotated[List[Path], typer.Argument(metavar="REVIEW_EXPORTS...", help="Review exports of the page "
                                                  "(one or more reviewers).")],
    bundle: Annotated[Path, bundle_option("The review bundle the reviewers worked on.")],
    out: Annotated[Path, out_option("Gold dataset file (a folder for --format argilla, parquet or "
                                    "label-studio).")],
    fmt: Annotated[str, format_option(DATASET_FORMATS)] = "mercury-static",
    report: Annotated[Optional[Path], report_option("Write the gold report (what is not adjudicated, reviewer "
                                                    "agreement, quality against the gold) as JSON; a .html path "
                                                    "writes the report page and its JSON beside it (report "
                                                    "extra).")] = None,
    review_url: ReviewUrl = "review-bundle/",
):
    """Write the gold dataset: the adjudicated records with provenance; score annotators and agents against it."""
    from mercury_static.commands.gold import gold as run
    from mercury_static.printing import print_gold
    from mercury_static.review.gold import GoldProblems

    if fmt not in DATASET_FORMATS:
        fail(f"--format: {fmt!r} is not one of {', '.join(DATASET_FORMATS)}")
    with input_errors():
        try:
            result = run(reviews, bundle, out, fmt, report, review_url)
        except GoldProblems as e:  # every bad review input, one line each
            for problem in e.problems:
                console.print(Text.assemble(("error:", "bold red"), " ", line(str(problem))), soft_wrap=True)
            raise typer.Exit(2) from None
    print_gold(result, make_console(), console)
    say(f"wrote {out}")
    if report:
        said_report(result.report_model(), report)


@command()
def links(
    bundle: Annotated[Path, typer.Argument(help="A bundle folder (its index.html is changed to allow the "
                                           "storage).")],
    annotators: Annotators,
    collect: Annotated[str, typer.Option("--collect", help="s3://BUCKET/PREFIX, or a WebDAV folder "
                                         "https://[USER:PASSWORD@]HOST/…/ (e.g. a Nextcloud file drop).")],
    endpoint: Annotated[Optional[str], typer.Option("--endpoint", help="S3-compatible endpoint URL (MinIO, …); "
                                                    "default: AWS.")] = None,
    expires: Annotated[str, typer.Option("--expires", help="How long the links are valid: 30d, 12h, 90m.")] = "30d",
    url: Annotated[str, typer.Option("--url", help="Where the bundle is served, e.g. https://team.example/bundle/ "
                                     "(the links start with it).")] = "index.html",
    origin: Annotated[Optional[str], typer.Option("--origin", help="The origin the bundle is served from, e.g. "
                                                  "https://team.example.org, to check the storage's CORS for it "
                                                  "(default: that of an absolute --url).")] = None,
):
    """Print each annotator's personal upload link; the page then uploads its export to that storage."""
    from mercury_static.commands.links import links as run

    with input_errors():
        made = run(bundle, annotators, collect, endpoint, expires, url, origin)
    for name, link in made.links.items():
        typer.echo(f"{name}\t{link}")
    if not made.cors_checked:
        say("CORS not checked: give --origin (where the bundle is served, e.g. https://team.example.org) or an "
            "absolute --url to check that the storage allows the page's uploads")
    say(f"{bundle}/index.html now allows uploads to {made.storage} only; send each annotator their own link")


@command()
def progress(
    source: Annotated[str, typer.Argument(help="s3://BUCKET/PREFIX/, a WebDAV folder URL, or a local folder of "
                                          "exports.")],
    bundle: Annotated[Path, bundle_option("The bundle the annotations are made on.")],
    report: Annotated[Optional[Path], report_option("Also write merge's report of the work so far as JSON; a .html "
                                                    "path writes the report page and its JSON beside it.")] = None,
    review_url: ReviewUrl = "review-bundle/",
):
    """Print each annotator's counts (to do / in progress / submitted / discarded) and last upload; "to do"
    counts the annotator's queue when the bundle has queues (what their page works through), else every record."""
    from mercury_static.commands.progress import RoundProgress, progress as run
    from mercury_static.merge.storage_errors import redact
    from mercury_static.printing import print_progress
    from mercury_static.report.model import read_report

    def counted(found: RoundProgress) -> None:
        print_progress(found, make_console())
        if not found.annotators:
            say(f"no export of this bundle in {redact(source)} yet")

    with input_errors():
        summary = run(source, bundle, report, review_url, counted)
    if report is not None and summary is not None:
        said_report(read_report(summary), report)


@command("eval")
def eval_command(
    inputs: Annotated[List[Path], typer.Argument(help="Mercury dumps (FaithBench) and/or SummHay topic files.")],
    fmt: Annotated[str, format_option(INPUT_FORMATS)] = "auto",
    k: Annotated[int, typer.Option("--k", min=1, help="Cut-off of precision@k and nDCG@k.")] = 5,
    report: Annotated[Optional[Path], report_option("Write the scores as JSON.")] = None,
    ranker: Annotated[Optional[List[str]], ranker_option("overrides --options")] = None,
    options_path: Annotated[Optional[Path], typer.Option("--options", help="Ranker options file (tune -o's, or a "
                                                         "JSON object of options; default: a trained model's "
                                                         "own).")] = None,
    model: Annotated[Optional[Path], typer.Option(help="Local Hugging Face sentence-embedding folder.")] = None,
):
    """Score the page's related-sentence ranking against gold evidence (MRR, recall, nDCG, latency)."""
    import sys

    from mercury_static.commands.eval import evaluate
    from mercury_static.printing import print_eval

    options = ranker_items(ranker or [])
    with input_errors(), progress_steps() as step:
        result = evaluate(inputs, fmt, k, options, options_path, model, report, step)
    print_eval(result, make_console() if sys.stdout.isatty() else make_console(width=170))
    if report:
        say(f"wrote {report}")


@command()
def tune(
    inputs: Annotated[List[Path], typer.Argument(help="Merged files, export files of the page and/or Mercury "
                                                 "dumps.")],
    bundle: Bundle,
    out: Annotated[Optional[Path], out_option("Write the recommended options file.")] = None,
    report: Annotated[Optional[Path], report_option("Write the figures and both option sets as JSON.")] = None,
    apply: Annotated[bool, typer.Option("--apply", help="Write the recommended options into the bundle's manifest "
                                        "(no rebuild; stored work still matches).")] = False,
    folds: Annotated[int, folds_option("Cross-validation folds over records.")] = 10,
):
    """Fit the ranker's weights to the bundle's own pairs; report the held-out gain (exit 1: something skipped)."""
    from mercury_static.commands.tune import tune as run
    from mercury_static.printing import print_tune

    def read(pairs) -> None:
        for problem in pairs.problems:
            say(f"skipped: {problem}")

    with input_errors():
        tuned = run(inputs, bundle, out, report, apply, folds, read)
    result = tuned.result
    print_tune(result, make_console())
    gain = result.scores["mrr"]["gain"]
    if not result.recommended:
        say(f"not recommended: the held-out MRR gain {gain} includes 0 or less; the bundle keeps its options"
            + (f" and {out} is not written" if out else ""))
    else:
        say(f"recommended: held-out MRR gain {gain}", "green")
        if out:
            say(f"wrote {out}")
        if apply:
            say(f"applied to {bundle}/manifest.json (ranker id {tuned.ranker_id}; bundle id {tuned.bundle_id} "
                "unchanged): annotators get it on their next reload")
    if report:
        say(f"wrote {report}")
    raise typer.Exit(tuned.exit_code)


@command()
def train(
    sources: Annotated[List[str], typer.Argument(metavar="INPUTS...", help="Merged files, export files of the page "
                                                 "and/or Mercury dumps; or s3://BUCKET/PREFIX/ or a WebDAV folder "
                                                 "URL (what merge reads).")],
    bundle: Bundle,
    out: Annotated[Path, out_option("Folder the trained model is written to (give it to build as its model).")],
    base: Annotated[Optional[Path], typer.Option("--base", help="The Hugging Face folder to fine-tune (default: the "
                                                 "bundle's model when it is the shipped one).")] = None,
    report: Annotated[Optional[Path], report_option("Write the figures and the pairs used as JSON.")] = None,
    folds: Annotated[int, folds_option("Cross-validation folds over sources.")] = 5,
    epochs: Annotated[int, typer.Option("--epochs", min=1, max=20, help="Passes over the pairs.")] = 2,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the order, the negatives and the folds.")] = 0,
):
    """Fine-tune the similarity model on the team's pairs; keep it only if held-out sources gain (exit 1:
    something skipped)."""
    from mercury_static.commands.train import train as run, train_inputs
    from mercury_static.printing import print_train
    from mercury_static.train.finetune import TrainSettings

    def read(pairs) -> None:
        for problem in pairs.problems:
            say(f"skipped: {problem}")
        for skipped in pairs.skipped:
            say(f"not a pair: {skipped}")

    with input_errors():
        inputs = train_inputs(_inputs(sources), bundle, out, base, report, read)
        pairs = inputs.pairs
        say(f"{len(pairs.data.queries)} pair(s) on {pairs.records} record(s); fine-tuning {inputs.base.name} "
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

            result = run(inputs, out, report, TrainSettings(epochs=epochs, seed=seed), folds, progress)
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
