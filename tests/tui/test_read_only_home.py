"""The TUI on a read-only home (issue 34, item 2): it searches, keeps the query out of the
history without an error, refuses a label with the reason, and says in the status line and a
toast that labels, notes and history cannot be saved. A real read-only bind mount; skipped
with the reason where mounting is forbidden."""

from __future__ import annotations

from pathlib import Path

from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.widgets import StatusLine
from tests.conftest import copy_home
from tests.tui.conftest import search, settle
from tests.unit.test_environment_faults import QUERY, fill, home40, read_only_view, tmpfs

__all__ = ["home40"]  # the module fixture: a 40-paper BM25-only home

SIZE = (120, 40)


async def test_read_only_home_searches_and_says_nothing_is_saved(
    home40: Path, tmp_path: Path
) -> None:
    copy_home(home40, tmp_path / "home")
    with read_only_view(tmp_path / "home", tmp_path / "ro") as home:
        svc = LitsiftService(get_paths(home))
        try:
            app = create_app(svc)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                toasts: list[str] = []
                for _ in range(100):  # the check runs in a worker after mount
                    await pilot.pause(0.02)
                    toasts = [n.message for n in app._notifications]
                    if toasts:
                        break
                assert any("cannot be saved here" in t for t in toasts), toasts
                titles = [n.title for n in app._notifications]
                assert "read-only home" in titles, titles
                await search(pilot, QUERY)
                table = app.search_screen.table()
                assert table.row_count > 0
                status = app.query_one("#status", StatusLine).text
                assert "read-only home: nothing is saved" in status, status
                assert "✖" not in status  # the query history is skipped, not an error
                await pilot.press("plus")  # keep the highlighted hit: refused, with the reason
                await settle(pilot)
                status = app.query_one("#status", StatusLine).text
                assert "cannot be written" in status, status
                assert "move" not in status
        finally:
            svc.close()


async def test_full_disk_is_told_as_a_full_disk_not_a_read_only_home(
    home40: Path, tmp_path: Path
) -> None:
    """Was: the toast's title "read-only home" and the status line "read-only: nothing is
    saved" on a home whose disk is full (a real tmpfs filled up)."""
    with tmpfs(tmp_path / "mnt", "3m") as root:
        copy_home(home40, root / "home")
        fill(root)
        svc = LitsiftService(get_paths(root / "home"))
        try:
            app = create_app(svc)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                toasts = []
                for _ in range(100):  # the check runs in a worker after mount
                    await pilot.pause(0.02)
                    toasts = list(app._notifications)
                    if toasts:
                        break
                assert [n.title for n in toasts] == ["disk full"], [n.message for n in toasts]
                assert "no space left" in toasts[0].message
                assert "hint: free some space" in toasts[0].message
                await search(pilot, QUERY)
                assert app.search_screen.table().row_count > 0
                status = app.query_one("#status", StatusLine).text
                assert "disk full: nothing is saved" in status, status
                assert "read-only" not in status
        finally:
            svc.close()
