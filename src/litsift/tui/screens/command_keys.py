"""The main screen's keys that hand over to its command parts: triage (``TRIAGE_BINDINGS``),
ranking (``RANKING_BINDINGS``), research questions and background errors (``^o``); and which
keys type text in the query.

:class:`CommandKeys` is mixed into :class:`litsift.tui.screens.search.SearchScreen`, which
creates the parts (``triage``, ``ranking``, ``rq``, ``job_errors``); Textual finds the
``action_*`` methods on the screen as usual.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from textual.binding import Binding

if TYPE_CHECKING:
    from litsift.tui.screens.job_errors import JobErrors
    from litsift.tui.screens.ranking import RankingCommands
    from litsift.tui.screens.rq import RQCommands
    from litsift.tui.screens.triage import TriageCommands

__all__ = ["CommandKeys", "typed_in_query"]

#: keys that never type text (modifiers, function and cursor keys); the others type in the query
_NON_TEXT_KEY = re.compile(
    r"^(ctrl|alt|meta|super|shift)\+|^f\d+$|^(up|down|left|right|home|end|pageup|pagedown|"
    r"enter|escape|tab|delete|backspace|insert)$"
)


def typed_in_query(key_to_bindings: Mapping[str, Sequence[Binding]], action: str) -> bool:
    """True when every key bound to ``action`` is text the query bar takes (``+``, ``m``...):
    from the query such a key types, so the footer must not offer it there."""
    keys = [
        key
        for key, bindings in key_to_bindings.items()
        if any(b.action.split("(", 1)[0] == action for b in bindings)
    ]
    return bool(keys) and all(_NON_TEXT_KEY.match(key) is None for key in keys)


class CommandKeys:
    """Key actions of the main screen that call its triage, ranking, RQ and job-error parts."""

    triage: TriageCommands
    ranking: RankingCommands
    rq: RQCommands
    job_errors: JobErrors

    def action_back(self) -> None:
        """Esc: stop the LLM rerank or judge in flight (its request is closed), else go back
        (:meth:`~litsift.tui.screens.navigation.NavScreen.action_back`)."""
        if not self.ranking.cancel_llm():
            super().action_back()  # type: ignore[misc]  # NavScreen, next in SearchScreen's MRO

    # triage (TRIAGE_BINDINGS) and ranking (RANKING_BINDINGS) keys
    def action_label(self, label: str) -> None:
        self.triage.label(label)

    def action_undo_label(self) -> None:
        self.triage.undo_label()

    def action_cycle_filter(self) -> None:
        self.triage.cycle_filter()

    def action_edit_note(self) -> None:
        self.triage.edit_note()

    def action_add_to_collection(self) -> None:
        self.triage.add_to_collection()

    def action_history(self) -> None:
        self.triage.history()

    def action_save_search(self) -> None:
        self.triage.save_search()

    def action_export(self) -> None:
        self.triage.export()

    def action_more_like_this(self) -> None:
        self.ranking.toggle_more_like_this()

    def action_coverage_order(self) -> None:
        self.ranking.toggle_coverage_order()

    def action_edit_aspects(self) -> None:
        self.ranking.edit_aspects()

    def action_llm_rerank(self) -> None:
        self.ranking.llm_rerank()

    def action_llm_judge_aspects(self) -> None:
        self.ranking.judge_aspects()

    def action_answer(self) -> None:
        self.ranking.answer()

    def action_extract_rq(self) -> None:
        self.rq.extract()

    def action_same_rq(self, field: str) -> None:
        self.rq.same(field)

    # background errors (ERROR_BINDINGS)
    def action_read_errors(self) -> None:
        self.job_errors.open()
