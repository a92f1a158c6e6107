"""Small modal editors. Each one ``dismiss``es a value (None when cancelled with Esc) and never
touches the service: the search screen runs the writes in workers.

* :class:`PromptScreen` — one line of text (collection name, saved-search name).
* :class:`NoteScreen` — a free-text note and comma-separated tags.
* :class:`ExportScreen` — what to export, the format and the file path.
* :class:`HistoryScreen` — saved searches and the query history; pick one to re-run it.
* :class:`AspectEditScreen` — the query's aspects, one per line.

Titles, notes, queries and collection names come from the store: they are shown (and put in
editors) through :func:`litsift.text.for_terminal`, so an escape sequence is never displayed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Select, TextArea
from textual.widgets.option_list import Option

from litsift.text import for_terminal
from litsift.tui.widgets.footer import KeyFooter
from litsift.tui.widgets.safe_text import safe_title
from litsift.tui.widgets.text_inputs import InOrderInput, InOrderTextArea
from litsift.types import EXPORT_FORMATS, FORMAT_SUFFIX, HistoryEntry, parse_tags

T = TypeVar("T")


def _save_key(does: str) -> list[BindingType]:
    """The ctrl+s binding of a dialog, named for what it does there (the footer said "Save"
    in the history, where it re-runs, and in the export dialog, where it exports)."""
    return [Binding("ctrl+s", "save", does, id="modal_save")]


#: ``q`` quits from a dialog that is a list, with no text to type into (the history, a
#: dataset's papers), as everywhere outside text (README's key table): the app's own ``q`` is
#: not active over a dialog, and there it did nothing
LIST_QUIT: list[BindingType] = [
    Binding("q", "app.quit", "Quit", id="quit", show=False, tooltip="Quit litsift (q outside text)")
]


class _Modal(ModalScreen[T | None]):
    """Esc cancels (dismisses None); ctrl+s saves where there is something to save."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="modal_cancel"),
        *_save_key("Save"),
    ]

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_save(self) -> None:
        raise NotImplementedError

    def _buttons(self, ok: str = "Save") -> ComposeResult:
        with Horizontal(classes="modal-buttons"):
            yield Button(ok, variant="primary", id="ok")
            yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.action_cancel()


class _PromptInput(InOrderInput):
    """The prompt's line: Enter saves (and closes) the prompt while the key is handled, not by
    a Submitted message the screen reads after the keys typed behind Enter, which went into the
    line (``n``, a note, Enter, ``i``: the note ended in "i" and nothing was included)."""

    async def action_submit(self) -> None:
        screen = self.screen
        if isinstance(screen, PromptScreen):
            screen.action_save()


class PromptScreen(_Modal[str]):
    """Ask for one line of text; Enter or ctrl+s returns it stripped (empty → stays open, or
    with ``allow_empty`` returns "": a note emptied is a note removed)."""

    def __init__(
        self,
        title: str,
        prompt: str,
        value: str = "",
        placeholder: str = "",
        *,
        allow_empty: bool = False,
    ) -> None:
        super().__init__(classes="litsift-modal")
        self.title_text, self.prompt, self.value, self.placeholder = (
            for_terminal(x, keep_newlines=False) for x in (title, prompt, value, placeholder)
        )
        self.allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(classes="modal-box") as box:
            box.border_title = safe_title(self.title_text)
            yield Label(self.prompt, markup=False)
            yield _PromptInput(self.value, placeholder=self.placeholder, id="prompt-input")
            yield from self._buttons("OK")

    def action_save(self) -> None:
        text = self.query_one("#prompt-input", Input).value.strip()
        if text or self.allow_empty:
            self.dismiss(text)

    def unsaved(self) -> bool:
        """The text was changed and not saved (Ctrl+Q asks first: ``LitsiftApp.action_quit``)."""
        return self.query_one("#prompt-input", Input).value.strip() != self.value.strip()


@dataclass(frozen=True)
class NoteEdit:
    """What :class:`NoteScreen` returns: the note text and the cleaned tags."""

    text: str
    tags: tuple[str, ...]


class NoteScreen(_Modal[NoteEdit]):
    """Edit the note (multi-line) and tags (comma-separated) of one record; ctrl+s saves."""

    def __init__(self, title: str, note: str, tags: tuple[str, ...]) -> None:
        super().__init__(classes="litsift-modal")
        self.record_title, self.note = for_terminal(title), for_terminal(note)
        self.tags = tuple(for_terminal(t, keep_newlines=False) for t in tags)

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(classes="modal-box") as box:
            box.border_title = "Note and tags"
            box.border_subtitle = "ctrl+s save · Esc cancel"
            yield Label(self.record_title, markup=False, classes="modal-record")
            yield InOrderTextArea(
                self.note, id="note-text", soft_wrap=True, show_line_numbers=False
            )
            yield InOrderInput(
                ", ".join(self.tags), placeholder="tags, comma-separated", id="note-tags"
            )
            yield from self._buttons()

    def action_save(self) -> None:
        text = self.query_one("#note-text", TextArea).text.strip()
        tags = parse_tags(self.query_one("#note-tags", Input).value)
        self.dismiss(NoteEdit(text, tags))

    def unsaved(self) -> bool:
        """The note or tags were changed and not saved (Ctrl+Q asks first)."""
        text = self.query_one("#note-text", TextArea).text.strip()
        tags = parse_tags(self.query_one("#note-tags", Input).value)
        return text != self.note.strip() or tags != parse_tags(", ".join(self.tags))


@dataclass(frozen=True)
class ExportRequest:
    """What :class:`ExportScreen` returns: selection (``kept`` or a collection), format, path."""

    what: str
    fmt: str
    path: Path


