"""Commands that bring literature in: ``ingest``, ``formats``, ``dedup`` (and ``sync``).

Every string that comes from a file (a reason quoting an entry, a title) goes through
:func:`litsift.text.for_terminal` before it is printed; ``--json`` output is lossless JSON.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from litsift.cli.common import KIND_CHOICE, kind_named, open_service, reports_errors
from litsift.cli.output import echo_json
from litsift.cli.terminal import finishes_its_work, stop_name, stop_status
from litsift.text import for_terminal

__all__ = ["dedup_cmd", "formats_cmd", "ingest", "sync_cmd"]

_SHOW_BAD = 20
#: seconds between two progress lines of ``ingest`` while a file is read: on a terminal, and
#: when stderr goes to a log or a pipe (a long import shows it is alive; short ones, and their
#: callers that read stdout and stderr together, see no line)
PROGRESS_EVERY_S = 2.0
PROGRESS_EVERY_S_LOGGED = 30.0
#: keys of an import report that a sync row leaves out (a sync reads no files)
_NOT_SYNC_KEYS = ("kind", "skipped", "files", "warnings", "elapsed_s")


@click.command()
@click.argument("kind", type=KIND_CHOICE)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    metavar="NAME",
    help="Read every PATH as this format instead of detecting it (see: litsift formats).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", is_flag=True, help="No progress output (on stderr, also with --json).")
@click.pass_context
@reports_errors
@finishes_its_work
def ingest(
    ctx: click.Context,
    kind: str,
    paths: tuple[Path, ...],
    fmt: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Import papers or datasets from files or directories.

    Each PATH may be a file (optionally .gz) or a directory (walked recursively: a folder of
    PDFs or .bib files, a Zotero data directory). The format is detected from the content:
    litsift JSONL, BibTeX, RIS, CSL-JSON, Better BibTeX JSON, zotero.sqlite, Scopus/IEEE/
    Springer CSV, Web of Science, arXiv (OAI-PMH, API, snapshot), OpenAlex, Semantic Scholar,
    Crossref, PDF, GROBID TEI, JATS, S2ORC; datasets: litsift JSONL, Hugging Face dataset
    cards, Papers-with-Code evaluation tables.

    Papers already stored (same DOI, arXiv id, ... or same title, first author and year) are
    merged, not duplicated. Bad entries are reported as FILE:LOCATION: reason and skipped;
    everything good is kept (a cut JSON export keeps its complete items). A file litsift
    cannot read -- named as a PATH, or found in a directory under a name only bibliographic
    files use (.bib, .ris, .nbib, .pdf, ...) -- is FILE: reason; hint. Other unreadable
    files found in a directory (images; .json, .csv, .xml, .txt, .md that are no export)
    are listed as skipped. The exit code is 1 if anything was bad.

    \b
    Examples:
      litsift ingest papers library.bib             # BibTeX / biblatex
      litsift ingest papers ~/Zotero                # a Zotero data directory
      litsift ingest papers ~/papers/ --json        # a folder of PDFs, report as JSON
      litsift ingest papers savedrecs.txt --format wos
      litsift ingest datasets datasets.jsonl
    """
    with open_service(ctx.obj["home"]) as svc:
        start = time.monotonic()
        shown = {"at": start, "done": 0}
        every = PROGRESS_EVERY_S if sys.stderr.isatty() else PROGRESS_EVERY_S_LOGGED

        def progress(done: int, total: int, records: int) -> None:
            """A line on stderr (stdout stays the report's, --json's) after each file of many
            (not with --json), and every PROGRESS_EVERY_S seconds (PROGRESS_EVERY_S_LOGGED
            when stderr is no terminal) in any case."""
            now = time.monotonic()
            file_done = not as_json and total > 1 and done > shown["done"]
            if quiet or not (file_done or now - shown["at"] >= every):
                return
            shown.update(at=now, done=done)
            rate = records / max(now - start, 1e-6)
            click.echo(
                f"  {done}/{total} files, {records:,} entries ({rate:,.0f} entries/s)", err=True
            )

        before = svc.counts()[kind_named(kind)]
        try:
            report = svc.sources.import_paths(kind_named(kind), list(paths), fmt, progress)
        except KeyboardInterrupt as stop:  # each committed batch stays; say so, not "Aborted!"
            kept = svc.counts()[kind_named(kind)] - before
            click.echo(
                f"stopped ({stop_name(stop)}): {kept:,} new {kind} were saved before the stop; "
                "the same command again imports the rest (nothing is added twice)",
                err=True,
            )
            ctx.exit(stop_status(stop))
    if as_json:
        echo_json(report.to_json(), indent=1)
    else:
        for bad in report.bad[:_SHOW_BAD]:
            click.echo(for_terminal(str(bad), keep_newlines=False), err=True)
        if len(report.bad) > _SHOW_BAD:
            click.echo(f"... and {len(report.bad) - _SHOW_BAD:,} more bad entries", err=True)
        if report.warnings and not quiet:
            for warning in report.warnings[:_SHOW_BAD]:
                click.echo(f"warning {for_terminal(str(warning), keep_newlines=False)}", err=True)
            if len(report.warnings) > _SHOW_BAD:
                click.echo(f"... and {len(report.warnings) - _SHOW_BAD:,} more warnings", err=True)
        if report.skipped and not quiet:
            for skip in report.skipped[:_SHOW_BAD]:
                click.echo(f"skipped {for_terminal(str(skip), keep_newlines=False)}", err=True)
            if len(report.skipped) > _SHOW_BAD:
                click.echo(f"... and {len(report.skipped) - _SHOW_BAD:,} more skipped", err=True)
        click.echo(report.summary())
    if not report.ok:
        sys.exit(1)


