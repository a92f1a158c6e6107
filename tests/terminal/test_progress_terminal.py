"""The progress bars of ``litsift index`` on a real terminal (tmux), read off the screen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.terminal.conftest import LITSIFT, Terminal, papers_file, run_litsift


def _row(lines: list[str], start: str) -> int:
    """The number of the first screen line starting (after blanks) with ``start``."""
    rows = [i for i, line in enumerate(lines) if line.lstrip().startswith(start)]
    assert rows, f"no line starts with {start!r}:\n" + "\n".join(lines)
    return rows[0]


def test_bm25_ready_is_said_under_the_bm25_bar_and_above_the_dense_ones(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    # before: the line was printed above the live bars, so the finished bm25 bar (and those of
    # the dense part) stood under the line that said BM25 was ready
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 120)))
    t = terminal()
    env = {"LITSIFT_HOME": str(home), "LITSIFT_EMBED_CACHE_DIR": str(tmp_path / "cache")}
    t.start(f"{LITSIFT} index papers", env)
    t.wait_exit(120)
    assert t.exit_status() == 0, t.screen()
    lines = t.screen().splitlines()
    bm25, ready = _row(lines, "bm25 ━"), _row(lines, "papers: BM25 ready")
    embed, built = _row(lines, "embed ━"), _row(lines, "papers: full build")
    assert bm25 < ready < embed < built, "\n".join(lines)
