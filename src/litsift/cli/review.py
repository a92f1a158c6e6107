"""``litsift review``: make a systematic review from search exports, list, show, export, screen."""

from __future__ import annotations

from pathlib import Path

import click

from litsift.cli.common import (
    STAGE_OPTION,
    OneValueGroup,
    comma_list,
    criteria_text,
    open_service,
    reports_errors,
    write_output,
)
from litsift.cli.output import echo_json
from litsift.cli.terminal import (
    finishes_its_work,
    needs_a_terminal,
    run_app,
    stop_name,
    stop_status,
)
from litsift.text import for_terminal, shell_word


def _labels(value: str) -> str | int:
    if value in ("all", "none"):
        return value
    if value.isdigit() and int(value) > 0:
        return int(value)
    raise click.BadParameter(  # in --help's words (it asked for "a positive number N")
        f"{value!r}: all, none, or N included + N excluded (N at least 1; 0 is none)",
        param_hint="--labels",
    )


@click.group("review", cls=OneValueGroup)
def review_group() -> None:
    """Systematic reviews: candidate records from search exports, screened in the TUI.

    \b
    Examples:
      litsift review new statins --from pubmed.nbib --from embase.ris
      litsift review screen statins
      litsift review export statins --format ris --which include -o included.ris
      litsift review prisma statins -o prisma.svg
    """


