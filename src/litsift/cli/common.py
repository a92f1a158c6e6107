"""What every ``litsift`` command shares: error reporting, the service, the live view of a
streamed LLM draft (the progress bar: :mod:`litsift.cli.progress`)."""

from __future__ import annotations

import errno
import functools
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from litsift.errors import LitsiftError
from litsift.text import for_terminal, for_terminal_draft

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

F = TypeVar("F", bound=Callable[..., Any])

KIND_CHOICE = click.Choice(["papers", "datasets"])
#: ``--stage`` of the review commands that read one screening stage
STAGE_OPTION = click.option(
    "--stage",
    type=click.Choice(["tiab", "fulltext"]),
    default="tiab",
    show_default=True,
    help="tiab: title/abstract; fulltext: the records not excluded at tiab.",
)
#: Exit status when stdout's reader went away (``| head``): 128 + SIGPIPE, as a shell reports a
#: command killed by the signal.
EXIT_PIPE_CLOSED = 141


def kind_named(name: str) -> Kind:
    from litsift.types import Kind

    return Kind.PAPER if name == "papers" else Kind.DATASET


def query_words(words: tuple[str, ...], datasets: bool) -> tuple[bool, str]:
    """(search datasets?, the query) from ``search``'s words: quoted or not, they are one
    query; a first word ``papers`` / ``datasets`` before others names what to search, as in
    ``litsift ingest datasets FILE`` (``search datasets "QA over tables"`` took "datasets" as
    the query and refused the rest as "unexpected extra argument")."""
    if len(words) > 1 and words[0] in ("papers", "datasets"):
        return datasets or words[0] == "datasets", " ".join(words[1:])
    return datasets, " ".join(words)


def kappa_line(a: Any) -> str:
    """``"alice and bob: 310 records both decided, 290 agreed, Cohen's kappa 0.712"``: one
    :class:`~litsift.service.review_rounds.Agreement` (a pair of reviewers), sanitised."""
    k = "undefined (one label only)" if a.kappa is None else f"{a.kappa:.3f}"
    who = " and ".join(for_terminal(x or "(unnamed)", keep_newlines=False) for x in (a.a, a.b))
    records = "record" if a.both == 1 else "records"
    return f"{who}: {a.both:,} {records} both decided, {a.agreed:,} agreed, Cohen's kappa {k}"


def comma_list(values: tuple[str, ...]) -> list[str]:
    """The items of a repeatable comma-list option, in order: ``--reasons "a,b" --reasons c``
    is ``["a", "b", "c"]`` (the option given twice kept only its last value, so a reviewer
    who listed one reason per option had the last one alone), blanks dropped."""
    return [w.strip() for value in values for w in value.split(",") if w.strip()]


