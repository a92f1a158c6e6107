"""Records of systematic reviews and feeds that cross the service's door (TUI <-> service): a
stopping rule's state and the screening screen's progress (what
:class:`litsift.service.api.ScreeningAPI` reports), an LLM judging run's report, and a ranked
feed of synced papers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from litsift.types.core import Paper
from litsift.types.llm import CallStats

__all__ = ["STAGE_NAMES", "FeedResult", "JudgeReport", "ScreeningProgress", "StopState"]

#: A review's screening stages as reviewers name them, by their ``--stage`` value.
STAGE_NAMES = {"tiab": "title/abstract", "fulltext": "full text"}


#: Records the reviewer screens (priors aside, an include among them) before the includes-left
#: estimate is given (:data:`litsift.review.estimate.MIN_SCREENED`, where it was measured).
ESTIMATE_MIN_SCREENED = 20


@dataclass(frozen=True)
class StopState:
    """One stopping rule now: ``fired_at`` = records screened when it fired (None = not yet);
    ``detail`` one line for the panel."""

    rule: str
    fired_at: int | None
    detail: str


@dataclass(frozen=True)
class ScreeningProgress:
    """The progress line and stop panel of the screening screen.

    Attributes:
        screened: records with a decision (priors included); ``total``: records.
        included: records included; ``maybe``: records marked maybe.
        estimate: expected includes among the unscreened records, from the rate at which the
            reviewer's screening found them (``ScreeningAPI.estimate``; None until the
            reviewer has screened :data:`litsift.review.estimate.MIN_SCREENED` records, priors
            aside, with an include among them).
        curve: includes found (by the reviewer, priors aside) after evenly spaced numbers of
            screened records (a sparkline).
        stops: each stopping rule's state.
        model: what ranked the queue (an order name, ``criteria`` or ``import order``).
        conflicts: records of the stage whose reviewers disagree, not resolved yet (0 for a
            reviewer screening blind under a name: they do not see the others' votes).
    """

    screened: int
    total: int
    included: int
    maybe: int
    estimate: float | None
    curve: list[float]
    stops: list[StopState]
    model: str
    conflicts: int = 0


@dataclass(frozen=True)
class FeedResult:
    """What ``litsift feed`` ranks.

    Attributes:
        feed: the collection's name, or ``kept``.
        since: the last look (ISO 8601 UTC; ``""`` = never).
        papers: the new papers, best first (all of them; the caller shows the top).
        liked, disliked: papers the model learnt from (the collection or kept papers; the
            discarded ones, plus ``background`` other stored papers as negatives).
        model: the order used (``tfidf-svm``), or ``arrival order`` with nothing to learn from.
    """

    feed: str
    since: str
    papers: list[Paper]
    liked: int
    disliked: int
    background: int
    model: str


@dataclass
class JudgeReport:
    """What a judging run did (:func:`litsift.service.screening_judge.judge_review`): the
    model, the records judged now (``labels``: include / unsure / exclude counts), those judged
    before by the same model against the same criteria, or meanwhile by another run, and
    skipped, the records the replies left out, the replies cut at the output limit, the call
    stats, the error that ended the run early (None), and the records a ``limit`` left
    unjudged."""

    model: str
    judged: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    skipped: int = 0
    missing: int = 0
    cut: int = 0
    stats: CallStats | None = None
    error: str | None = None
    left: int = 0
