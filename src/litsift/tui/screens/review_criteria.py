"""The review's criteria whole: the screening header shows three lines of them, so a review
question of a paragraph (PICO criteria, a protocol's inclusion list) was cut there. ``c`` on
the screening screen opens this dialog: criteria, keywords and the exclusion reasons with their
keys, scrollable; Esc, Enter or ``c`` closes it. Everything shown comes from the store, through
:func:`litsift.tui.widgets.safe_text.safe_content`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from litsift.text.sanitize import shell_word
from litsift.tui.screens.modals import LIST_QUIT
from litsift.tui.screens.screening_text import KEYWORD_STYLE, highlighted
from litsift.tui.widgets.footer import KeyFooter
from litsift.tui.widgets.safe_text import Part, safe_content, safe_title

__all__ = ["CriteriaScreen"]


class CriteriaScreen(ModalScreen[None]):
    """A review's criteria, keywords and exclusion reasons, whole."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,c", "close", "Close", id="criteria_close"),
        *LIST_QUIT,  # nothing to type here: q quits, as outside text everywhere
    ]
    #: as tall as its text (the box took 90 % of the screen for two lines), scrolling past it
    DEFAULT_CSS = """
    CriteriaScreen VerticalScroll {
        height: auto;
        max-height: 80vh;
    }
    """

    def __init__(
        self, review: str, criteria: str, keywords: Sequence[str], reasons: Sequence[str]
    ) -> None:
        super().__init__(classes="litsift-modal")
        self.review, self.criteria = review, criteria
        self.keywords, self.reasons = list(keywords), list(reasons)

    def parts(self) -> list[Part]:
        """What the dialog shows, as styled parts."""
        parts: list[Part] = [("Criteria", "bold"), "\n"]
        if self.criteria.strip():
            parts += highlighted(self.criteria, self.keywords, [])
        else:
            parts += [
                ("none yet: ", "italic"),
                f"litsift review criteria {shell_word(self.review)} 'THE REVIEW QUESTION'",
            ]
        if self.keywords:
            parts += ["\n\n", ("Keywords", "bold"), "\n"]
            parts += [(k + "  ", KEYWORD_STYLE) for k in self.keywords]
        if self.reasons:
            # its number alone excludes: "x" then "2" excluded two records ("the key after x")
            parts += ["\n\n", ("Exclusion reasons", "bold"), " (its number key excludes)\n"]
            parts += [f"{i}  {r}\n" for i, r in enumerate(self.reasons, 1)]
        return parts

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(classes="modal-box") as box:
            box.border_title = safe_title(f"Review {self.review}")
            box.border_subtitle = "Esc close"
            with VerticalScroll():
                yield Static(safe_content(self.parts(), keep_newlines=True), id="criteria-text")

    @property
    def text(self) -> str:
        """The plain text shown (for tests)."""
        return safe_content(self.parts(), keep_newlines=True).plain

    def action_close(self) -> None:
        self.dismiss(None)