@click.command("formats")
@click.pass_context
@reports_errors
def formats_cmd(ctx: click.Context) -> None:
    """List the formats `litsift ingest` reads (names for --format).

    \b
    Example:
      litsift formats
    """
    from litsift.service.sources import SourceService

    for name, kind, description in SourceService.format_table():
        click.echo(f"{name:24} {kind + 's':9} {description}")


@click.command("dedup")
@click.option("--dry-run", is_flag=True, help="List what would merge; change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the groups as JSON.")
@click.pass_context
@reports_errors
def dedup_cmd(ctx: click.Context, dry_run: bool, as_json: bool) -> None:
    """Merge stored papers that are one work (same DOI/arXiv/... id, or same title, first
    author and year within one), and stored datasets that are one (same name but for case and
    separators, as an import joins them). Labels, notes, tags, collections and review
    decisions, notes and LLM verdicts follow the merged record.

    \b
    Examples:
      litsift dedup --dry-run      # list what would merge
      litsift dedup                # merge it
    """
    with open_service(ctx.obj["home"]) as svc:
        plan = svc.sources.dedup(apply=not dry_run)
    if as_json:
        echo_json({**plan.to_json(), "applied": not dry_run}, indent=1)
        return
    for group in plan.groups:
        click.echo(
            f"keep  {for_terminal(group.keep)}  {for_terminal(group.titles[group.keep])[:90]}"
        )
        for doc_id, reason, score in group.merge:
            why = reason if reason != "title" else f"title {score:.0f}"
            click.echo(
                f"  <- {for_terminal(doc_id)} ({why})  {for_terminal(group.titles[doc_id])[:80]}"
            )
    for dgroup in plan.dataset_groups:
        click.echo(f"keep  dataset {for_terminal(dgroup.keep)}")
        for doc_id in dgroup.merge:
            click.echo(f"  <- {for_terminal(doc_id)} (name)")
    for c in plan.clashes:  # one reviewer decided the two papers differently
        who = c.reviewer or "the unnamed reviewer"
        click.echo(
            for_terminal(
                f"review {c.review} ({c.stage}): {who} decided them differently: {c.keep} "
                f"keeps the newer {c.kept}; {c.dropped} of {c.other} stays in its log"
            )
        )
    verb = "would merge" if dry_run else "merged"
    merged = plan.groups or plan.dataset_groups
    click.echo(
        f"{plan.papers:,} papers compared: {verb} {plan.duplicates:,} duplicates "
        f"into {len(plan.groups):,} records; {plan.datasets:,} datasets compared: {verb} "
        f"{plan.dataset_duplicates:,} into {len(plan.dataset_groups):,}"
        + ("" if dry_run or not merged else "; `litsift index --rebuild` compacts the indexes")
    )


