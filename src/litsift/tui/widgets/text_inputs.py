"""Text inputs whose editing keys act in the order they were typed.

Textual's ``Input`` and ``TextArea`` insert a printable key as soon as it reaches them, but a
bound key (Backspace, Ctrl+A, Ctrl+K, arrows) is not handled there: its event bubbles through
every ancestor's message queue up to the app, which then runs the binding. Keys typed right
after it are already queued at the input and are inserted first. In litsift's query bar (five
containers deep), Ctrl+A Ctrl+K typed before "neural machine translation" at terminal speed
cleared the query *after* the words were in, leaving an empty query or its tail ("on"); a fast
typist, a paste of keys or a macro, or an event loop slowed by a background index build loses
or reorders text the same way. Textual issue #6605 (open); the fix proposed there (pull request
#6631) runs the widget's own bindings inline, which is what :class:`InOrderKeys` does.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input, TextArea


class InOrderKeys:
    """Mixin for a text widget: its own (non-priority) bindings run as the key arrives.

    Only the widget's own bindings are run here, and only when the app would run them
    (:meth:`~textual.dom.DOMNode.check_action`): priority bindings were checked before the key
    reached the widget, and a key the widget does not bind (or refuses, e.g. Up/Down in the
    query bar) bubbles on to the screen's bindings as before.
    """

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):  # type: ignore[attr-defined]
                if binding.priority:
                    continue
                if await self.app.run_action(binding.action, self):  # type: ignore[attr-defined]
                    event.stop()
                    event.prevent_default()
                    return
        await super()._on_key(event)  # type: ignore[misc]


class InOrderInput(InOrderKeys, Input):
    """Textual's :class:`~textual.widgets.Input`, editing keys in typing order."""


class InOrderTextArea(InOrderKeys, TextArea):
    """Textual's :class:`~textual.widgets.TextArea`, editing keys in typing order."""
