"""Python's cyclic garbage collector, kept out of the way between a query and its painted rows.

A new result set allocates a few hundred thousand short-lived objects on the UI thread (Rich
segments, Textual strips and their caches, the rows' cells). CPython runs a collection every
700 net allocations and a full one every hundred of those; a full collection walks every
tracked object of the process (the app, the service, the table's caches): measured on the
DataFinder eval home, 100-190 ms each, several per result set, the tail of keystroke ->
painted results (``benchmarks/tui_latency.py``).

Two things, the same ones Textual does for smooth scrolling (``App.PAUSE_GC_ON_SCROLL``) and
CPython documents for long-lived heaps (``gc.freeze``):

* :meth:`CollectorHold.freeze_startup`: once the app is up, move every tracked object alive
  then (modules, the service, the widget tree) to the permanent generation, so later
  full collections walk only what came after (:meth:`CollectorHold.unfreeze` when the app
  closes, so a process that runs several apps, as the tests do, frees the earlier ones);
* :meth:`CollectorHold.hold` turns automatic collection off from a search request until its
  rows are painted (:meth:`CollectorHold.release`), and at the latest :data:`HOLD_LIMIT_S`
  after the last request: the objects of one result set wait for the next collection, which
  runs after the paint.

Nothing is lost: objects are freed by reference counting as before; cycles are collected at the
next collection once the hold ends. If collection was off already (a scroll animation holds it,
or the program turned it off), the hold leaves it as it found it.
"""

from __future__ import annotations

import gc

from textual.message_pump import MessagePump
from textual.timer import Timer

#: the longest (seconds after the last :meth:`CollectorHold.hold`) collection stays off
HOLD_LIMIT_S = 1.0


class CollectorHold:
    """Holds automatic garbage collection off while a result set is built and painted.

    Args:
        pump: runs the timer that ends a hold no release ended (a screen or the app).
    """

    def __init__(self, pump: MessagePump) -> None:
        self._pump = pump
        self._timer: Timer | None = None
        #: True while this hold turned collection off (and must turn it on again)
        self.held = False

    def hold(self) -> None:
        """Turn automatic collection off until :meth:`release`, or :data:`HOLD_LIMIT_S` from
        now, whichever comes first (a second hold restarts the limit)."""
        if not self.held and gc.isenabled():
            gc.disable()
            self.held = True
        if self.held:
            if self._timer is not None:
                self._timer.stop()
            self._timer = self._pump.set_timer(HOLD_LIMIT_S, self.release)

    def release(self) -> None:
        """Turn automatic collection on again if :meth:`hold` turned it off (else nothing)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.held:
            self.held = False
            gc.enable()

    @staticmethod
    def freeze_startup() -> None:
        """Move every tracked object to the permanent generation (``gc.freeze``, constant
        time): later collections do not walk the objects the app started with. No collection
        first (a full one costs the tests' many apps ~0.1 s each): the few cycles that are
        garbage already wait for :meth:`unfreeze`."""
        gc.freeze()

    @staticmethod
    def unfreeze() -> None:
        """Undo :meth:`freeze_startup` (the app is closing): what it froze is collectable."""
        gc.unfreeze()
