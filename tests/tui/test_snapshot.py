"""SVG snapshots of the TUI (pytest-textual-snapshot). Regenerate the baselines after an
intended UI change with ``pytest tests/tui/test_snapshot.py --snapshot-update`` and review them.

Timings are hidden (``show_timings=False``) so the status line is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from litsift.tui.app import create_app
from tests.tui.conftest import search

SIZE = (120, 40)


def test_snapshot_paper_search(service: Any, snap_compare: Callable[..., bool]) -> None:
    """Papers tab after a keyphrase query: table, detail of the first hit, status line."""

    async def run_before(pilot: Pilot[object]) -> None:
        await search(pilot, "low-resource neural machine translation")

    app = create_app(service, show_timings=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_dataset_search(service: Any, snap_compare: Callable[..., bool]) -> None:
    """Datasets tab (ctrl+t) after a full-sentence query, with a year range."""

    async def run_before(pilot: Pilot[object]) -> None:
        await pilot.press("ctrl+t")
        await search(pilot, "multi-domain task-oriented dialogue dataset", ("2015", "2019"))

    app = create_app(service, show_timings=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
