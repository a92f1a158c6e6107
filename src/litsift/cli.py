"""Command line: ``litsift`` opens the TUI; subcommands ingest, index, search, demo, models, config.

Heavy imports (numpy, onnxruntime, tantivy, textual) happen inside the commands so ``--help``
stays instant. Every :class:`~litsift.errors.LitsiftError` is printed as its message and hint,
with exit code 1; nothing is swallowed.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from litsift.errors import LitsiftError

if TYPE_CHECKING:
    from litsift.service import LitsiftService, Progress
    from litsift.types import Kind

F = TypeVar("F", bound=Callable[..., Any])

KIND_CHOICE = click.Choice(["papers", "datasets"])


def _kind(name: str) -> Kind:
    from litsift.types import Kind

    return Kind.PAPER if name == "papers" else Kind.DATASET


def reports_errors(fn: F) -> F:
    """Turn LitsiftError into a two-line message on stderr and exit code 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except LitsiftError as e:
            click.secho(f"error: {e.message}", fg="red", err=True)
            if e.hint:
                click.echo(f"  hint: {e.hint}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


def _service(home: str | None) -> LitsiftService:
    from litsift.paths import get_paths
    from litsift.service import LitsiftService

    return LitsiftService(get_paths(home))


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Progress]:
    """A rich progress bar fed by the service's ``progress(stage, done, total)`` callback."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description:>10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not enabled,
        transient=False,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total or None)
            bar.update(tasks[stage], completed=done, total=total or None)

        yield update


home_option = click.option(
    "--home",
    envvar="LITSIFT_HOME",
    type=click.Path(file_okay=False),
    default=None,
    help="Directory for the store, indexes and config (default: XDG dirs; env LITSIFT_HOME).",
)


@click.group(invoke_without_command=True)
@home_option
@click.version_option(package_name="litsift")
@click.pass_context
@reports_errors
def main(ctx: click.Context, home: str | None) -> None:
    """litsift: literature search and dataset recommendation in the terminal.

    Without a subcommand, opens the TUI on the current store.
    """
    ctx.ensure_object(dict)
    ctx.obj["home"] = home
    if ctx.invoked_subcommand is None:
        _run_tui(home)


def _run_tui(home: str | None) -> None:
    from litsift.tui.app import create_app

    svc = _service(home)
    try:
        create_app(svc).run()
    finally:
        svc.close()


def _ingest_and_report(svc: LitsiftService, kind: Kind, path: Path, quiet: bool) -> bool:
    with progress_bar(not quiet) as bar:
        report = svc.ingest(kind, path, progress=bar)
    for bad in report.bad[:20]:
        click.echo(f"{path}:{bad.line_no}: {bad.reason}", err=True)
    if len(report.bad) > 20:
        click.echo(f"... and {len(report.bad) - 20} more bad lines", err=True)
    click.echo(report.summary())
    return report.ok


@main.command()
@click.argument("kind", type=KIND_CHOICE)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.pass_context
@reports_errors
def ingest(ctx: click.Context, kind: str, file: Path, quiet: bool) -> None:
    """Upsert papers or datasets from a JSONL or JSONL.gz FILE (see README for the schema).

    Bad lines are reported with their line numbers and skipped; good lines are kept; the exit
    code is 1 if any line was bad.
    """
    with _service(ctx.obj["home"]) as svc:
        ok = _ingest_and_report(svc, _kind(kind), file, quiet)
    if not ok:
        sys.exit(1)


def _index(svc: LitsiftService, kinds: list[Kind], rebuild: bool, quiet: bool) -> None:
    for k in kinds:
        if svc.store.count(k) == 0:
            click.echo(f"{k.table}: nothing to index")
            continue
        with progress_bar(not quiet) as bar:
            report = svc.build_index(k, rebuild=rebuild, progress=bar)
        click.echo(f"{k.table}: {report.summary()}")


@main.command()
@click.argument("kind", type=click.Choice(["papers", "datasets", "all"]), default="all")
@click.option("--rebuild", is_flag=True, help="Re-embed everything instead of only new rows.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.pass_context
@reports_errors
def index(ctx: click.Context, kind: str, rebuild: bool, quiet: bool) -> None:
    """Build or update the BM25 (tantivy) and dense (hnswlib) indexes from the store."""
    from litsift.types import Kind

    kinds = list(Kind) if kind == "all" else [_kind(kind)]
    with _service(ctx.obj["home"]) as svc:
        _index(svc, kinds, rebuild, quiet)


@main.command()
@click.argument("query")
@click.option("--years", default="", help="Year range FROM:TO, e.g. 2015:2019, :2019, 2018.")
@click.option("--datasets", "datasets_", is_flag=True, help="Search datasets instead of papers.")
@click.option("-k", default=None, type=click.IntRange(1, 1000), help="Hits to return.")
@click.option("--k0", default=None, type=click.IntRange(1, 10000), help="Candidates per retriever.")
@click.option(
    "--fusion", type=click.Choice(["rrf", "interpolation", "bm25", "dense"]), default=None
)
@click.option("--json", "as_json", is_flag=True, help="Print stable JSON for scripts.")
@click.pass_context
@reports_errors
def search(
    ctx: click.Context,
    query: str,
    years: str,
    datasets_: bool,
    k: int | None,
    k0: int | None,
    fusion: str | None,
    as_json: bool,
) -> None:
    """Search papers (or --datasets) for QUERY and print the ranked hits."""
    from litsift.output import hits_to_json, hits_to_table
    from litsift.types import Kind, Query, YearRange

    with _service(ctx.obj["home"]) as svc:
        s = svc.config.search
        q = Query(
            text=query,
            kind=Kind.DATASET if datasets_ else Kind.PAPER,
            years=YearRange.parse(years),
            k=k or s.k,
            k0=max(k0 or s.k0, k or s.k),
            fusion=fusion,
        )
        result = svc.search(q)
    if as_json:
        click.echo(json.dumps(hits_to_json(result), ensure_ascii=False, indent=2))
    else:
        from rich.console import Console

        Console().print(hits_to_table(result))


def _find_sample_data() -> Path | None:
    """``../shared/data`` beside the current directory or beside the source checkout."""
    here = Path(__file__).resolve()
    for base in (Path.cwd(), *here.parents):
        cand = base / ".." / "shared" / "data"
        if (cand / "papers" / "ml-nlp-papers.jsonl.gz").exists():
            return cand.resolve()
    return None


@main.command()
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The sample data directory (default: ../shared/data).",
)
@click.option("--no-tui", is_flag=True, help="Ingest and index only; don't open the app.")
@click.pass_context
@reports_errors
def demo(ctx: click.Context, data: Path | None, no_tui: bool) -> None:
    """Ingest the sample corpus (19.6K papers, 3.3K datasets), index it, open the TUI."""
    from litsift.types import Kind

    data = data or _find_sample_data()
    if data is None:
        raise LitsiftError(
            "sample data not found (looked for ../shared/data)",
            "pass --data DIR, or ingest your own corpus: litsift ingest papers FILE.jsonl",
        )
    with _service(ctx.obj["home"]) as svc:
        for kind, rel in (
            (Kind.PAPER, "papers/ml-nlp-papers.jsonl.gz"),
            (Kind.DATASET, "datasets/pwc-datasets.jsonl.gz"),
        ):
            click.echo(f"ingesting {rel}")
            _ingest_and_report(svc, kind, data / rel, quiet=False)
        _index(svc, list(Kind), rebuild=False, quiet=False)
    if not no_tui:
        _run_tui(ctx.obj["home"])


@main.group()
def models() -> None:
    """Build and inspect the encoder's ONNX file."""


