"""The help screen: every key binding of the app (after the user keymap), grouped by where it
works, plus how to reach the command palette. Opens with ``?``/F1, closes with Esc, ``?`` or q.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from litsift.tui.widgets.fixed_rows import RowsTable
from litsift.tui.widgets.footer import KeyFooter

#: the help table's narrowest Action column, and the width Keys and Where wrap to when the
#: terminal is too narrow for their longest cells (80 columns)
_ACTION_MIN = 16
_NARROW = 10

_NOTE = (
    "ctrl+p opens the command palette: every action above by name (labels, filter, history, "
    "export, more like this, aspects; LLM rerank and answer if configured). Change keys in "
    'config.toml: [keymap] then name = "key", e.g. toggle_kind = "f5".'
)
#: added to the note when the terminal is too narrow for the ``[keymap] name`` column
_NO_NAMES = " A wider terminal shows each key's name."

#: (where the keys work, that widget's BINDINGS)
BindingGroup = tuple[str, Iterable[BindingType]]


def help_rows(
    app: App[Any], groups: Iterable[BindingGroup], keymap: Mapping[str, str]
) -> list[tuple[str, str, str, str]]:
    """Rows ``(keys, description, where, binding id)`` of every binding, keymap applied.

    Args:
        app: formats keys (``ctrl+t`` → ``^t``) with :meth:`textual.app.App.get_key_display`.
        groups: where each set of bindings applies ("anywhere", "results", ...).
        keymap: binding id → comma-separated keys, as in ``Config.keymap``.
    """
    rows: dict[tuple[str, str], tuple[list[str], str, str]] = {}
    for where, bindings in groups:
        for binding in Binding.make_bindings(bindings):
            if binding.system:
                continue
            key = keymap.get(binding.id, binding.key) if binding.id else binding.key
            keys = [
                app.get_key_display(replace(binding, key=k.strip(), key_display=None))
                for k in key.split(",")
                if k.strip()
            ]
            desc = binding.tooltip or binding.description or binding.action
            slot = rows.setdefault((where, binding.id or binding.action), ([], desc, where))
            for k in keys:
                if k not in slot[0]:
                    slot[0].append(k)
    return [(" / ".join(keys), desc, where, bid) for (_, bid), (keys, desc, where) in rows.items()]


class HelpScreen(ModalScreen[None]):
    """A modal list of bindings; dismissed with Esc, ``?``, F1 or q."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1,q", "dismiss_help", "Close help", show=True),
    ]

    def __init__(self, rows: list[tuple[str, str, str, str]]) -> None:
        super().__init__(id="help-screen")
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(id="help-box") as box:
            box.border_title = "litsift — keys"
            box.border_subtitle = "Esc / ? to close"
            yield RowsTable(id="help-table", cursor_type="row")
            yield Static(_NOTE, id="help-note", markup=False)

    def on_resize(self) -> None:
        table = self.query_one("#help-table", DataTable)
        # the width inside the table's region less its vertical scrollbar, shown or not yet
        self._fill(table.region.width - table.styles.scrollbar_size_vertical)

    def _fill(self, width: int) -> None:
        """Lay the rows out in ``width`` cells: where the longest descriptions do not fit
        beside the keys, where and ``[keymap]`` columns, the Action column takes what is left
        and its long descriptions wrap onto more lines, so no column is cut off at 80 columns
        (the table scrolls down, never sideways)."""
        table: DataTable[Text] = self.query_one("#help-table", DataTable)
        if width <= 0 or getattr(self, "_laid_out_for", None) == width:
            return
        self._laid_out_for = width
        cursor = table.cursor_row
        table.clear(columns=True)
        header = ["Keys", "Action", "Where", "[keymap] name"]
        widest = [max(len(r[i]) for r in [header, *self.rows]) for i in range(4)]
        # each column has one cell of padding either side
        room = width - 2 * len(header)
        widths: list[int | None] = [None] * 4
        if sum(widest) > room:  # wrap: Action takes what the others leave, then Keys and Where
            keys_w, where_w, names_w = widest[0], widest[2], widest[3]
            if room - keys_w - where_w - names_w < _ACTION_MIN:
                keys_w, where_w = min(keys_w, _NARROW), min(where_w, _NARROW)
            if room - keys_w - where_w - names_w < _ACTION_MIN:  # ~60 columns: the [keymap]
                header, room, names_w = header[:3], room + 2, 0  # names go; the note says so
            action_w = max(room - keys_w - where_w - names_w, _ACTION_MIN)
            widths = [keys_w, action_w, where_w, names_w]
        note = _NOTE + ("" if len(header) == 4 else _NO_NAMES)
        self.query_one("#help-note", Static).update(note)
        for label, w in zip(header, widths, strict=False):
            table.add_column(Text(label), width=w)  # Text: "[keymap]" is not markup
        for keys, desc, where, bid in self.rows:
            cells = [Text(keys, style="bold"), Text(desc), Text(where), Text(bid, style="dim")]
            table.add_row(*cells[: len(header)], height=1 if widths[1] is None else None)
        if self.rows:
            table.move_cursor(row=min(max(cursor, 0), len(self.rows) - 1))

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
