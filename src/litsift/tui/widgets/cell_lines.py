"""One table cell's Rich rendering, the cheap way (used by
:class:`~litsift.tui.widgets.cached_table.CachedTable`): what a cell's rendering depends on,
and Rich's steps for one unwrapped line without its renderable protocol."""

from __future__ import annotations

from collections.abc import Hashable

from rich.console import Console, ConsoleOptions
from rich.containers import Lines
from rich.segment import Segment
from rich.style import Style
from rich.text import Text


def cell_signature(cell: Text) -> Hashable:
    """What a ``Text`` cell's rendering depends on besides its width: text, spans, options."""
    return (
        cell.plain,
        tuple(cell.spans),
        cell.style,
        cell.justify,
        cell.overflow,
        cell.no_wrap,
        cell.end,
        cell.tab_size,
    )


def one_line_cell(
    cell: Text, width: int, padding: int, console: Console, options: ConsoleOptions
) -> list[Segment] | None:
    """The one line Rich renders for ``Padding(cell, (0, padding))`` in ``width`` cells with
    ``no_wrap`` (what ``DataTable`` renders for a one-line cell), without Rich's renderable
    machinery: the same steps as ``Text.wrap`` for one unwrapped line (justify, truncate), the
    text's spans rendered by ``Text.render``, then padded. The characters and their styles equal
    Rich's (``tests/tui/test_results_render.py`` compares them); segment boundaries may differ,
    which a ``Strip``'s ``simplify`` evens out.

    Returns None for what it does not cover (a newline or tab in the text, overflow "ignore",
    an ``end`` other than a newline, no room inside the padding): render those through Rich.
    """
    inner = width - 2 * padding
    plain = cell.plain
    if inner < 1 or "\n" in plain or "\t" in plain or cell.end not in ("\n", ""):
        return None
    justify = cell.justify or options.justify or "default"
    overflow = cell.overflow or options.overflow or "fold"
    if overflow == "ignore":
        return None
    line = cell.copy()
    if justify != "default":
        Lines([line]).justify(console, inner, justify=justify, overflow=overflow)
    line.truncate(inner, overflow=overflow)
    # Text.__rich_console__ joins its lines: the text's own style becomes a span
    segments = list(Text("\n").join([line]).render(console))
    segments = Segment.adjust_line_length(segments, inner, style=_NULL, pad=True)
    pad = Segment(" " * padding, _NULL)
    return [pad, *segments, pad] if padding else segments


_NULL = Style.null()
