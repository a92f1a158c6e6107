"""``litsift eval``: ranking measured with each benchmark's protocol (never the user's store)."""

from __future__ import annotations

from pathlib import Path

import click

from litsift.cli.common import open_service, reports_errors
from litsift.cli.output import echo_json
from litsift.cli.progress import progress_bar

_RANKING = ("datafinder", "scifact", "doris-mae-dev", "beir", "trec")
_REVIEWS = ("screening", "snowball")
#: the benchmarks each option is read by (parameter name: benchmarks); one given to another
#: benchmark is refused: `eval paperrq --limit 1` ran all 93 papers, saying nothing
_READ_BY: dict[str, tuple[str, ...]] = {
    "data_dir": (*_RANKING[:3], "paperrq", *_REVIEWS),
    "corpus": ("beir", "trec"),
    "queries": ("beir", "trec"),
    "qrels": ("beir", "trec"),
    "measures_given": ("beir", "trec"),
    "systems_given": (*_RANKING, *_REVIEWS),
    "sets_given": _REVIEWS,
    "seeds": _REVIEWS,
    "limit": _RANKING,
    "query_field": ("datafinder",),
    "eval_home": _RANKING,
    "runs_dir": _RANKING,
    "half": _RANKING,
    "use_llm": ("paperrq", "screening"),
    "engine": _RANKING,
    "plot_dir": ("screening",),
    "criteria_file": ("screening",),
}


def _refuse_unread_options(ctx: click.Context, benchmark: str) -> None:
    """Raise for an option given on the command line that ``benchmark`` does not read."""
    from click.core import ParameterSource

    from litsift.errors import LitsiftError

    for param in ctx.command.params:
        read_by = _READ_BY.get(param.name or "")
        if read_by is None or benchmark in read_by:
            continue
        if ctx.get_parameter_source(param.name or "") is not ParameterSource.COMMANDLINE:
            continue
        flag = max(param.opts, key=len)
        names = ", ".join(read_by)
        raise LitsiftError(
            f"{flag} does nothing in eval {benchmark}",
            f"drop it; {flag} is read by eval {names}",
        )


