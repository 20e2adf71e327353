"""The `mercury-static` command line: a thin layer over the library."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from . import __version__
from .records import InputError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Semantic-assisted labeling of source/summary inconsistencies as a static web bundle.")
console = Console(stderr=True)


def fail(message: str, code: int = 2):
    """Print one clear error line and exit (no traceback)."""
    console.print(f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True)
    raise typer.Exit(code)


@contextlib.contextmanager
def input_errors():
    """Turn bad-input exceptions into one line and exit code 2."""
    from .export import ModelError

    try:
        yield
    except (InputError, ModelError) as e:
        fail(str(e).replace("[", r"\["))
    except OSError as e:
        fail((f"{e.filename}: {e.strerror}" if e.filename else f"{e.strerror or e}").replace("[", r"\["))


@contextlib.contextmanager
def progress_steps():
    """A rich progress bar per long step; yields the `step(description, total)` hook of build()."""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        def step(description: str, total: int):
            task = progress.add_task(description, total=total)
            return lambda n: progress.advance(task, n)
        yield step


@app.command()
def build(
    inputs: List[Path] = typer.Argument(..., help="CSV, JSON, JSONL, Mercury dump or SummHay topic files."),
    out: Path = typer.Option(..., "-o", "--out", help="Output folder of the bundle."),
    fmt: str = typer.Option("auto", "--format", help="auto|csv|json|jsonl|mercury|summhay"),
    source_field: str = typer.Option("source", help="Field/column holding the source text."),
    summary_field: str = typer.Option("summary", help="Field/column holding the summary text."),
    id_field: Optional[str] = typer.Option(None, help="Field/column holding the record id."),
    model: Optional[Path] = typer.Option(None, help="Local Hugging Face sentence-embedding folder (default: the "
                                         "shipped all-MiniLM-L6-v2; another model needs the export extra)."),
    title: Optional[str] = typer.Option(None, help="Title shown in the page."),
    labels: Optional[Path] = typer.Option(None, help="Label tree, YAML or JSON."),
    guidelines: Optional[Path] = typer.Option(None, help="Annotator guidelines, Markdown or text."),
    ranker_option: List[str] = typer.Option([], "--ranker-option", help="KEY=VALUE ranker option (repeatable; "
                                            "stored in the manifest)."),
):
    """Build a static annotation bundle from dataset files."""
    from .build import BuildOptions, build as run_build

    options = BuildOptions(fmt=fmt, source_field=source_field, summary_field=summary_field, id_field=id_field,
                           model=model, title=title, labels=labels, guidelines=guidelines,
                           ranker=parse_ranker_options(ranker_option))
    with input_errors(), progress_steps() as step:
        manifest = run_build(inputs, out, options, step=step)
    c = manifest["counts"]
    console.print(f"[green]built[/] {out}: {c['records']} records, {c['texts']} distinct texts, "
                  f"{c['sentences']} sentences, bundle id {manifest['bundle_id']}", highlight=False)
    console.print(f"preview: mercury-static serve {out}", highlight=False)


@app.command()
def serve(
    directory: Path = typer.Argument(..., help="A bundle folder."),
    host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
    port: int = typer.Option(8000, help="Port (0 picks a free one)."),
):
    """Serve a bundle locally with the right MIME types."""
    from .serve import make_server

    with input_errors():
        try:
            server = make_server(directory, host, port)
        except OSError as e:
            fail(f"{host}:{port}: {e.strerror or e}")
    console.print(f"serving {directory} at http://{host}:{server.server_port}/  (Ctrl-C to stop)",
                  highlight=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@app.command()
def version():
    """Print the tool version."""
    typer.echo(__version__)


@app.command()
def merge(
    exports: List[Path] = typer.Argument(..., help="Export files of the page and/or Mercury dumps."),
    bundle: Path = typer.Option(..., "--bundle", help="The bundle the annotations were made on."),
    out: Path = typer.Option(..., "-o", "--out", help="Merged dataset file."),
    fmt: str = typer.Option("mercury-static", "--format", help="mercury-static|mercury|jsonl"),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the agreement report as JSON."),
    strict: bool = typer.Option(False, "--strict", help="Stop at the first problem (exit 2)."),
):
    """Merge annotators' exports into one validated dataset and report agreement (exit 1: something skipped)."""
    import json

    from rich.console import Console as RichConsole

    from .bundle import load_bundle
    from .merge import FORMATS, merge_files, print_summary

    if fmt not in FORMATS:
        fail(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    try:
        loaded = load_bundle(bundle)
    except (OSError, ValueError, KeyError) as e:
        fail(f"{bundle}: cannot read the bundle: {e}".replace("[", r"\["))
    with input_errors():
        result = merge_files(exports, loaded, fmt, strict)
        out.write_bytes(result.output)
        if report:
            report.write_text(json.dumps(result.report(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print_summary(result, RichConsole(), console)
    console.print(f"wrote {out}" + (f" and {report}" if report else ""), highlight=False)
    raise typer.Exit(result.exit_code)


def parse_ranker_options(items: List[str]) -> dict:
    """``key=value`` pairs (values parsed as JSON when possible) -> ranker options."""
    import json

    from .rank import DEFAULT_OPTIONS

    out: dict = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or key not in DEFAULT_OPTIONS:
            fail(f"--ranker-option {item!r}: expected KEY=VALUE with KEY one of {', '.join(DEFAULT_OPTIONS)}")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


@app.command("eval")
def eval_command(
    inputs: List[Path] = typer.Argument(..., help="Mercury dumps (FaithBench) and/or SummHay topic files."),
    fmt: str = typer.Option("auto", "--format", help="auto|mercury|summhay|json|jsonl|csv"),
    k: int = typer.Option(5, "--k", min=1, help="Cut-off of precision@k and nDCG@k."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the scores as JSON."),
    ranker_option: List[str] = typer.Option([], "--ranker-option", help="KEY=VALUE ranker option (repeatable)."),
    model: Optional[Path] = typer.Option(None, help="Local Hugging Face sentence-embedding folder."),
):
    """Score the page's related-sentence ranking against gold evidence (MRR, recall, nDCG, latency)."""
    import json

    from rich.console import Console as RichConsole

    from .evaluate import evaluate, print_report

    options = parse_ranker_options(ranker_option)
    with input_errors(), progress_steps() as step:
        result = evaluate(inputs, fmt, k, options, model_path=model, step=step)
    import sys

    print_report(result, RichConsole() if sys.stdout.isatty() else RichConsole(width=170))
    if report:
        report.write_text(json.dumps(result.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        console.print(f"wrote {report}", highlight=False)
