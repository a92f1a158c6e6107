"""Text inputs whose editing keys act in the order they were typed.

Textual's ``Input`` and ``TextArea`` insert a printable key as soon as it reaches them, but a
bound key (Backspace, Ctrl+A, Ctrl+K, arrows) is not handled there: its event bubbles through
every ancestor's message queue up to the app, which then runs the binding. Keys typed right
after it are already queued at the input and are inserted first. In litsift's query bar (five
containers deep), Ctrl+A Ctrl+K typed before "neural machine translation" at terminal speed
cleared the query *after* the words were in, leaving an empty query or its tail ("on"), and
digits typed after Tab went into the query instead of the year; a fast typist, a paste of keys
or a macro, or an event loop slowed by a background index build loses or reorders text the same
way. Textual issue #6605 (open); the fix proposed there (pull request #6631) runs the widget's
own bindings inline. :class:`InOrderKeys` does that for the whole binding chain, so focus keys
(Tab to the year inputs, to a note's tags) keep their place too. A key that opens a dialog
(``s`` save search, ``n`` note) is followed by the keys typed behind it: those reach this
widget before the dialog is mounted, and are held until the dialog's input has the focus,
then passed to it (they ran as the results table's triage keys before).
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar, cast

from textual import events
from textual.app import App
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea

#: seconds keys typed before the app's first screen has the focus wait for it (the screen is
#: composed and the store opened meanwhile: seconds on a loaded machine)
STARTUP_WAIT_S = 10.0


class ReplayHeldKeys(Message):
    """Run the keys an :class:`InOrderKeys` widget held (:meth:`InOrderKeys.release_keys`)."""


class InOrderKeys:
    """Mixin for a text widget: a bound key runs its binding as the key arrives.

    The binding is the one the app would run for the key with this widget focused
    (:attr:`~textual.screen.Screen.active_bindings`: the widget's own first, then its
    ancestors', the screen's and the app's; an action refused by ``check_action`` is passed
    over; 0.34 ms for the search screen's 56 bindings, only for keys that type nothing). Keys
    the widget types itself (printable ones, Enter in a text area) and priority
    bindings (the app ran those before the key reached the widget) are left to Textual; so is a
    key whose binding is disabled or does not handle it: it bubbles up as before. A key that
    reaches the widget after the focus has moved on goes to the widget focused now: a binding
    that moves the focus does so at once (``Screen.set_focus``, as Tab does), not through
    ``Widget.focus``, which queues the change on the app behind the keys. Waiting here for
    the app's queue instead deadlocks when the binding closes the widget's screen (the app then
    waits for this widget's handler to end).
    """

    #: non-printable keys the widget inserts as text in its own key handler
    TYPED_KEYS: ClassVar[frozenset[str]] = frozenset()
    #: False for a widget that types nothing (a table): its printable keys are bindings too
    TYPES_PRINTABLE: ClassVar[bool] = True

    #: keys held until :meth:`release_keys` (None: not holding)
    _held: list[events.Key] | None = None
    _replay_posted = False

    async def _on_key(self, event: events.Key) -> None:
        if self._held is not None:
            event.stop()
            event.prevent_default()
            self._held.append(events.Key(event.key, event.character))
            return
        if await self.run_key_in_order(event):
            event.stop()
            event.prevent_default()

    # -- holding keys until what they act on is shown ----------------------------------------
    def hold_keys(self) -> None:
        """Hold the keys that reach the widget from now on, until :meth:`release_keys`.

        The search screen holds the results table's keys when Down moves the focus there while
        the query typed is still being searched: ``+`` typed right behind Down means the new
        query's first hit, not the old results' row under the cursor. Priority keys (Ctrl+Q)
        never reach the widget and are not held."""
        if self._held is None:
            self._held = []

    def release_keys(self) -> None:
        """Run the held keys, in the order typed and ahead of any key typed after this call
        (those are held too until the replay, a message to this widget, is read)."""
        if self._held is not None and not self._replay_posted:
            self._replay_posted = True
            cast("Widget", self).post_message(ReplayHeldKeys())

    @property
    def holding(self) -> bool:
        """True while keys are held (:meth:`hold_keys`)."""
        return self._held is not None

    async def _on_replay_held_keys(self, message: ReplayHeldKeys) -> None:
        message.stop()
        held, self._held, self._replay_posted = self._held or [], None, False
        for key in held:
            await self.run_key_in_order(key, replay=True)

    def _on_blur(self, event: events.Blur) -> None:
        # the focus left within this screen (a click): the held keys are not waited for.
        # Textual calls each class's own handler along the MRO: the widget's _on_blur runs too
        widget = cast("Widget", self)
        if widget.screen is widget.app.screen:
            self.release_keys()

    def _release_when_focused(self, tries: int = 50) -> None:
        """Release the held keys once the screen shown has a focused widget (a dialog's
        input is focused when it is mounted), checking every 20 ms for up to 1 s."""
        app = cast("Widget", self).app
        if app.screen.focused is not None or tries <= 0:
            self.release_keys()
        else:
            app.set_timer(0.02, partial(self._release_when_focused, tries - 1))

    async def run_key_in_order(self, event: events.Key, replay: bool = False) -> bool:
        """Apply ``event`` now, in its place in the burst; True if it was handled here (held,
        passed on to the widget focused now, or its binding ran), False to leave it to Textual.
        ``replay``: a held key being run (it is not held again)."""
        widget = cast("Widget", self)
        app = widget.app
        key = events.Key(event.key, event.character)
        if widget.screen is not app.screen:
            # a key ahead of this one opened a screen over this one (a dialog: "s" then the
            # search's name) or closed this one: the key is the screen's shown now, for its
            # focused widget once it has one (a dialog just pushed is still mounting)
            target = app.screen.focused
            if target is None and not replay and isinstance(app, DialogKeys):
                app.hold_for_dialog(key)  # ahead of the keys the app holds: typed before them
                return True
            if target is None and not replay:
                self.hold_keys()
                cast("list[events.Key]", self._held).append(key)
                self._release_when_focused()
                return True
            (target or app.screen)._forward_event(key)  # as App.on_event
            return True
        focused = app.focused
        if focused is not None and focused is not widget:
            # the app forwarded this key here before a key ahead of it in the same burst moved
            # the focus on (Tab): it belongs to the widget focused now, in the order typed
            focused._forward_event(key)  # as App.on_event
            return True
        typed = (event.is_printable and self.TYPES_PRINTABLE) or event.key in self.TYPED_KEYS
        if typed or widget.check_consume_key(event.key, event.character):
            return False
        active = widget.screen.active_bindings.get(event.key)
        if active is None or not active.enabled or active.binding.priority:
            return False  # Textual goes on to the widget's own handler, then bubbles the key
        return await app.run_action(active.binding.action, active.node)


class InOrderInput(InOrderKeys, Input):
    """Textual's :class:`~textual.widgets.Input`, editing and focus keys in typing order."""


class InOrderTextArea(InOrderKeys, TextArea):
    """Textual's :class:`~textual.widgets.TextArea`, editing and focus keys in typing order."""

    TYPED_KEYS = frozenset({"enter"})


class InOrderScroll(InOrderKeys, VerticalScroll):
    """A focusable scrolling box whose keys (all bindings: it types nothing) run in typing
    order: the screening screen's record, where ``x2`` typed fast excluded the record on screen
    with reason 2 and the next one without, and the note typed behind ``n`` was lost."""

    TYPES_PRINTABLE = False


class DialogKeys:
    """App mixin: keys that arrive while the screen shown is a dialog still being mounted
    (pushed, nothing in it focused yet), or the app's first screen while the app starts, wait
    for its focus, then go to the focused widget in the order typed.

    Textual forwards such a key to the screen itself, where nothing handles it; the key then
    bubbles back to the app, whose bindings run against the screen shown *then*: once the
    dialog had closed, the letters of a note typed at terminal speed behind ``n`` ran as the
    results table's ``m`` / ``x`` keys (seen in tmux on a loaded machine). At the start, a
    query typed right behind ``litsift`` + Enter (read once the app takes the terminal, before
    the query input has the focus) was lost. Priority bindings (Ctrl+Q) still run at once.
    Held keys wait at most 1 s for a dialog, :data:`STARTUP_WAIT_S` for the first screen
    (then go where Textual would send them)."""

    #: keys a widget under the dialog received before the dialog opened (typed first)
    _dialog_early: list[events.Key] | None = None
    #: keys the app received while the dialog mounts
    _dialog_held: list[events.Key] | None = None
    #: a widget of the app has had the focus: the first screen is up
    _started = False

    async def on_event(self, event: events.Event) -> None:
        app = cast("App[object]", self)
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self._dialog_held is None and self._awaiting_focus():
                self._start_dialog_hold()
            if self._dialog_held is not None:
                if not await app._check_bindings(event.key, priority=True):
                    self._dialog_held.append(_typed_before_start(event, self._started))
                return
        await super().on_event(event)  # type: ignore[misc]

    def hold_for_dialog(self, key: events.Key) -> None:
        """Hold ``key``, which a widget under the dialog received before the dialog opened
        (:class:`InOrderKeys`): it goes to the dialog ahead of the keys the app holds, which
        were typed after it. One replay for both: two would race."""
        if self._dialog_held is None:
            self._start_dialog_hold()
        cast("list[events.Key]", self._dialog_early).append(key)

    def _awaiting_focus(self) -> bool:
        """True while the screen shown has nothing focused yet but will: a dialog being
        mounted, or the first screen while the app starts."""
        screen = cast("App[object]", self).screen
        self._started = self._started or screen.focused is not None
        return _mounting_dialog(screen) or (not self._started and _will_focus(screen))

    def _start_dialog_hold(self) -> None:
        self._dialog_early, self._dialog_held = [], []
        tries = 50 if self._started else round(STARTUP_WAIT_S / 0.02)
        cast("App[object]", self).set_timer(0.02, partial(self._release_dialog_keys, tries))

    async def _release_dialog_keys(self, tries: int) -> None:
        app = cast("App[object]", self)
        if tries > 0 and self._awaiting_focus():
            app.set_timer(0.02, partial(self._release_dialog_keys, tries - 1))
            return
        held = [*(self._dialog_early or []), *(self._dialog_held or [])]
        self._dialog_early = self._dialog_held = None
        for key in held:
            (app.focused or app.screen)._forward_event(key)  # as App.on_event


def _typed_before_start(key: events.Key, started: bool) -> events.Key:
    """``key`` as typed: before the app took the terminal, its line discipline turned an
    Enter into a line feed (``ICRNL``), which reaches the app as Ctrl+J (the query typed
    right behind ``litsift`` + Enter was not searched)."""
    return key if started or key.key != "ctrl+j" else events.Key("enter", "\r")


def _mounting_dialog(screen: Screen[object]) -> bool:
    """A dialog (modal screen) with nothing focused yet that will have a focused widget."""
    return isinstance(screen, ModalScreen) and _will_focus(screen)


def _will_focus(screen: Screen[object]) -> bool:
    """A screen with nothing focused yet that will have a focused widget."""
    return screen.focused is None and (not screen.is_mounted or bool(screen.focus_chain))
