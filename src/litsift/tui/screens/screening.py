"""Screening a systematic review: one record at a time in the learning order.

Opened by ``litsift review screen NAME`` or, in the app, by F4 (the review screened last).
Keys: ``i`` include, ``x`` exclude, ``1``-``9`` exclude with the review's reason of that
number, ``m`` maybe, ``u`` undo, ``n`` note, ``c`` the criteria whole, ``J`` the LLM judge
(:mod:`~litsift.tui.screens.screening_judge`), Esc back (``litsift review screen``: q quits).
A key records the decision (one SQLite insert) and shows the next record of the queue the last
retraining made, at once; the model is retrained in a worker thread (never on the UI thread),
and its order replaces the queue when it is done (the record on screen stays). The progress
line, the gain curve (includes found as screening goes on) and the stopping rules' states are
computed in the same worker; no rule stops screening on its own.

Decisions another session stores on the review (a second terminal) are loaded by a worker at
each retraining and every :attr:`ScreeningScreen.SYNC_S` seconds (:meth:`ScreeningAPI.sync`):
a record decided there leaves the queue and the screen here, and the progress line says so. A
key on a record decided there since it was read here writes nothing: it looks at the store then.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Sparkline, Static
from textual.worker import get_current_worker

from litsift.errors import LitsiftError
from litsift.text import for_terminal
from litsift.tui.screens.indexing import BuildCancelled, stops_when_cancelled
from litsift.tui.screens.modals import PromptScreen
from litsift.tui.screens.review_criteria import CriteriaScreen
from litsift.tui.screens.screening_judge import JUDGE_BINDING, Judging, error_message
from litsift.tui.screens.screening_text import (
    KEYWORD_STYLE,
    done_lines,
    highlighted,
    progress_line,
    reason_key_hint,
    stop_lines,
)
from litsift.tui.widgets.footer import KeyFooter
from litsift.tui.widgets.safe_text import Part, safe_content
from litsift.tui.widgets.text_inputs import InOrderScroll

if TYPE_CHECKING:
    from litsift.service.api import LitsiftAPI, ScreeningAPI
    from litsift.types.reviews import ScreeningProgress

__all__ = ["SCREENING_BINDINGS", "SHORT_BELOW", "ScreeningScreen"]

#: terminals with fewer rows than this hide the gain curve (the record keeps the room)
SHORT_BELOW = 30

SCREENING_BINDINGS: list[BindingType] = [
    Binding("i,y,plus", "decide('include')", "Include", id="screening_include"),
    Binding("x,minus", "decide('exclude')", "Exclude", id="screening_exclude"),
    Binding("m", "decide('maybe')", "Maybe", id="screening_maybe"),
    Binding("u", "undo", "Undo", id="screening_undo", tooltip="Undo the last decision"),
    Binding("n", "note", "Note", id="screening_note", tooltip="Note on this record"),
    Binding("c", "criteria", "Criteria", id="screening_criteria", tooltip="The criteria, whole"),
    JUDGE_BINDING,
    Binding(
        "escape", "close", "Back", id="screening_back", tooltip="Back (review screen: q quits)"
    ),
    # 1-9: bindings like the letters, so a burst ("x2") is applied in the order typed (a key
    # handler ran the digits as they arrived, ahead of the letters typed before them); system:
    # the help shows them as one row "1 … 9" (LitsiftApp.action_help)
    *(
        Binding(str(k), f"reason({k})", f"Reason {k}", show=False, system=True, id=f"reason_{k}")
        for k in range(1, 10)
    ),
]


class ScreeningScreen(Screen[None]):
    """One review being screened (see the module docstring)."""

    CSS_PATH = Path(__file__).with_name("screening.tcss")
    BINDINGS: ClassVar[list[BindingType]] = SCREENING_BINDINGS
    #: fewer rows than SHORT_BELOW (80x24): no gain curve, the record has its 3 lines (CSS)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT_BELOW, "-tall")]  # noqa: RUF012 (as Screen's)
    #: seconds between two looks at the store for decisions made by another session
    SYNC_S: ClassVar[float] = 2.0
    #: seconds after another session's decision swapped the record on screen: keys do nothing
    SWAP_GRACE_S: ClassVar[float] = 0.6

    def __init__(
        self,
        service: LitsiftAPI,
        review: str,
        *,
        dense: bool = True,
        stage: str = "tiab",
        reviewer: str = "",
    ) -> None:
        """Args: ``dense``: also embed the records in the background and then rank with
        TF-IDF beside the encoder's vectors (litsift's default order); ``stage``: ``tiab``
        or ``fulltext``; ``reviewer``: who screens (blind to the other reviewers)."""
        super().__init__()
        self.service, self.review, self.dense = service, review, dense
        self.stage, self.reviewer = stage, reviewer
        self.session: ScreeningAPI | None = None
        self.embedding = self.retraining = self.syncing = self._again = False
        #: what another session changed, said below the progress line until the next key
        self._elsewhere = ""
        #: time.monotonic() when another session's decision last swapped the record on screen
        self._swapped_at = -1e9
        #: decisions this screen wrote and did not take back (u beyond them: an earlier one's)
        self._decided_here = 0
        self.retrains = 0
        #: seconds from the last decision key to the next record on screen
        self.last_key_s: float | None = None
        self._keywords: list[str] = []
        self._terms: list[str] = []
        self.judging = Judging(self)  # J

    def compose(self) -> ComposeResult:
        with Vertical(id="screening"):
            yield Static("", id="screening-criteria")
            yield Static("", id="screening-reasons")
            with InOrderScroll(id="screening-record-box"):
                opening = safe_content([f"opening review {self.review}…"])
                yield Static(opening, id="screening-record", markup=False)
            yield Static("", id="screening-progress")
            yield Static(
                "includes found as screening goes on (priors aside)", id="screening-curve-label"
            )
            yield Sparkline([], id="screening-curve")
            yield Static("", id="screening-stops")
        yield KeyFooter()  # a narrow line keeps ^q Quit and f1 Help

    def on_mount(self) -> None:
        self.load()
        self.set_interval(self.SYNC_S, self._poll)

    @property
    def busy(self) -> bool:
        """True while the review loads, the records are embedded, the model retrains or the
        store is read for decisions made elsewhere (tests wait on this)."""
        return self.session is None or self.retraining or self.embedding or self.syncing

    # -- loading and retraining (worker threads) ---------------------------------------------
    @work(thread=True, exclusive=True, group="screening-load", exit_on_error=False)
    def load(self) -> None:
        try:
            session = self.service.reviews.open(self.review, self.stage, self.reviewer)
            session.apply(session.retrain(), keep_current=False)  # the learner's first pick
            progress = session.progress()
        except Exception as err:  # LitsiftError or a bug: shown on the screen, never a hang
            self.app.call_from_thread(self._failed, err)
            return
        self.app.call_from_thread(self._loaded, session, progress)

    def _failed(self, err: Exception) -> None:
        self.retraining = False
        msg = error_message(err)  # a bug said so: its worker left "opening review…" for good
        self.query_one("#screening-record", Static).update(safe_content([msg]))
        self.app.notify(msg, title="screening", severity="error", markup=False)

    def _loaded(self, session: ScreeningAPI, progress: ScreeningProgress) -> None:
        self.session = session
        self._keywords, self._terms = session.highlight_terms()
        parts: list[Part] = [("Review ", "bold"), (session.name, "bold")]
        stage = "full text" if session.stage == "fulltext" else "title/abstract"
        parts += [f"  ·  stage: {stage}"]
        if session.reviewer:
            parts += [f"  ·  reviewer: {session.reviewer}"]
        if session.keywords:  # before the criteria: a long question is what the 3 lines cut
            parts += ["  ·  keywords: ", *[(k + " ", KEYWORD_STYLE) for k in session.keywords]]
        if session.criteria:
            parts += ["  ·  criteria: ", *highlighted(session.criteria, self._keywords, [])]
        self.query_one("#screening-criteria", Static).update(safe_content(parts))
        keyed = "  ".join(f"{i} {r}" for i, r in enumerate(session.reasons, 1))  # own line:
        reasons = self.query_one("#screening-reasons", Static)  # long criteria never cut it
        reasons.update(safe_content(["exclude with a reason: ", (keyed, "bold")]))
        reasons.display = bool(keyed)
        self.show_record()
        self.show_progress(progress)
        if self.dense:
            self.embedding = True
            self._embed_worker()

    @work(thread=True, exclusive=True, group="screening-embed", exit_on_error=False)
    def _embed_worker(self) -> None:
        session, stop = self.session, stops_when_cancelled(get_current_worker())
        error: LitsiftError | None = None
        try:  # q stops it at the next record, not after every record is embedded
            done = session is not None and session.embed(stop)
        except BuildCancelled:
            return
        except LitsiftError as err:
            done, error = False, err
        self.app.call_from_thread(self._embedded, done, error)

    def _embedded(self, done: bool, err: LitsiftError | None) -> None:
        self.embedding = False
        if err is not None:
            self.app.notify(
                f"{err.message}; screening goes on in the TF-IDF order",
                title="dense vectors",
                severity="warning",
                markup=False,
            )
        if done:
            self.retrain()

    def retrain(self) -> None:
        """Retrain in the background; a retraining already running is followed by another."""
        if self.retraining:
            self._again = True
            return
        self.retraining = True
        self._again = False
        self._retrain_worker()

    @work(thread=True, group="screening-retrain", exit_on_error=False)
    def _retrain_worker(self) -> None:
        session = self.session
        if session is None:
            return
        try:
            synced = session.sync()  # decisions made elsewhere first: the fit reads them
            result = session.retrain()
            fresh = session.apply(result)
            progress = session.progress()
        except Exception as err:  # LitsiftError or a bug: shown on the screen, never a hang
            self.app.call_from_thread(self._failed, err)
            return
        self.app.call_from_thread(self._retrained, progress, fresh, synced)

    def _retrained(self, got: ScreeningProgress, fresh: bool, synced: tuple[int, int]) -> None:
        self.retraining = False
        self.retrains += 1
        self._tell_synced(*synced)
        session = self.session
        paper = None if session is None else session.current_paper()
        verdict = None if paper is None or session is None else session.verdict_of(paper.id)
        if (self._shown, self._verdict) != (paper.id if paper is not None else None, verdict):
            self.show_record()  # another record, or a verdict (J) came for the one shown
        self.show_progress(got)
        if self._again or not fresh:
            self.retrain()

    def _poll(self) -> None:
        """Every :attr:`SYNC_S`: look for decisions made elsewhere (a retraining looks too)."""
        if self.session is not None and not (self.retraining or self.syncing):
            self.syncing = True
            self._sync_worker()

    @work(thread=True, exclusive=True, group="screening-sync", exit_on_error=False)
    def _sync_worker(self) -> None:
        synced = (0, 0)
        try:
            synced = synced if self.session is None else self.session.sync()
        except Exception as err:  # the next look tries again; a retraining shows the error
            logging.getLogger("litsift.tui").warning("screening sync failed", exc_info=err)
        self.app.call_from_thread(self._synced, synced)

    def _synced(self, synced: tuple[int, int]) -> None:
        self.syncing = False
        if self._tell_synced(*synced):
            self.show_record()
            self.show_counts()
            self.retrain()

    def _tell_synced(self, loaded: int, taken: int) -> bool:
        """Say once (below the progress line, until the next key) what another session did."""
        said = []
        if loaded:
            were = "s made elsewhere were" if loaded != 1 else " made elsewhere was"
            said.append(f"{loaded:,} decision{were} loaded")
        if taken:
            said.append(f"{taken:,} decision{'s' if taken != 1 else ''} taken back elsewhere")
        paper = None if self.session is None else self.session.current_paper()
        if said and self._shown is not None and (paper is None or paper.id != self._shown):
            said.append("the record on screen was decided there, so the next one is shown")
            self._swapped_at = time.monotonic()
        if said:
            self._elsewhere = "; ".join(said)
            self.app.notify(self._elsewhere, title="screening", markup=False)
        return bool(said)

    # -- showing ----------------------------------------------------------------------------
    _shown: str | None = None
    _verdict: tuple[str, str] | None = None
    _conflicts = 0  # of the stage, awaiting resolution (the end text says so)

    def done_lines(self) -> list[Part]:
        """What to do once every record of the stage has a decision (:func:`done_lines`)."""
        papers = None if self.session is None else self.session.counts()[1]
        return done_lines(self.review, self.stage, self.reviewer, papers, self._conflicts)

    def show_record(self) -> None:
        """The record: title, year · venue, an LLM's verdict, note, abstract, PDFs, keywords lit."""
        paper = None if self.session is None else self.session.current_paper()
        box = self.query_one("#screening-record", Static)
        if paper is None or self.session is None:
            self._shown = self._verdict = None
            self.refresh_bindings()  # the decision keys show only while a record does
            box.update(safe_content(self.done_lines()))
            return
        moved, self._shown = paper.id != self._shown, paper.id
        self.refresh_bindings()
        k, t = self._keywords, self._terms
        meta = " · ".join(x for x in (str(paper.year or "n.d."), paper.venue) if x)
        parts: list[Part] = [
            *[(p, "bold") if isinstance(p, str) else p for p in highlighted(paper.title, k, t)],
            "\n",
            (meta, "italic"),
        ]
        self._verdict = verdict = self.session.verdict_of(paper.id)  # J: not a decision
        if verdict is not None:  # under the title, where it is seen without scrolling
            said = "\nLLM: " if self.stage == "tiab" else "\nLLM (title/abstract): "
            parts += [said, (verdict[0], "bold"), f" — {verdict[1]}" if verdict[1] else ""]
        if note := self.session.note_of(paper.id):  # there too: a note after a long abstract
            parts += ["\nnote: ", (note, "italic")]  # was hidden, saving it showed nothing
        parts += ["\n\n", *highlighted(paper.abstract or "(no abstract)", k, t)]
        for path in self.session.pdfs.get(paper.id, []):
            parts += ["\nPDF: ", (path, "underline")]
        box.update(safe_content(parts))
        if moved:  # the same record with its verdict stays where it was read
            self.query_one("#screening-record-box", VerticalScroll).scroll_home(animate=False)

    def show_counts(self) -> None:
        """The progress line: screened n of N, included, maybe, the estimate of includes left."""
        if self.session is None:
            return
        line = progress_line(self.session) + (" · retraining…" if self.retraining else "")
        line += f" · {self.judging.note}" if self.judging.note else ""
        note: list[Part] = [("\n" + self._elsewhere, "bold")] if self._elsewhere else []
        self.query_one("#screening-progress", Static).update(safe_content([line, *note]))

    def show_progress(self, progress: ScreeningProgress) -> None:
        """The progress line, the gain curve and the stop panel."""
        self.show_counts()
        # [] draws a flat line; a single value would draw one full bar
        self.query_one("#screening-curve", Sparkline).data = progress.curve
        self.query_one("#screening-stops", Static).update(safe_content(stop_lines(progress)))
        if progress.conflicts != self._conflicts:
            self._conflicts = progress.conflicts
            if self._shown is None:  # the end text: what awaits resolution
                self.show_record()

    # -- keys -------------------------------------------------------------------------------
    def action_reason(self, key: int) -> None:
        """Keys 1-9: exclude the record with the review's reason of that number."""
        if self.session is None:
            return
        if key > len(self.session.reasons):
            self.app.notify(reason_key_hint(self.review, self.session.reasons, key),
                            title="screening", markup=False)  # fmt: skip
            return
        self.action_decide("exclude", self.session.reasons[key - 1])

    def action_decide(self, decision: str, reason: str = "") -> None:
        on = None if self.session is None else self.session.current_paper()
        if self.session is None or on is None:
            return
        if on.id != self._shown:  # moved on by a look at the store, not yet on screen
            self.show_record()  # the key shows it and decides nothing the reviewer did not see
            return
        if time.monotonic() - self._swapped_at < self.SWAP_GRACE_S:  # typed at the old one
            said = "the record changed as you pressed the key (decided in another terminal)"
            self.app.notify(f"{said}: nothing decided", title="screening", markup=False)
            return
        start = time.perf_counter()
        self._elsewhere = ""
        try:
            if self.session.decide(decision, reason) == on:  # decided elsewhere: not written;
                # a look at the store (after any running) loads it, shows the next, says so
                (self.retrain if self.retraining or self.syncing else self._poll)()
                return
        except LitsiftError as err:
            self._failed(err)
            return
        self.show_record()
        self.show_counts()
        self.last_key_s = time.perf_counter() - start
        self._decided_here += 1
        self.retrain()

    def action_undo(self) -> None:
        if self.session is None:
            return
        self._elsewhere = ""
        try:
            paper = self.session.undo()
        except LitsiftError as err:
            self._failed(err)
            return
        if paper is None:
            self.app.notify("nothing to undo", title="screening")
            return
        if self._decided_here == 0:  # u took back a decision of an earlier session: say which
            said = f"took back your decision on “{paper.title}” from an earlier session"
            self.app.notify(f"{for_terminal(said)} (on screen again)", title="screening",
                            markup=False, timeout=8)  # fmt: skip
        self._decided_here = max(0, self._decided_here - 1)
        self.show_record()
        self.show_counts()
        self.retrain()

    def action_judge(self) -> None:  # J: the LLM's verdicts (again: stop)
        self.judging.toggle()

    def action_criteria(self) -> None:  # the header shows 3 lines of them: the rest, whole
        if (session := self.session) is not None:
            args = (session.name, session.criteria, session.keywords, session.reasons)
            self.app.push_screen(CriteriaScreen(*args))

    def action_note(self) -> None:
        session = self.session
        paper = None if session is None else session.current_paper()
        if session is None or paper is None:
            return

        def done(text: str | None) -> None:
            if text is None:
                return
            try:
                session.set_note(text, paper.id)
            except LitsiftError as err:
                self._failed(err)
                return
            self.show_record()

        note = session.note_of(paper.id)  # emptied and saved: the note is removed
        prompt = PromptScreen("Note", paper.title, note, "why (in)eligible", allow_empty=True)
        self.app.push_screen(prompt, done)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc goes back, so only where there is a screen to go back to (F4 in the app): in
        ``litsift review screen`` it is neither shown nor run, and q / Ctrl+Q quit. The
        decision keys and n show and run only while a record is on screen."""
        if action == "close":
            return len(self.app.screen_stack) > 1
        if action in ("decide", "reason", "note"):  # no record on screen: the footer kept
            return self._shown is not None  # i / x / m / n, which then did nothing
        return True

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
