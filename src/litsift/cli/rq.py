"""``litsift rq``: research questions (problem + method) -- extract, show, find similar -- and
the table of ``litsift eval paperrq``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from litsift.cli.common import OneValueGroup, open_service, reports_errors, say_llm_waits
from litsift.cli.output import echo_json
from litsift.cli.progress import progress_bar
from litsift.cli.terminal import finishes_its_work
from litsift.text import for_terminal

if TYPE_CHECKING:
    from litsift.rq.evaluate import PaperRQReport
    from litsift.rq.search import Field


@click.group("rq", cls=OneValueGroup)
def rq_group() -> None:
    """Research questions: each paper's PROBLEM and METHOD ("Can P be solved by M?").

    \b
    Examples:
      litsift rq extract
      litsift rq similar acl2021:2021.acl-long.24 --same method
    """


@rq_group.command("extract")
@click.option("--limit", type=click.IntRange(1), default=None, help="At most N papers.")
@click.option("--years", default="", help="Only papers in FROM:TO, e.g. 2018:2020.")
@click.option("--llm", "use_llm", is_flag=True, help="Extract with the configured LLM endpoint.")
@click.option("--replace", is_flag=True, help="Redo extracted papers too (yours are kept).")
@click.option("--id", "doc_ids", multiple=True, help="Only this paper (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@reports_errors
@finishes_its_work
def rq_extract(
    ctx: click.Context,
    limit: int | None,
    years: str,
    use_llm: bool,
    replace: bool,
    doc_ids: tuple[str, ...],
    as_json: bool,
) -> None:
    """Fill the problem and method of papers that lack them: offline by default (sentences of
    the abstract picked by the encoder and cue phrases), or with --llm. Both are shown as
    unverified, with how they were made.

    \b
    Examples:
      litsift rq extract                          # every paper without one, offline
      litsift rq extract --years 2020:2022 --limit 500
      litsift rq extract --llm --id acl2021:2021.acl-long.24
    """
    from litsift.types import YearRange

    with open_service(ctx.obj["home"]) as svc, progress_bar(not as_json) as bar:
        if use_llm:  # a retry's wait on stderr: the run is not stuck
            say_llm_waits(svc)
        report = svc.rq.extract(
            use_llm=use_llm,
            limit=limit,
            years=YearRange.parse(years),
            doc_ids=list(doc_ids) or None,
            replace=replace,
            progress=bar,
        )
    stop = report.stopped
    if as_json:
        echo_json(
            {
                "method": report.method,
                "papers": report.papers,
                "filled": report.filled,
                "empty": report.empty,
                "failed": [{"id": d, "error": e} for d, e in report.failed],
                "stopped": None if stop is None else {"error": stop[0], "hint": stop[1]},
                "not_tried": report.not_tried,
                "seconds": round(report.seconds, 3),
                "papers_per_s": round(report.papers_per_s, 1),
            },
            indent=None,
        )
    else:
        click.echo(report.summary())
        said = [(d, e) for d, e in report.failed if stop is None or not e.startswith(stop[0])]
        for doc_id, error in said[:10]:
            click.echo(f"  {for_terminal(doc_id)}: {for_terminal(error)}", err=True)
    if stop is not None:  # the endpoint failed: error + hint, exit 1 (what was done is kept)
        from litsift.errors import LLMError

        again = "; run the same command again to go on from there" if report.not_tried else ""
        raise LLMError(stop[0], (stop[1] or "check the [llm] endpoint") + again)


@rq_group.command("show")
@click.argument("doc_id")
@click.pass_context
@reports_errors
def rq_show(ctx: click.Context, doc_id: str) -> None:
    """Show a paper's problem and method and how they were made.

    \b
    Example:
      litsift rq show acl2021:2021.acl-long.24
    """
    from litsift.errors import QueryError
    from litsift.types import Kind, Paper

    with open_service(ctx.obj["home"]) as svc:
        paper = svc.get(Kind.PAPER, doc_id)
        if not isinstance(paper, Paper):
            raise QueryError(f"no paper with id {doc_id!r}", "check the id: litsift search")
        info = svc.rq.info([doc_id]).get(doc_id)
    click.echo(for_terminal(paper.title, keep_newlines=False))
    click.echo(f"problem: {for_terminal(paper.problem or '—', keep_newlines=False)}")
    click.echo(f"method:  {for_terminal(paper.method or '—', keep_newlines=False)}")
    click.echo(f"made by: {info.label if info else 'nobody yet (litsift rq extract)'}")


@rq_group.command("similar")
@click.argument("doc_id")
@click.option(
    "--same",
    type=click.Choice(["problem", "method"]),
    default="problem",
    help="problem: same problem, other methods; method: same method, other problems.",
)
@click.option("-k", default=10, type=click.IntRange(1, 1000))
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@reports_errors
def rq_similar(ctx: click.Context, doc_id: str, same: str, k: int, as_json: bool) -> None:
    """Papers with the same problem (or method) as DOC_ID, ranked by BM25 on that field.

    \b
    Examples:
      litsift rq similar acl2021:2021.acl-long.24
      litsift rq similar acl2021:2021.acl-long.24 --same method -k 20
    """
    field: Field = "problem" if same == "problem" else "method"
    with open_service(ctx.obj["home"]) as svc:
        result = svc.rq.similar(doc_id, field, k)
    other = "method" if field == "problem" else "problem"
    rows: list[dict[str, Any]] = [
        {
            "rank": h.rank,
            "id": h.docid,
            "score": round(h.score, 4),
            "title": getattr(h.record, "title", ""),
            field: getattr(h.record, field),
            other: getattr(h.record, other),
        }
        for h in result.hits
    ]
    if as_json:
        echo_json({"query": result.query.text, "hits": rows}, indent=None)
        return
    for r in rows:
        click.echo(f"{r['rank']:3d}. {for_terminal(r['title'], keep_newlines=False)}")
        click.echo(f"     {other}: {for_terminal(r[other] or '—', keep_newlines=False)}")
    if result.partial:
        click.echo(f"note: {result.partial}", err=True)


def print_paperrq(report: PaperRQReport) -> None:
    """The two tables of ``litsift eval paperrq`` (see :mod:`litsift.rq.evaluate`)."""
    from litsift.rq.evaluate import PUBLISHED_JUDGES

    click.echo(
        f"PaperRQ: {report.n_rqs} rated research questions of {report.n_papers} papers\n"
        "\n(a) automatic RQ scores vs annotators: Spearman rho / Kendall tau (p of rho)"
    )
    click.echo(f"{'scorer':48s} {'problem':>22s} {'method':>22s} {'format':>22s}")

    def cell(v: tuple[float, float, float, float] | None) -> str:
        return f"{v[0]:+.3f} / {v[2]:+.3f} (p {v[1]:.3f})" if v else "—"

    for name, by_dim in report.correlation.items():
        cells = [cell(by_dim.get(d)) for d in ("problem", "method", "format")]
        click.echo(f"{name:48s} {cells[0]:>22s} {cells[1]:>22s} {cells[2]:>22s}")
    pub = [
        f"{PUBLISHED_JUDGES[d][0]:+.3f} / {PUBLISHED_JUDGES[d][1]:+.3f}"
        for d in ("problem", "method", "format")
    ]
    click.echo(
        f"{'study: best LLM judge (gpt-4o) [published]':48s} {pub[0]:>22s} {pub[1]:>22s} "
        f"{pub[2]:>22s}"
    )
    click.echo(
        f"\n(b) closeness to the {report.n_gold_rqs} RQs annotators rated 2/2 "
        f"({report.n_gold_papers} papers): best match per paper, mean"
    )
    click.echo(f"{'extraction':48s} {'cosine':>8s} {'term F1':>8s} {'papers':>7s}")
    for name, (cos, f1, n) in report.closeness.items():
        click.echo(f"{name:48s} {cos:8.3f} {f1:8.3f} {n:7d}")
    abs_rate, intro_rate = report.papers_per_s
    click.echo(
        f"\noffline extraction: {abs_rate:,.0f} papers/s from abstracts, {intro_rate:,.0f} with "
        "introductions (sentences embedded here; with sentences stored by `litsift index`, "
        "faster)"
    )
    click.echo(
        "note: the offline extractor's constants were set on the 2/2 papers of (b): a "
        "development figure, not a held-out one"
    )
    for note in report.notes:
        click.echo(f"note: {note}")


def run_paperrq(data_dir: Path | None, home: str | None, use_llm: bool, as_json: bool) -> None:
    """Load PaperRQ, run the evaluation (with the configured LLM when ``use_llm``), print."""
    from litsift.eval.cli_support import default_data_dir
    from litsift.rq.evaluate import load_paperrq

    path = (data_dir or default_data_dir()) / "eval" / "paperrq" / "dataset.csv"
    if not path.is_file():
        from litsift.errors import LitsiftError

        raise LitsiftError(
            f"no PaperRQ data at {path}",
            "pass --data with the shared data dir, the one holding eval/paperrq/dataset.csv "
            "(or set LITSIFT_EVAL_DATA)",
        )
    rows = load_paperrq(path)
    with open_service(home) as svc:
        report = svc.rq.evaluate_paperrq(rows, use_llm=use_llm)
    if as_json:
        echo_json(report.to_json())
    else:
        print_paperrq(report)
