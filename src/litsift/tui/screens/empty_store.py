"""Shown when the store holds no papers and no datasets: how to fill it, and what it reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from litsift.tui.widgets.footer import KeyFooter

#: the commands that fill an empty store, with what each does (one line each at 80 columns)
INGEST_STEPS: tuple[tuple[str, str], ...] = (
    ("litsift demo", "a sample corpus, ingested and indexed"),
    ("litsift ingest papers PATH...", "files or folders, formats below"),
    ("litsift ingest datasets PATH...", "the same, for datasets"),
    ("litsift index", "build the indexes (also done at start)"),
)

#: ``(name, kind, description)`` of a format ``litsift ingest`` reads
Format = tuple[str, str, str]


def empty_store_text(store: str, formats: Sequence[Format] = ()) -> Content:
    """The instructions, with the store path and the formats litsift reads (``formats``,
    from the sources registry through the service); plain text, never markup."""
    parts: list[str | tuple[str, str]] = [
        ("The store is empty.", "bold"),
        f"\n{store}\n\nQuit (q) and fill it from a shell:\n",
    ]
    width = max(len(cmd) for cmd, _ in INGEST_STEPS)
    for cmd, what in INGEST_STEPS:
        parts += [("  " + cmd.ljust(width), "bold $accent"), (f"  {what}\n", "$text-muted")]
    if formats:
        parts.append("\nFormats (detected per file; litsift formats describes each):\n")
        for kind, label in (("paper", "papers"), ("dataset", "datasets")):
            names = [name for name, k, _ in formats if k == kind]
            if names:
                parts += [(f"  {label}: ", "bold"), ", ".join(names) + "\n"]
    parts.append("\nEsc closes this screen.")
    return Content.assemble(*parts)


class EmptyStoreScreen(ModalScreen[None]):
    """Explains how to ingest; Esc/Enter closes it (searches then report the empty store)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Close", show=True),
        Binding("q", "app.quit", "Quit", show=True),
    ]

    def __init__(self, store: str, formats: Sequence[Format] = ()) -> None:
        super().__init__(id="empty-store-screen")
        self.store = store
        self.formats = tuple(formats)

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with VerticalScroll(id="empty-box") as box:
            box.border_title = "litsift — nothing to search yet"
            yield Static(self.content, id="empty-text", markup=False)

    @property
    def content(self) -> Content:
        return empty_store_text(self.store, self.formats)

    @property
    def text(self) -> str:
        return self.content.plain

    def action_close(self) -> None:
        self.dismiss(None)
