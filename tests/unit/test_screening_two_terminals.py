"""Two terminals screening one review as one reviewer (two services on one home, the Donners
2021 set, real SQLite): ``u`` takes back the session's own last decision, not the one the other
terminal made since; and a record the other terminal decided since this one read it is not
decided again (nothing is written; :meth:`ScreeningSession.sync` loads that decision)."""

from __future__ import annotations

from litsift.service.facade import LitsiftService
from litsift.store.review_decisions import decide
from tests.unit import test_screening_round2 as round2

#: two services on one home, one review "don" (two priors)
two = round2.two


def user_rows(svc: LitsiftService) -> list[tuple[str, str]]:
    """The live ``(doc_id, decision)`` user rows of "don", oldest first (every row, not only
    each record's current one: a record decided twice shows twice)."""
    with svc.store._lock:
        got = svc.store._conn.execute(
            "SELECT doc_id, decision FROM review_decisions WHERE review = 'don' "
            "AND source = 'user' AND undone = 0 ORDER BY id"
        ).fetchall()
    return [(str(d), str(v)) for d, v in got]


def test_undo_takes_back_this_terminals_decision_not_the_other_ones(
    two: tuple[LitsiftService, LitsiftService],
) -> None:
    """Undo took back the reviewer's newest decision, whoever made it: ``u`` in one terminal
    silently took back the record the other terminal had just decided."""
    svc, other_svc = two
    mine, other = svc.reviews.open("don"), other_svc.reviews.open("don")
    first = mine.current_paper()
    assert first is not None
    second = mine.decide("include")
    assert second is not None and other.sync() == (1, 0)
    assert other.current_paper() == second
    other.decide("exclude", "wrong population")  # the newest decision: the other terminal's
    assert mine.undo() == first  # its own, not the other terminal's
    assert user_rows(svc) == [(second.id, "exclude")]
    assert mine.current_paper() == first and mine.row_of[first.id] not in mine.decisions
    # redeciding the record brought back works (the record decided elsewhere comes next)
    assert mine.decide("maybe") == second
    assert user_rows(svc) == [(second.id, "exclude"), (first.id, "maybe")]
    assert other.sync() == (1, 0)
    assert mine.undo() == first and user_rows(svc) == [(second.id, "exclude")]
    # none of its own left to take back: like a session just opened, the reviewer's newest
    assert mine.undo() == second and user_rows(svc) == []
    assert other.sync() == (0, 2)
    other.decide("include")
    other.decide("exclude")
    newest = user_rows(svc)[-1][0]
    taken = svc.reviews.open("don").undo()
    assert taken is not None and taken.id == newest


def test_a_record_decided_in_the_other_terminal_is_not_decided_again(
    two: tuple[LitsiftService, LitsiftService],
) -> None:
    """Both terminals open on the same record (one order): within the two seconds between
    their looks at the store, the record was decided twice and the newest silently won. The
    second decision is now not written: the session stays on the record until its sync loads
    the other decision and moves on."""
    svc, other_svc = two
    mine, other = svc.reviews.open("don"), other_svc.reviews.open("don")
    shown = mine.current_paper()
    assert shown is not None and other.current_paper() == shown
    other.decide("exclude", "wrong population")
    assert mine.decide("include") == shown  # not written: decided there since read here
    assert user_rows(svc) == [(shown.id, "exclude")]
    assert mine.counts() == (2, 257, 1, 0)  # the two priors only, until the sync
    assert mine.sync() == (1, 0)
    assert mine.decisions[mine.row_of[shown.id]] == "exclude"
    assert mine.reason_of[shown.id] == "wrong population"
    following = mine.current_paper()
    assert following is not None and following != shown
    assert mine.decide("include") != following  # the next record is decided as before
    assert user_rows(svc) == [(shown.id, "exclude"), (following.id, "include")]
    # the other terminal is held back the same way, and its undo takes back its own decision
    assert other.current_paper() == following and other.decide("maybe") == following
    assert other.sync() == (1, 0) and other.undo() == shown
    assert user_rows(svc) == [(following.id, "include")]


def test_a_record_decided_before_is_redecided_on_purpose(
    two: tuple[LitsiftService, LitsiftService],
) -> None:
    """The write is held back only for a decision stored since the session read the record:
    a record it decided itself, or brought back by undo with its earlier decision, is
    redecided."""
    svc, _ = two
    mine = svc.reviews.open("don")
    shown = mine.current_paper()
    assert shown is not None
    for decision in ("include", "exclude", "maybe"):
        mine.decide(decision)
        assert mine.undo() == shown
    mine.decide("exclude")
    assert user_rows(svc) == [(shown.id, "exclude")]
    # a record with two live decisions (both stored before the session opened): undo brings
    # back the earlier one, and the record is decided again over it
    decide(svc.store, "don", [(shown.id, "include")])
    again = svc.reviews.open("don")
    assert again.undo() == shown and again.decisions[again.row_of[shown.id]] == "exclude"
    assert again.decide("maybe") != shown
    assert user_rows(svc) == [(shown.id, "exclude"), (shown.id, "maybe")]