@review_group.command("new")
@click.argument("name")
@click.option(
    "--from",
    "paths",
    multiple=True,
    required=True,
    type=click.Path(path_type=Path),
    help="A search export (RIS, nbib, CSV, BibTeX, ... or a labelled screening set .jsonl.gz); "
    "repeatable.",
)
@click.option(
    "--criteria",
    default="",
    help="The review question or inclusion criteria, as text or @FILE: they order the records "
    "before the first decision, then stay a column of the learning order.",
)
@click.option(
    "--keywords",
    multiple=True,
    help="Comma list of words highlighted while screening; repeatable.",
)
@click.option(
    "--reasons",
    multiple=True,
    help="Comma list of exclusion reasons (keys 1-9 while screening; at most 9); repeatable.",
)
@click.option(
    "--labels",
    "labels",
    default="all",
    show_default=True,
    help="A screening set's labels as prior decisions: all, none, or N included + N excluded "
    "(N at least 1, picked at random).",
)
@click.option(
    "--format",
    "fmt",
    metavar="NAME",
    default=None,
    help="Read every --from file as this format instead of detecting it (see: litsift formats).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
@reports_errors
@finishes_its_work
def review_new(
    ctx: click.Context,
    name: str,
    paths: tuple[Path, ...],
    criteria: str,
    keywords: tuple[str, ...],
    reasons: tuple[str, ...],
    labels: str,
    fmt: str | None,
    as_json: bool,
) -> None:
    """Make review NAME of the records in the --from files (duplicates are grouped).

    \b
    Examples:
      litsift review new statins --from pubmed.nbib --from embase.ris --from scopus.csv
      litsift review new statins --from pubmed.nbib --criteria @criteria.txt --keywords statin,LDL
      litsift review new statins --from pubmed.nbib --reasons "wrong population,wrong design"
    """
    policy = _labels(labels)
    words, why = comma_list(keywords), comma_list(reasons)
    with open_service(ctx.obj["home"]) as svc:
        try:
            made = svc.reviews.create(
                name, list(paths), criteria_text(criteria), words, policy, why, format_name=fmt
            )
        except KeyboardInterrupt as stop:  # the service removed the half-made review
            shown = for_terminal(name, keep_newlines=False)
            click.echo(
                f"stopped ({stop_name(stop)}): review {shown} was not made (the records read "
                "so far are in the store; running the command again makes the whole review)",
                err=True,
            )
            ctx.exit(stop_status(stop))
    for p in made.problems[:20]:
        click.echo(for_terminal(str(p), keep_newlines=False), err=True)
    if len(made.problems) > 20:
        click.echo(f"... and {len(made.problems) - 20} more bad entries", err=True)
    from litsift.service.review_marks import disagreement_lines

    for line in disagreement_lines(made.disagreements):  # the later copy won silently
        click.echo(for_terminal(line, keep_newlines=False), err=True)
    if made.reasons_left and not as_json:  # more reasons than keys 1-9 hold (JSON: listed)
        left = for_terminal("; ".join(made.reasons_left), keep_newlines=False)
        click.echo(f"exclusion reasons beyond the 9 kept (their decisions keep them): {left}; "
                   "merge reasons with litsift review reasons NAME ...", err=True)  # fmt: skip
    if as_json:
        echo_json(
            {
                "review": made.info.name,
                "prisma": made.prisma.to_json(),
                "priors": made.priors,
                "files": [{"file": f, "format": fmt, "read": n} for f, fmt, n in made.files],
                "bad": [str(p) for p in made.problems],
                "reasons_left": made.reasons_left,
                "disagreements": [
                    {
                        "id": d.doc_id,
                        "stage": d.stage,
                        "reviewer": d.reviewer,
                        "source": d.source,
                        "kept": d.kept[0],
                        "kept_reason": d.kept[1],
                        "copies": [{"file": f, "decision": v, "reason": r} for f, v, r in d.said],
                    }
                    for d in made.disagreements
                ],
            },
            indent=None,
        )
        if made.problems:
            ctx.exit(1)
        return
    c = made.prisma

    def n(count: int, noun: str, many: str = "") -> str:
        return f"{count:,} {noun if count == 1 else many or noun + 's'}"

    click.echo(
        f"review {for_terminal(made.info.name)}: {n(c.identified, 'record')} identified in "
        f"{n(len(made.files), 'file')}, {n(c.duplicates_removed, 'duplicate')} grouped, "
        f"{c.records:,} to screen"
        + (f", {n(made.priors, 'prior decision')}" if made.priors else "")
        # decisions the files carry as reviewers' votes (a Rayyan export, litsift's own RIS)
        + (
            f", {c.screened - made.priors:,} screened in the file"
            if c.screened > made.priors
            else ""
        )
        + (
            f", {n(len(made.problems), 'bad entry', 'bad entries')} skipped"
            if made.problems
            else ""
        )
    )
    click.echo(f"screen it: litsift review screen {shell_word(made.info.name)}")
    if made.problems:  # as litsift ingest: the good records are kept, the exit status says
        ctx.exit(1)


@review_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the reviews as JSON.")
@click.pass_context
@reports_errors
def review_list(ctx: click.Context, as_json: bool) -> None:
    """Every review with its records and decisions.

    \b
    Examples:
      litsift review list
      litsift review list --json
    """
    with open_service(ctx.obj["home"]) as svc:
        found = svc.reviews.all()
    if as_json:
        rows = [
            {"name": r.name, "records": r.records, "decided": r.decided, "created": r.created_at}
            for r in found
        ]
        echo_json(rows, indent=None)
        return
    if not found:
        click.echo("no reviews yet: litsift review new NAME --from FILE")
    for r in found:
        click.echo(
            f"{for_terminal(r.name, keep_newlines=False)}: {r.decided:,} of {r.records:,} "
            f"screened (created {r.created_at[:10]})"
        )


@review_group.command("export")
@click.argument("name")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "ris", "decisions"]),
    default="csv",
    show_default=True,
    help="decisions: every stage's decisions of the reviewers, for litsift review merge.",
)
@click.option(
    "--which",
    type=click.Choice(["all", "include", "exclude", "maybe", "unscreened", "conflict"]),
    default="all",
    show_default=True,
    help="the records of one final decision; conflict: those awaiting resolution.",
)
@STAGE_OPTION
@click.option("--reviewer", default=None, help="--format decisions: this reviewer's only.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.pass_context
@reports_errors
def review_export(
    ctx: click.Context,
    name: str,
    fmt: str,
    which: str,
    stage: str,
    reviewer: str | None,
    output: Path | None,
) -> None:
    """NAME's records of a stage with their decisions (CSV column / RIS LB), exclusion
    reasons (CSV column / RIS N1) and notes; or the reviewers' decisions for another
    reviewer's litsift review merge. A RIS export is a copy of the review: its TY says
    journal article (JOUR), conference paper (CONF) or unknown (GEN), and its N1 lines keep
    each stage's decision and reason, so litsift review new --from it restores them.

    \b
    Examples:
      litsift review export statins -o statins.csv
      litsift review export statins --format ris --which include -o included.ris
      litsift review export statins --stage fulltext -o fulltext.csv
      litsift review export statins --format decisions --reviewer alice -o alice.jsonl
    """
    from litsift.errors import ReviewError

    if reviewer is not None and fmt != "decisions":  # ignored, a csv was everyone's decisions
        raise ReviewError(
            f"--reviewer picks the decisions of a --format decisions export, not of a {fmt} one",
            f"litsift review export {shell_word(name)} --format decisions --reviewer "
            f"{shell_word(reviewer)}, or leave --reviewer out",
        )
    with open_service(ctx.obj["home"]) as svc:
        if fmt == "decisions":
            text = svc.reviews.export_decisions(name, reviewer)
        else:
            text = svc.reviews.export(name, fmt, which, stage)
    write_output(text, output, bom=fmt == "csv")  # Excel reads a CSV as UTF-8 only with it


@review_group.command("delete")
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Delete without asking (for scripts).")
@click.pass_context
@reports_errors
def review_delete(ctx: click.Context, name: str, yes: bool) -> None:
    """Drop review NAME and its decisions (its papers stay in the store). A review with
    decisions is deleted only once you answer y (or with --yes): its decisions cannot be
    brought back.

    \b
    Examples:
      litsift review delete statins
      litsift review export statins --format decisions -o statins.jsonl
      litsift review delete statins --yes
    """
    from litsift.errors import ReviewError

    with open_service(ctx.obj["home"]) as svc:
        info = svc.reviews.info(name)  # an unknown name is an error before any question
        shown = for_terminal(name, keep_newlines=False)
        if info.decided and not yes:
            what = f"review {shown} with {info.decided:,} of {info.records:,} records decided"
            try:
                sure = click.confirm(
                    f"Delete {what}? They cannot be brought back", default=False, err=True
                )
            except click.Abort:  # no answer (end of input): nothing is deleted
                sure = False
            if not sure:
                cmd, copy = shell_word(name), shell_word(f"{name}.ris")
                raise ReviewError(
                    f"not deleted: {what}",
                    f"keep a copy first: litsift review export {cmd} --format ris -o {copy}"
                    f" (litsift review new {cmd} --from {copy} brings its records, "
                    f"decisions and notes back); then litsift review delete {cmd} --yes",
                )
        svc.reviews.delete(name)
    click.echo(f"deleted review {shown}")


@review_group.command("screen")
@click.argument("name")
@STAGE_OPTION
@click.option("--reviewer", default="", help="Screen blind under this name (two reviewers).")
@click.pass_context
@reports_errors
def review_screen(ctx: click.Context, name: str, stage: str, reviewer: str) -> None:
    """Screen NAME in the TUI, one record at a time in the learning order (keys 1-9 exclude
    with the review's reasons).

    \b
    Examples:
      litsift review screen statins
      litsift review screen statins --reviewer alice
      litsift review screen statins --stage fulltext
    """
    from litsift.tui.app import create_screening_app

    svc = open_service(ctx.obj["home"])
    try:
        svc.reviews.info(name)  # an unknown name is told here, not in the TUI
        needs_a_terminal(f"litsift review merge {shell_word(name)} DECISIONS.jsonl")
    except BaseException:
        svc.close()
        raise
    run_app(create_screening_app(svc, name, stage=stage, reviewer=reviewer.strip()), svc)


@click.command("feed")
@click.argument("collection", required=False)
@click.option("-k", "--limit", type=click.IntRange(1), default=20, show_default=True)
@click.option(
    "--since",
    default=None,
    help="Rank papers synced after this ISO 8601 date or time instead (UTC unless it has an "
    "offset: 2024-05-01, 2024-05-01T09:30+02:00).",
)
@click.option("--keep-unseen", is_flag=True, help="Do not count this look as seen.")
@click.option("--json", "as_json", is_flag=True, help="Print the ranked papers as JSON.")
@click.pass_context
@reports_errors
def feed_cmd(
    ctx: click.Context,
    collection: str | None,
    limit: int,
    since: str | None,
    keep_unseen: bool,
    as_json: bool,
) -> None:
    """Papers `litsift sync` brought in since the last look, ranked by COLLECTION's papers
    (default: your kept papers) against your discarded ones.

    \b
    Examples:
      litsift feed                  # ranked by your kept papers
      litsift feed thesis -k 10     # ranked by the collection "thesis"
    """
    with open_service(ctx.obj["home"]) as svc:
        got = svc.reviews.feed(collection, since, mark_seen=not keep_unseen)
    top = got.papers[:limit]
    if as_json:
        out = {
            "feed": got.feed,
            "since": got.since,
            "new": len(got.papers),
            "model": got.model,
            "liked": got.liked,
            "disliked": got.disliked,
            "background": got.background,
            "papers": [{"id": p.id, "title": p.title, "year": p.year} for p in top],
        }
        echo_json(out, indent=None)
        return
    when = got.since[:16].replace("T", " ") if got.since else "the start"  # as the app says
    click.echo(
        f"{len(got.papers):,} new paper{'s' if len(got.papers) != 1 else ''} since {when}, "
        f"ranked by {got.model} ({got.liked:,} liked, {got.disliked:,} discarded, "
        f"{got.background:,} others as negatives)"
    )
    if not got.liked and got.papers:
        click.echo(
            "  hint: keep some papers (y in the TUI) or name a collection to rank by it", err=True
        )
    for i, p in enumerate(top, 1):
        title = for_terminal(p.title, keep_newlines=False)
        click.echo(f"{i:>3}. {title} ({p.year or 'n.d.'}) — {for_terminal(p.id)}")
