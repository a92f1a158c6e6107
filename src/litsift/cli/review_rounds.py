"""``litsift review show / reasons / criteria / prisma / curve``: a review's PRISMA counts per
stage with the reasons for exclusion, its criteria, the PRISMA 2020 flow diagram and the recall
curve (two reviewers' merge, conflicts and resolutions: :mod:`litsift.cli.review_team`). Added
to ``litsift review`` by :mod:`litsift.cli.root`."""

from __future__ import annotations

from pathlib import Path

import click

from litsift.cli.common import (
    STAGE_OPTION,
    comma_list,
    criteria_text,
    kappa_line,
    missing_folder,
    open_service,
    reports_errors,
    wrote_line,
)
from litsift.cli.output import echo_json
from litsift.errors import ReviewError
from litsift.text import for_terminal, shell_word

__all__ = ["ROUND_COMMANDS"]

#: a note's characters `review show` prints (the whole note: `review export`)
_NOTE_CHARS = 200
_LABELS = {
    "identified": "records identified",
    "duplicates_removed": "duplicates removed (grouped)",
    "records": "records to screen",
    "screened": "records screened",
    "excluded": "records excluded",
    "included": "records included",
    "maybe": "records marked maybe",
    "conflicts": "awaiting resolution (conflict)",
    "unscreened": "records not yet screened",
    "bad": "entries not readable",
    "sought": "reports sought (not excluded)",
    "pdfs": "reports with a PDF",
    "assessed": "reports assessed",
    "unassessed": "reports not yet assessed",
}


def _echo_reasons(reasons: dict[str, int], width: int = 30) -> None:
    for reason, n in reasons.items():
        label = for_terminal(reason or "no reason given", keep_newlines=False)
        click.echo(f"      {label:<{width - 4}} {n:>7,}")


