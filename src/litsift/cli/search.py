"""Command line: ``litsift index``, ``search`` and ``answer`` (registered on
:func:`litsift.cli.root.main`), and the index building that ``litsift demo`` shares."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from litsift.cli.common import kind_named, open_service, query_words, reports_errors
from litsift.cli.progress import progress_bar
from litsift.cli.terminal import (
    finishes_its_work,
    index_stopped,
    stop_name,
    stop_status,
    writes_unicode,
)
from litsift.errors import LitsiftError
from litsift.text import for_terminal
from litsift.types import FUSIONS

if TYPE_CHECKING:
    from litsift.service.facade import IndexReport, LitsiftService
    from litsift.types import Kind

__all__ = ["answer", "index", "index_kinds", "ingest_and_report", "search"]

#: how a build's summary names what changed in the store while it ran
LATE = " changed during the build are not indexed yet (run `litsift index` again)"
#: what ``litsift index`` says of a kind the store has none of, with how to add some
NOTHING = (
    "{0}: nothing to index: ingest some first: litsift ingest {0} PATH "
    "(`litsift formats` lists what it reads)"
)


def ingest_and_report(svc: LitsiftService, kind: Kind, path: Path, quiet: bool) -> bool:
    with progress_bar(not quiet) as bar:
        report = svc.ingest(kind, path, progress=bar)
    for bad in report.bad[:20]:  # a reason may quote the file's bytes: never raw to a terminal
        reason = for_terminal(bad.reason, keep_newlines=False)
        click.echo(f"{for_terminal(str(path))}:{bad.line_no}: {reason}", err=True)
    if len(report.bad) > 20:
        click.echo(f"... and {len(report.bad) - 20} more bad lines", err=True)
    click.echo(report.summary())
    return report.ok


def index_kinds(
    svc: LitsiftService,
    kinds: list[Kind],
    rebuild: bool,
    quiet: bool,
    check: bool = False,
    dense: bool = True,
    seen: dict[str, tuple[str, int, int]] | None = None,
) -> bool:
    """Build each kind's index: BM25 first (reported as searchable), then, with ``dense``, the
    dense part with its progress. ``seen`` (when given) gets each kind's last
    ``(stage, done, total)``, for the message of an interrupted build. With ``check`` on a
    read-only home every index is checked without writing and nothing is built. Returns
    False when such a check found damage."""
    seen = {} if seen is None else seen
    read_only = svc.read_only_reason if check else None
    intact = True
    for k in kinds:
        if svc.counts()[k] == 0:
            click.echo(NOTHING.format(k.table))
            continue
        if check:  # damaged parts are marked in the manifest; the build below rebuilds them
            damage = svc.check_index(k, mark=read_only is None)
            for part, why in damage.items():
                click.echo(f"{k.table}: damaged {part}: {for_terminal(why)}", err=True)
            if not damage:
                click.echo(f"{k.table}: every index file matches its checksum")
            intact = intact and not (damage and read_only)  # a writable home repairs it
        if read_only is not None:  # checked as it is; nothing can be rebuilt here
            if k.value == "paper" and svc.has_passages():
                hurt = svc.check_passages()
                intact = intact and hurt is None
                click.echo(
                    f"full text: damaged: {for_terminal(hurt)}"
                    if hurt
                    else "full text: every index file matches its checksum",
                    err=hurt is not None,
                )
            continue

        with progress_bar(not quiet) as bar:
            say = getattr(bar, "say", click.echo)  # under the BM25 bar, above the dense ones

            def bm25_ready(report: IndexReport, k: Kind = k, say: Any = say) -> None:
                then = (
                    "; the dense index is embedded next (Ctrl-C stops it and keeps what is "
                    "embedded; the next `litsift index` goes on from there)"
                    if dense
                    else ""
                )
                seen[k.table] = ("dense", 0, 0)  # a stop from here on leaves BM25 published
                say(f"{k.table}: BM25 ready, searchable now ({report.summary()}){then}")

            def tracked(stage: str, done: int, total: int, k: Kind = k, bar: Any = bar) -> None:
                seen[k.table] = (stage, done, total)
                bar(stage, done, total)

            report = svc.build_index(
                k, rebuild=rebuild, progress=tracked, dense=dense, on_bm25=bm25_ready
            )
        if dense:
            click.echo(f"{k.table}: {report.summary()}")
            if svc.embedding_note is not None:  # slower, still complete: said, not hidden
                click.echo(f"note: embedded in {for_terminal(svc.embedding_note)}", err=True)
            with progress_bar(not quiet) as bar:

                def tracked_sentences(stage: str, done: int, total: int, k: Kind = k) -> None:
                    seen[k.table] = ("sentences", done, total)
                    bar(stage, done, total)

                done = svc.build_sentences(k, progress=tracked_sentences)
            repaired = svc.sentences_repaired()
            if repaired is not None:
                click.echo(f"repaired aspect sentences: {for_terminal(repaired)}", err=True)
            _say_sentences(svc, k, *done, behind=getattr(done, "behind", 0))
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
                        + (f"; {built.behind:,} papers{LATE}" if built.behind else "")
                    )
        late = svc.rows_behind(k)  # ingested during a later phase (sentences, full text)
        if late > report.behind:
            click.echo(f"{k.table}: {late:,} rows{LATE}")
    if read_only is not None:
        click.echo(f"note: {for_terminal(read_only)}; checked, nothing rebuilt", err=True)
    return intact


ENGINE_OPTION = click.option(
    "--engine",
    type=click.Choice(["local", "milvus"]),
    default=None,
    help="Where BM25 + dense run; default: [engine] kind in config.toml.",
)


@click.command("index")
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
@finishes_its_work
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

    \b
    Examples:
      litsift index                 # papers and datasets: new and changed rows
      litsift index papers --check  # verify every checksum, rebuild damaged parts
      litsift index --rebuild       # re-embed everything
    """
    from litsift.types import Kind

    kinds = list(Kind) if kind == "all" else [kind_named(kind)]
    with open_service(ctx.obj["home"], engine) as svc:
        if ray_address is not None:
            _embed_with_ray(svc, kinds, ray_address, quiet)
        if svc.config.engine.kind == "milvus":
            _push(svc, kinds, rebuild, quiet)
            return
        seen: dict[str, tuple[str, int, int]] = {}
        try:
            if not index_kinds(svc, kinds, rebuild, quiet, check=check, seen=seen):
                ctx.exit(1)
        except KeyboardInterrupt as stop:
            cached = svc.paths.embeddings_file is not None
            click.echo(index_stopped(seen, cached, stop_name(stop)), err=True)
            ctx.exit(stop_status(stop))


