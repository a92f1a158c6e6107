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
        with Vertical(id="help-box") as box:
            box.border_title = "litsift — keys"
            box.border_subtitle = "Esc / ? to close"
            table: DataTable[Text] = DataTable(id="help-table", cursor_type="row")
            table.add_columns("Keys", "Action", "Where", "[keymap] name")
            for keys, desc, where, bid in self.rows:
                table.add_row(
                    Text(keys, style="bold"), Text(desc), Text(where), Text(bid, style="dim")
                )
            yield table
            yield Static(
                "ctrl+p opens the command palette: every action above by name (labels, filter,\n"
                "history, export, more like this, aspects; LLM rerank and answer if configured).\n"
                'Change keys in config.toml: [keymap] then name = "key", e.g. toggle_kind = "f5".',
                id="help-note",
                markup=False,
            )

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
