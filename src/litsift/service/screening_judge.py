"""``litsift review judge``: an LLM reads a review's undecided records against its criteria
(:func:`litsift.llm.screening.judge_records`) and its verdicts are stored as they arrive
(:mod:`litsift.store.review_verdicts`): the learning order reads them as a column
(:attr:`litsift.review.orders.OrderSpec.judge_weight`) and the screen shows each beside its
record. The records decided already go to the LLM first: the learning order learns how far to
trust the verdicts from how they agree with the reviewer's decisions (a column no decided
record carries gets no weight). Then the undecided ones in the review's learning order (its
TF-IDF order on the decisions so far), so a run stopped early, or ``--limit``, has judged the
likeliest includes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from litsift.errors import ReviewError
from litsift.service.screening import ScreeningSession
from litsift.types.reviews import JudgeReport

if TYPE_CHECKING:
    from litsift.llm.screening import Verdict
    from litsift.llm.session import LLMSession
    from litsift.models_onnx import Encoder
    from litsift.store import Store
    from litsift.store.reviews import ReviewInfo, ReviewRecord
    from litsift.types import Paper

__all__ = ["JudgeReport", "JudgingSession", "judge_review"]


class JudgingSession(ScreeningSession):
    """A review being screened whose records the home's LLM can judge from the screen (what
    ``ReviewService.open`` hands out: :meth:`litsift.service.api.ScreeningAPI.judge`)."""

    def __init__(
        self,
        store: Store,
        info: ReviewInfo,
        records: list[tuple[ReviewRecord, Paper]],
        encoder: Callable[[], Encoder] | None = None,
        stage: str = "tiab",
        reviewer: str = "",
        llm: Callable[[], LLMSession] | None = None,
    ) -> None:
        """As :class:`ScreeningSession`; ``llm``: the home's LLM session (None: none)."""
        super().__init__(store, info, records, encoder, stage, reviewer)
        self._llm = llm

    def judge(
        self,
        progress: Callable[[JudgeReport, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> JudgeReport:
        """The LLM's verdict on each record this model has not judged yet, stored as each call
        answers (:func:`judge_review` on this session, whose ``progress`` and ``cancelled``
        these are; minutes: off the UI thread); the next :meth:`retrain` reads them.

        Raises:
            ReviewError: no criteria or keywords. LLMNotConfiguredError: no LLM endpoint.
            LLMCancelledError: ``cancelled`` turned true. MachineFaultError: the store cannot
            be written.
        """
        from litsift.llm.errors import LLMNotConfiguredError

        if self._llm is None:
            raise LLMNotConfiguredError("no LLM endpoint configured", "litsift config")
        return judge_review(self, self._llm(), progress=progress, cancelled=cancelled)


def judge_review(
    session: ScreeningSession,
    llm: LLMSession,
    *,
    limit: int | None = None,
    again: bool = False,
    progress: Callable[[JudgeReport, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> JudgeReport:
    """Judge the records of ``session``'s review (title/abstract stage) with the configured
    LLM, the decided ones first, then the undecided best first in the review's learning order,
    and store each call's verdicts.

    Args:
        session: the review opened for screening (its records and decisions).
        llm: the home's LLM session.
        limit: judge at most this many records (None: all).
        again: judge records this model judged before as well (else they are skipped).
        progress: called with the report so far and the number to judge, after each call.
        cancelled: once true the call in flight is closed (what was stored stays).

    Raises:
        ReviewError: the review has no criteria or keywords to judge against.
        LLMNotConfiguredError: no LLM endpoint configured.
        LLMCancelledError: ``cancelled`` turned true.
    """
    from litsift.llm.screening import SCREENING_PROMPT_VERSION, judge_records
    from litsift.store.review_verdicts import save_verdicts, stored_verdicts
    from litsift.text import for_storage

    criteria = session.criteria_query()
    if not criteria:
        raise ReviewError(
            f"review {session.name!r} has no criteria for the LLM to judge its records against",
            f"litsift review criteria {session.name} 'the review question and criteria'",
        )
    client = llm.client()
    model = client.settings.model
    report = JudgeReport(model)
    before = set() if again else set(stored_verdicts(session.store, session.name, model))
    _, order, _ = session.retrain()
    order = sorted(session.decisions) + order  # the decided first: they weigh the verdicts
    rows = [r for r in order if session.papers[r].id not in before]
    report.skipped = len(order) - len(rows)
    if limit is not None:
        report.left = max(0, len(rows) - limit)
        rows = rows[:limit]
    todo = [(p.id, p.title, p.abstract or "") for p in (session.papers[r] for r in rows)]

    def saved(batch: dict[str, Verdict]) -> None:
        got = {k: (v.value, " ".join(for_storage(v.reason).split())) for k, v in batch.items()}
        save_verdicts(session.store, session.name, model, got, SCREENING_PROMPT_VERSION)
        report.judged += len(got)
        report.labels.update(v.label for v in batch.values())
        if progress is not None:
            progress(report, len(todo))

    result = judge_records(client, criteria, todo, on_batch=saved, cancelled=cancelled)
    report.missing, report.stats, report.error = len(result.missing), result.stats, result.error
    return report