def reports_errors(fn: F) -> F:
    """Turn LitsiftError into a two-line message on stderr and exit code 1, and any other
    exception (a bug) into our own two lines and exit code 2 -- never a traceback, unless
    ``LITSIFT_DEBUG`` is set. Click's own exceptions (usage errors, abort) pass through.

    Messages can quote data (a title, a line of a file, a model's reply): they are printed
    through :func:`litsift.text.for_terminal`, so they never carry an escape sequence.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except LitsiftError as e:
            say_error(for_terminal(e.message))
            if e.hint:
                click.echo(f"  hint: {for_terminal(e.hint)}", err=True)
            sys.exit(1)
        except (click.exceptions.ClickException, click.exceptions.Abort, click.exceptions.Exit):
            raise
        except BrokenPipeError:  # `litsift ... | head`: the reader is gone, nothing to say
            pipe_closed()
        except Exception as e:  # a bug: still our message + hint, the traceback on request
            from litsift.cli.interrupts import interrupt_in

            if (stop := interrupt_in(e)) is not None:  # Ctrl-C inside an import: not a bug
                raise stop from None
            if os.environ.get("LITSIFT_DEBUG"):
                raise
            fault = _output_fault(e, with_home=False) or _machine_fault(e) or _output_fault(e)
            if fault is not None:  # a full disk, a read-only home, a lock, a bad -o: not a bug
                say_error(for_terminal(fault.message))
                click.echo(f"  hint: {for_terminal(fault.hint)}", err=True)
                sys.exit(1)
            what = for_terminal(f"{type(e).__name__}: {e}")[:300]
            from litsift import logs

            where = logs.current()
            if where is not None:  # with no log file (eval, formats: no home opened) logging
                # fell through to Python's last-resort handler: the traceback on stderr
                logs.get("cli").error("%s failed", fn.__name__, exc_info=e)
            say_error(f"litsift failed unexpectedly ({what})")
            click.echo(
                "  hint: this is a bug in litsift; please report it with the command you ran "
                + (f"and the traceback in {where}" if where else "(LITSIFT_DEBUG=1 shows it)"),
                err=True,
            )
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


def say_error(message: str) -> None:
    """``error: MESSAGE`` on stderr: red on a terminal, unless ``NO_COLOR`` is set to anything
    (https://no-color.org; click's own colour ignored it, rich's tables obey it)."""
    if os.environ.get("NO_COLOR"):
        click.echo(f"error: {message}", err=True)  # secho would still end it with a reset code
    else:
        click.secho(f"error: {message}", fg="red", err=True)


def pipe_closed() -> NoReturn:
    """The reader of stdout went away (``litsift review show X | head -1``): end quietly, as
    ``cat`` killed by SIGPIPE does (exit status 141 = 128 + SIGPIPE), with stdout pointed at
    /dev/null so that the interpreter's last flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout to point elsewhere
        pass
    sys.exit(EXIT_PIPE_CLOSED)


def refuse_repeated_options(cmd: click.Command, ctx: click.Context, args: list[str]) -> None:
    """Raise a usage error when ``args`` (after ``cmd``'s name, ``ctx`` its group's context)
    give one of ``cmd``'s single-value options twice
    (``--which include --which exclude``): click keeps the last value alone, silently, and an
    export of the includes and excludes was one of the excludes. Repeatable options
    (``multiple``), counters and flags may repeat; ``args`` click cannot parse are left to
    click, which then says why."""
    own = cmd.context_class(cmd, info_name=cmd.name, parent=ctx)  # its own parsing settings
    try:
        _, _, order = cmd.make_parser(own).parse_args(args=list(args))
    except click.ClickException:
        return
    seen: dict[str, int] = {}
    for param in order:
        if isinstance(param, click.Option) and not (param.multiple or param.count or param.is_flag):
            seen[param.opts[-1]] = seen.get(param.opts[-1], 0) + 1
    twice = [name for name, n in seen.items() if n > 1]
    if twice:
        raise click.UsageError(
            f"{twice[0]} was given {seen[twice[0]]} times; it takes one value "
            "(give it once: only the last would have been used)",
            own,
        )


class OneValueGroup(click.Group):
    """A command group whose commands refuse a single-value option given twice
    (:func:`refuse_repeated_options`); every ``litsift`` group is one (``@group.group()``
    makes one of the same class)."""

    group_class = type

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, cmd, rest = super().resolve_command(ctx, args)
        if cmd is not None and not isinstance(cmd, click.Group):
            refuse_repeated_options(cmd, ctx, rest)
        return name, cmd, rest


def _machine_fault(err: BaseException) -> LitsiftError | None:
    """The machine's fault behind an error no layer below named (a library's "No space left
    on device", SQLite's "database or disk is full"), placed at the command's home; or a
    damaged store, when SQLite says so and ``PRAGMA quick_check`` agrees."""
    import sqlite3

    from litsift.errors import StoreCorruptError
    from litsift.paths import get_paths
    from litsift.store import fault_in_chain, store_fault

    ctx = click.get_current_context(silent=True)
    home = ctx.find_root().params.get("home") if ctx is not None else None
    try:
        paths = get_paths(home)
    except Exception:  # no home to point at: the error itself still decides
        return fault_in_chain(err)
    fault = fault_in_chain(err, paths.data_dir)
    if fault is not None:
        return fault
    cause: BaseException | None = err
    while cause is not None:
        code = (getattr(cause, "sqlite_errorcode", None) or 0) & 0xFF
        if isinstance(cause, sqlite3.DatabaseError) and code in (11, 26):  # CORRUPT, NOTADB
            told = store_fault(cause, paths.store_file)
            return told if isinstance(told, StoreCorruptError) else None
        cause = cause.__cause__ or cause.__context__
    return None


#: what the machine is to blame for, not the path: a full disk or quota, an I/O error
_MACHINE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO})
#: a command's parameters that name where it writes: (parameter, what, hint)
_WRITTEN_PATHS = (
    ("output", "write {}", "give -o a path in a folder you can write to"),
    ("plot_dir", "write the plots to {}", "give --plot a folder you can write to"),
    ("runs_dir", "write the run files to {}", "give --runs-dir a folder you can write to"),
    ("eval_home", "use {} as the benchmark's store", "give --eval-home a writable folder"),
)


def _output_fault(err: BaseException, with_home: bool = True) -> LitsiftError | None:
    """A path the command writes (``-o/--output``, eval's ``--plot``, ``--runs-dir`` and
    ``--eval-home``), or (``with_home``) the ``--home`` / ``LITSIFT_HOME`` folder, could not be
    written or made (a folder that is a file, ``/proc``, no permission, a read-only file
    system): the user's path, not a bug. Without ``with_home`` a full disk or an I/O error is
    left to :func:`_machine_fault`; the paths are tried before it, which placed an ``-o`` on a
    read-only file system at the home ("copy the home ... set LITSIFT_HOME")."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return None
    home = ctx.find_root().params.get("home") or os.environ.get("LITSIFT_HOME")
    paths = [(ctx.params.get(name), what, hint) for name, what, hint in _WRITTEN_PATHS]
    if with_home:
        paths.append(
            (home, "use {} as litsift's home", "give --home (or LITSIFT_HOME) a writable folder")
        )
    cause: BaseException | None = err
    while cause is not None:
        name = getattr(cause, "filename", None)
        for path, what, hint in paths:
            if path is None or name is None or not isinstance(cause, OSError):
                continue
            if not with_home and cause.errno in _MACHINE_ERRNOS:
                continue
            where = Path(name)  # the path, a folder above it, or (a folder's) a file in it
            if where not in (Path(path), *Path(path).parents) and Path(path) not in where.parents:
                continue
            why = cause.strerror or type(cause).__name__
            if isinstance(cause, FileExistsError | NotADirectoryError) and name != str(path):
                why = f"{name} is a file, not a folder"
            return LitsiftError(f"cannot {what.format(path)}: {why}", hint)
        cause = cause.__cause__ or cause.__context__
    return None


def criteria_text(value: str) -> str:
    """A review's criteria as given on the command line: the text, or ``@FILE``'s text.

    Raises:
        IngestError: ``@FILE`` cannot be read as UTF-8 text.
    """
    from litsift.errors import IngestError

    if not value.startswith("@"):
        return value
    path = Path(value[1:])
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = "not UTF-8 text" if isinstance(err, UnicodeDecodeError) else (err.strerror or "")
        raise IngestError(
            f"{path}: cannot read the criteria ({why})", "give the text, or @FILE of UTF-8 text"
        ) from err


def open_service(home: str | None, engine: str | None = None) -> LitsiftService:
    """The service of ``home``; ``engine`` ("local" or "milvus") overrides ``[engine] kind``."""
    from dataclasses import replace

    from litsift import logs
    from litsift.config import load_config
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    paths = get_paths(home)
    logs.setup(paths.log_file)
    if engine is None:
        return LitsiftService(paths)
    config = load_config(paths.config_file)
    return LitsiftService(paths, config=replace(config, engine=replace(config.engine, kind=engine)))


#: the line after a streamed draft that an error cut off (``litsift answer``)
DRAFT_CUT = "[cut off: the reply stopped here; this draft's citations were not checked]"


def say_llm_waits(svc: LitsiftService) -> None:
    """Have ``svc``'s LLM calls say each wait before a retry (a 429, an overloaded server) on
    stderr, ``rate limited by HOST: waiting 20 s (attempt 2 of 5)``, on a terminal or in a log
    alike (as ``review judge`` its progress); stdout (``--json``, a pipe) gets nothing."""
    svc.report_llm_waits(
        lambda wait: click.echo(for_terminal(wait.line(), keep_newlines=False), err=True)
    )


class _DraftTail:
    """A streamed draft as a rich renderable: the text so far through
    :func:`litsift.text.for_terminal_draft`, only as many of its last lines as fit the terminal
    less one row, so the live view never scrolls and can be erased whole."""

    def __init__(self) -> None:
        self.text = ""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment
        from rich.text import Text

        lines = console.render_lines(Text(for_terminal_draft(self.text)), options, pad=False)
        for i, line in enumerate(lines[-max(1, console.size.height - 1) :]):
            if i:
                yield Segment.line()
            yield from line


@contextmanager
def streamed_draft(enabled: bool = True) -> Iterator[Callable[[str], None] | None]:
    """Where an LLM's draft is shown while it streams: an ``on_delta`` callback, or None.

    When stdout is a terminal (and ``enabled``), the draft grows in a rich live view on stdout
    that is erased when the block ends, so the checked text printed after it is shown once;
    a :class:`LitsiftError` (the stream broke off) leaves the draft so far printed, then
    :data:`DRAFT_CUT`, and goes on (its message and hint are the command's error). The
    view shows the whole text so far through :func:`litsift.text.for_terminal_draft`: an
    escape sequence split across deltas leaves no remnant, and the draft is sanitised exactly
    as the final text. Anywhere else (a pipe, a file) nothing is streamed: stdout gets only
    what the command prints after the block.

    Yields:
        ``on_delta(text)`` for :meth:`LitsiftService.answer`, or None when not streaming.
    """
    if not enabled or not sys.stdout.isatty():
        yield None
        return
    from rich.live import Live

    from litsift.cli.output import sized_console

    view = _DraftTail()

    def on_delta(delta: str) -> None:
        view.text += delta

    try:
        screen = sized_console(force_terminal=True)
        with Live(view, console=screen, transient=True, refresh_per_second=8):
            yield on_delta
    except LitsiftError:  # the stream failed: what was read stays, marked (the TUI keeps it too)
        if view.text.strip():
            click.echo(for_terminal_draft(view.text).rstrip())
            click.echo(f"\n{DRAFT_CUT}")
        raise


def write_output(text: str, output: Path | None, *, bom: bool = False) -> None:
    """Write an export to ``output``, or to stdout when it is None or ``-`` (the usual Unix
    spelling; it made a file named ``-``). On a terminal the text passes through
    :func:`litsift.text.for_terminal` (a note or a title may hold control characters); a pipe
    or a file gets it unchanged. With ``bom`` (a CSV table) a file starts with the UTF-8 byte
    order mark, without which Excel reads it in the locale's code page (accented names come
    out garbled); stdout never gets one (a pipe's reader would see it as text)."""
    if output is None or str(output) == "-":
        shown = for_terminal(text) if sys.stdout.isatty() else text
        click.echo(shown, nl=not shown.endswith("\n"))
    else:  # its folder made as refs export and the diagrams do (a bad path: _output_fault)
        made = missing_folder(output)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8-sig" if bom else "utf-8")
        click.echo(wrote_line(output, made), err=True)


def missing_folder(output: Path) -> Path | None:
    """The topmost folder above ``output`` that does not exist yet (an ``-o`` makes it), or
    None: its folder is there."""
    gone = [p for p in output.parents if not p.exists()]
    return gone[-1] if gone else None


def wrote_line(output: Path, made: Path | None) -> str:
    """``"wrote out/x.svg (made the folder out)"``: an ``-o`` makes missing folders, and says
    so (a mistyped folder was made unsaid)."""
    folder = f" (made the folder {for_terminal(str(made), keep_newlines=False)})" if made else ""
    return f"wrote {for_terminal(str(output), keep_newlines=False)}{folder}"


home_option = click.option(
    "--home",
    envvar="LITSIFT_HOME",
    type=click.Path(file_okay=False),
    default=None,
    help="Directory for the store, indexes and config (default: XDG dirs; env LITSIFT_HOME).",
)


class ProgressLine:
    """A progress callback writing one line per landed block: rows done, rate, ETA
    (``litsift index --ray``: on stderr, readable in a log where a bar is not)."""

    def __init__(self, write: Callable[[str], None], clock: Callable[[], float] = time.monotonic):
        self.write = write
        self.clock = clock
        self.start: float | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if self.start is None:
            self.start = now
            self.write(f"{stage}: {total:,} passages to embed")
            return
        self.write(f"{stage}: {self.line(done, total, now - self.start)}")

    @staticmethod
    def line(done: int, total: int, elapsed: float) -> str:
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else float("inf")
        left = "?" if eta == float("inf") else _duration(eta)
        share = 100.0 * done / total if total else 100.0
        return f"{done:,}/{total:,} ({share:.0f} %), {rate:.1f} passages/s, ETA {left}"


def _duration(seconds: float) -> str:
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"
