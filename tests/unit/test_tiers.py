"""Test tiers (issue 28 item 8, as bm25s keeps tests/core apart): tests/conftest.py marks each
test with one tier -- ``core``, ``encoder``, ``index``, ``tui`` or ``terminal`` -- from where it
is and the fixtures it uses, and ``-m TIER`` runs one tier alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SESSION_INDEX_FIXTURES, TIERS

TUI_DIR = Path(__file__).resolve().parents[1] / "tui"
TERMINAL_DIR = Path(__file__).resolve().parents[1] / "terminal"


def expected_tier(item: pytest.Item) -> str:
    fixtures = set(getattr(item, "fixturenames", ()))
    if TERMINAL_DIR in Path(str(item.path)).parents:
        return "terminal"
    if TUI_DIR in Path(str(item.path)).parents:
        return "tui"
    if fixtures & SESSION_INDEX_FIXTURES:
        return "index"
    return "encoder" if "encoder" in fixtures else "core"


def test_every_collected_test_has_the_one_tier_its_fixtures_give(
    request: pytest.FixtureRequest,
) -> None:
    """Over this run's tests (the whole suite in CI): one tier marker each, the right one; a
    pure test like this one is ``core``."""
    items = request.session.items
    tiers = {i.nodeid: [m.name for m in i.iter_markers() if m.name in TIERS] for i in items}
    assert tiers[request.node.nodeid] == ["core"]
    wrong = {i.nodeid: tiers[i.nodeid] for i in items if tiers[i.nodeid] != [expected_tier(i)]}
    assert wrong == {}
