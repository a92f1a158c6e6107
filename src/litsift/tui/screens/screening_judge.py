"""The LLM judge run from the screening screen (``J``): ``litsift review judge`` on the review
being screened (:meth:`litsift.service.api.ScreeningAPI.judge`) in a worker thread, so keys
keep working meanwhile. The progress line says how far it is ("judging 40 of 257…"); the
model is retrained as each call's verdicts are stored, so the queue and the record pane read
them (``LLM: include — reason``). ``J`` again, Esc (Textual cancels a removed screen's
workers) or quitting closes the call in flight (the client looks every tenth of a second);
the verdicts stored stay, and ``J`` goes on from there (records the model judged are skipped).
No endpoint or no criteria: the error's message and hint in a toast.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, Literal

from textual.binding import Binding
from textual.worker import Worker, get_current_worker

from litsift.errors import LitsiftError, LLMCancelledError
from litsift.text import for_terminal, shell_word

if TYPE_CHECKING:
    from litsift.service.api import ScreeningAPI
    from litsift.tui.screens.host import JudgeHost
    from litsift.types.reviews import JudgeReport

__all__ = ["JUDGE_BINDING", "Judging", "error_message"]

JUDGE_BINDING = Binding(
    "J",
    "judge",
    "LLM judge",
    id="screening_judge",
    tooltip="LLM verdict on each record (again: stop)",
)

#: the worker group of a judging run (one at a time)
GROUP = "screening-judge"


def error_message(err: Exception, what: str = "screening") -> str:
    """``message; hint`` of a LitsiftError; for anything else (a bug: logged here) a line that
    says so, naming ``what`` failed, and where the details are."""
    if isinstance(err, LitsiftError):
        return err.message + (f"; {err.hint}" if err.hint else "")
    logging.getLogger("litsift.tui").error("%s failed", what, exc_info=err)
    return (
        f"{what} failed unexpectedly ({type(err).__name__}); this is a bug in "
        "litsift: the log file (litsift config) has the details"
    )


def _counts(report: JudgeReport) -> str:
    return " · ".join(f"{k} {report.labels.get(k, 0):,}" for k in ("include", "unsure", "exclude"))


class Judging:
    """The screen's judging run: :meth:`toggle` starts or stops it; :attr:`note` is what the
    progress line says of it ("" when none runs)."""

    def __init__(self, screen: JudgeHost) -> None:
        self.screen = screen
        #: the run's worker while it runs (None: no run)
        self.worker: Worker[None] | None = None
        self.note = ""

    @property
    def running(self) -> bool:
        return self.worker is not None

    def toggle(self) -> None:
        """``J``: start judging the records, or stop the run (the verdicts stored stay)."""
        screen, session = self.screen, self.screen.session
        if self.worker is not None:
            self.worker.cancel()  # the call in flight is closed
            self._end()
            said = "LLM judge stopped: the verdicts stored stay (J goes on from there)"
            screen.notify(said, title="LLM judge", markup=False)
            screen.retrain()
        elif session is not None:
            self.note = "LLM judging…"
            screen.show_counts()
            run = partial(self._run, session)
            self.worker = screen.run_worker(run, thread=True, group=GROUP, exit_on_error=False)

    def _end(self) -> None:
        self.worker, self.note = None, ""
        self.screen.show_counts()

    def _run(self, session: ScreeningAPI) -> None:  # a worker thread
        app, worker, screen = self.screen.app, get_current_worker(), self.screen

        def cancelled() -> bool:  # J again, Esc, a closing app: looked at while a reply is awaited
            return worker.is_cancelled or not screen.is_attached

        def progress(report: JudgeReport, total: int) -> None:
            if not cancelled():
                app.call_from_thread(self._progress, worker, report.judged, total)

        try:
            report = session.judge(progress, cancelled)
        except LLMCancelledError:  # stopped: nothing to say (J said it; Esc left the screen)
            return
        except Exception as err:  # LitsiftError or a bug: a toast, never a traceback
            if not cancelled():
                app.call_from_thread(self._failed, worker, err)
            return
        if not cancelled():
            app.call_from_thread(self._done, worker, report, session.name)

    def _progress(self, worker: Worker[None], judged: int, total: int) -> None:
        if worker is self.worker:
            self.note = f"LLM judging {judged:,} of {total:,}… (J stops)"
            self.screen.retrain()  # the verdicts so far: in the queue and the record pane
            self.screen.show_counts()

    def _failed(self, worker: Worker[None], err: Exception) -> None:
        if worker is self.worker:
            self._end()
            msg = for_terminal(error_message(err, "the LLM judge"), keep_newlines=False)
            self.screen.notify(msg, title="LLM judge", severity="error", markup=False)

    def _done(self, worker: Worker[None], report: JudgeReport, review: str) -> None:
        if worker is not self.worker:
            return
        self._end()
        model = for_terminal(report.model, keep_newlines=False)
        said = [f"{report.judged:,} records judged by {model}: {_counts(report)}"]
        if report.skipped and not (report.judged or report.missing or report.error):
            again = for_terminal(f"litsift review judge {shell_word(review)} --again")
            said = [f"every record was judged by {model} before: nothing to ask ({again} asks "
                    "anew)"]  # fmt: skip
        elif report.skipped:
            said.append(f"{report.skipped:,} judged before by this model")
        if report.missing:
            said.append(f"{report.missing:,} left out of the replies (J asks again)")
        if report.error:
            said.append(for_terminal(report.error, keep_newlines=False) + " (J goes on)")
        severity: Literal["warning", "information"] = "warning" if report.error else "information"
        self.screen.notify("\n".join(said), title="LLM judge", severity=severity,
                           markup=False, timeout=10)  # fmt: skip
        self.screen.retrain()
