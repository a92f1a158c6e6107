"""Screening round 2, the sessions under the screen (real SQLite, the Donners 2021 set): the
includes-left estimate waits for a basis, and a session loads what another session on the same
review stored (two terminals, one reviewer)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from litsift.paths import get_paths, shared_data_dir
from litsift.review.estimate import MIN_SCREENED, screened_before_estimate
from litsift.service.facade import LitsiftService
from litsift.store.reviews import current_decisions

DONNERS = (
    shared_data_dir() / "eval" / "screening"
    / "Donners_2021.jsonl.gz"
)  # fmt: skip


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[LitsiftService, LitsiftService]]:
    """Two services on one home (two processes' connections to one store), one review."""
    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    paths = get_paths(tmp_path / "home")
    with LitsiftService(paths) as one:
        one.reviews.create("don", [DONNERS], keywords=["emicizumab"], labels=1)
        with LitsiftService(paths) as other:
            yield one, other


def test_the_estimate_waits_for_enough_records_and_an_include() -> None:
    assert screened_before_estimate([]) is None
    assert screened_before_estimate([0] * 50) is None  # no include: no count brings a rate
    assert screened_before_estimate([1]) == MIN_SCREENED - 1
    assert screened_before_estimate([0, 1, 0]) == MIN_SCREENED - 3
    assert screened_before_estimate([1] + [0] * (MIN_SCREENED - 1)) == 0
    assert screened_before_estimate([1] * (MIN_SCREENED + 5)) == 0


def test_a_session_gives_no_estimate_from_one_include(
    two: tuple[LitsiftService, LitsiftService],
) -> None:
    svc, _ = two
    session = svc.reviews.open("don")
    assert session.estimate is None and session.estimate_basis() == (0, 0, None)
    session.decide("include")
    assert session.estimate is None and session.estimate_basis() == (1, 1, MIN_SCREENED - 1)
    for _ in range(MIN_SCREENED - 1):
        session.decide("exclude")
    assert session.estimate_basis() == (MIN_SCREENED, 1, 0)
    assert session.estimate is not None and 0 <= session.estimate <= 257 - MIN_SCREENED - 2


def test_a_session_loads_what_another_stored_and_nothing_of_its_own(
    two: tuple[LitsiftService, LitsiftService],
) -> None:
    svc, other_svc = two
    mine, other = svc.reviews.open("don"), other_svc.reviews.open("don")
    shown = mine.current_paper()
    assert shown is not None and other.current_paper() == shown  # one order: one record
    mine.decide("include")
    assert mine.sync() == (0, 0)  # its own decision is not one "made elsewhere"
    assert other.sync() == (1, 0)  # the other's record on screen was decided: the next one
    assert other.decisions[other.row_of[shown.id]] == "include"
    assert other.current_paper() == mine.current_paper() != shown
    assert other.sync() == (0, 0)  # loaded once
    there = other.current_paper()
    assert there is not None
    other.decide("exclude", "wrong population")
    assert mine.sync() == (1, 0) and mine.current_paper() not in (shown, there)
    assert mine.reason_of[there.id] == "wrong population"
    assert [mine.papers[r].id for r in mine.user_rows] == [shown.id, there.id]
    assert len(mine.prior_rows) == 2 and mine.counts() == (4, 257, 2, 0)
    # a decision taken back there: its record is undecided here too, and back in the queue
    assert other.undo() == there
    assert mine.sync() == (0, 1)
    row = mine.row_of[there.id]
    assert row not in mine.decisions and row in mine.queue
    assert [d for d, _, s in current_decisions(svc.store, "don") if s == "user"] == [shown.id]
