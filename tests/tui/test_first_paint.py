"""The TUI's start up to its first painted results (issue 32): nothing on that path imports
what it does not use (pandas, through sqlite-utils)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: opens the TUI headless on a home, searches once, waits for the hits, and prints which of
#: the heavy modules a start never needs were imported
_START_AND_SEARCH = """
import asyncio, sys
from pathlib import Path
from litsift.paths import get_paths
from litsift.service import LitsiftService
from litsift.tui.app import create_app
from litsift.types import Kind

async def main() -> None:
    with LitsiftService(get_paths(Path(sys.argv[1]))) as svc:
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=(120, 40)) as pilot:
            app.search_screen.query_bar.query_one("#query").value = "graph neural networks"
            await pilot.press("enter")
            for _ in range(2400):
                await pilot.pause(0.05)
                if app.search_screen.tab(Kind.PAPER).result is not None and not app.busy:
                    break
            assert app.search_screen.tab(Kind.PAPER).result.hits

asyncio.run(main())
print(sorted(m for m in ("pandas", "sqlite_utils") if m in sys.modules))
"""


def test_tui_start_and_first_search_import_no_pandas(built_home: Path) -> None:
    """sqlite-utils imports pandas (~0.7 s of a start); the store, the caches and the TUI
    import it only where its API is used."""
    proc = subprocess.run(
        [sys.executable, "-c", _START_AND_SEARCH, str(built_home)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "[]"
