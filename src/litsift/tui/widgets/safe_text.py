"""Terminal-safe content parts: how a widget shows text it did not write.

Every string from the store, the user's files or a model (titles, abstracts, notes, aspects,
LLM replies, error messages that quote them) goes through :func:`litsift.text.for_terminal`
before it becomes widget content, so an escape sequence in an abstract is never sent to the
terminal. Markup is a separate matter: content is built from plain strings (never parsed).
A ``str`` given to ``border_title``, ``border_subtitle``, ``Static`` or ``Label`` (without
``markup=False``) *is* parsed as markup: a review or dataset named ``x[@click=app.quit]y``
made a clickable action of its title, ``[link=…]`` a terminal hyperlink, ``[/]`` a
``MarkupError`` that closed the app. Such text goes through :func:`safe_title` (border titles)
or :func:`safe_content` instead (``tests/tui/test_markup_sinks.py`` checks every call).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from textual.content import Content

from litsift.text import for_terminal

#: a piece of widget content: plain text, (text, style), or content already made safe
Part = str | tuple[str, str] | Content


def safe(part: Part, keep_newlines: bool = True) -> Part:
    """``part`` with its text sanitised (a :class:`Content` is passed through as built)."""
    if isinstance(part, str):
        return for_terminal(part, keep_newlines)
    if isinstance(part, tuple):
        return (for_terminal(part[0], keep_newlines), part[1])
    return part


def safe_parts(parts: Iterable[Part], keep_newlines: bool = True) -> Iterator[Part]:
    """Each of ``parts`` through :func:`safe`."""
    for part in parts:
        yield safe(part, keep_newlines)


def safe_title(text: str) -> Content:
    """``text`` for a ``border_title`` / ``border_subtitle``: one line, sanitised, never markup."""
    return Content(for_terminal(text, keep_newlines=False))


def safe_content(parts: Iterable[Part], keep_newlines: bool = True) -> Content:
    """``Content.assemble`` of the sanitised ``parts``."""
    return Content.assemble(*safe_parts(parts, keep_newlines))
