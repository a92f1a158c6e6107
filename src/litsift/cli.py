"""Command line: ``litsift`` opens the TUI; subcommands ingest, index, search, demo, models, config.

The commands that bring literature in (ingest, formats, dedup, sync) are in
:mod:`litsift.cli_sources`.

Heavy imports (numpy, onnxruntime, tantivy, textual) happen inside the commands so ``--help``
stays instant. Every :class:`~litsift.errors.LitsiftError` is printed as its message and hint,
with exit code 1; nothing is swallowed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from litsift.cli_common import (
    home_option,
    kind_named,
    open_service,
    progress_bar,
    reports_errors,
)
from litsift.cli_eval import eval_cmd
from litsift.cli_refs import refs_group
from litsift.cli_review import feed_cmd, review_group
from litsift.cli_rq import rq_group
from litsift.cli_sources import dedup_cmd, formats_cmd, ingest, sync_cmd
from litsift.errors import LitsiftError
from litsift.text import for_terminal
from litsift.types import FUSIONS

if TYPE_CHECKING:
    from litsift.service import IndexReport, LitsiftService
    from litsift.types import Kind


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

    svc = open_service(home)
    try:
        create_app(svc).run()
    finally:
        svc.close()


def _ingest_and_report(svc: LitsiftService, kind: Kind, path: Path, quiet: bool) -> bool:
    with progress_bar(not quiet) as bar:
        report = svc.ingest(kind, path, progress=bar)
    for bad in report.bad[:20]:  # a reason may quote the file's bytes: never raw to a terminal
        reason = for_terminal(bad.reason, keep_newlines=False)
        click.echo(f"{for_terminal(str(path))}:{bad.line_no}: {reason}", err=True)
    if len(report.bad) > 20:
        click.echo(f"... and {len(report.bad) - 20} more bad lines", err=True)
    click.echo(report.summary())
    return report.ok


def _index(
    svc: LitsiftService,
    kinds: list[Kind],
    rebuild: bool,
    quiet: bool,
    check: bool = False,
    dense: bool = True,
) -> None:
    """Build each kind's index: BM25 first (reported as searchable), then, with ``dense``, the
    dense part with its progress."""
    for k in kinds:
        if svc.store.count(k) == 0:
            click.echo(f"{k.table}: nothing to index")
            continue
        if check:  # damaged parts are marked in the manifest; the build below rebuilds them
            damage = svc.check_index(k)
            for part, why in damage.items():
                click.echo(f"{k.table}: damaged {part}: {for_terminal(why)}", err=True)
            if not damage:
                click.echo(f"{k.table}: every index file matches its checksum")

        def bm25_ready(report: IndexReport, k: Kind = k) -> None:
            then = (
                "; the dense index is embedded next (Ctrl-C stops it; the next `litsift "
                "index` resumes after the last published chunk)"
                if dense
                else ""
            )
            click.echo(f"{k.table}: BM25 ready, searchable now ({report.summary()}){then}")

        with progress_bar(not quiet) as bar:
            report = svc.build_index(
                k, rebuild=rebuild, progress=bar, dense=dense, on_bm25=bm25_ready
            )
        if dense:
            click.echo(f"{k.table}: {report.summary()}")
            with progress_bar(not quiet) as bar:
                embedded, total = svc.build_sentences(k, progress=bar)
            repaired = svc.sentences_repaired()
            if repaired is not None:
                click.echo(f"repaired aspect sentences: {for_terminal(repaired)}", err=True)
            click.echo(
                f"{k.table}: aspect sentences of {total:,} records stored "
                f"({embedded:,} cut and embedded now)"
            )
            if k.value == "paper":
                with progress_bar(not quiet) as bar:
                    built = svc.build_passages(progress=bar, rebuild=rebuild, check=check)
                if built.repaired is not None:
                    click.echo(f"full text: damaged: {for_terminal(built.repaired)}", err=True)
                elif check and built.passages:
                    click.echo("full text: every index file matches its checksum")
                if built.passages:
                    state = "unchanged" if built.unchanged else f"built in {built.seconds:.1f} s"
                    state = f"repaired, {state}" if built.repaired is not None else state
                    click.echo(
                        f"full text: {built.passages:,} passages of {built.papers:,} papers "
                        f"indexed ({state}, {built.bytes / 1e6:.1f} MB)"
                    )


ENGINE_OPTION = click.option(
    "--engine",
    type=click.Choice(["local", "milvus"]),
    default=None,
    help="Where BM25 + dense run; default: [engine] kind in config.toml.",
)


@main.command()
@click.argument("kind", type=click.Choice(["papers", "datasets", "all"]), default="all")
@click.option("--rebuild", is_flag=True, help="Re-embed everything instead of only new rows.")
@click.option(
    "--check", is_flag=True, help="Verify every index file's checksum; rebuild damaged parts."
)
@ENGINE_OPTION
@click.option(
    "--ray",
    "ray_address",
    default=None,
    metavar="ADDRESS|local",
    help="Embed the rows not in the embedding cache with Ray Data first (local: this machine).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.pass_context
@reports_errors
def index(
    ctx: click.Context,
    kind: str,
    rebuild: bool,
    check: bool,
    engine: str | None,
    ray_address: str | None,
    quiet: bool,
) -> None:
    """Build or update the BM25 (tantivy) and dense (hnswlib) indexes from the store.

    BM25 is built and published first (search works on it at once, BM25 only), then the
    dense index is embedded and published. A damaged or missing index file (size, or with
    --check checksum, differing from the manifest) has its part rebuilt from the store.
    With --engine milvus (or [engine] kind = "milvus") the rows new or changed since the last
    push go to the Milvus collections instead, in resumable batches. With --ray, the rows
    whose vectors are not in the embedding cache are embedded by Ray Data first.
    """
    from litsift.types import Kind

    kinds = list(Kind) if kind == "all" else [kind_named(kind)]
    with open_service(ctx.obj["home"], engine) as svc:
        if ray_address is not None:
            _embed_with_ray(svc, kinds, ray_address, quiet)
        if svc.config.engine.kind == "milvus":
            _push(svc, kinds, rebuild, quiet)
        else:
            _index(svc, kinds, rebuild, quiet, check=check)


def _embed_with_ray(svc: LitsiftService, kinds: list[Kind], address: str, quiet: bool) -> None:
    for k in kinds:
        with progress_bar(not quiet) as bar:
            report = svc.embed_with_ray(k, address, progress=bar)
        click.echo(f"{k.table}: {report.summary()}")


def _push(svc: LitsiftService, kinds: list[Kind], rebuild: bool, quiet: bool) -> None:
    for k in kinds:
        if svc.store.count(k) == 0:
            click.echo(f"{k.table}: nothing to index")
            continue
        with progress_bar(not quiet) as bar:
            report = svc.push_index(k, rebuild=rebuild, progress=bar)
        click.echo(f"{k.table}: {report.summary()}")
        if k.value == "paper":
            with progress_bar(not quiet) as bar:
                passages = svc.push_passages(rebuild=rebuild, progress=bar)
            if passages.count:
                click.echo(f"full text: {passages.summary()}")
        with progress_bar(not quiet) as bar:
            embedded, total = svc.build_sentences(k, progress=bar)
        click.echo(
            f"{k.table}: aspect sentences of {total:,} records stored "
            f"({embedded:,} cut and embedded now)"
        )


def _bm25_first(svc: LitsiftService, kinds: list[Kind]) -> None:
    """Before a search: build the BM25 part of each kind whose store rows it does not cover
    (missing after an ingest, or behind), in seconds, and say so on stderr. The dense part is
    left to `litsift index` (a search meanwhile is BM25 only and says so). A home where it
    cannot be built (read-only) is searched as it is."""
    import time

    if svc.config.engine.kind != "local":  # the engine's collections are pushed explicitly
        return
    for kind in kinds:
        behind = svc.bm25_behind(kind)
        if behind is None:
            continue
        rows, covered = behind
        state = "no BM25 index" if covered == 0 else f"the BM25 index covers {covered:,}"
        if svc.read_only_reason is not None:  # search what is there, and say what is missing
            click.echo(f"note: {kind.table}: {state} of {rows:,} rows (read-only home)", err=True)
            continue
        click.echo(f"{kind.table}: {state} of {rows:,} rows; building BM25 first…", err=True)
        start = time.perf_counter()
        try:
            svc.build_index(kind, dense=False)
        except LitsiftError as err:
            click.echo(f"note: BM25 not built: {for_terminal(err.message)}", err=True)
            continue
        click.echo(
            f"{kind.table}: BM25 ready in {time.perf_counter() - start:.1f} s; run `litsift "
            "index` for the dense index (hybrid search)",
            err=True,
        )


@main.command()
@click.argument("query")
@click.option("--years", default="", help="Year range FROM:TO, e.g. 2015:2019, :2019, 2018.")
@click.option("--datasets", "datasets_", is_flag=True, help="Search datasets instead of papers.")
@click.option("-k", default=None, type=click.IntRange(1, 1000), help="Hits to return.")
@click.option("--k0", default=None, type=click.IntRange(1, 10000), help="Candidates per retriever.")
@click.option("--fusion", type=click.Choice(FUSIONS), default=None, help="Default: search.fusion.")
@click.option(
    "--fulltext/--no-fulltext",
    default=None,
    help="Also search imported full text (PDF, TEI, JATS, S2ORC); default: on once it is indexed.",
)
@click.option("--json", "as_json", is_flag=True, help="Print stable JSON for scripts.")
@ENGINE_OPTION
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
    fulltext: bool | None,
    as_json: bool,
    engine: str | None,
) -> None:
    """Search papers (or --datasets) for QUERY and print the ranked hits."""
    from litsift.output import hits_to_json_text, hits_to_table
    from litsift.types import Kind, Query, YearRange

    with open_service(ctx.obj["home"], engine) as svc:
        kind = Kind.DATASET if datasets_ else Kind.PAPER
        # dataset search also reads the papers' index (usage profiles, votes)
        _bm25_first(svc, [kind, Kind.PAPER] if datasets_ else [kind])
        q = Query(
            text=query,  # cleaned once by the search pipeline (argv: lone surrogates too)
            kind=kind,
            years=YearRange.parse(years),
            k=k,
            k0=k0,
            fusion=fusion,
            # full text is the papers' only: the default never marks a dataset search
            fulltext=kind is Kind.PAPER and svc.has_passages() if fulltext is None else fulltext,
        )
        result = svc.search(q)
        read_only = svc.read_only_reason
    if read_only is not None:  # on stderr, so --json stays the stable object
        click.echo(f"note: {for_terminal(read_only)}", err=True)
    if result.partial is not None and not as_json:
        only = "BM25 only — " if result.signals_used == ("bm25",) else ""
        click.echo(f"note: {only}{result.partial}", err=True)
    if as_json:
        click.echo(hits_to_json_text(result))
    else:
        from rich.console import Console

        Console().print(hits_to_table(result))


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
def demo(ctx: click.Context, data: Path | None, no_tui: bool) -> None:
    """Ingest the sample corpus (19.6K papers, 3.3K datasets), build BM25, open the TUI.

    The TUI embeds the dense index in the background (search is BM25-only until it lands);
    with --no-tui both indexes are built before exiting.
    """
    from litsift.paths import shared_data_dir
    from litsift.types import Kind

    data = data or shared_data_dir()
    if not (data / "papers" / "ml-nlp-papers.jsonl.gz").is_file():
        raise LitsiftError(
            f"sample data not found in {data}",
            "pass --data DIR, or ingest your own corpus: litsift ingest papers FILE.jsonl",
        )
    with open_service(ctx.obj["home"]) as svc:
        for kind, rel in (
            (Kind.PAPER, "papers/ml-nlp-papers.jsonl.gz"),
            (Kind.DATASET, "datasets/pwc-datasets.jsonl.gz"),
        ):
            click.echo(f"ingesting {rel}")
            _ingest_and_report(svc, kind, data / rel, quiet=False)
        _index(svc, list(Kind), rebuild=False, quiet=False, dense=no_tui)
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
    ready here (exported, or shipped in an installed package)."""
    from litsift.models_onnx.cli_support import list_models

    svc = open_service(ctx.obj["home"])
    rows = list_models(svc.paths.models_dir)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
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
    """Print the encoder's id, dimension, ONNX path and sha256 as JSON."""
    from litsift.models_onnx.cli_support import describe

    svc = open_service(ctx.obj["home"])
    click.echo(
        json.dumps(describe(model or svc.config.search.model, svc.paths.models_dir), indent=2)
    )