@click.command("sync")
@click.argument(
    "source", required=False, type=click.Choice(["arxiv", "openalex", "s2", "crossref"])
)
@click.option("--set", "oai_set", metavar="SET", help="arXiv OAI-PMH set, e.g. cs or cs:cs:CL.")
@click.option(
    "--from",
    "since",
    metavar="DATE",
    help="arXiv OAI-PMH: records changed since DATE (YYYY-MM-DD).",
)
@click.option("--query", metavar="TEXT", help="arXiv API search_query, S2 or Crossref query.")
@click.option("--search", metavar="TEXT", help="OpenAlex full-text search.")
@click.option(
    "--filter", "oa_filter", metavar="F", help="OpenAlex filter, e.g. concepts.id:C41008148."
)
@click.option(
    "--name", metavar="NAME", help="Save the sync under NAME (default: from its parameters)."
)
@click.option("--max-pages", type=click.IntRange(1), help="Stop after N pages.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
@reports_errors
@finishes_its_work
def sync_cmd(
    ctx: click.Context,
    source: str | None,
    oai_set: str | None,
    since: str | None,
    query: str | None,
    search: str | None,
    oa_filter: str | None,
    name: str | None,
    max_pages: int | None,
    as_json: bool,
) -> None:
    """Fetch new papers from arXiv, OpenAlex, Semantic Scholar or Crossref.

    \b
    Examples:
      litsift sync arxiv --set cs --from 2026-11-01   # OAI-PMH harvest of a set
      litsift sync arxiv --query "cat:cs.CL AND ti:retrieval"
      litsift sync openalex --search "dataset recommendation"
      litsift sync s2 --query "literature search"      # API key from $S2_API_KEY
      litsift sync crossref --query "information retrieval"
      litsift sync                                      # every saved sync, only what is new

    Each sync is saved with its high-water mark; running it again fetches only what is new.
    Base URLs, politeness delays and the contact email are in config.toml ([sources]).
    """
    from litsift.errors import LitsiftError
    from litsift.types import SyncSpec

    spec = None
    if source is not None:
        if source == "arxiv":
            kind, params = ("arxiv-api", {"search_query": query}) if query else ("arxiv-oai", {})
            if oai_set:
                params["set"] = oai_set
            if since:
                params["from"] = since
        elif source == "openalex":
            kind, params = (
                "openalex",
                {k: v for k, v in (("search", search), ("filter", oa_filter)) if v},
            )
            if not params:
                raise LitsiftError("openalex needs --search or --filter", "e.g. --search 'topic'")
        else:
            kind, params = source, {"query": query} if query else {}
        label = name or f"{kind} " + " ".join(f"{k}={v}" for k, v in sorted(params.items()))
        spec = SyncSpec(label.strip(), kind, {k: v for k, v in params.items() if v})
    with open_service(ctx.obj["home"]) as svc:
        if spec is None and not svc.sources.saved_syncs():
            click.echo(
                "no saved syncs yet; start one, e.g.: litsift sync arxiv --set cs --from 2026-11-01"
            )
            return

        def progress(job: str, records: int, total: int | None) -> None:
            if not as_json:
                of = f" of {total:,}" if total else ""
                click.echo(f"  {for_terminal(job)}: {records:,}{of} records", err=True)

        done = svc.sources.sync(spec, max_pages=max_pages, progress=progress)
    rows: list[dict[str, Any]] = [
        {
            "name": job.name,
            "source": job.source,
            "pages": result.pages,
            **{k: v for k, v in counts.to_json().items() if k not in _NOT_SYNC_KEYS},
            "high_water": job.high_water,
            "resumed": result.resumed,
            "resume_token": job.resume_token,
        }
        for job, result, counts in done
    ]
    if as_json:
        echo_json(rows, indent=1)
        return
    for row in rows:
        click.echo(
            f"{for_terminal(row['name'])}: {row['pages']} pages, {row['read']:,} read, "
            f"{row['added']:,} added, {row['merged']:,} merged, {row['unchanged']:,} unchanged, "
            f"{len(row['bad']):,} bad; "
            + (
                "stopped before the end: the next run goes on from where this one stopped"
                if row["resume_token"]
                else f"next run starts after {row['high_water'] or '-'}"
            )
            + (" (continued an interrupted run)" if row["resumed"] else "")
        )
