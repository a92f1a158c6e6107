"""``litsift review judge``: an LLM reads a review's records against its criteria
(:func:`litsift.llm.screening.judge_records`) and its verdicts are stored as they arrive
(:mod:`litsift.store.review_verdicts`): the learning order reads them as a column
(:attr:`litsift.review.orders.OrderSpec.judge_weight`) and the screen shows each beside its
record. Records decided already go to the LLM first (their includes first, up to
:data:`DECIDED_FIRST`): the learning order learns how far to trust the verdicts from how they
agree with the reviewer's decisions (a column no decided record carries gets no weight). Then
the undecided ones in the review's learning order (its TF-IDF order on the decisions so far),
so a run stopped early, or ``--limit``, has judged the likeliest includes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litsift.errors import ReviewError
from litsift.service.screening import ScreeningSession
from litsift.text import shell_word
from litsift.types.reviews import JudgeReport

if TYPE_CHECKING:
    from litsift.llm.screening import Verdict
    from litsift.llm.session import LLMSession
    from litsift.models_onnx import Encoder
    from litsift.store import Store
    from litsift.store.reviews import ReviewInfo, ReviewRecord
    from litsift.types import Paper

__all__ = [
    "DECIDED_FIRST",
    "JudgeReport",
    "JudgingSession",
    "VerdictSummary",
    "judge_review",
    "verdict_summary",
]

#: decided records judged before the undecided ones (the fit needs some to weigh the verdicts;
#: a review resumed with thousands decided should not spend a ``--limit`` on them)
DECIDED_FIRST = 50


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
        """As :class:`ScreeningSession`; ``llm``: the home's LLM session (None: none), whose
        model's verdicts are read first."""
        model = llm().settings.model if llm is not None else ""
        super().__init__(store, info, records, encoder, stage, reviewer, judge_model=model)
        self._llm = llm

    def judge(
        self,
        progress: Callable[[JudgeReport, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> JudgeReport:
        """The LLM's verdict on each record this model has not judged against the review's
        criteria yet, stored as each call answers (:func:`judge_review` on this session, whose
        ``progress`` and ``cancelled`` these are; minutes: off the UI thread); the next
        :meth:`retrain` reads them.

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
    LLM: up to :data:`DECIDED_FIRST` decided ones (includes first), then the undecided best
    first in the review's learning order, then the other decided ones; each call's verdicts
    are stored as it answers.

    Args:
        session: the review opened for screening (its records and decisions).
        llm: the home's LLM session.
        limit: judge at most this many records (None: all).
        again: judge records this model judged before as well (else those it judged against
            the same criteria and keywords are skipped, and those judged against others, before
            they were edited, are asked again); records another run (a second terminal, ``J``)
            judges meanwhile are skipped either way.
        progress: called with the report so far and the number to judge, before the first
            call and after each.
        cancelled: once true the call in flight is closed (what was stored stays).

    Raises:
        ReviewError: the review has no criteria or keywords to judge against, or was deleted
            during the run.
        MachineFaultError: the store cannot be written (a read-only home: said before any call).
        LLMNotConfiguredError: no LLM endpoint configured.
        LLMCancelledError: ``cancelled`` turned true.
    """
    from litsift.llm.screening import judge_records, prompt_id
    from litsift.store.history import now_iso
    from litsift.store.review_verdicts import save_verdicts, stored_verdicts
    from litsift.text import for_storage, shell_word

    criteria = session.criteria_query()
    if not criteria:
        raise ReviewError(
            f"review {session.name!r} has no criteria for the LLM to judge its records against",
            f"litsift review criteria {shell_word(session.name)} 'the review question and "
            "criteria'",
        )
    session.store.require_writable()  # before a call is paid for: its verdicts are stored
    client = llm.client()
    model, prompt, began = client.settings.model, prompt_id(criteria), now_iso()
    report = JudgeReport(model)

    def judged(since: str = "") -> set[str]:  # by this model against these criteria
        got = stored_verdicts(session.store, session.name, model)
        return {d for d, v in got.items() if v.prompt == prompt and v.judged_at >= since}

    before = set() if again else judged()
    _, order, _ = session.retrain()
    # the decided first (they weigh the verdicts): the includes, then excludes, up to
    # DECIDED_FIRST; then the undecided best first; then the rest of the decided
    with session._lock:  # a decision, undo or sync on the screen may replace the dict meanwhile
        decisions = dict(session.decisions)
    decided = sorted(decisions, key=lambda r: (decisions[r] == "exclude", r))
    order = decided[:DECIDED_FIRST] + order + decided[DECIDED_FIRST:]
    rows = [r for r in order if session.papers[r].id not in before]
    report.skipped = len(order) - len(rows)
    if limit is not None:
        report.left = max(0, len(rows) - limit)
        rows = rows[:limit]
    todo = [(p.id, p.title, p.abstract or "") for p in (session.papers[r] for r in rows)]

    def saved(batch: dict[str, Verdict]) -> None:
        got = {k: (v.value, " ".join(for_storage(v.reason).split())) for k, v in batch.items()}
        save_verdicts(session.store, session.name, model, got, prompt)
        report.judged += len(got)
        report.labels.update(v.label for v in batch.values())
        if progress is not None:
            progress(report, len(todo))

    if progress is not None and todo:  # before the first call, which may take a while
        progress(report, len(todo))
    result = judge_records(client, criteria, todo, on_batch=saved, cancelled=cancelled,
                           judged_elsewhere=lambda: judged(began))  # fmt: skip
    report.missing, report.stats, report.error = len(result.missing), result.stats, result.error
    report.cut, report.skipped = result.cut, report.skipped + result.elsewhere
    return report


@dataclass(frozen=True)
class VerdictSummary:
    """An LLM judge's verdicts on a review (``litsift review show``): the models that judged,
    the records judged and the count per label (each record's verdict against the criteria as
    they are now: :meth:`ScreeningSession.read_verdicts`), and how the verdicts agree with the
    final title/abstract decisions: of the ``includes`` decided (include or maybe) and judged,
    ``kept`` were judged include or unsure (the judge's sensitivity, kept / includes); of the
    ``excludes``, ``excluded`` were judged exclude (its specificity). ``stale``: records with
    verdicts given against earlier criteria only (not read until judged again)."""

    models: tuple[str, ...]
    records: int
    labels: dict[str, int]
    includes: int = 0
    kept: int = 0
    excludes: int = 0
    excluded: int = 0
    stale: int = 0

    def to_json(self) -> dict[str, object]:
        """The summary as a JSON-able object."""
        return dict(self.__dict__, models=list(self.models))

    def lines(self, name: str = "") -> list[str]:
        """What ``litsift review show NAME`` says of them (nothing when nothing was judged)."""
        out = []
        if self.records:
            counts = " · ".join(f"{k} {n:,}" for k, n in self.labels.items())
            models = ", ".join(self.models)
            out.append(f"LLM verdicts ({models}): {self.records:,} records · {counts}")
        for what, n, of in (
            ("includes kept", self.kept, self.includes),
            ("excludes excluded", self.excluded, self.excludes),
        ):
            if of:
                out.append(
                    f"  {what} (against the title/abstract decisions): {n:,} of {of:,} "
                    f"({100 * n / of:.0f} %)"
                )
        if self.stale:  # not read by the order nor shown on the screen until judged again
            out.append(
                f"{self.stale:,} verdicts from earlier criteria: run `litsift review judge "
                f"{shell_word(name)}` again"
            )
        return out


def verdict_summary(store: Store, name: str, prefer: str = "") -> VerdictSummary:
    """The verdicts stored for review ``name`` against its criteria as they are now (the
    model ``prefer``'s where it gave one, else the newest) and its final title/abstract
    decisions."""
    from litsift.llm.screening import prompt_id
    from litsift.service.screening import review_query
    from litsift.store.review_verdicts import stale_verdicts, stored_verdicts
    from litsift.store.reviews import current_decisions, get_review

    prompt = prompt_id(review_query(get_review(store, name)))
    verdicts = stored_verdicts(store, name, prompt=prompt, prefer=prefer)
    labels = Counter(v.label for v in verdicts.values())
    decided = {d: dec for d, dec, _ in current_decisions(store, name, "tiab") if d in verdicts}
    inc = [d for d, dec in decided.items() if dec != "exclude"]
    exc = [d for d, dec in decided.items() if dec == "exclude"]
    return VerdictSummary(
        tuple(sorted({v.model for v in verdicts.values()})),
        len(verdicts),
        {k: labels.get(k, 0) for k in ("include", "unsure", "exclude")},
        len(inc),
        sum(verdicts[d].value >= 0 for d in inc),
        len(exc),
        sum(verdicts[d].value < 0 for d in exc),
        stale_verdicts(store, name, prompt),
    )
