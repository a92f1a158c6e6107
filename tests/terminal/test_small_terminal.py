"""litsift in an 80x24 tmux pane, as on a laptop's default terminal: the aspect editor shows a
query longer than its box whole (it cut it at the border: "... with pretr"), and a status
notice gives the result's line back on the next key (a label's confirmation stayed until the
next search, hiding the count and the years in force)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from tests.terminal.conftest import LITSIFT, Terminal, papers_file, run_litsift

QUERY = (
    "transformer attention for low-resource neural machine translation with pretrained "
    "multilingual encoders"
)
#: the status line of a result (the prompt or a notice shows something else)
RESULT_LINE = re.compile(r"^ \d+ results? · \d+ ms · papers · any year", re.M)


def _open_aspect_editor(t: Terminal) -> str:
    """``a`` once the query's aspects are scored (the key does nothing before); the screen."""
    for _ in range(30):
        t.keys("a")
        try:
            return t.wait_for("Aspects \\(one per line\\)", timeout=1)
        except AssertionError:
            continue
    raise AssertionError(f"the aspect editor never opened:\n{t.screen()}")


def test_at_80x24_the_aspect_editor_wraps_the_query_and_a_notice_goes_on_the_next_key(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    cache = Path(os.environ.get("LITSIFT_TEST_EMBED_CACHE") or tmp_path / "cache")
    env = {"LITSIFT_HOME": str(home), "LITSIFT_EMBED_CACHE_DIR": str(cache)}
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 60)))
    run_litsift(home, "index", "--quiet", env=env)
    t = terminal(cols=80, rows=24)
    t.start(LITSIFT, {**env, "LITSIFT_EMBED_WORKERS": "1"})
    t.wait_for("Search: a full sentence or keyphrases", timeout=30)
    t.type(QUERY)
    t.keys("Enter")
    t.wait_for(lambda s: RESULT_LINE.search(s) is not None and "results ▸" in s, timeout=60)
    screen = _open_aspect_editor(t)
    box = [line.strip("│ ") for line in screen.splitlines() if line.startswith("│ ")]
    words = " ".join(" ".join(box).split())
    assert QUERY in words, screen  # whole, wrapped at a space
    assert re.search(r"│ .*Re-score.*Cancel", screen), screen  # the buttons are on screen
    t.keys("Escape")
    t.wait_for(lambda s: "Aspects (one" not in s, timeout=10)
    t.keys("+")
    t.wait_for(r": keep", timeout=20)
    t.keys("j")
    t.wait_for(lambda s: RESULT_LINE.search(s) is not None and ": keep ·" not in s, timeout=10)
    t.keys("C-q")
    t.wait_exit(10)
    assert t.exit_status() == 0
