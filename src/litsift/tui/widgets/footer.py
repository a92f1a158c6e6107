"""The key footer: one line of text, repainted only when the keys it shows change.

Textual's :class:`~textual.widgets.Footer` is a container of one widget per key, rebuilt on every
``refresh_bindings`` (textual ``widgets/_footer.py``: ``bindings_changed`` → ``recompose``), and
the search screen refreshes bindings on each search, result, highlight and focus change.
Profiled on the 19.6K-paper home between Enter and the painted results, those rebuilds -- new
widgets, their styles, a layout pass each -- took about half of the main loop's time. This footer
renders the same keys (key, description; disabled ones dimmed) as one line of text: a change is
a repaint of one widget, with no mount and no layout. A click on a key presses it, as in
Textual's footer.

The line starts with where the focus is (``query ▸``, ``results ▸``, ``detail ▸``: the
``focus_label`` of the focused widget or its nearest ancestor that has one), so the keys that
follow read as "what these keys do here".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen

__all__ = ["KeyFooter", "key_of"]

#: (key, key display, description, enabled) of each shown binding
Shown = tuple[tuple[str, str, str, bool], ...]

#: what stands for the keys left out of a line too narrow for all
_CUT = "… "


def key_of(node: DOMNode, action: str) -> str:
    """The key of ``action`` as the footer shows it (after ``[keymap]``) on ``node``'s screen,
    or "" where no active binding runs it (a text naming a key names the one that works)."""
    for active in node.screen.active_bindings.values():
        if active.binding.action == action:
            return node.app.get_key_display(active.binding)
    return ""


class KeyFooter(Widget):
    """The active bindings of the screen as one line: `` key description `` pairs."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "key-footer--key",
        "key-footer--description",
        "key-footer--disabled",
    }
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        color: $footer-foreground;
        background: $footer-background;
        .key-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-footer--disabled {
            color: $text-disabled;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: Shown = ()
        #: how many of the last shown keys are the app's own (quit, help): never cut
        self._app_keys = 0
        #: where the focus is ("" when no focused widget names itself)
        self._where = ""
        #: the command palette's key, shown at the right end as in Textual's footer
        self._palette: tuple[str, str, str, bool] | None = None
        #: (start, end, key) cell ranges of the keys in the rendered line, for clicks
        self._spans: list[tuple[int, int, str]] = []
        self._palette_spans: list[tuple[int, int, str]] = []
        #: a read of the bindings is scheduled (:meth:`_bindings_changed`)
        self._reading = False

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        # after the first refresh, as Textual's footer: the screen's widgets exist by then
        self.call_after_refresh(self._read_bindings)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        """The screen's bindings may have changed: read them once the screen's handler is done.

        A search refreshes the bindings several times in one handler (the request, the focus
        moving into the table, the result, its highlighted row); reading the active bindings
        (every ``check_action`` of the chain) once for all of them keeps that work off the
        frame that paints the result."""
        if not self.is_attached or screen is not self.screen or self._reading:
            return
        self._reading = True
        self.call_next(self._read_bindings)

    def _read_bindings(self) -> None:
        self._reading = False
        if not self.is_attached:
            return
        screen = self.screen
        shown: list[tuple[str, str, str, bool]] = []
        app_keys: list[tuple[str, str, str, bool]] = []
        actions: set[str] = set()
        bindings = screen.active_bindings
        groups: list[object] = []  # the group of each entry of shown
        for owner, binding, enabled, _tooltip in bindings.values():
            if not binding.show or binding.action in actions:
                continue  # one entry per action, as Textual's footer
            actions.add(binding.action)
            display = self.app.get_key_display(binding)
            entry = (binding.key, display, binding.description, bool(enabled))
            if owner is self.app:
                app_keys.append(entry)
            elif binding.group is not None and groups and groups[-1] is binding.group:
                # a group's keys share one entry, as in Textual's footer: "j k Move"
                key, first, _description, on = shown[-1]
                shown[-1] = (key, f"{first} {display}", binding.group.description, on or entry[3])
            else:
                shown.append(entry)
                groups.append(binding.group)
        self._app_keys = len(app_keys)
        shown += app_keys  # last, as Textual lists them: the keys a narrow line keeps
        palette: tuple[str, str, str, bool] | None = None
        if self.app.ENABLE_COMMAND_PALETTE and self.app.COMMAND_PALETTE_BINDING in bindings:
            _node, binding, enabled, _tooltip = bindings[self.app.COMMAND_PALETTE_BINDING]
            display = self.app.get_key_display(binding)
            palette = (binding.key, display, binding.description, bool(enabled))
        where = ""
        node: DOMNode | None = screen.focused
        while node is not None and not where:
            where = str(getattr(node, "focus_label", "") or "")
            node = node.parent
        if tuple(shown) != self._shown or palette != self._palette or where != self._where:
            self._shown, self._palette, self._where = tuple(shown), palette, where
            self.refresh()  # a repaint: the height is fixed, nothing to lay out

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-footer--key")
        desc_style = self.get_component_rich_style("key-footer--description")
        off = self.get_component_rich_style("key-footer--disabled")

        def keys(entries: Shown, where: str = "") -> tuple[Text, list[tuple[int, int, str]]]:
            line = Text(no_wrap=True, overflow="ellipsis", end="")
            if where:
                line.append(f" {where} ▸", desc_style + Style(bold=True))
            spans = []
            for key, display, description, enabled in entries:
                start = line.cell_len
                line.append(f" {display} ", key_style if enabled else key_style + off)
                if description:
                    line.append(f"{description} ", desc_style if enabled else desc_style + off)
                spans.append((start, line.cell_len, key))
            return line, spans

        right = Text(end="")
        self._palette_spans = []
        if self._palette is not None:
            key, display, description, enabled = self._palette
            right, self._palette_spans = keys(((key, display, description.lower(), enabled),))
            room = right.cell_len  # justified right in its room, as a right-justified column
            right.rstrip()
            right.pad_left(room - right.cell_len)
        left, self._spans = keys(self._shown, self._where)
        if left.cell_len + right.cell_len > self.size.width:
            # the palette's key goes before any of the screen's (at 80 columns the screening
            # screen lost "c Criteria" to it): ^p works unshown, and f1 lists it
            right, self._palette_spans = Text(end=""), []
        # the palette's key at the right end: what a two-column grid lays out, without
        # measuring a Rich table on every repaint. Keys that do not fit are left out whole,
        # the screen's last ones first, never the app's own (^q Quit, f1 Help): cut at the
        # line's end, a first-time user at 80 columns saw neither, and "f1…" half of one
        width = max(0, self.size.width - right.cell_len)
        split = len(self._shown) - self._app_keys
        screen_keys, app_keys = self._shown[:split], self._shown[split:]
        while left.cell_len > width and screen_keys:
            screen_keys = screen_keys[:-1]
            left, spans = keys(screen_keys, self._where)
            left.append(_CUT, desc_style)
            tail, tail_spans = keys(app_keys)
            offset = left.cell_len
            left.append_text(tail)
            self._spans = spans + [(s + offset, e + offset, k) for s, e, k in tail_spans]
        left.truncate(width, overflow="ellipsis", pad=True)
        left.append_text(right)
        return left

    @property
    def where(self) -> str:
        """Where the line says the focus is ("query", "results", "detail" or "")."""
        return self._where

    @property
    def text(self) -> str:
        """The focus and the keys as plain text (what the line shows, without the padding)."""
        return " ".join(
            ([f"{self._where} ▸"] if self._where else [])
            + [
                f"{display} {description}".strip()
                for _k, display, description, _e in (
                    *self._shown,
                    *((self._palette,) if self._palette else ()),
                )
            ]
        )

    def on_click(self, event: events.Click) -> None:
        width = sum(end - start for start, end, _ in self._palette_spans)
        right = [
            (s + self.size.width - width, e + self.size.width - width, k)
            for s, e, k in self._palette_spans
        ]
        for start, end, key in [*self._spans, *right]:
            if start <= event.x < end:
                self.app.simulate_key(key)
                return
