"""The rows of the citations screen as text: a work's cells, its name in a status message, the
counts in the summary (:mod:`litsift.tui.screens.citations`)."""

from __future__ import annotations

from rich.text import Text

from litsift.text import for_terminal
from litsift.types.citations import Neighbour

__all__ = ["NOUNS", "cells", "count", "external", "name", "plain"]

NOUNS = {"references": ("reference", "references"), "cited_by": ("citing work", "citing works")}
#: keys of works litsift made up (hashes): they name nothing a person could look up
_INTERNAL_SCHEMES = {"key", "title"}


def count(n: int, nouns: tuple[str, str]) -> str:
    """``1 reference``, ``52 references``."""
    return f"{n:,} {nouns[0] if n == 1 else nouns[1]}"


def external(key: str) -> bool:
    """Whether ``key`` is an identifier a person can look up (``doi:…``), not a made-up one."""
    return key.partition(":")[0] not in _INTERNAL_SCHEMES


def _title(n: Neighbour) -> str:
    """The title column: the work's title (a stub's: as its source named it)."""
    return n.title or "(no title known)"


def name(n: Neighbour) -> str:
    """The work as a status message names it: its title quoted (cut at 60), else its id."""
    if n.title:
        short = n.title if len(n.title) <= 60 else n.title[:59].rstrip() + "…"
        return f"“{short}”"
    return n.key if external(n.key) else "this reference"


def plain(text: str) -> Text:
    """A one-line cell of data text (sanitised; a DataTable parses ``str`` cells as markup)."""
    return Text(for_terminal(text, keep_newlines=False), no_wrap=True, overflow="ellipsis")


def cells(n: Neighbour, why: str, width: int = 200) -> tuple[Text, Text, Text, Text]:
    """A row's cells as plain text: label, year, title (cut at ``width`` characters), the
    snowball's evidence and, for a work not stored, its identifier (a made-up key: "not
    stored"): a round's candidates not stored have no title; the id tells them apart."""
    where = "" if n.stored else (f"{n.key} · not stored" if external(n.key) else "not stored")
    title = _title(n)
    if len(title) > width:
        title = title[: width - 1].rstrip() + "…"
    return (
        plain(n.label.value if n.label else ""),
        plain(str(n.year or "")),
        plain(title),
        plain(" · ".join(part for part in (why, where) if part)),
    )