@click.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the counts and groups as JSON.")
@click.pass_context
@reports_errors
def review_show(ctx: click.Context, name: str, as_json: bool) -> None:
    """NAME's criteria, reasons, PRISMA counts per stage (exclusions per reason), reviewers'
    agreement, their notes (a named reviewer's under their name) and groups of duplicates.

    \b
    Examples:
      litsift review show statins
      litsift review show statins --json
    """
    with open_service(ctx.obj["home"]) as svc:
        info = svc.reviews.info(name)
        counts = svc.reviews.prisma(name)
        groups = svc.reviews.duplicate_groups(name)
        reasons = svc.reviews.reasons(name)
        agree = {s: svc.reviews.agreement(name, s) for s in ("tiab", "fulltext")}
        notes = [(d, w, t) for d, by in svc.reviews.notes(name).items() for w, t in by.items()]
        judged = svc.reviews.verdicts(name)
    if as_json:
        out = {
            "review": info.name,
            "criteria": info.criteria,
            "keywords": list(info.keywords),
            "reasons": reasons,
            "prisma": counts.to_json(),
            "agreement": {s: [a.__dict__ for a in got] for s, got in agree.items()},
            "duplicate_groups": groups,
            "notes": [{"doc_id": d, "reviewer": w, "note": t} for d, w, t in notes],
            "verdicts": judged.to_json(),
        }
        echo_json(out, indent=None)
        return
    shown = for_terminal(info.name, keep_newlines=False)
    click.echo(f"review {shown} (created {info.created_at[:10]})")
    if info.criteria:
        click.echo(f"criteria: {for_terminal(info.criteria)}")
    if info.keywords:
        click.echo(f"keywords: {for_terminal(', '.join(info.keywords))}")
    if reasons:
        keyed = "; ".join(f"{i} {r}" for i, r in enumerate(reasons, 1))
        click.echo(f"exclusion reasons: {for_terminal(keyed, keep_newlines=False)}")
    c = counts.to_json()
    sources = {for_terminal(Path(f).name, keep_newlines=False): n for f, n in c["sources"].items()}
    reason_labels = [*c["reasons"], *c["fulltext"]["reasons"]]
    # one column for the counts, however long a file name or a reason is
    width = max(
        [
            30,
            *map(len, sources),
            *(4 + len(for_terminal(r, keep_newlines=False)) for r in reason_labels),
        ]
    )
    click.echo("identified per source:")
    for file, n in sources.items():
        click.echo(f"  {file:<{width}} {n:>7,}")
    click.echo("title/abstract:")
    for key in ("identified", "duplicates_removed", "records", "screened", "included",
                "excluded", "maybe", "conflicts", "unscreened", "bad"):  # fmt: skip
        click.echo(f"  {_LABELS[key]:<{width}} {c[key]:>7,}")
        if key == "excluded":
            _echo_reasons(c["reasons"], width)
    click.echo("full text:")
    full = c["fulltext"]
    for key in ("sought", "pdfs", "assessed", "included", "excluded", "maybe", "conflicts",
                "unassessed"):  # fmt: skip
        label = (
            _LABELS[key]
            if key in ("sought", "pdfs", "assessed", "unassessed")
            else (
                "studies included"
                if key == "included"
                else _LABELS[key].replace("records", "reports")
            )
        )
        click.echo(f"  {label:<{width}} {full[key]:>7,}")
        if key == "pdfs" and full.get("pdfs_here", full["pdfs"]) < full["pdfs"]:
            click.echo(f"    {'of them, the file on this machine':<{width - 2}} "
                       f"{full['pdfs_here']:>7,}")  # fmt: skip
        if key == "excluded":
            _echo_reasons(full["reasons"], width)
    for n, stage, opt in ((c["conflicts"], "title/abstract", ""),
                          (full["conflicts"], "full text", " --stage fulltext")):  # fmt: skip
        if n:  # screened, in no decision's count until a third decision settles them
            click.echo(f"{n:,} record{'' if n == 1 else 's'} awaiting resolution at {stage}: "
                       f"litsift review conflicts {shell_word(name)}{opt}")  # fmt: skip
    for stage, got in agree.items():
        for a in got:
            click.echo(f"agreement ({stage}): {kappa_line(a)}")
    for line in judged.lines(name):  # an LLM judge's verdicts (litsift review judge)
        click.echo(for_terminal(line, keep_newlines=False))
    if notes:  # every reviewer's, a named one's under their name
        click.echo(f"notes ({len(notes):,}; all: litsift review export {shell_word(name)}):")
        for d, w, t in notes[:50]:  # at most 3 lines of 80 columns each (a Scopus N1: 20 KB)
            t = t if len(t) <= _NOTE_CHARS else t[: _NOTE_CHARS - 2].rstrip() + " …"
            click.echo(for_terminal(f"  {d}  {w + ': ' if w else ''}{t}", keep_newlines=False))
    if groups:
        click.echo(f"groups of duplicates ({len(groups):,}):")
        for doc_id, where in list(groups.items())[:50]:
            click.echo(f"  {for_terminal(doc_id, keep_newlines=False)}:")
            for entry in where:
                click.echo(f"    {for_terminal(entry, keep_newlines=False)}")


@click.command("reasons")
@click.argument("name")
@click.argument("reasons", nargs=-1)
@click.option(
    "--clear", is_flag=True, help="Remove all the reasons (decisions keep theirs); no REASON."
)
@click.pass_context
@reports_errors
def review_reasons(ctx: click.Context, name: str, reasons: tuple[str, ...], clear: bool) -> None:
    """Set NAME's exclusion reasons (keys 1-9 while screening, at most 9), or show them.
    Each REASON is one reason or a comma list of them, as `review new --reasons` reads it:
    "wrong population,wrong design" is two reasons (a reason holds no comma). An empty
    REASON is refused: --clear removes them all.

    \b
    Examples:
      litsift review reasons statins "wrong population" "wrong design" "wrong outcome"
      litsift review reasons statins "wrong population,wrong design,wrong outcome"
      litsift review reasons statins
      litsift review reasons statins --clear
    """
    # one reading of a comma everywhere: `review new --reasons "a,b"` made two reasons and
    # `review reasons NAME "a,b"` one named "a,b"
    given = comma_list(reasons)
    with open_service(ctx.obj["home"]) as svc:
        got = svc.reviews.reasons(name)  # no such review: said first
        if reasons and (clear or not given):  # `reasons NAME ""` cleared the list unasked
            what = "--clear takes no REASON" if clear else "no exclusion reason given"
            raise ReviewError(
                f"{what}: {' '.join(shell_word(r) for r in reasons)}",
                f"set them: litsift review reasons {shell_word(name)} 'wrong population' "
                f"...; remove them all: litsift review reasons {shell_word(name)} --clear",
            )
        if reasons or clear:
            got = svc.reviews.set_reasons(name, given)
    if not got:
        cmd = f"litsift review reasons {shell_word(name)} 'wrong population' ..."
        click.echo(f"no exclusion reasons: {cmd}")
    for i, reason in enumerate(got, 1):
        click.echo(f"{i}  {for_terminal(reason, keep_newlines=False)}")


