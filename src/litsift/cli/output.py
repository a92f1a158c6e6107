"""Rendering of search results for the CLI: stable JSON and a rich table.

``hits_to_json`` is the scripting contract of ``litsift search --json``; its keys are stable:
``query``, ``kind``, ``years``, ``fulltext`` (whether papers' full text was searched: the
default once it is indexed, ``--no-fulltext`` turns it off), ``elapsed_ms``, ``engine``
(``local`` or ``milvus at <uri>``), ``signals_used``
(the retrievers that ran:
``["bm25"]`` while the dense index is being built), ``partial`` (null, or why the answer is not
the full hybrid), ``hits`` (each: ``rank``, ``id``, ``title``,
``year``, ``venue`` (with ``authors``, ``url``) for papers or ``aliases``, ``description`` (as
stored: Papers with Code's markdown) and ``url`` for datasets, ``score``, ``signals``, and in a
full-text search the paper's best ``passage`` (``idx``, ``section``, ``page``, ``text``,
``source``) when it has full text; ``signals.passages`` when that passage ranked it).

Text from the store reaches the terminal only through :mod:`litsift.text`: the table through
``for_terminal`` (escape sequences removed, control characters made visible), JSON through
``json_for_terminal`` (lossless: such characters are ``\\uXXXX``-escaped).

Every rich Console of the commands is made by :func:`sized_console`, at the terminal's width.
"""

from __future__ import annotations

import codecs
import functools
import os
import sys
from typing import TYPE_CHECKING, Any

from litsift.text import for_terminal, json_for_terminal
from litsift.types import Dataset, Paper, SearchResult

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


def sized_console(stderr: bool = False, **options: Any) -> Console:
    """A rich Console on standard output (or error, with ``stderr``) that is as wide and tall
    as the terminal the stream is: ``COLUMNS`` / ``LINES`` when set (as rich reads them), else
    the terminal's size. Rich took 80 x 25 under ``TERM=dumb`` (Emacs's shell, an IDE's
    console) whatever the window, cutting and folding tables and bars that would have fit.
    Not a terminal (a pipe, a file): rich's own size (``COLUMNS``, else 80). ``options`` go to
    the Console as they are."""
    Console = _console_class()
    stream = sys.stderr if stderr else sys.stdout
    try:
        size = os.get_terminal_size(stream.fileno()) if stream.isatty() else None
    except (AttributeError, OSError, ValueError):  # no file descriptor, or a closed one
        size = None
    if size is None:
        return Console(stderr=stderr, **options)
    columns, lines = os.environ.get("COLUMNS", ""), os.environ.get("LINES", "")
    width = int(columns) if columns.isdigit() else size.columns or 80  # a pty may say 0 x 0
    height = int(lines) if lines.isdigit() else size.lines or 25
    return Console(stderr=stderr, width=width, height=height, **options)


@functools.cache
def _console_class() -> type[Console]:
    """rich's Console, but a reader gone from its stream (``litsift search X 2>&1 | head -1``)
    raises BrokenPipeError, which ends the command as it ends every other output
    (:func:`litsift.cli.common.pipe_closed`: quietly, exit status 141); rich's own
    ``on_broken_pipe`` exited with status 1, an error to a script, without a word."""
    from rich.console import Console

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True  # nothing more to write; the command's handler ends it
            raise BrokenPipeError

    return PipeConsole