def default_export_path(what: str, fmt: str) -> str:
    """``./litsift-kept.bib`` and the like (relative to the working directory)."""
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in what.strip()) or "kept"
    return f"./litsift-{stem}{FORMAT_SUFFIX.get(fmt, '.txt')}"  # type: ignore[call-overload]


class ExportScreen(_Modal[ExportRequest]):
    """Choose what (``kept``, ``maybe`` or a collection name), the format and the file path."""

    BINDINGS: ClassVar[list[BindingType]] = _save_key("Export")

    def __init__(self, collections: list[str], *, nothing_kept: bool = False) -> None:
        super().__init__(classes="litsift-modal")
        self.collections = [for_terminal(c, keep_newlines=False) for c in collections]
        #: no record is labelled keep: said before the user fills the dialog in
        self.nothing_kept = nothing_kept
        self._auto_path = default_export_path("kept", "bibtex")
        #: an existing file the user was told about: a second ctrl+s overwrites it
        self._overwrite: Path | None = None

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(classes="modal-box") as box:
            box.border_title = "Export"
            box.border_subtitle = "ctrl+s export · Esc cancel"
            yield Label("What: kept, maybe, or a collection name", markup=False)
            hint = ", ".join(self.collections) if self.collections else "no collections yet"
            yield InOrderInput("kept", placeholder=hint, id="export-what")
            yield Label(f"Collections: {hint}", markup=False, classes="modal-hint")
            yield Select(
                [(f, f) for f in EXPORT_FORMATS], value="bibtex", allow_blank=False, id="export-fmt"
            )
            yield Label("File (written when you confirm):", markup=False)
            yield InOrderInput(self._auto_path, id="export-path")
            warning = (
                "Nothing is kept yet: export maybe or a collection" if self.nothing_kept else ""
            )
            yield Label(warning, markup=False, id="export-warning", classes="modal-hint")
            yield from self._buttons("Export")

    @property
    def fmt(self) -> str:
        return str(self.query_one("#export-fmt", Select).value)

    @on(Select.Changed)
    @on(Input.Changed, "#export-what")
    def _update_path(self) -> None:
        path = self.query_one("#export-path", Input)
        if path.value == self._auto_path:  # the user has not typed a path of their own
            what = self.query_one("#export-what", Input).value
            self._auto_path = default_export_path(what, self.fmt)
            path.value = self._auto_path

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        """Export, unless the file exists and the user has not been told yet: then say so and
        wait for a second ctrl+s (an unrelated file was replaced without a word)."""
        what = self.query_one("#export-what", Input).value.strip()
        path = self.query_one("#export-path", Input).value.strip()
        if not (what and path):
            return
        target = Path(path).expanduser()
        if target != self._overwrite and target.exists():  # one stat, on the key press
            self._overwrite = target
            warning = f"{for_terminal(str(target), keep_newlines=False)} exists: ctrl+s again "
            self.query_one("#export-warning", Label).update(warning + "overwrites it")
            return
        self.dismiss(ExportRequest(what, self.fmt, target))


class HistoryScreen(_Modal[HistoryEntry]):
    """Saved searches (by name) then recent queries, each query once (its newest run: the
    history is a log, and a query run again between others was listed as often as it ran);
    Enter re-runs the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [*_save_key("Re-run"), *LIST_QUIT]

    def __init__(self, saved: list[HistoryEntry], recent: list[HistoryEntry]) -> None:
        super().__init__(classes="litsift-modal")
        self.entries: dict[str, HistoryEntry] = {}
        self.options: list[Option] = []
        newest = {(e.text, e.kind, e.years): e for e in reversed(recent)}  # newest first wins
        recent = [e for e in recent if newest[(e.text, e.kind, e.years)] is e]
        for prefix, group in (("saved", saved), ("recent", recent)):
            for e in group:
                oid = f"{prefix}-{e.id}"
                self.entries[oid] = e
                where = f"{e.kind.table}" + (f", {e.years}" if e.years else "")
                label = f"★ {e.name}: {e.text}" if prefix == "saved" else e.text
                shown = for_terminal(f"{label}  ({where})", keep_newlines=False)
                self.options.append(Option(shown, id=oid))

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(classes="modal-box") as box:
            box.border_title = "Saved searches and history"
            box.border_subtitle = "Enter re-run · Esc close"
            if self.options:
                yield OptionList(*self.options, id="history-list", markup=False)
            else:
                yield Label("No queries yet: press Enter in the query to record one.")

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(self.entries[event.option.id])

    def action_save(self) -> None:
        lst = self.query("#history-list").results(OptionList)
        for option_list in lst:
            opt = option_list.highlighted_option
            if opt is not None and opt.id is not None:
                self.dismiss(self.entries[opt.id])


class AspectEditScreen(_Modal[list[str]]):
    """The query's aspects, one per line: edit, delete or add lines; ctrl+s re-scores."""

    BINDINGS: ClassVar[list[BindingType]] = _save_key("Re-score")

    def __init__(self, query_text: str, aspects: list[str]) -> None:
        super().__init__(classes="litsift-modal")
        self.query_text = for_terminal(query_text)
        self.aspects = [for_terminal(a, keep_newlines=False) for a in aspects]

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(classes="modal-box") as box:
            box.border_title = "Aspects (one per line)"
            box.border_subtitle = "ctrl+s re-score · Esc cancel"
            yield Label(self.query_text, markup=False, classes="modal-record")
            yield InOrderTextArea("\n".join(self.aspects), id="aspects-text", soft_wrap=True)
            yield from self._buttons("Re-score")

    def action_save(self) -> None:
        lines = self.query_one("#aspects-text", TextArea).text.splitlines()
        self.dismiss([" ".join(line.split()) for line in lines if line.strip()])
