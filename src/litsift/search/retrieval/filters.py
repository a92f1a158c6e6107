"""Year filters shared by the BM25 and dense retrievers.

A year filter is always pushed down into a retriever (a tantivy range query, an hnswlib label
filter), never applied to a top-k afterwards, so a filtered query still gets ``k0`` eligible
candidates when they exist.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from litsift.types import YearRange

#: The year stored for a record without one (in tantivy and in ``Store.year_by_rowid``).
YEAR_MISSING = -1


def year_value(year: int | None) -> int:
    """A record's year as indexed: the year, or :data:`YEAR_MISSING` when it has none."""
    return YEAR_MISSING if year is None else int(year)


def is_filtering(years: YearRange) -> bool:
    """Whether ``years`` excludes anything (an unbounded range keeping missing years does not)."""
    return not (years.is_unbounded and years.include_missing)


def allowed_mask(
    year_by_rowid: npt.NDArray[np.int32], years: YearRange, size: int | None = None
) -> npt.NDArray[np.bool_]:
    """Which rowids a year range keeps.

    Args:
        year_by_rowid: ``(n,)`` int32, ``year_by_rowid[rowid]`` = year or :data:`YEAR_MISSING`
            (``Store.year_by_rowid``).
        years: the range; ``include_missing`` decides rows with :data:`YEAR_MISSING`.
        size: length of the mask, at least ``len(year_by_rowid)``; rowids past the end of
            ``year_by_rowid`` (rows added after it was read) count as missing a year.

    Returns:
        ``(size,)`` bool, True where the rowid is eligible.
    """
    ybr = np.asarray(year_by_rowid, dtype=np.int64)
    n = len(ybr) if size is None else max(size, len(ybr))
    if len(ybr) < n:
        ybr = np.concatenate([ybr, np.full(n - len(ybr), YEAR_MISSING, dtype=np.int64)])
    missing = ybr == YEAR_MISSING
    keep = ~missing
    if years.start is not None:
        keep &= ybr >= years.start
    if years.end is not None:
        keep &= ybr <= years.end
    if years.include_missing:
        keep |= missing
    return np.asarray(keep, dtype=np.bool_)
