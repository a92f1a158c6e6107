"""Keys typed before the app is up, in a real terminal (tmux): ``litsift`` + Enter and the query
right behind it, as a fast typist does. The app takes the terminal half a second to a second
later; until then the keys wait in the terminal's line discipline, which turns the Enter into a
line feed. They were lost: the app read them before its query input had the focus and dropped
them, so the bar stayed empty; the Enter (read as Ctrl+J) searched nothing; and a ``+`` typed
behind a query that ran before BM25 was built acted on no rows (that query fails, then runs
again when BM25 lands).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.terminal.conftest import LITSIFT, Terminal, papers_file, run_litsift

#: the status line of a result (the prompt or a notice shows something else)
RESULT_LINE = re.compile(r"^ \d+ results? · \d+ ms · papers · any year", re.M)


def _start(terminal: Callable[..., Terminal], tmp_path: Path) -> tuple[Terminal, Path]:
    """``litsift`` starting in a pane on a home of 40 papers, not indexed yet."""
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 40)))
    t = terminal(cols=100, rows=30)
    t.start(LITSIFT, {"LITSIFT_HOME": str(home), "LITSIFT_EMBED_CACHE_DIR": str(tmp_path / "c")})
    return t, home


def test_a_query_and_enter_typed_before_the_app_is_up_are_searched(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    t, _ = _start(terminal, tmp_path)
    t.burst("neural machine translation", "Enter")  # Python is still starting
    screen = t.wait_for(
        lambda s: RESULT_LINE.search(s) is not None and "\n results ▸" in s, timeout=30
    )  # Enter searched and, once the rows were painted, moved into them
    assert re.search(r"▊  neural machine translation +▎", screen), screen
    t.keys("C-q")
    t.wait_exit(10)
    assert t.exit_status() == 0


def test_down_and_plus_typed_before_the_app_is_up_keep_the_first_hit(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    """The query runs before BM25 is built (it fails, and runs again when BM25 lands): the
    ``+`` behind Down waits for the rows of that run."""
    t, home = _start(terminal, tmp_path)
    t.burst("neural machine translation", "Down", "+")
    t.wait_for(lambda s: re.search(r"\n   1  ✓ ", s) is not None, timeout=30)
    t.keys("C-q")
    t.wait_exit(10)
    assert t.exit_status() == 0
    kept = run_litsift(home, "export", "kept", "--format", "markdown")
    assert kept.count("\n- ") + kept.startswith("- ") == 1, kept
