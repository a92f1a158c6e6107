"""``litsift review merge / conflicts / resolve``: two (or more) reviewers' decisions merged
from files, the records they decided differently with their agreement (Cohen's kappa), and a
third decision that settles a conflict. Added to ``litsift review`` by
:mod:`litsift.cli.root`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from litsift.cli.common import STAGE_OPTION, kappa_line, open_service, reports_errors
from litsift.cli.output import echo_json
from litsift.text import for_terminal, shell_word
from litsift.types.reviews import STAGE_NAMES

__all__ = ["TEAM_COMMANDS"]

#: the overridden decisions `review merge` names one by one (the rest are counted)
_NAMED = 10


def _echo_overrides(replaced: list[dict[str, Any]], older: list[dict[str, Any]]) -> None:
    """Name the decisions a merge changed: a reviewer's decision here that a newer one of a
    file replaced, and a file's decision left out because its reviewer's here is newer (the
    newest decision of each reviewer counts; neither is a conflict, so say them)."""

    def line(d: dict[str, Any], what: str) -> str:
        who = for_terminal(d["reviewer"], keep_newlines=False)
        stage = STAGE_NAMES.get(d["stage"], d["stage"])
        text = what.format(here=d["here"], file=d["file"], at=d["file_decided_at"])
        where = for_terminal(d["where"], keep_newlines=False)
        return f"  {for_terminal(d['doc_id'])} ({who}, {stage}): {for_terminal(text)} [{where}]"

    for items, head, what in (
        (replaced, "replaced by a newer decision of the same reviewer", "{here} -> {file}"),
        (older, "not merged: the reviewer's decision here is newer",
         "kept {here}; the file's {file} of {at} is older"),
    ):  # fmt: skip
        if not items:
            continue
        click.echo(f"{len(items):,} decision{'' if len(items) == 1 else 's'} {head}:")
        for d in items[:_NAMED]:
            click.echo(line(d, what))
        if len(items) > _NAMED:
            click.echo(
                f"  ... and {len(items) - _NAMED:,} more (review merge --json lists them all)"
            )


@click.command("merge")
@click.argument("name")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--reviewer", default="",
    help="Whose are the files' decisions that carry no reviewer's name (default: NAME's own, "
    "as a backup of a single reviewer's).",
)  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print what was merged as JSON.")
@click.pass_context
@reports_errors
def review_merge(
    ctx: click.Context, name: str, files: tuple[Path, ...], reviewer: str, as_json: bool
) -> None:
    """Merge reviewers' decisions (files of `litsift review export --format decisions`) into
    NAME; merging a file twice adds nothing. Decisions made without --reviewer are NAME's own
    (a backup comes back), or --reviewer's. Each reviewer's newest decision counts: the ones a
    merge replaced, or left out as older, are named.

    \b
    Examples:
      litsift review merge statins bob.jsonl
      litsift review merge statins alice.jsonl bob.jsonl
      litsift review merge statins statins-backup.jsonl
      litsift review merge statins carol.jsonl --reviewer carol
    """
    with open_service(ctx.obj["home"]) as svc:
        got = svc.reviews.merge(name, list(files), reviewer.strip())
        tiab, full = (len(svc.reviews.conflicts(name, s)) for s in ("tiab", "fulltext"))
    if as_json:
        echo_json({**got, "conflicts": {"tiab": tiab, "fulltext": full}}, indent=None)  # fmt: skip
        ctx.exit(1 if got["bad"] else 0)
    bad, shown = got["bad"], for_terminal(name, keep_newlines=False)
    skipped = f", {len(bad):,} rows skipped" if bad else ""
    # each stage's conflicts with the command that lists them (one sum named only the first)
    cmd = shell_word(name)
    where = [f"{n:,} at {what}: litsift review conflicts {cmd}{opt}"
             for n, what, opt in ((tiab, "title/abstract", ""),
                                  (full, "full text", " --stage fulltext")) if n]  # fmt: skip
    click.echo(
        f"merged {got['added']:,} decisions ({got['known']:,} already here, "
        f"{got['unmatched']:,} of records not in the review{skipped}); "
        + (f"conflicts {'; '.join(where)}" if where else "no conflict")
    )
    if reviewer.strip() and not got["nameless"]:  # it said nothing: the option did nothing
        who = for_terminal(reviewer.strip(), keep_newlines=False)
        click.echo(
            f"  note: --reviewer {who} named no decision: each decision of the files carries "
            "its reviewer's name, and was merged as theirs",
            err=True,
        )
    for path, theirs in got["other_reviews"].items():  # a wrong file, or a copy's original
        click.echo(
            f"  note: {for_terminal(path, keep_newlines=False)} was exported from review "
            f"{for_terminal(repr(theirs), keep_newlines=False)}, not {shown!r}; its decisions "
            f"were matched to {shown}'s records by id or DOI",
            err=True,
        )
    if got["new_reasons"]:
        keys = for_terminal(", ".join(repr(r) for r in got["new_reasons"]), keep_newlines=False)
        click.echo(f"exclusion reasons the merged decisions gave, added to the review's: {keys}")
    if got["reasons_over"]:
        over = for_terminal(", ".join(repr(r) for r in got["reasons_over"]), keep_newlines=False)
        click.echo(
            f"  hint: reasons beyond the 9 keys, kept with their decisions: {over}; "
            f"litsift review reasons {cmd} ... sets the list",
            err=True,
        )
    if got["notes"]:
        whose = "a record's note" if got["notes"] == 1 else f"{got['notes']:,} records' notes"
        click.echo(f"{whose} merged (each under its reviewer's name)")
    if got["unnamed"]:
        click.echo(
            f"{got['unnamed']:,} of them without a reviewer's name: merged as {shown}'s own "
            "decisions (--reviewer NAME merges such decisions as NAME's)"
        )
    _echo_overrides(got["replaced"], got["older"])
    for why in bad[:20]:
        click.echo(f"  skipped {for_terminal(why, keep_newlines=False)}", err=True)
    if len(bad) > 20:
        click.echo(f"  ... and {len(bad) - 20:,} more", err=True)
    if got["differs"]:
        click.echo(
            f"  hint: {got['differs']:,} decisions without a reviewer's name differ from "
            f"{shown}'s own; to merge them as another reviewer's (their records then in "
            f"conflict): litsift review merge {cmd} FILE --reviewer NAME",
            err=True,
        )
    if bad:  # as litsift ingest: the good rows are kept, the exit status says some were not
        ctx.exit(1)


@click.command("conflicts")
@click.argument("name")
@STAGE_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the conflicts as JSON.")
@click.pass_context
@reports_errors
def review_conflicts(ctx: click.Context, name: str, stage: str, as_json: bool) -> None:
    """The records NAME's reviewers decided differently, and their agreement (Cohen's kappa).

    \b
    Examples:
      litsift review conflicts statins
      litsift review conflicts statins --stage fulltext --json
    """
    with open_service(ctx.obj["home"]) as svc:
        found = svc.reviews.conflicts(name, stage)
        agree = svc.reviews.agreement(name, stage)
    if as_json:
        out = {
            "stage": stage,
            "conflicts": [c.__dict__ for c in found],
            "agreement": [a.__dict__ for a in agree],
        }
        echo_json(out, indent=None)
        return
    for a in agree:
        click.echo(kappa_line(a))
    n = len(found)
    click.echo(f"{n:,} conflict{'' if n == 1 else 's'} at {STAGE_NAMES.get(stage, stage)}")
    for c in found:
        votes = ", ".join(
            f"{for_terminal(who or '(unnamed)', keep_newlines=False)} {v}"
            + (f" ({for_terminal(why, keep_newlines=False)})" if why else "")
            for who, (v, why) in c.votes.items()
        )
        click.echo(f"  {for_terminal(c.doc_id)}  {for_terminal(c.title[:70], keep_newlines=False)}")
        click.echo(f"    {votes}")
    if found:
        # the decision's values and options, and the stage where it is not the default (the
        # hint said "ID include|exclude" at full text, where that resolves nothing)
        at = " --stage fulltext" if stage == "fulltext" else ""
        click.echo(
            f"resolve one: litsift review resolve {shell_word(name)} ID include|exclude|maybe"
            f"{at} [--reason REASON] [--reviewer NAME]"
        )


@click.command("resolve")
@click.argument("name")
@click.argument("doc_id")
@click.argument("decision", type=click.Choice(["include", "exclude", "maybe"]))
@click.option("--reason", default="", help="The exclusion reason of an exclude.")
@click.option("--reviewer", default="", help="Who resolves (a third reviewer; see --agreed).")
@click.option(
    "--agreed",
    is_flag=True,
    help="The reviewers in conflict settled it by discussion: --reviewer may be one of them.",
)
@STAGE_OPTION
@click.pass_context
@reports_errors
def review_resolve(
    ctx: click.Context,
    name: str,
    doc_id: str,
    decision: str,
    reason: str,
    reviewer: str,
    agreed: bool,
    stage: str,
) -> None:
    """Settle a conflict of NAME on record DOC_ID with a third decision (a record in
    conflict only; --reason: one of NAME's exclusion reasons, or its key 1-9). As in dual
    screening, a third reviewer settles it, or the two by discussion: a --reviewer who is
    one of those in conflict is refused unless --agreed says they agreed.

    \b
    Examples:
      litsift review resolve statins doi:10.1056/nejmoa1410489 include --reviewer carol
      litsift review resolve statins pmid:123456 exclude --reason "wrong design"
      litsift review resolve statins pmid:123456 include --reviewer alice --agreed
    """
    with open_service(ctx.obj["home"]) as svc:
        doc_id = svc.reviews.resolve(name, doc_id, decision, reason, stage, reviewer, agreed)
        left = len(svc.reviews.conflicts(name, stage))
    plural = "conflict" if left == 1 else "conflicts"
    at = STAGE_NAMES.get(stage, stage)
    click.echo(f"{for_terminal(doc_id)}: {decision} at {at}; {left:,} {plural} left")


TEAM_COMMANDS = [review_merge, review_conflicts, review_resolve]