@models.command("build")
@click.option("--model", default=None, help="Model id (default: the configured encoder).")
@click.option("--force", is_flag=True, help="Export again even if cached.")
@click.pass_context
@reports_errors
def models_build(ctx: click.Context, model: str | None, force: bool) -> None:
    """Export the encoder to ONNX and quantise it to int8 (needs the `export` extra)."""
    from litsift.models_onnx import build_onnx, get_spec

    svc = _service(ctx.obj["home"])
    spec = get_spec(model or svc.config.search.model)
    path = build_onnx(spec, svc.paths.models_dir, force=force, progress=click.echo)
    click.echo(str(path))


@models.command("info")
@click.option("--model", default=None)
@click.pass_context
@reports_errors
def models_info(ctx: click.Context, model: str | None) -> None:
    """Print the encoder's id, dimension, ONNX path and sha256 as JSON."""
    from litsift.models_onnx.cli_support import describe

    svc = _service(ctx.obj["home"])
    click.echo(
        json.dumps(describe(model or svc.config.search.model, svc.paths.models_dir), indent=2)
    )


@main.command()
@click.pass_context
@reports_errors
def config(ctx: click.Context) -> None:
    """Show paths, row counts and index state as JSON (and validate config.toml)."""
    with _service(ctx.obj["home"]) as svc:
        click.echo(
            json.dumps({"config_file": str(svc.paths.config_file), **svc.describe()}, indent=2)
        )


