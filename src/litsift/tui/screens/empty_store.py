"""Shown when the store holds no papers and no datasets: how to fill it."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

#: the commands that fill an empty store, with what each does
INGEST_STEPS: tuple[tuple[str, str], ...] = (
    ("litsift ingest papers FILE.jsonl", "add papers (id, title, abstract, authors, year, venue…)"),
    ("litsift ingest datasets FILE.jsonl", "add datasets (id, variants, description, year…)"),
    ("litsift index", "build the BM25 and dense indexes"),
    ("litsift demo", "or: ingest and index the sample corpus in one go"),
)


def empty_store_text(store: str) -> Content:
    """The instructions, with the store path (plain text, never markup)."""
    parts: list[str | tuple[str, str]] = [
        ("The store is empty.", "bold"),
        f"\n{store}\n\nQuit (q) and fill it from a shell:\n\n",
    ]
    for cmd, what in INGEST_STEPS:
        parts += [("  " + cmd, "bold $accent"), (f"\n      {what}\n", "$text-muted")]
    parts.append("\nJSONL(.gz): one record per line. Esc closes this screen.")
    return Content.assemble(*parts)


class EmptyStoreScreen(ModalScreen[None]):
    """Explains how to ingest; Esc/Enter closes it (searches then report the empty store)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Close", show=True),
        Binding("q", "app.quit", "Quit", show=True),
    ]

    def __init__(self, store: str) -> None:
        super().__init__(id="empty-store-screen")
        self.store = store

    def compose(self) -> ComposeResult:
        with Vertical(id="empty-box") as box:
            box.border_title = "litsift — nothing to search yet"
            yield Static(empty_store_text(self.store), id="empty-text", markup=False)

    @property
    def text(self) -> str:
        return empty_store_text(self.store).plain

    def action_close(self) -> None:
        self.dismiss(None)
