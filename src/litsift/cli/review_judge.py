"""``litsift review judge``: the configured LLM reads a review's undecided records against its
criteria; its verdicts are stored as they arrive, shown beside each record in ``review
screen`` and read by the learning order as one more column. Added to ``litsift review`` by
:mod:`litsift.cli.root`."""

from __future__ import annotations

import click

from litsift.cli.common import open_service, reports_errors, say_llm_waits
from litsift.cli.output import echo_json
from litsift.cli.terminal import stop_name, stop_status
from litsift.text import for_terminal, shell_word

__all__ = ["review_judge"]


def _counts(labels: dict[str, int]) -> str:
    return " · ".join(f"{k} {labels.get(k, 0):,}" for k in ("include", "unsure", "exclude"))


@click.command("judge")
@click.argument("name")
@click.option("--limit", type=click.IntRange(min=1), help="Judge at most N records (best first).")
@click.option("--again", is_flag=True, help="Judge records this model judged before as well.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@reports_errors
def review_judge(
    ctx: click.Context, name: str, limit: int | None, again: bool, as_json: bool
) -> None:
    """Ask the LLM ([llm] in config.toml) whether each record meets NAME's criteria.

    Each title and abstract is read against the review's criteria and keywords (`litsift
    review criteria`), 8 records per call: up to 50 records decided already first (the
    learning order weighs the verdicts by how they agree with your decisions), then the
    undecided ones, most likely includes first. The verdicts (include / unsure / exclude, with
    a reason) are not decisions: `review screen` shows each beside its record and the
    learning order reads them as one more column. Calls are cached; a stopped run keeps what
    was judged and the same command goes on where it stopped.

    \b
    Examples:
      litsift review judge statins
      litsift review judge statins --limit 200
    """
    with open_service(ctx.obj["home"]) as svc:
        say_llm_waits(svc)  # a rate limit's wait on stderr, as the progress lines

        def progress(report, total):  # type: ignore[no-untyped-def]
            if as_json:
                return
            done = report.judged + report.missing
            if not done:  # the first call may take a while: say what is under way
                model = for_terminal(report.model, keep_newlines=False)
                click.echo(f"  judging {total:,} records with {model}…", err=True)
                return
            click.echo(f"  judged {done:,} of {total:,}: {_counts(report.labels)}", err=True)

        try:
            report = svc.reviews.judge(name, limit=limit, again=again, progress=progress)
        except KeyboardInterrupt as stop:  # each call's verdicts are stored as they arrive
            click.echo(
                f"stopped ({stop_name(stop)}): the verdicts received before the stop are "
                f"stored; `litsift review judge {shell_word(name)}` goes on from there",
                err=True,
            )
            ctx.exit(stop_status(stop))
    stats = report.stats
    if as_json:
        out = {
            "review": name,
            "model": report.model,
            "judged": report.judged,
            "verdicts": {k: report.labels.get(k, 0) for k in ("include", "unsure", "exclude")},
            "skipped": report.skipped,
            "missing": report.missing,
            "cut": report.cut,
            "left": report.left,
            "calls": stats.calls if stats else 0,
            "cached_calls": stats.cached_calls if stats else 0,
            "error": report.error,
        }
        echo_json(out, indent=1)
    else:
        model = for_terminal(report.model, keep_newlines=False)
        click.echo(f"{report.judged:,} records judged by {model}: {_counts(report.labels)}")
        if report.skipped:
            click.echo(f"{report.skipped:,} judged before by this model (--again judges them anew)")
        if report.missing:
            click.echo(f"{report.missing:,} left out of the replies (the same command asks again)")
        if report.cut:
            click.echo(
                f"{report.cut:,} replies cut at the output limit: the records after the cut are "
                "among those left out (raise llm.max_tokens)"
            )
        if report.left:
            click.echo(f"{report.left:,} more records not judged (--limit)")
        if stats is not None and stats.calls:
            click.echo(f"{stats.calls:,} calls ({stats.cached_calls:,} from the cache)")
    if report.error:
        click.echo(for_terminal(report.error, keep_newlines=False), err=True)
        ctx.exit(1)
