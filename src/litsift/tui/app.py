"""The Textual app: wiring only. Search state lives in :class:`SearchScreen`; widgets in
``widgets/``; styles in ``litsift.tcss``. The app factories live here: :func:`create_app`
(``litsift``) and :func:`create_screening_app` (``litsift review screen``); screens never
import the app.

Bindings carry ids equal to their action names, and ``Config.keymap`` (binding id → keys) is
applied with :meth:`textual.app.App.set_keymap` (the pattern of posting's ``app.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from textual import events, work
from textual.actions import parse as parse_action
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.types import CSSPathType

from litsift.config import Config
from litsift.errors import LitsiftError
from litsift.service.api import LitsiftAPI
from litsift.text import for_terminal
from litsift.tui.collector import CollectorHold
from litsift.tui.screens import HelpScreen, SearchScreen
from litsift.tui.screens.citations import CitationsScreen
from litsift.tui.screens.help import BindingGroup, help_rows
from litsift.tui.screens.keys import (
    ERROR_BINDINGS,
    NEEDS_LLM,
    RANKING_BINDINGS,
    SCREEN_BINDINGS,
    TRIAGE_BINDINGS,
)
from litsift.tui.screens.screening import SCREENING_BINDINGS, ScreeningScreen
from litsift.tui.widgets import ResultsTable
from litsift.tui.widgets.text_inputs import DialogKeys
from litsift.types.llm import RetryWait

#: keys that only make sense where the focus is (Esc goes back, Down into the results)
_NOT_IN_PALETTE = frozenset({"back", "close", "focus_results"})


class LitsiftApp(DialogKeys, App[None]):
    """litsift's terminal UI over one service (:class:`~litsift.service.api.LitsiftAPI`)."""

    CSS_PATH: ClassVar[CSSPathType] = "litsift.tcss"
    TITLE = "litsift"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1,question_mark", "help", "Help", id="help", tooltip="Show this list of keys"),
        # ctrl+q first: the footer shows the first key. It is a priority binding (as Textual's
        # own, which this one hides): it quits from a text input and from a dialog too, where
        # app bindings are otherwise not active (the note dialog's footer said "^q Quit" and
        # ^q did nothing); "q" quits outside text only (one help row: the same id)
        Binding(
            "ctrl+q",
            "quit",
            "Quit",
            id="quit",
            priority=True,
            tooltip="Quit litsift (q outside text)",
        ),
        Binding(
            "q", "quit", "Quit", id="quit", show=False, tooltip="Quit litsift (q outside text)"
        ),
        Binding(
            "f4",
            "screening",
            "Screening",
            id="screening",
            show=False,
            tooltip="Screen the last review",
        ),
    ]

    def __init__(
        self, service: LitsiftAPI, config: Config | None = None, *, show_timings: bool = True
    ) -> None:
        super().__init__()
        self.service = service
        self.config = config if config is not None else service.config
        self.search_screen = SearchScreen(service, self.config.search, show_timings=show_timings)

    def get_default_screen(self) -> Screen[None]:
        return self.search_screen

    def on_mount(self) -> None:
        known = {row[3] for row in help_rows(self, self.binding_groups(), {})}
        unknown = sorted(set(self.config.keymap) - known)
        if unknown:
            self.notify(
                f"unknown actions in [keymap]: {', '.join(unknown)}; known: "
                f"{', '.join(sorted(known))}",
                title="config",
                severity="warning",
                markup=False,
            )
        self.set_keymap(self.config.keymap)
        # a 429's Retry-After or an overloaded server's backoff: said, not a silent pause
        self.service.llm.report_llm_waits(self._llm_waiting)
        self.check_arrivals()
        # what the app started with is not walked by later collections (tui/collector.py)
        self.call_after_refresh(CollectorHold.freeze_startup)

    def _llm_waiting(self, wait: RetryWait) -> None:  # the LLM call's worker thread
        """A toast for each wait before an LLM call (answer, rerank, aspect grades, the
        screening judge) is sent again, for as long as the wait (at least 3 s)."""
        line = for_terminal(wait.line(), keep_newlines=False)
        try:
            self.call_from_thread(
                self.notify, line, title="LLM", severity="warning", markup=False,
                timeout=max(3.0, wait.wait_s),
            )  # fmt: skip
        except RuntimeError:  # the app has closed (or this is its own thread): nothing to show
            pass

    def on_unmount(self) -> None:
        self.service.llm.report_llm_waits(None)
        # a hold the app's end cut short, and what it froze: another app in this process (the
        # tests) starts with collection as it was
        self.search_screen.collector.release()
        CollectorHold.unfreeze()

    @work(thread=True, exclusive=True, group="arrivals", exit_on_error=False)
    def check_arrivals(self) -> None:
        """Tell how many papers saved syncs (``litsift sync``) brought in since the last look,
        off the UI thread; then count them as seen."""
        try:
            home = self.service.state(mark_arrivals_seen=True)
            if home.read_only_reason is not None:  # a mounted snapshot, a full disk: searching
                title, hint = home.read_only_fault or ("read-only home", "")  # works
                self.call_from_thread(self.show_read_only, home.read_only_reason, title, hint)
                return
            count = home.arrivals
        except LitsiftError:
            return  # a missing or locked store says so on the first search
        if count:
            self.call_from_thread(
                self.notify,
                f"{count:,} new paper{'s' if count != 1 else ''} from litsift sync since your "
                "last look",
                title="sync",
            )

    def action_feed(self) -> None:
        from litsift.tui.screens.feed import FeedScreen

        self.push_screen(FeedScreen(self.service))

    def action_screening(self) -> None:
        """F4: screen the review screened last (or say how to make one)."""
        try:
            name = self.service.reviews.last_opened()
        except LitsiftError as err:
            self.notify(err.message, title="screening", severity="error", markup=False)
            return
        if name is None:
            self.notify(
                "no review yet: litsift review new NAME --from FILE (RIS, nbib, CSV, BibTeX...)",
                title="screening",
                markup=False,
            )
            return
        self.push_screen(ScreeningScreen(self.service, name))

    def show_read_only(self, reason: str, title: str = "read-only home", hint: str = "") -> None:
        """Say once (``reason``, then ``hint``, under ``title``: "disk full", "read-only home"),
        and keep in the status line, that nothing can be saved in this home."""
        message = f"{reason}\nhint: {hint}" if hint else reason
        self.notify(message, title=title, severity="warning", timeout=15, markup=False)
        self.search_screen.read_only = title
        if self.search_screen.is_mounted:  # else its on_mount shows the modes
            self.search_screen.show_modes()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast (errors may quote data) shown through :func:`litsift.text.for_terminal`,
        and as plain text unless a caller asks for markup (Textual's default parsed it: a
        toast quoting ``[/]`` from a title raised ``MarkupError``)."""
        super().notify(
            for_terminal(message),
            title=for_terminal(title, keep_newlines=False),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    async def on_event(self, event: events.Event) -> None:
        """A key or click on the main or citations screen: a notice in its status line (a
        label saved, an export written, an action refused) has been seen and goes; the result's
        line, or the counts and keys, it covered come back (they stayed until the next search)."""
        if (
            isinstance(event, events.Key | events.MouseDown)
            and not event.is_forwarded
            and self.search_screen.is_attached
        ):
            if (screen := self.screen) is self.search_screen:
                self.search_screen.status.expire()
            elif isinstance(screen, CitationsScreen):
                screen.expire_notice()
        await super().on_event(event)

    @property
    def busy(self) -> bool:
        """True while a search is pending (tests wait on this instead of sleeping)."""
        return self.search_screen.busy

    def binding_groups(self) -> list[BindingGroup]:
        """Every binding of the app, grouped by where it works (for the help screen)."""
        return [
            ("anywhere", self.BINDINGS),
            ("main screen", [*SCREEN_BINDINGS, *ERROR_BINDINGS]),
            ("results", ResultsTable.BINDINGS),
            ("results, detail", TRIAGE_BINDINGS),
            ("results, detail", RANKING_BINDINGS),
            # its label keys are the results' (same ids, so one keymap entry moves both)
            ("citations", [b for b in CitationsScreen.BINDINGS if b not in TRIAGE_BINDINGS]),
            ("screening", SCREENING_BINDINGS),
        ]

    #: the search screen is the app's first screen (False in ``litsift review screen``'s app)
    SEARCHES: ClassVar[bool] = True

    def help_groups(self) -> list[BindingGroup]:
        """The help's binding groups: on the screening screen its own keys come first (and
        are, with quit and help, all there is in ``litsift review screen``, where nothing
        searches); elsewhere every group in :meth:`binding_groups`' order."""
        groups = self.binding_groups()
        if not isinstance(self.screen, ScreeningScreen):
            return groups
        mine = [g for g in groups if g[0] == "screening"]
        if not self.SEARCHES:
            anywhere = [
                b for b in self.BINDINGS if not (isinstance(b, Binding) and b.id == "screening")
            ]
            return [*mine, ("anywhere", anywhere)]
        return [*mine, *(g for g in groups if g[0] != "screening")]

    _quit_warned_on: object = None

    async def action_quit(self) -> None:
        """Quit; but from a note editor with unsaved text the first Ctrl+Q says so (it quit
        and the note was gone) and a second one quits without it."""
        unsaved = getattr(self.screen, "unsaved", None)
        if callable(unsaved) and unsaved() and self._quit_warned_on is not self.screen:
            self._quit_warned_on = self.screen
            said = "what you typed here is not saved (ctrl+s saves it); ctrl+q again quits"
            self.notify(said, title="not saved", severity="warning", markup=False)
            return
        await super().action_quit()

    def action_help_quit(self) -> None:
        """Ctrl+C (Textual's: it copies, it does not quit) says which key quits, as plain text:
        Textual's own toast is markup (``Press [b]ctrl+q[/b] ...``) and this app's toasts are
        not, so it showed the tags. A key that works in text is named first."""
        keys = [
            b.binding.key
            for b in self.active_bindings.values()
            if b.binding.action in ("quit", "app.quit")
        ]
        # in a dialog the app's bindings are not active, but its priority ones work
        keys += [k for k, b in self._bindings if b.action in ("quit", "app.quit") and b.priority]
        if keys:
            key = min(keys, key=lambda k: (len(k) == 1, k))  # ctrl+q before q
            self.notify(f"Press {key} to quit (ctrl+c copies)", title="Do you want to quit?")

    def key_ctrl_c(self) -> None:
        """Ctrl+C that no binding took: in a dialog (help, criteria, answer, feed, ...) the
        app's Ctrl+C binding is not active (Textual leaves the app's bindings out of a modal
        screen's) and the screen's own copies only selected text, so the key did nothing;
        Textual hands an unbound key to the app's ``key_`` method."""
        self.action_help_quit()

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        rows = help_rows(self, self.help_groups(), self.config.keymap)
        if isinstance(self.screen, ScreeningScreen):
            at = max(i for i, row in enumerate(rows) if row[2] == "screening") + 1
            rows.insert(
                at, ("1 … 9", "Exclude with the review's reason of that number", "screening", "")
            )
        if self.SEARCHES:
            rows += [
                ("↑ ↓ / PgUp PgDn", "Move in the results", "results", ""),
                ("Enter", "Search now (query) / open the detail (results)", "query, results", ""),
                ("Tab / shift+Tab", "Next / previous field", "anywhere", ""),
            ]
        rows.append(("^p", "Command palette", "anywhere", ""))  # ^q / q: the quit binding's row
        self.push_screen(HelpScreen(rows))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette's commands: the keys of the screen it was opened on, named as the
        footer and help name them (a hand-kept list missed T, C, R, P and M, and offered the
        search screen's commands on the screening screen, where running one crashed)."""
        # Textual's "Keys" panel is left out: Help lists the keys, and Esc did not close it
        yield from (c for c in super().get_system_commands(screen) if c.title != "Keys")
        if screen is self.search_screen:
            yield from self._search_commands()
            yield SystemCommand(
                "Feed", "New synced papers ranked by your kept ones", self.action_feed
            )
            yield SystemCommand("Screening", "Screen the last review (F4)", self.action_screening)
        else:
            bindings = [b for b in type(screen).BINDINGS if isinstance(b, Binding)]
            yield from _commands(screen, bindings)
        yield SystemCommand("Help", "List the key bindings", self.action_help)

    def _search_commands(self) -> Iterable[SystemCommand]:
        s = self.search_screen
        llm = self.service.glance().llm_configured
        bindings = [
            b
            for b in (*SCREEN_BINDINGS, *TRIAGE_BINDINGS, *RANKING_BINDINGS, *ERROR_BINDINGS)
            if isinstance(b, Binding) and (b.action != "read_errors" or s.job_errors.unread)
        ]
        # the LLM's commands are offered unconfigured too (the footer shows their keys; run,
        # they say what to configure): they were missing, as if litsift had no LLM features
        unset = "" if llm else " (first set llm.base_url in config.toml: the command says how)"
        yield from _commands(s, bindings, {a: unset for a in NEEDS_LLM})


def _commands(
    screen: Screen[Any], bindings: list[Binding], more: Mapping[str, str] | None = None
) -> Iterable[SystemCommand]:
    """A palette command per action of ``bindings`` (the first binding of each), run on
    ``screen``, its help text followed by ``more[action]``; moves that need a place (Esc back,
    Down into the results) are left out."""
    seen: set[str] = set()
    for binding in bindings:
        action = binding.action
        if action in seen or action in _NOT_IN_PALETTE or binding.system:
            continue
        seen.add(action)
        said = (binding.tooltip or "") + (more or {}).get(action, "")
        yield SystemCommand(binding.description, said, partial(_run_command, screen, action))


async def _run_command(screen: Screen[Any], action: str) -> None:
    """Run the palette's ``action`` on ``screen``. A results command picked with the cursor in
    the query (Keep, Export, Note...: their keys type text there, so the screen refuses them)
    runs with the results focused, as after Down; it did nothing, and said nothing."""
    if isinstance(screen, SearchScreen) and screen.query_bar.has_focus_within:
        _, name, params = parse_action(action)
        if screen.check_action(name, params) is False:
            screen.set_focus(screen.table())
    await screen.run_action(action)


def create_app(
    service: LitsiftAPI, config: Config | None = None, *, show_timings: bool = True
) -> LitsiftApp:
    """Build the TUI over ``service`` (the factory shared by ``litsift`` and the tests).

    Args:
        service: the store/index facade; the app never touches storage directly.
        config: settings (search ``k``/``k0``, ``keymap``); default ``service.config``.
        show_timings: show search milliseconds in the status line (off for snapshot tests).
    """
    return LitsiftApp(service, config, show_timings=show_timings)


def create_screening_app(
    service: LitsiftAPI,
    review: str,
    *,
    dense: bool = True,
    stage: str = "tiab",
    reviewer: str = "",
) -> LitsiftApp:
    """The app with review ``review``'s screening screen as its only screen (``litsift review
    screen``; the search screen is not mounted, so nothing is indexed meanwhile): q / Ctrl+Q
    quit, Esc has nothing to go back to."""

    class ScreeningApp(LitsiftApp):
        SEARCHES = False
        # Textual loads a screen's CSS_PATH when the screen is pushed, not for the default
        # screen: the app loads it (without it the criteria took 13 of 24 lines, the record 1)
        CSS_PATH: ClassVar[CSSPathType] = [
            Path(__file__).with_name("litsift.tcss"),
            Path(ScreeningScreen.CSS_PATH),
        ]

        def get_default_screen(self) -> Screen[None]:
            return ScreeningScreen(service, review, dense=dense, stage=stage, reviewer=reviewer)

    return ScreeningApp(service)
