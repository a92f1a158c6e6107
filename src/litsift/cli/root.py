"""Command line: ``litsift`` opens the TUI; subcommands ingest, index, search, demo, models, config.

The commands that bring literature in (ingest, formats, dedup, sync) are in
:mod:`litsift.cli.sources`; index, search and answer in :mod:`litsift.cli.search`.

Heavy imports (numpy, onnxruntime, tantivy, textual) happen inside the commands so ``--help``
stays instant. Every :class:`~litsift.errors.LitsiftError` is printed as its message and hint,
with exit code 1; nothing is swallowed.
"""

from __future__ import annotations

from pathlib import Path

import click

from litsift.cli.common import home_option, open_service, reports_errors
from litsift.cli.eval import eval_cmd
from litsift.cli.output import echo_json
from litsift.cli.refs import refs_group
from litsift.cli.review import feed_cmd, review_group
from litsift.cli.review_judge import review_judge
from litsift.cli.review_rounds import ROUND_COMMANDS
from litsift.cli.review_team import TEAM_COMMANDS
from litsift.cli.rq import rq_group
from litsift.cli.search import answer, index, index_kinds, ingest_and_report, search
from litsift.cli.sources import dedup_cmd, formats_cmd, ingest, sync_cmd
from litsift.cli.terminal import LitsiftGroup, finishes_its_work, needs_a_terminal, run_app
from litsift.errors import LitsiftError


@click.group(cls=LitsiftGroup, invoke_without_command=True)
@home_option
@click.version_option(package_name="litsift")
@click.pass_context
@reports_errors
def main(ctx: click.Context, home: str | None) -> None:
    """litsift: literature search and dataset recommendation in the terminal.

    Without a subcommand, opens the TUI on the current store.

    \b
    Examples:
      litsift demo                        # try it on the sample corpus
      litsift ingest papers library.bib   # import your own papers
      litsift                             # open the TUI on them
      litsift --home ~/lab-library        # a store kept in another directory
    """
    ctx.ensure_object(dict)
    ctx.obj["home"] = home
    if ctx.invoked_subcommand is None:
        _run_tui(home)


def _run_tui(home: str | None) -> None:
    from litsift.tui.app import create_app

    needs_a_terminal()
    svc = open_service(home)
    try:
        app = create_app(svc)
    except BaseException:
        svc.close()
        raise
    run_app(app, svc)


@main.command()
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The sample data directory (default: $LITSIFT_EVAL_DATA, else ../shared/data).",
)
@click.option(
    "--no-tui", is_flag=True, help="Ingest and build both indexes, then exit; don't open the app."
)
@click.pass_context
@reports_errors
@finishes_its_work
def demo(ctx: click.Context, data: Path | None, no_tui: bool) -> None:
    """Ingest the sample corpus (19.6K papers, 3.3K datasets), build BM25, open the TUI.

    The TUI embeds the dense index in the background (search is BM25-only until it lands);
    with --no-tui both indexes are built before exiting.

    \b
    Examples:
      litsift demo                                   # sample from ../shared/data
      litsift demo --data ~/litsift-sample --no-tui  # build everything, then exit
    """
    from litsift.paths import shared_data_dir
    from litsift.types import Kind

    if not no_tui:  # told before minutes of ingest, not after
        needs_a_terminal("litsift demo --no-tui")
    data = data or shared_data_dir()
    if not (data / "papers" / "ml-nlp-papers.jsonl.gz").is_file():
        raise LitsiftError(
            f"sample data not found in {data}",
            "pass --data DIR, or import your own papers: litsift ingest papers PATH (BibTeX, RIS, "
            "Zotero, a folder of PDFs, ...: `litsift formats` lists them)",
        )
    with open_service(ctx.obj["home"]) as svc:
        for kind, rel in (
            (Kind.PAPER, "papers/ml-nlp-papers.jsonl.gz"),
            (Kind.DATASET, "datasets/pwc-datasets.jsonl.gz"),
        ):
            click.echo(f"ingesting {rel}")
            ingest_and_report(svc, kind, data / rel, quiet=False)
        index_kinds(svc, list(Kind), rebuild=False, quiet=False, dense=no_tui)
    if not no_tui:
        _run_tui(ctx.obj["home"])


