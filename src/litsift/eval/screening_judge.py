"""``litsift eval screening --llm``: the configured LLM judges every record of each set against
the set's criteria (:func:`litsift.llm.screening.judge_records`, as ``litsift review judge``
does), and ``litsift``'s order reads the verdicts as its LLM-verdict column in every
simulated run; the calls are cached, so a second run costs nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from litsift.errors import EvalError

if TYPE_CHECKING:
    from litsift.llm.client import ChatClient
    from litsift.llm.screening import Verdict
    from litsift.review.data import ReviewSet

#: ``judge(review, criteria)`` -> ``(N,)`` verdicts in file order (+1 / 0 / -1)
SetJudge = Callable[["ReviewSet", str], npt.NDArray[np.float64]]

__all__ = ["LLMSetJudge", "SetJudge"]


class LLMSetJudge:
    """A :data:`SetJudge` asking ``client``'s model; ``progress("judging SET", done, total)``
    after each call. ``unjudged`` counts per set the records the replies left out or cut
    (their verdict is 0, as for a record the LLM was never asked about).

    Calling it raises EvalError when a call fails (the calls answered are cached: the same
    command goes on from there).
    """

    def __init__(
        self, client: ChatClient, progress: Callable[[str, int, int], None] | None = None
    ) -> None:
        self.client, self.progress = client, progress
        self.unjudged: dict[str, int] = {}

    def __call__(self, review: ReviewSet, criteria: str) -> npt.NDArray[np.float64]:
        from litsift.llm.screening import judge_records

        keys = [str(i) for i in range(len(review.titles))]
        records = list(zip(keys, review.titles, review.abstracts, strict=True))
        done = [0]

        def step(batch: dict[str, Verdict]) -> None:
            done[0] += len(batch)
            if self.progress is not None:
                self.progress(f"judging {review.name}", done[0], len(records))

        result = judge_records(self.client, criteria, records, on_batch=step)
        if result.error:
            raise EvalError(
                f"{review.name}: {result.error}",
                "the calls answered are cached: the same command goes on from there (a reply "
                "the model refused is cached too: another model or criteria text asks anew)",
            )
        if result.missing:
            self.unjudged[review.name] = len(result.missing)
        return np.array(
            [result.verdicts[k].value if k in result.verdicts else 0 for k in keys], np.float64
        )

    def note(self) -> str | None:
        """The report's note on the records left without a verdict, or None."""
        if not self.unjudged:
            return None
        sets = ", ".join(f"{name} {n:,}" for name, n in sorted(self.unjudged.items()))
        return f"records the LLM's replies left without a verdict (read as unjudged): {sets}"
