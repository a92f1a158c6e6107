"""What the main screen's parts see of the screen that composes them.

:class:`~litsift.tui.screens.search.SearchScreen` composes its command parts (triage, ranking,
research questions, background errors: :mod:`~litsift.tui.screens.triage`,
:mod:`~litsift.tui.screens.ranking`, :mod:`~litsift.tui.screens.rq`,
:mod:`~litsift.tui.screens.job_errors`) and passes itself to each. A part types it as one of
these Protocols, never as ``SearchScreen``: the screen imports its parts and no part imports the
screen (``tests/tui/test_import_cycles.py`` keeps the TUI's modules free of import cycles).
A part that needs more of the screen adds it here, by name, where the next reader sees it.
The screening screen's LLM judge (:mod:`~litsift.tui.screens.screening_judge`) sees it as a
:class:`JudgeHost` likewise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from litsift.tui.screens.jobs import Refreshing
from litsift.types import Kind, YearRange

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.worker import Worker

    from litsift.service.api import LitsiftAPI, ScreeningAPI
    from litsift.tui.screens.jobs import ServiceCalls
    from litsift.tui.widgets import DetailPane, QueryBar, ResultsTable, StatusLine
    from litsift.tui.widgets.kind_tab import KindTab

__all__ = ["ErrorsHost", "JudgeHost", "RankingHost", "ResultsHost", "ScreenPump", "TriageHost"]


class ScreenPump(Refreshing, Protocol):
    """What the parts use of Textual's ``Screen`` (any screen has it, with these signatures)."""

    @property
    def app(self) -> App[Any]: ...

    def post_message(self, message: Message) -> bool: ...

    def run_worker(
        self,
        work: Callable[[], None],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[None]: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None: ...

    def refresh_bindings(self) -> None: ...


class ErrorsHost(ScreenPump, Protocol):
    """What :class:`~litsift.tui.screens.job_errors.JobErrors` needs: the status line and the
    service (for its log file)."""

    @property
    def service(self) -> LitsiftAPI: ...

    @property
    def status(self) -> StatusLine: ...


class ResultsHost(ErrorsHost, Protocol):
    """The results on screen: the query shown, the tabs with their tables, the detail pane, and
    the serialised service calls (:class:`~litsift.tui.screens.jobs.ServiceCalls`)."""

    #: the kind of the tab shown, and the query (text, years) the screen shows
    kind: Kind
    text: str
    years: YearRange

    @property
    def calls(self) -> ServiceCalls: ...

    @property
    def detail(self) -> DetailPane: ...

    @property
    def query_bar(self) -> QueryBar: ...

    def tab(self, kind: Kind | None = None) -> KindTab: ...

    def table(self, kind: Kind | None = None) -> ResultsTable: ...

    def refresh_detail(self) -> None:
        """Re-render the highlighted hit's detail (its label or coverage changed)."""

    def show_modes(self) -> None:
        """Put the active view modes (filter, orders, full text...) in the status line."""


class TriageHost(ResultsHost, Protocol):
    """What :class:`~litsift.tui.screens.triage.TriageCommands` needs beyond the results."""

    def action_show_kind(self, kind: str) -> None:
        """Show the tab of ``kind`` (a history entry of the other kind)."""


class RankingHost(ResultsHost, Protocol):
    """What :class:`~litsift.tui.screens.ranking.RankingCommands` needs beyond the results."""

    @property
    def request_id(self) -> int:
        """Id of the latest search request (a reordering of an older result is dropped)."""

    def open_detail(self) -> None:
        """Put the focus in the detail pane (a reference opened from an answer)."""

    def cancel_workers(self, group: str) -> None:
        """Cancel the screen's workers of ``group`` (an aspect scoring with nothing to score)."""


class JudgeHost(ScreenPump, Protocol):
    """What :class:`~litsift.tui.screens.screening_judge.Judging` needs of the screening
    screen: its session, whether it is still shown, the model's retraining and the progress
    line."""

    @property
    def session(self) -> ScreeningAPI | None: ...

    @property
    def is_attached(self) -> bool: ...

    def retrain(self) -> None:
        """Retrain the learning order in the background (it reads the verdicts stored)."""

    def show_counts(self) -> None:
        """Show the progress line again (the judge's progress is part of it)."""
