"""The paper feed of the review door: papers synced since the feed's last look, ranked by
what a collection (or the kept papers) holds against the discarded ones (``litsift feed``,
the TUI's feed screen; reached as ``LitsiftService.reviews.feed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from litsift.types import Kind, Paper
from litsift.types.reviews import FeedResult

if TYPE_CHECKING:
    from litsift.store import Store

__all__ = ["FEED_BACKGROUND", "feed", "since_utc"]

#: Stored papers drawn as background negatives of a feed (arxiv-sanity-lite's SVM takes every
#: other paper as a negative; a sample keeps a big store's feed in seconds).
FEED_BACKGROUND = 2000


def since_utc(since: str) -> str:
    """``since`` (an ISO 8601 date or time, with or without an offset; without one it is UTC)
    as the stored arrival times are written (ISO 8601 UTC with milliseconds), so that the two
    compare as text: ``2024-05-01T12:00+02:00`` is ``2024-05-01T10:00:00.000+00:00``.

    Raises:
        ReviewError: ``since`` is not an ISO 8601 date or time (``yesterday``, ``2024-5-1``),
            which compared as text picked an arbitrary set of papers, most often none.
    """
    from datetime import UTC, datetime

    from litsift.errors import ReviewError

    try:
        when = datetime.fromisoformat(since.strip())
    except ValueError:
        raise ReviewError(
            f"the date {since!r} is not an ISO 8601 date or time",
            "give a date like 2024-05-01, or a time like 2024-05-01T09:30 (UTC) or "
            "2024-05-01T09:30+02:00",
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat(timespec="milliseconds")


def feed(
    store: Store, collection: str | None, since: str | None = None, mark_seen: bool = True
) -> FeedResult:
    """Rank the papers synced since the feed's last look by the learning order trained on the
    collection's (or the kept) papers against the discarded ones and a sample of the rest.

    Raises:
        ReviewError: unknown collection, or ``since`` not an ISO 8601 date or time.
    """
    from litsift.review.data import record_text
    from litsift.review.learner import LearningOrder, review_spec
    from litsift.store import feeds

    name = collection or "kept"
    last = feeds.feed_seen_at(store, name) if since is None else since_utc(since)
    new_ids = feeds.synced_since(store, last)
    liked, disliked = feeds.judged_papers(store, collection)
    new_set = set(new_ids)
    liked = [d for d in liked if d not in new_set]
    disliked = [d for d in disliked if d not in new_set]
    background: list[str] = []
    if liked and new_ids:
        background = feeds.other_papers(
            store, new_set | set(liked) | set(disliked), FEED_BACKGROUND
        )
    train = liked + disliked + background
    papers = {p.id: p for p in _papers(store, train + new_ids)}
    new_papers = [papers[d] for d in new_ids if d in papers]
    model = "arrival order"
    if liked and len(train) > len(liked) and new_papers:
        rows = [d for d in train if d in papers]
        texts = [record_text(papers[d].title, papers[d].abstract) for d in rows]
        texts += [record_text(p.title, p.abstract) for p in new_papers]
        y = [1 if i < len(liked) else 0 for i, d in enumerate(train) if d in papers]
        fit = LearningOrder.build(review_spec(None), texts).fit(range(len(rows)), y)
        order = fit.rank(range(len(rows), len(texts)))
        new_papers = [new_papers[i - len(rows)] for i in order.tolist()]
        model = fit.name
    if mark_seen and not store.readonly:
        feeds.mark_feed_seen(store, name)
    return FeedResult(name, last, new_papers, len(liked), len(disliked), len(background), model)


def _papers(store: Store, doc_ids: Sequence[str]) -> list[Paper]:
    out = []
    for doc_id in doc_ids:
        paper = store.get(Kind.PAPER, doc_id)
        if isinstance(paper, Paper):
            out.append(paper)
    return out