@main.command()
@click.pass_context
@reports_errors
def config(ctx: click.Context) -> None:
    """Show paths, row counts and index state as JSON (and validate config.toml)."""
    with open_service(ctx.obj["home"]) as svc:
        click.echo(
            json.dumps({"config_file": str(svc.paths.config_file), **svc.describe()}, indent=2)
        )


@main.command()
@click.argument("question")
@click.option("--years", default="", help="Year range FROM:TO for the papers to cite.")
@click.option(
    "-k", default=None, type=click.IntRange(1, 100), help="Papers retrieved to cite from."
)
@click.option(
    "--fulltext/--no-fulltext",
    default=None,
    help="Search and cite imported full text (passages, 3 per paper); default: on once indexed.",
)
@click.option("--rerank", "do_rerank", is_flag=True, help="LLM-rerank the hits before answering.")
@click.option("--json", "as_json", is_flag=True, help="Print the verified answer as JSON.")
@click.pass_context
@reports_errors
def answer(
    ctx: click.Context,
    question: str,
    years: str,
    k: int | None,
    fulltext: bool | None,
    do_rerank: bool,
    as_json: bool,
) -> None:
    """Answer QUESTION from the top papers with citations checked against what was sent."""
    from litsift.llm.answer import answer_to_json
    from litsift.text import json_for_terminal
    from litsift.types import Kind, Query, YearRange

    with open_service(ctx.obj["home"]) as svc:
        s = svc.config
        n = k or s.llm.answer_max_records
        if fulltext is None:
            fulltext = svc.has_passages()
        result = svc.search(
            Query(question, Kind.PAPER, YearRange.parse(years), k=n, fulltext=fulltext)
        )
        hits = list(result.hits)
        if do_rerank:
            rr = svc.rerank(question, hits)
            if rr.report.error:
                error = for_terminal(str(rr.report.error))
                click.echo(f"rerank failed, original order kept: {error}", err=True)
            hits = rr.hits
        # model text is printed through for_terminal (each delta on its own: a sequence split
        # across deltas loses its ESC and shows as plain text)
        stream = None if as_json else (lambda d: click.echo(for_terminal(d), nl=False))
        ans = svc.answer(question, hits, on_delta=stream)
    if as_json:
        click.echo(json_for_terminal(answer_to_json(ans)))
        return
    click.echo("\n\n" + for_terminal(ans.text))
    click.echo("\nReferences")
    for ref in ans.references:
        rec = ref.record
        marks = "".join(f"[{n}]" for n in ref.passages)
        title, rid = (for_terminal(x, keep_newlines=False) for x in (rec.display_title, rec.id))
        click.echo(f"  {marks} {title} ({rec.year or 'n.d.'}) — {rid}")
        for section in ref.sections:
            click.echo(f"      {for_terminal(section, keep_newlines=False)}")
    if ans.fabricated:
        click.echo(f"stripped citations to passages never sent: {list(ans.fabricated)}", err=True)
    for note in ans.notes:
        click.echo(f"note: {for_terminal(note)}", err=True)


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

    with open_service(ctx.obj["home"]) as svc:
        text = svc.export(what, fmt, Kind.DATASET if datasets_ else Kind.PAPER)
    if output is None:
        click.echo(text, nl=not text.endswith("\n"))
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)


main.add_command(eval_cmd)
main.add_command(rq_group)
main.add_command(ingest)
main.add_command(formats_cmd)
main.add_command(dedup_cmd)
main.add_command(sync_cmd)
main.add_command(refs_group)
main.add_command(review_group)
main.add_command(feed_cmd)


if __name__ == "__main__":  # python -m litsift.cli, as python -m litsift
    main()
