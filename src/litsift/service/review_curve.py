"""The recall curve of a review's stage (a base of
:class:`~litsift.service.review_rounds.ReviewRounds`): includes found against records screened,
as a series and as a diagram.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.errors import ReviewError
from litsift.text.sanitize import shell_word

if TYPE_CHECKING:
    from litsift.store import Store

__all__ = ["ReviewCurve"]


class ReviewCurve:
    """The recall curve of a review's stage, for everyone or one reviewer."""

    _store: Callable[[], Store]

    def recall_series(
        self, name: str, stage: str = "tiab", reviewer: str | None = None
    ) -> dict[str, Any]:
        """The review's recall curve at ``stage``: includes found after each record screened,
        in the order of the records' current decisions (the final ones, with the records
        awaiting resolution as screened records that found no include; or ``reviewer``'s),
        prior decisions left out (:func:`litsift.review.recall_plots.review_series`, with
        ``review``, ``stage`` and ``reviewer`` added).

        Raises:
            ReviewError: no such review, an unknown stage, or a ``reviewer`` who decided no
                record of the review at any stage (a name mistyped).
        """
        from litsift.review.recall_plots import review_series
        from litsift.store import review_stages as rs
        from litsift.store.reviews import review_records

        if stage not in rs.STAGES:
            raise ReviewError(f"unknown stage {stage!r}", f"use one of {', '.join(rs.STAGES)}")
        store = self._store()
        records = {r.doc_id for r in review_records(store, name, stage)}  # no review: raises
        if reviewer:
            _check_reviewer(store, name, reviewer)
        rows = rs.stage_rows(store, name, stage)
        got = (
            rs.final_decisions(rows) if reviewer is None else rs.reviewer_decisions(rows, reviewer)
        )
        priors: dict[str, int] = {}
        order = []
        for row in got:
            if row.doc_id not in records:
                continue
            if row.source == "prior":
                priors[row.decision] = priors.get(row.decision, 0) + 1
            else:
                order.append((row.id, row.decision))
        if reviewer is None:  # screened, awaiting resolution: no include found (yet)
            clash = rs.conflicts(rows).items()
            order += [(votes[-1].id, "conflict") for d, votes in clash if d in records]
        steps = [decision for _, decision in sorted(order)]
        series = review_series(steps, len(records) - sum(priors.values()), priors)
        return {"review": name, "stage": stage, "reviewer": reviewer, **series}

    def recall_diagram(
        self, name: str, output: Path, stage: str = "tiab", reviewer: str | None = None
    ) -> Path:
        """Draw the review's recall curve (:meth:`recall_series`) to ``output`` (.svg, .png,
        .pdf; :func:`litsift.review.recall_plots.draw_review_curve`).

        Raises:
            ReviewError: no such review, an unknown stage, or no record screened yet (one
                that has only prior decisions is told apart).
            ConfigError: matplotlib is not installed (the ``plots`` extra), or a bad suffix.
        """
        from litsift.review.recall_plots import draw_review_curve
        from litsift.store.review_stages import STAGE_NAMES

        series = self.recall_series(name, stage, reviewer)
        priors = sum(series["priors"].values())
        if not series["screened"] and priors:  # `review show` counts them as screened
            raise ReviewError(
                f"review {name!r}: its {priors:,} decisions at {STAGE_NAMES[stage]} are all "
                "prior decisions (imported with the records, in no screening order), which the "
                "curve leaves out; `litsift review show` counts them as screened",
                f"the curve starts at the first record screened here: litsift review screen "
                f"{shell_word(name)} --stage {stage}",
            )
        if not series["screened"]:
            who = f" --reviewer {shell_word(reviewer)}" if reviewer else ""
            raise ReviewError(
                f"review {name!r}: no record screened yet at {STAGE_NAMES[stage]}"
                + (f" by {reviewer}" if reviewer else ""),
                f"screen some first: litsift review screen {shell_word(name)} --stage {stage}{who}",
            )
        who = f", reviewer {reviewer}" if reviewer else ""
        title = f"Recall curve: {name} ({STAGE_NAMES[stage]}{who})"
        return draw_review_curve(series, output, title)


def _check_reviewer(store: Store, name: str, reviewer: str) -> None:
    """Raise when ``reviewer`` decided no record of review ``name`` at any stage: the curve of a
    mistyped name said "no record screened yet by NAME" and told them to screen as NAME."""
    from litsift.store import review_stages as rs

    whose = {r.reviewer for s in rs.STAGES for r in rs.stage_rows(store, name, s)
             if r.source == "user"}  # fmt: skip
    if reviewer not in whose:
        named = ", ".join(repr(w) for w in sorted(whose) if w) or "none named"
        raise ReviewError(
            f"review {name!r} has no decision of reviewer {reviewer!r}",
            f"its reviewers: {named} (without --reviewer: the review's final decisions)",
        )
