"""``litsift refs``: the citation trail -- fetch references and citing works, import S2AG
citation edge files, show a paper's neighbours, export the graph of a collection.

Titles and keys come from services and files: printed through
:func:`litsift.text.for_terminal`; ``--json`` output is lossless JSON.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from litsift.cli.common import OneValueGroup, open_service, reports_errors, say_error, write_output
from litsift.cli.output import echo_json
from litsift.cli.terminal import finishes_its_work, stop_name, stop_status
from litsift.text import for_terminal

__all__ = ["refs_group"]


@click.group("refs", cls=OneValueGroup)
def refs_group() -> None:
    """The citation trail: references (backward) and citing papers (forward).

    \b
    Examples:
      litsift refs fetch --kept
      litsift refs show acl2021:2021.acl-long.24
      litsift refs export --format graphml -o kept.graphml
    """


@refs_group.command("fetch")
@click.argument("ids", nargs=-1)
@click.option("--backward", is_flag=True, help="Only the references of each paper.")
@click.option("--forward", is_flag=True, help="Only the papers citing each paper.")
@click.option("--kept", is_flag=True, help="Walk from the kept papers.")
@click.option("--collection", metavar="NAME", help="Walk from the papers of a collection.")
@click.option(
    "--source",
    type=click.Choice(["openalex", "s2"]),
    default="openalex",
    show_default=True,
    help="Where the trail comes from.",
)
@click.option("--refresh", is_flag=True, help="Fetch again papers whose trail was fetched.")
@click.option("--max-pages", type=click.IntRange(1), help="At most N pages per paper.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@reports_errors
@finishes_its_work
def refs_fetch(
    ctx: click.Context,
    ids: tuple[str, ...],
    backward: bool,
    forward: bool,
    kept: bool,
    collection: str | None,
    source: str,
    refresh: bool,
    max_pages: int | None,
    as_json: bool,
) -> None:
    """Fetch the references and citing papers of papers (IDS, --kept or --collection).

    \b
    Examples:
      litsift refs fetch --kept                      # both directions, from OpenAlex
      litsift refs fetch --backward doi:10.1/abc     # only its references
      litsift refs fetch --collection thesis --source s2

    Works not in the store yet are stored (title, year, ids, abstract when the service has
    it) so they can be shown and triaged; edges go into the citation graph. A paper's trail
    fetched before is not fetched again (--refresh does); an interrupted run goes on from the
    page it stopped at. Base URLs, delays and retries are in config.toml ([sources.openalex],
    [sources.s2]); the S2 API key comes from $S2_API_KEY.
    """
    directions = [d for d, on in (("backward", backward), ("forward", forward)) if on]
    with open_service(ctx.obj["home"]) as svc:
        refs = svc.refs
        seeds = refs.seeds(kept=kept, collection=collection, ids=ids)

        saved: dict[tuple[str, str], int] = {}  # works written per walk, for a stop's message

        def progress(doc_id: str, direction: str, records: int, total: int | None) -> None:
            saved[doc_id, direction] = records
            if not as_json:
                click.echo(f"  {for_terminal(doc_id)} {direction}: {records:,} works", err=True)

        try:
            report = refs.fetch(
                seeds,
                directions or ("backward", "forward"),  # type: ignore[arg-type]
                source,
                refresh=refresh,
                max_pages=max_pages,
                progress=progress,
            )
        except KeyboardInterrupt as stop:  # each written page stays; say so, not "Aborted!"
            click.echo(
                f"stopped ({stop_name(stop)}): {sum(saved.values()):,} works of "
                f"{len(saved):,} walk{'s' if len(saved) != 1 else ''} were saved before the "
                "stop; the same command again goes on from the page it stopped at (nothing "
                "is added twice)",
                err=True,
            )
            ctx.exit(stop_status(stop))
    if as_json:
        echo_json(report.to_json(), indent=1)
    else:
        stopped = report.stopped.message if report.stopped is not None else None
        hints: list[str] = []
        said = {stopped}  # the stop is said once, below; a seed with no id once, not per walk
        for walk in report.walks:
            if walk.problem and walk.problem not in said:
                said.add(walk.problem)
                click.echo(for_terminal(walk.problem, keep_newlines=False), err=True)
                hints += [walk.hint] if walk.hint and walk.hint not in hints else []
            if walk.note:
                click.echo(for_terminal(walk.note, keep_newlines=False), err=True)
        for hint in hints:  # once each, after the problems they answer
            click.echo(f"  hint: {for_terminal(hint, keep_newlines=False)}", err=True)
        for bad in report.counts.bad[:20]:
            click.echo(for_terminal(str(bad), keep_newlines=False), err=True)
        status: dict[str, int] = {}
        for walk in report.walks:
            status[walk.status] = status.get(walk.status, 0) + 1
        c = report.counts
        click.echo(
            f"{len(seeds):,} paper{'s' if len(seeds) != 1 else ''}, "
            f"{len(report.walks):,} walk{'s' if len(report.walks) != 1 else ''} ("
            + ", ".join(f"{n} {s}" for s, n in sorted(status.items()))
            + f"); {c.read:,} works read: {c.added:,} added, {c.updated:,} updated, "
            f"{c.merged:,} merged, {c.unchanged + c.duplicates:,} already stored, "
            f"{len(c.bad):,} bad; {report.edges_added:,} new edges"
        )
    if report.stopped is not None:
        say_error(for_terminal(report.stopped.message))
        click.echo(f"  hint: {for_terminal(report.stopped.hint)}", err=True)
    if not report.ok:
        sys.exit(1)


@refs_group.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@reports_errors
@finishes_its_work
def refs_import(ctx: click.Context, files: tuple[Path, ...], as_json: bool) -> None:
    """Import citation edges from S2AG `citations` dataset files (.jsonl or .jsonl.gz).

    \b
    Examples:
      litsift refs import citations/*.gz
      litsift refs import citations/          # a folder: its files

    Each line is an edge from the citing to the cited corpus id; edges between papers in the
    store join them at once (papers imported later join their edges when they arrive).
    Lines without a cited corpus id are skipped; bad lines are reported as FILE:LINE and the
    others kept (exit code 1). Importing a file again adds nothing twice.
    """

    def progress(lines: int) -> None:
        if not as_json:
            click.echo(f"  {lines:,} lines", err=True)

    with open_service(ctx.obj["home"]) as svc:
        report = svc.refs.import_citations(files, progress=progress)
    if as_json:
        echo_json(report.to_json(), indent=1)
    else:
        for bad in report.bad[:50]:
            click.echo(for_terminal(str(bad), keep_newlines=False), err=True)
        if len(report.bad) > 50:
            click.echo(f"... and {len(report.bad) - 50:,} more bad lines", err=True)
        click.echo(report.summary())
    if not report.ok:
        sys.exit(1)


@refs_group.command("show")
@click.argument("doc_id")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
@reports_errors
def refs_show(ctx: click.Context, doc_id: str, as_json: bool) -> None:
    """List a paper's references and the papers citing it (stored ones first).

    \b
    Examples:
      litsift refs show acl2021:2021.acl-long.24
      litsift refs show acl2021:2021.acl-long.24 --json
    """
    with open_service(ctx.obj["home"]) as svc:
        got = svc.refs.neighbours(doc_id)
    if as_json:
        rows = {
            side: [
                {**vars(n), "label": n.label.value if n.label else None} for n in getattr(got, side)
            ]
            for side in ("references", "cited_by")
        }
        echo_json({"id": got.doc_id, **rows}, indent=1)
        return
    click.echo(for_terminal(got.title, keep_newlines=False))
    for side, items in (("references", got.references), ("cited by", got.cited_by)):
        click.echo(f"{side} ({len(items)}):")
        for n in items:
            label = f"[{n.label.value}] " if n.label else ""
            year = f"{n.year} " if n.year else ""
            click.echo(
                f"  {label}{year}{for_terminal(n.display_title, keep_newlines=False)[:90]}"
                + (f"  {for_terminal(n.key)}" if n.stored else "")
            )
    if not got.references and not got.cited_by:  # "(0)" alone read as "it cites nothing"
        click.echo(
            f"note: no citation edges are stored for it; litsift refs fetch "
            f"{for_terminal(got.doc_id, keep_newlines=False)} fetches them (from a DOI, arXiv, "
            "PMID or OpenAlex id), litsift refs import FILE reads S2AG citations files",
            err=True,
        )


@refs_group.command("export")
@click.argument("collection", required=False)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["graphml", "dot", "json"]),
    default="graphml",
    show_default=True,
    help="GraphML (Gephi, Cytoscape, yEd), Graphviz DOT, or node-link JSON (d3, networkx).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to FILE (default: standard output).",
)
@click.pass_context
@reports_errors
def refs_export(ctx: click.Context, collection: str | None, fmt: str, output: Path | None) -> None:
    """Export the citation graph of COLLECTION's papers (default: the kept papers), with their
    references and citing works; nodes carry title, year, label and whether they are stored.

    \b
    Examples:
      litsift refs export --format graphml -o kept.graphml   # the kept papers, for Gephi
      litsift refs export thesis --format dot -o thesis.dot  # a collection, for Graphviz
    """
    with open_service(ctx.obj["home"]) as svc:
        text = svc.refs.export(collection, fmt)
    write_output(text, output)  # on a terminal sanitised, as `litsift export` is
