"""Errors of background jobs (index builds, the dense index's load): named, with what to do,
and kept until read.

A background job has no query to blame and nobody waiting on it: its error is said in a toast
and stays at the start of the status line (``✖ building the papers index failed · ^o read``)
until the user opens it (``^o``, :class:`JobErrorScreen`), whatever is searched meanwhile. The
full text names the job, the error, what still works and what to do, and the service's log file
when the service has one (``service.glance().log_path``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from litsift.errors import LitsiftError
from litsift.text import for_terminal
from litsift.tui.screens.host import ErrorsHost
from litsift.tui.screens.modals import LIST_QUIT
from litsift.tui.widgets.footer import KeyFooter
from litsift.tui.widgets.safe_text import Part, safe_content, safe_title
from litsift.types import Kind

__all__ = ["JobError", "JobErrorScreen", "JobErrors"]

#: what each job is called ({kind}: papers / datasets)
JOB_NAME = {
    "check": "reading the store",
    "index": "building the {kind} index",
    "passages": "indexing the papers' full text",
    "sentences": "storing the {kind}' aspect sentences",
    "load": "loading the {kind} dense index",
}
#: what still works after the job failed, and what to do
WHAT_TO_DO = {
    "check": "searches say what is wrong; run `litsift index` in a shell to see the whole error",
    "index": "search goes on with what was built (BM25 only while the dense part is missing); "
    "quit and run `litsift index` in a shell to build it again and see the whole error",
    "passages": "full-text search stays as it was; run `litsift index` in a shell to build it "
    "again",
    "sentences": "aspect scoring embeds each result's sentences meanwhile (slower); run "
    "`litsift index` in a shell to store them again",
    "load": "search goes on BM25 only; run `litsift index --check` in a shell to repair the index",
}


@dataclass(frozen=True)
class JobError:
    """One failed background job."""

    job: str
    kind: Kind
    error: str
    hint: str = ""
    log_path: Path | None = None

    @classmethod
    def of(cls, job: str, kind: Kind, error: Exception, log_path: object = None) -> JobError:
        if isinstance(error, LitsiftError):
            text, hint = error.message, error.hint
        else:
            text, hint = f"{type(error).__name__}: {error}", ""
        path = Path(log_path) if isinstance(log_path, (str, Path)) else None
        return cls(job, kind, text, hint, path)

    @property
    def name(self) -> str:
        """``building the papers index``."""
        return JOB_NAME.get(self.job, self.job).format(kind=self.kind.table)

    @property
    def short(self) -> str:
        return f"{self.name} failed"

    def parts(self) -> list[Part]:
        """The full text (data passes through :func:`safe_content`)."""
        parts: list[Part] = [(self.short[0].upper() + self.short[1:], "bold $error"), "\n"]
        parts += [self.error + (f" — {self.hint}" if self.hint else ""), "\n\n"]
        parts += [("What to do: ", "bold"), WHAT_TO_DO.get(self.job, ""), "\n"]
        if self.log_path is not None:
            parts += [("Log: ", "bold"), str(self.log_path), "\n"]
        return parts


class JobErrorScreen(ModalScreen[None]):
    """The unread background errors; Esc, Enter or ^o closes (they count as read)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,ctrl+o", "close", "Close", id="job_errors_close"),
        *LIST_QUIT,  # nothing to type here: q quits, as outside text everywhere
    ]

    def __init__(self, errors: list[JobError]) -> None:
        super().__init__(classes="litsift-modal")
        self.errors = list(errors)

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(classes="modal-box") as box:
            n = len(self.errors)
            box.border_title = safe_title(f"Background error{'s' if n != 1 else ''} ({n})")
            box.border_subtitle = "Esc close"
            parts: list[Part] = []
            for i, err in enumerate(self.errors):
                parts += (["\n"] if i else []) + err.parts()
            with VerticalScroll():
                yield Static(safe_content(parts, keep_newlines=True), id="job-errors-text")

    @property
    def text(self) -> str:
        return "\n".join(safe_content(e.parts()).plain for e in self.errors)

    def action_close(self) -> None:
        self.dismiss(None)


class JobErrors:
    """The unread errors of ``screen``'s background jobs (see the module docstring).

    Args:
        screen: the screen whose status line says them (:class:`ErrorsHost`).
    """

    def __init__(self, screen: ErrorsHost) -> None:
        self.screen = screen
        self.unread: list[JobError] = []

    def failed(self, job: str, kind: Kind, error: Exception) -> None:
        """A background job failed: a toast, and a status segment that stays until read."""
        screen = self.screen
        # the log file keeps it (with its traceback) after the screen has moved on
        logging.getLogger("litsift.tui").error("%s (%s) failed", job, kind.value, exc_info=error)
        err = JobError.of(job, kind, error, screen.service.glance().log_path)
        self.unread.append(err)
        screen.notify(
            f"{err.error}\n{WHAT_TO_DO.get(job, '')}\n^o shows it again",
            title=err.short,
            severity="error",
            timeout=20,
            markup=False,
        )
        self._show()

    def _show(self) -> None:
        n = len(self.unread)
        if not n:
            alert = ""
        elif n == 1:
            alert = f"✖ {self.unread[0].short} · ^o read"
        else:
            alert = f"✖ {n} background jobs failed · ^o read"
        self.screen.status.set_alert(for_terminal(alert, keep_newlines=False))
        self.screen.refresh_bindings()

    def open(self) -> None:
        """Show the unread errors; they count as read once shown."""
        if not self.unread:
            return
        errors, self.unread = self.unread, []
        self._show()
        self.screen.app.push_screen(JobErrorScreen(errors))