@main.command()
@click.argument("question")
@click.option("--years", default="", help="Year range FROM:TO for the papers to cite.")
@click.option(
    "-k", default=None, type=click.IntRange(1, 100), help="Papers retrieved to cite from."
)
@click.option("--rerank", "do_rerank", is_flag=True, help="LLM-rerank the hits before answering.")
@click.option("--json", "as_json", is_flag=True, help="Print the verified answer as JSON.")
@click.pass_context
@reports_errors
def answer(
    ctx: click.Context, question: str, years: str, k: int | None, do_rerank: bool, as_json: bool
) -> None:
    """Answer QUESTION from the top papers with citations checked against what was sent."""
    from litsift.llm.answer import answer_to_json
    from litsift.types import Kind, Query, YearRange

    with _service(ctx.obj["home"]) as svc:
        s = svc.config
        n = k or s.llm.answer_max_records
        result = svc.search(
            Query(question, Kind.PAPER, YearRange.parse(years), k=n, k0=max(s.search.k0, n))
        )
        hits = list(result.hits)
        if do_rerank:
            rr = svc.rerank(question, hits)
            if rr.report.error:
                click.echo(f"rerank failed, original order kept: {rr.report.error}", err=True)
            hits = rr.hits
        stream = None if as_json else (lambda d: click.echo(d, nl=False))
        ans = svc.answer(question, hits, on_delta=stream)
    if as_json:
        click.echo(json.dumps(answer_to_json(ans), ensure_ascii=False, indent=2))
        return
    click.echo("\n\n" + ans.text)
    click.echo("\nReferences")
    for ref in ans.references:
        rec = ref.record
        marks = "".join(f"[{n}]" for n in ref.passages)
        click.echo(f"  {marks} {rec.display_title} ({rec.year or 'n.d.'}) — {rec.id}")
    if ans.fabricated:
        click.echo(f"stripped citations to passages never sent: {list(ans.fabricated)}", err=True)
    for note in ans.notes:
        click.echo(f"note: {note}", err=True)


@main.command("export")
@click.argument("what", default="kept")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["bibtex", "ris", "csl-json", "markdown"]),
    default="bibtex",
    show_default=True,
)
@click.option("--datasets", "datasets_", is_flag=True, help="Export datasets, not papers.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.pass_context
@reports_errors
def export_cmd(
    ctx: click.Context, what: str, fmt: str, datasets_: bool, output: Path | None
) -> None:
    """Export WHAT (kept | maybe | discarded | a collection name) with stable [@citekey]s."""
    from litsift.types import Kind

    with _service(ctx.obj["home"]) as svc:
        text = svc.export(what, fmt, Kind.DATASET if datasets_ else Kind.PAPER)
    if output is None:
        click.echo(text, nl=not text.endswith("\n"))
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)


@main.command("eval")
@click.argument(
    "benchmark", type=click.Choice(["datafinder", "scifact", "doris-mae-dev", "beir", "trec"])
)
@click.option(
    "--data",
    "data_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Evaluation data dir (default: ../shared/data).",
)
@click.option("--corpus", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--queries", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--qrels", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--measures", default=None, help="ir-measures names, e.g. nDCG@10,R@100,RR@10.")
@click.option(
    "--systems",
    default=None,
    help="Comma list of bm25,dense,hybrid,bm25s,aspects (default: all but aspects).",
)
@click.option("--limit", type=click.IntRange(1), default=None, help="First N queries only.")
@click.option(
    "--query-field",
    type=click.Choice(["query", "keyphrase_query", "both"]),
    default="both",
    help="DataFinder: which query text to run.",
)
@click.option(
    "--eval-home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Store for the benchmark's corpus (default: a per-corpus cache dir).",
)
@click.option(
    "--runs-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where TREC run files go (default: runs/BENCHMARK).",
)
@click.option(
    "--half",
    type=click.Choice(["tune", "heldout"]),
    default=None,
    help="Only one fixed half of the queries (tune: defaults were tuned on it).",
)
@click.option("--json", "as_json", is_flag=True, help="Print every system's measures as JSON.")
@reports_errors
def eval_cmd(
    benchmark: str,
    data_dir: Path | None,
    corpus: Path | None,
    queries: Path | None,
    qrels: Path | None,
    measures: str | None,
    systems: str | None,
    limit: int | None,
    query_field: str,
    eval_home: Path | None,
    runs_dir: Path | None,
    half: str | None,
    as_json: bool,
) -> None:
    """Evaluate ranking on BENCHMARK with its paper's protocol (never touches your store)."""
    from litsift.eval.cli_support import format_table, report_to_json, run_benchmark

    with progress_bar(not as_json) as bar:
        report = run_benchmark(
            benchmark,
            data_dir=data_dir,
            corpus=corpus,
            queries=queries,
            qrels=qrels,
            measures=measures,
            systems=systems,
            limit=limit,
            query_field=query_field,
            home=eval_home,
            runs_dir=runs_dir,
            half=half,
            progress=bar,
        )
    if as_json:
        click.echo(json.dumps(report_to_json(report), indent=2))
    else:
        click.echo(format_table(report))