@click.command("criteria")
@click.argument("name")
@click.argument("criteria", required=False)
@click.option(
    "--keywords", multiple=True, help="Comma list (replaces the keywords; '' clears); repeatable."
)
@click.pass_context
@reports_errors
def review_criteria(
    ctx: click.Context, name: str, criteria: str | None, keywords: tuple[str, ...]
) -> None:
    """Set NAME's criteria (the review question, as text or @FILE) and keywords, or show them.

    The criteria order the records before the first decision, then stay a column of the
    learning order (once the records are embedded): the next `litsift review screen` reads
    them. '' clears.

    \b
    Examples:
      litsift review criteria statins "Statins for the primary prevention of heart disease"
      litsift review criteria statins @criteria.txt --keywords statin,LDL
      litsift review criteria statins
    """
    text = None if criteria is None else criteria_text(criteria)
    words = comma_list(keywords) if keywords else None
    with open_service(ctx.obj["home"]) as svc:
        if text is None and words is None:
            info = svc.reviews.info(name)
        else:
            info = svc.reviews.set_criteria(name, text, words)
    shown = (
        for_terminal(info.criteria, keep_newlines=False)
        or f"none: litsift review criteria {shell_word(name)} 'the review question'"
    )
    click.echo(f"criteria: {shown}")
    click.echo(f"keywords: {for_terminal(', '.join(info.keywords), keep_newlines=False) or 'none'}")


@click.command("prisma")
@click.argument("name")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="FILE.svg, .png or .pdf (default: NAME-prisma.svg).",
)  # fmt: skip
@click.pass_context
@reports_errors
def review_prisma(ctx: click.Context, name: str, output: Path | None) -> None:
    """Draw NAME's PRISMA 2020 flow diagram (needs matplotlib, the `plots` extra).

    \b
    Examples:
      litsift review prisma statins
      litsift review prisma statins -o prisma.png
    """
    target = output or Path(f"{name}-prisma.svg")
    made = missing_folder(target)  # made, as every -o does, and said
    with open_service(ctx.obj["home"]) as svc:
        svc.reviews.prisma_diagram(name, target)
    click.echo(wrote_line(target, made))


@click.command("curve")
@click.argument("name")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="FILE.svg, .png or .pdf (default: NAME-curve.svg).",
)  # fmt: skip
@STAGE_OPTION
@click.option("--reviewer", default=None, help="One reviewer's decisions (default: the final).")
@click.option("--json", "as_json", is_flag=True, help="Also print the plotted series as JSON.")
@click.pass_context
@reports_errors
def review_curve(
    ctx: click.Context,
    name: str,
    output: Path | None,
    stage: str,
    reviewer: str | None,
    as_json: bool,
) -> None:
    """Draw NAME's recall curve: includes found against records screened, in screening order
    (priors left out), with random order's line (needs matplotlib, the `plots` extra). The
    total of includes is unknown until every record is screened, so the counts are absolute.

    \b
    Examples:
      litsift review curve statins
      litsift review curve statins --stage fulltext -o fulltext-curve.png
    """
    target = output or Path(f"{name}-curve.svg")
    made = missing_folder(target)
    with open_service(ctx.obj["home"]) as svc:
        svc.reviews.recall_diagram(name, target, stage, reviewer)
        series = svc.reviews.recall_series(name, stage, reviewer) if as_json else None
    if series is not None:
        echo_json({"output": str(target), **series}, indent=None)
        return
    click.echo(wrote_line(target, made))


ROUND_COMMANDS = [
    review_show,
    review_criteria,
    review_reasons,
    review_prisma,
    review_curve,
]