def _embed_with_ray(svc: LitsiftService, kinds: list[Kind], address: str, quiet: bool) -> None:
    """One stderr line per block landed in the cache (rows done, rate, ETA): a Ray job runs
    long and often in a log, where a live bar is not readable."""
    from litsift.cli.common import ProgressLine

    for k in kinds:
        line = None if quiet else ProgressLine(lambda text: click.echo(text, err=True))
        report = svc.embed_with_ray(k, address, progress=line)
        click.echo(f"{k.table}: {report.summary()}")


def _push(svc: LitsiftService, kinds: list[Kind], rebuild: bool, quiet: bool) -> None:
    for k in kinds:
        if svc.counts()[k] == 0:
            click.echo(NOTHING.format(k.table))
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
        _say_sentences(svc, k, embedded, total)


def _say_sentences(
    svc: LitsiftService, kind: Kind, embedded: int, total: int, behind: int = 0
) -> None:
    """What the sentence phase of ``kind`` did, or that ``kind`` has none."""
    if svc.sentence_phase(kind):
        click.echo(
            f"{kind.table}: aspect sentences of {total:,} records stored "
            f"({embedded:,} cut and embedded now)"
            + (f"; {behind:,} records{LATE}" if behind else "")
        )
        return
    settings = svc.config.search
    why = (
        f"more than search.sentence_phase_max_records = {settings.sentence_phase_max_records:,}"
        if settings.sentence_phase == "auto"
        else f'search.sentence_phase = "{settings.sentence_phase}"'
    )
    click.echo(
        f"{kind.table}: aspect sentences are embedded when a hit is first scored ({why}; "
        f"the last {settings.sentence_cache_records:,} are kept)"
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
        fault = svc.read_only_fault
        if fault is not None:  # search what is there, and say what is missing and why
            click.echo(f"note: {kind.table}: {state} of {rows:,} rows ({fault[0]})", err=True)
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


@click.command("search")
@click.argument("words", nargs=-1, metavar="[papers|datasets] QUERY")
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
    words: tuple[str, ...],
    years: str,
    datasets_: bool,
    k: int | None,
    k0: int | None,
    fusion: str | None,
    fulltext: bool | None,
    as_json: bool,
    engine: str | None,
) -> None:
    """Search papers (or datasets) for QUERY and print the ranked hits.

    \b
    Examples:
      litsift search "contrastive learning for sentence embeddings" --years 2019:2022
      litsift search datasets "question answering over tables" -k 5
      litsift search "problem: hallucination in summarisation" --json
    """
    from litsift.cli.output import hits_to_json_text, hits_to_table, result_notes, sized_console
    from litsift.errors import QueryError
    from litsift.types import Kind, Query, YearRange

    datasets_, query = query_words(words, datasets_)
    if not query.strip():  # "0 hits" and exit 0 said nothing of why
        raise QueryError("the query is empty", 'type what to search for: litsift search "QUERY"')
    with open_service(ctx.obj["home"], engine) as svc:
        kind = Kind.DATASET if datasets_ else Kind.PAPER  # + the papers' index (usage, votes)
        _bm25_first(svc, [kind, Kind.PAPER] if datasets_ and svc.counts()[kind] else [kind])
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
        read_only, fault = svc.read_only_reason, svc.read_only_fault
    if read_only is not None:  # on stderr, so --json stays the stable object
        click.echo(f"note: {for_terminal(read_only)}", err=True)
        if fault is not None:  # free space, the owner and mode, a writable copy
            click.echo(f"  hint: {for_terminal(fault[1])}", err=True)
    for line in [] if as_json else result_notes(result):  # stderr; a note may quote a title
        click.echo(f"note: {for_terminal(line, keep_newlines=False)}", err=True)
    if as_json:
        click.echo(hits_to_json_text(result, ascii_only=not writes_unicode(sys.stdout)))
    else:
        sized_console().print(hits_to_table(result))