@main.group()
def models() -> None:
    """Build and inspect the encoder's ONNX file.

    \b
    Examples:
      litsift models list
      litsift models info
    """


@models.command("build")
@click.option("--model", default=None, help="Model id (default: the configured encoder).")
@click.option("--force", is_flag=True, help="Export again even if cached.")
@click.pass_context
@reports_errors
def models_build(ctx: click.Context, model: str | None, force: bool) -> None:
    """Export the encoder to ONNX and quantise it to int8 (needs the `export` extra).

    \b
    Examples:
      litsift models build
      litsift models build --model BAAI/bge-small-en-v1.5 --force
    """
    from litsift.models_onnx import build_onnx, get_spec

    svc = open_service(ctx.obj["home"])
    spec = get_spec(model or svc.config.search.model)
    path = build_onnx(spec, svc.paths.models_dir, force=force, progress=click.echo)
    click.echo(str(path))


@models.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@reports_errors
def models_list(ctx: click.Context, as_json: bool) -> None:
    """Every registered encoder: source, licence, pooling, max length, and whether it is
    ready here (exported, or shipped in an installed package).

    \b
    Examples:
      litsift models list
      litsift models list --json
    """
    from litsift.models_onnx.cli_support import list_models

    svc = open_service(ctx.obj["home"])
    rows = list_models(svc.paths.models_dir)
    if as_json:
        echo_json(rows)
        return
    current = svc.config.search.model
    for r in rows:
        mark = "*" if r["model_id"] == current else " "
        state = "ready" if r["built"] else f"not here ({r['installable']})"
        click.echo(
            f"{mark} {r['model_id']:28s} {r['pooling']:4s} {r['max_length']:4d} tok "
            f"{r['dim']}d  {state}"
        )
        click.echo(f"    {r['source']}  licence: {r['license'] or '?'}")


@models.command("info")
@click.option("--model", default=None)
@click.pass_context
@reports_errors
def models_info(ctx: click.Context, model: str | None) -> None:
    """Print the encoder's id, dimension, ONNX path and sha256 as JSON.

    \b
    Examples:
      litsift models info
      litsift models info --model all-MiniLM-L6-v2
    """
    from litsift.models_onnx.cli_support import describe

    svc = open_service(ctx.obj["home"])
    echo_json(describe(model or svc.config.search.model, svc.paths.models_dir))


@main.command()
@click.pass_context
@reports_errors
def config(ctx: click.Context) -> None:
    """Show paths, row counts and index state as JSON (and validate config.toml).

    The JSON names the config file, the store, the models directory and the log file
    (errors of background work with their tracebacks).

    \b
    Examples:
      litsift config
      litsift --home ~/lab-library config
    """
    with open_service(ctx.obj["home"]) as svc:
        echo_json({"config_file": str(svc.paths.config_file), **svc.describe()})


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
    """Export WHAT (kept | maybe | discarded | a collection name) with stable [@citekey]s.

    \b
    Examples:
      litsift export kept --format bibtex -o kept.bib
      litsift export "my collection" --format csl-json -o thesis.json
      litsift export maybe --format markdown
    """
    from litsift.cli.common import write_output
    from litsift.types import Kind

    with open_service(ctx.obj["home"]) as svc:
        text = svc.export(what, fmt, Kind.DATASET if datasets_ else Kind.PAPER)
    write_output(text, output)


main.add_command(eval_cmd)
main.add_command(rq_group)
main.add_command(ingest)
main.add_command(formats_cmd)
main.add_command(dedup_cmd)
main.add_command(sync_cmd)
main.add_command(refs_group)
for _command in [
    *ROUND_COMMANDS,
    *TEAM_COMMANDS,
]:  # show, reasons, criteria, prisma, curve; merge, ...
    review_group.add_command(_command)
review_group.add_command(review_judge)
main.add_command(review_group)
main.add_command(feed_cmd)
main.add_command(index)
main.add_command(search)
main.add_command(answer)


if __name__ == "__main__":  # python -m litsift.cli.root, as python -m litsift
    main()
