"""A dataset's users in its detail: the stored papers that name it (title, year), those the
query finds first, then the newest, read by the detail pane's worker through the service's
trail door (:meth:`litsift.service.api.TrailAPI.dataset_users`) and kept per dataset and query
(the year bound included) until the pane is told to forget them. ``C`` lists them and opens one
(:mod:`litsift.tui.screens.dataset_users`).

Titles come from the store: every part goes through :mod:`~litsift.tui.widgets.safe_text` (the
pane's :func:`~litsift.tui.widgets.detail_pane.render_hit`), each title on one line, cut to
:data:`TITLE_CELLS` so a line fits an 80-column terminal's detail.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import cast

from textual.widget import Widget

from litsift.errors import LitsiftError
from litsift.service.api import TrailAPI
from litsift.tui.messages import DatasetUsersLoaded
from litsift.tui.widgets.safe_text import Part
from litsift.types import Hit, Kind
from litsift.types.citations import DatasetUsers, KeptLinks

__all__ = ["TITLE_CELLS", "TrailReads", "UsersReader", "users_parts"]

#: a user's title is cut to this many characters (its year and indent fit beside it in 80)
TITLE_CELLS = 64
#: (dataset id, query text, year bound): what a dataset's users were read for
UsersKey = tuple[str, str, int | None]


class TrailReads:
    """The detail pane's reads of the trail: blocking service calls made under the screen's
    service lock, from the pane's workers.

    Args:
        trail: the service's trail door.
        lock: the screen's service lock (one search or read at a time).
    """

    def __init__(self, trail: TrailAPI, lock: threading.Lock) -> None:
        self.trail = trail
        self.lock = lock

    def kept_links(self, doc_id: str) -> KeptLinks:
        with self.lock:
            return self.trail.kept_links(doc_id)

    def dataset_users(self, key: UsersKey) -> DatasetUsers:
        with self.lock:
            return self.trail.dataset_users(*key)


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CELLS else line[: TITLE_CELLS - 1].rstrip() + "…"


def users_parts(users: DatasetUsers | None) -> Iterator[Part]:
    """The "Papers naming it" lines of a dataset detail: how many, and a few titles with their
    years; "reading…" until the worker has read them."""
    yield "\n"
    yield ("Papers naming it", "bold $accent")
    yield "\n"
    if users is None:
        yield ("  reading…\n", "$text-muted")
        return
    if not users.total:
        yield ("  none of your papers names it\n", "$text-muted")
        return
    noun = "paper names" if users.total == 1 else "papers name"
    order = "the query's first, then newest" if users.query.strip() else "newest first"
    shown = f" · {order} · C lists them" if users.papers else ""
    yield (f"  {users.total} {noun} it{shown}\n", "$text-muted")
    for paper in users.papers:
        yield "  " + _title(paper.title)
        yield (f" ({paper.year})" if paper.year else "", "$text-muted")
        yield "\n"


class UsersReader:
    """Mixin of the detail pane: reads a dataset's users in a worker (see the module). Not a
    Widget subclass: that set ``can_focus`` False on the pane (Textual's ``__init_subclass__``)
    and Enter no longer opened the detail.

    The pane calls :meth:`users_of` when it shows a dataset and redraws in
    :meth:`users_read` once they arrive."""

    #: the reads the pane makes (None: no users are shown)
    reads: TrailReads | None = None

    def init_users(self) -> None:
        #: the users read so far, by what they were read for
        self.users: dict[UsersKey, DatasetUsers] = {}
        #: what a worker is reading now, or None
        self.reading_users: UsersKey | None = None

    def users_of(self, hit: Hit, query: str, max_year: int | None) -> DatasetUsers | None:
        """The users of dataset ``hit`` read already; else None, and a worker reads them."""
        key = (hit.docid, query, max_year)
        if key in self.users or self.reads is None or hit.kind is not Kind.DATASET:
            return self.users.get(key)
        if key != self.reading_users:
            self.reading_users = key
            reads = self.reads

            def work() -> None:
                try:
                    msg = DatasetUsersLoaded(reads.dataset_users(key))
                except Exception as err:  # reported, never a crash
                    empty = DatasetUsers(key[0], query=key[1], max_year=key[2])
                    msg = DatasetUsersLoaded(empty, err)
                cast("Widget", self).post_message(msg)

            pane = cast("Widget", self)
            pane.run_worker(work, group="dataset-users", thread=True, exit_on_error=False)
        return None

    def _on_dataset_users_loaded(self, msg: DatasetUsersLoaded) -> None:
        msg.stop()
        u = msg.users
        key = (u.doc_id, u.query, u.max_year)
        if key == self.reading_users:
            self.reading_users = None
        self.users[key] = u  # an error: not read again for this dataset and query
        if msg.error is not None:
            err = msg.error
            text = f"{err.message} — {err.hint}" if isinstance(err, LitsiftError) else str(err)
            cast("Widget", self).notify(
                text, title="Papers naming the dataset not read", severity="error", markup=False
            )
        self.users_read(u)

    def users_read(self, users: DatasetUsers) -> None:
        """The users of a dataset arrived (the pane redraws when it shows that dataset)."""