@click.command("eval")
@click.argument(
    "benchmark",
    type=click.Choice(
        [
            "datafinder",
            "scifact",
            "doris-mae-dev",
            "beir",
            "trec",
            "paperrq",
            "screening",
            "snowball",
        ]
    ),
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
@click.option(
    "--measures",
    "measures_given",
    multiple=True,
    help="ir-measures names, e.g. nDCG@10,R@100,RR@10; repeatable.",
)
@click.option(
    "--systems",
    "systems_given",
    multiple=True,
    help="Comma list (repeatable) of bm25,dense,hybrid,bm25s,aspects (default: all but aspects); "
    "screening: litsift (the default order, with citations where the set has references), "
    "litsift-text (without), asreview or an order (tfidf-svm, dense-svm, tfidf+dense); "
    "snowball: the learning order (default: the app's, tfidf-stem+bge-0.5-nn0.3-lp0.3).",
)
@click.option(
    "--sets",
    "sets_given",
    multiple=True,
    help="screening: comma list (repeatable) of review sets (default: all).",
)
@click.option(
    "--seeds",
    type=click.IntRange(1),
    default=5,
    help="screening, snowball: runs per set (seeds 0..N-1).",
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
@click.option(
    "--llm",
    "use_llm",
    is_flag=True,
    help="paperrq: also extract with the configured LLM; screening: litsift also reads its "
    "verdicts on every record (review judge; needs --criteria; calls are cached).",
)
@click.option(
    "--engine",
    type=click.Choice(["local", "milvus"]),
    default=None,
    help="Where BM25 + dense run (milvus: a Milvus Lite file in the benchmark's home).",
)
@click.option(
    "--plot",
    "plot_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="screening: draw each set's recall curves to DIR/SET.svg, .png and .json "
    "(needs matplotlib, the `plots` extra).",
)
@click.option(
    "--criteria",
    "criteria_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="screening: a JSON file {SET: the review's question or criteria} that litsift's "
    "order reads, as a reviewer gives them to review new --criteria (ASReview does not); "
    "benchmarks/screening_criteria.json has the 12 shared reviews' titles.",
)
@click.option("--json", "as_json", is_flag=True, help="Print every system's measures as JSON.")
@click.pass_context
@reports_errors
def eval_cmd(
    ctx: click.Context,
    benchmark: str,
    data_dir: Path | None,
    corpus: Path | None,
    queries: Path | None,
    qrels: Path | None,
    measures_given: tuple[str, ...],
    systems_given: tuple[str, ...],
    limit: int | None,
    query_field: str,
    eval_home: Path | None,
    runs_dir: Path | None,
    half: str | None,
    sets_given: tuple[str, ...],
    seeds: int,
    use_llm: bool,
    engine: str | None,
    plot_dir: Path | None,
    criteria_file: Path | None,
    as_json: bool,
) -> None:
    """Evaluate ranking on BENCHMARK with its paper's protocol (never touches your store).

    paperrq evaluates research-question extraction instead (PaperRQ annotations); screening
    simulates active-learning screening of labelled reviews (litsift vs ASReview); snowball
    follows references and citing papers from a few included records of the reviews that carry
    references, and screens with and without the citation signal.

    \b
    Examples:
      litsift eval scifact
      litsift eval datafinder --half heldout --systems bm25,dense,hybrid
      litsift eval screening --seeds 5 --systems litsift,litsift-text --json
      litsift eval screening --sets Donners_2021 --seeds 2 --plot curves/
      litsift eval screening --criteria benchmarks/screening_criteria.json
      litsift eval screening --criteria benchmarks/screening_criteria.json --llm
    """
    from litsift.eval.cli_support import format_table, report_to_json, run_benchmark

    _refuse_unread_options(ctx, benchmark)
    # given once per item or as comma lists (click kept only the last of a repeated option)
    measures, systems, sets = (
        ",".join(given) or None for given in (measures_given, systems_given, sets_given)
    )
    if benchmark == "paperrq":
        from litsift.cli.rq import run_paperrq

        run_paperrq(data_dir, ctx.obj["home"] if ctx.obj else None, use_llm, as_json)
        return
    if benchmark == "screening":
        if use_llm and criteria_file is None:
            raise click.UsageError("--llm judges the records against --criteria: give both")
        home = ctx.obj["home"] if ctx.obj else None
        _screening(data_dir, sets, seeds, systems, as_json, plot_dir, criteria_file, use_llm, home)
        return
    if benchmark == "snowball":
        _snowball(data_dir, sets, seeds, systems, as_json)
        return

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
            engine=engine,
        )
    if as_json:
        echo_json(report_to_json(report))
    else:
        click.echo(format_table(report))


def _screening(
    data_dir: Path | None,
    sets: str | None,
    seeds: int,
    systems: str | None,
    as_json: bool,
    plot_dir: Path | None = None,
    criteria_file: Path | None = None,
    use_llm: bool = False,
    home: str | None = None,
) -> None:
    from contextlib import ExitStack

    from litsift.eval import screening
    from litsift.eval.cli_support import default_data_dir, split_list
    from litsift.review.data import load_criteria

    criteria = load_criteria(criteria_file) if criteria_file is not None else None

    if plot_dir is not None:  # matplotlib is there before the simulations start
        from litsift.review.prisma_diagram import pyplot

        pyplot(plot_dir / "check.svg", "eval screening --plot")

    with ExitStack() as stack:
        bar = stack.enter_context(progress_bar(not as_json))
        judge = None
        if use_llm:  # the home's [llm] endpoint and LLM cache
            from litsift.eval.screening_judge import LLMSetJudge

            client = stack.enter_context(open_service(home)).llm_client()
            judge = (client.settings.model, LLMSetJudge(client, bar))
        report = screening.run_screening(
            data_dir or default_data_dir(),
            split_list(sets),
            seeds,
            split_list(systems),
            progress=bar,
            criteria=criteria,
            judge=judge,
        )
    data = screening.report_to_json(report)
    if judge is not None and (said := judge[1].note()):
        data["notes"].append(said)
    if plot_dir is not None:
        from litsift.review.recall_plots import draw_simulation_curves

        data["plots"] = {
            name: [str(p) for p in draw_simulation_curves(name, runs, plot_dir)]
            for name in report.sets
            if (runs := [r for r in report.runs if r.review_set == name])
        }
    if as_json:
        echo_json(data)
    else:
        click.echo(screening.format_table(data))
    if plot_dir is not None and not as_json:
        for files in data["plots"].values():
            click.echo(f"wrote {', '.join(files)}")


def _snowball(
    data_dir: Path | None, sets: str | None, seeds: int, order: str | None, as_json: bool
) -> None:
    from litsift.eval import snowball
    from litsift.eval.cli_support import default_data_dir, split_list
    from litsift.review.learner import DEFAULT_ORDER

    with progress_bar(not as_json) as bar:
        report = snowball.run_snowball(
            data_dir or default_data_dir(),
            split_list(sets),
            seeds,
            order or DEFAULT_ORDER,
            progress=bar,
        )
    data = snowball.report_to_json(report)
    if as_json:
        echo_json(data)
    else:
        click.echo(snowball.format_table(data))
