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

__all__ = ["SetJudge", "llm_set_judge"]


def llm_set_judge(
    client: ChatClient, progress: Callable[[str, int, int], None] | None = None
) -> SetJudge:
    """A :data:`SetJudge` asking ``client``'s model; ``progress("judging SET", done, total)``
    after each call.

    The judge raises EvalError when a call fails (the calls answered are cached: the same
    command goes on from there); a record the replies left out gets 0 (no verdict).
    """

    def judge(review: ReviewSet, criteria: str) -> npt.NDArray[np.float64]:
        from litsift.llm.screening import judge_records

        keys = [str(i) for i in range(len(review.titles))]
        records = list(zip(keys, review.titles, review.abstracts, strict=True))
        done = [0]

        def step(batch: dict[str, Verdict]) -> None:
            done[0] += len(batch)
            if progress is not None:
                progress(f"judging {review.name}", done[0], len(records))

        result = judge_records(client, criteria, records, on_batch=step)
        if result.error:
            raise EvalError(
                f"{review.name}: {result.error}",
                "the calls answered are cached: run the same command again",
            )
        return np.array(
            [result.verdicts[k].value if k in result.verdicts else 0 for k in keys], np.float64
        )

    return judge