@click.command("answer")
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
    """Answer QUESTION from the top papers with citations checked against what was sent.

    Needs an [llm] endpoint in config.toml.

    \b
    Examples:
      litsift answer "How do retrieval-augmented models reduce hallucination?" --years 2020:
      litsift answer "Which datasets test multi-hop reasoning?" --rerank --json
    """
    from litsift.cli.common import say_llm_waits, streamed_draft
    from litsift.llm.answer import answer_to_json
    from litsift.text import json_for_terminal
    from litsift.types import Kind, Query, YearRange

    with open_service(ctx.obj["home"]) as svc:
        say_llm_waits(svc)  # a rate limit's wait on stderr: the command is not stuck
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
            said = [f"{rr.report.error}; the original order is kept"] if rr.report.error else []
            for line in said + [f"note: rerank: {n}" for n in rr.report.notes]:  # cut, ids left out
                click.echo(for_terminal(line), err=True)
            hits = rr.hits
        # on a terminal the draft streams in a view erased before the checked text is printed
        with streamed_draft(enabled=not as_json) as stream:
            ans = svc.answer(question, hits, on_delta=stream)
    if as_json:
        click.echo(
            json_for_terminal(answer_to_json(ans), ascii_only=not writes_unicode(sys.stdout))
        )
        return
    click.echo(for_terminal(ans.text))
    click.echo("\nReferences")
    for ref in ans.references:
        rec = ref.record
        marks = "".join(f"[{n}]" for n in ref.passages)
        title, rid = (for_terminal(x, keep_newlines=False) for x in (rec.display_title, rec.id))
        click.echo(f"  {marks} {title} ({rec.year or 'n.d.'}) — {rid}")
        for place in ans.places(ref):
            click.echo(f"      {for_terminal(place, keep_newlines=False)}")
    for note in ans.notes:
        click.echo(f"note: {for_terminal(note)}", err=True)