def hits_to_json(result: SearchResult) -> dict[str, Any]:
    """A JSON-ready dict of one search result (see module docstring for the keys)."""
    hits = []
    for h in result.hits:
        rec = h.record
        row: dict[str, Any] = {
            "rank": h.rank,
            "id": rec.id,
            "title": rec.display_title,
            "year": rec.year,
        }
        if isinstance(rec, Paper):
            row["venue"] = rec.venue
            row["authors"] = list(rec.authors)
            row["url"] = rec.url
        elif isinstance(rec, Dataset):
            row["aliases"] = list(rec.variants)
            row["description"] = rec.description
            row["url"] = rec.url
        row["score"] = round(h.score, 6)
        row["signals"] = {
            name: {"score": round(s.score, 6), "rank": s.rank} for name, s in h.signals.items()
        }
        if h.passage is not None:
            p = h.passage
            row["passage"] = {
                "idx": p.idx,
                "section": p.section,
                "page": p.page,
                "text": p.text,
                "source": p.source,
            }
        hits.append(row)
    q = result.query
    return {
        "query": q.text,
        "kind": q.kind.value,
        "years": {"from": q.years.start, "to": q.years.end},
        "fulltext": q.fulltext,
        "fusion": q.fusion,
        "elapsed_ms": round(result.elapsed_s * 1000, 1),
        "engine": result.engine,
        "signals_used": list(result.signals_used),
        "partial": result.partial,
        "hits": hits,
    }


def result_notes(result: SearchResult) -> list[str]:
    """What a reader of the table should know: a BM25-only answer and why, and how many
    hits a year range kept for having no year."""
    notes = []
    if result.partial is not None:
        only = "BM25 only — " if result.signals_used == ("bm25",) else ""
        notes.append(f"{only}{result.partial}")
    if n := result.undated:
        notes.append(f"{n} of these {'has' if n == 1 else 'have'} no year (kept by --years)")
    return notes


def writes_unicode(stream: Any) -> bool:
    """True if the text stream ``stream`` can write every character: its encoding is UTF-8,
    -16 or -32, or it has none (a test's buffer); False for ASCII, Latin-1, cp1252, ..."""
    encoding = getattr(stream, "encoding", None)
    if not encoding:
        return True
    try:
        return codecs.lookup(encoding).name.startswith("utf")
    except LookupError:
        return False


def echo_json(obj: Any, indent: int | None = 2) -> None:
    """Print ``obj`` as JSON on standard output: names with accents and non-Latin titles
    as they are (``"h\u00fcme"`` before), escape-sequence characters escaped, and every
    non-ASCII character escaped where standard output cannot write it (a Latin-1 locale).
    The same strings read back either way (:func:`~litsift.text.json_for_terminal`)."""
    import click

    click.echo(json_for_terminal(obj, indent=indent, ascii_only=not writes_unicode(sys.stdout)))


def hits_to_json_text(result: SearchResult, ascii_only: bool = False) -> str:
    """``hits_to_json`` as printable, lossless JSON text (see ``json_for_terminal``)."""
    return json_for_terminal(hits_to_json(result), ascii_only=ascii_only)


def hits_to_table(result: SearchResult) -> Table:
    """A rich table of the hits (rank, title/name, year, venue/aliases, score)."""
    from rich.table import Table
    from rich.text import Text

    is_paper = result.query.kind.value == "paper"
    mode = " · full text" if is_paper and result.query.fulltext else ""
    n = len(result.hits)
    table = Table(
        title=f"{n} hit{'s' if n != 1 else ''} · {result.elapsed_s * 1000:.0f} ms{mode}",
        title_justify="left",
    )
    table.add_column("#", justify="right")
    table.add_column("title" if is_paper else "name", overflow="fold")
    table.add_column("year", justify="right")
    table.add_column("venue" if is_paper else "aliases", overflow="fold")
    table.add_column("score", justify="right")
    for h in result.hits:
        rec = h.record
        extra = rec.venue if isinstance(rec, Paper) else ", ".join(rec.other_names[:3])
        title = Text(for_terminal(rec.display_title, keep_newlines=False))
        if h.passage is not None:  # full-text search: where in the paper it matched
            words = h.passage.text.split()
            snippet = " ".join(words[:30]) + (" …" if len(words) > 30 else "")
            title.append(
                f"\n  {for_terminal(h.passage.where, keep_newlines=False)}: "
                f"{for_terminal(snippet, keep_newlines=False)}",
                style="dim",
            )
        table.add_row(
            str(h.rank),
            title,
            str(rec.year or ""),
            Text(for_terminal(extra, keep_newlines=False)),
            f"{h.score:.4f}",
        )
    return table
