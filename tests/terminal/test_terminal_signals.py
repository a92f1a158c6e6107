"""SIGTERM to the app in a real terminal (tmux): it closes as on ``^q`` and gives the terminal
back. Killed where it stood (the default action), it left the pane in the app's alternate
screen with mouse reporting on: the shell's prompt hidden and every mouse move typed as
escape codes, until ``reset``."""

from __future__ import annotations

import os
import shlex
import signal
import time
from collections.abc import Callable
from pathlib import Path

from tests.terminal.conftest import LITSIFT, Terminal, papers_file, run_litsift


def test_sigterm_closes_the_app_and_gives_the_terminal_back(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 40)))
    pid_file = tmp_path / "litsift.pid"
    t = terminal(cols=120, rows=30)
    # the shell writes its pid, then becomes litsift (exec): that pid is the app's
    line = f"echo $$ > {shlex.quote(str(pid_file))}; exec {LITSIFT}"
    t.start(f"sh -c {shlex.quote(line)}", {"LITSIFT_HOME": str(home)})
    t.wait_for("Search: a full sentence or keyphrases", timeout=60)
    assert t.mode("alternate_on") == "1"  # the app holds the screen
    os.kill(int(pid_file.read_text()), signal.SIGTERM)
    t.wait_exit(5.0)
    assert t.exit_status() == 128 + signal.SIGTERM
    time.sleep(0.2)
    assert t.mode("alternate_on") == "0" and t.mode("mouse_any_flag") == "0"
    assert "Traceback" not in t.screen()
