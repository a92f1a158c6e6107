"""SIGTERM to the app in a real terminal (tmux): it closes as on ``^q`` and gives the terminal
back. Killed where it stood (the default action), it left the pane in the app's alternate
screen with mouse reporting on: the shell's prompt hidden and every mouse move typed as
escape codes, until ``reset``. Once the terminal is given back, the process dies by the signal
(it exited with status 143: a calling shell or service manager read that litsift handled the
signal itself); the shell's ``$?`` stays 143."""

from __future__ import annotations

import os
import shlex
import signal
import sys
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
    ended = tmp_path / "returncode"
    # the shell writes its pid, then becomes litsift (exec): that pid is the app's; a Python
    # parent writes how it ended (a shell's $? is 143 for "exited 143" and "killed by SIGTERM")
    line = f"echo $$ > {shlex.quote(str(pid_file))}; exec {LITSIFT}"
    parent = (
        "import subprocess, sys; "
        "done = subprocess.run(['sh', '-c', sys.argv[1]]); "
        "open(sys.argv[2], 'w').write(str(done.returncode)); "
        "sys.exit(128 - done.returncode if done.returncode < 0 else done.returncode)"
    )
    t.start(
        f"{shlex.quote(sys.executable)} -c {shlex.quote(parent)} "
        f"{shlex.quote(line)} {shlex.quote(str(ended))}",
        {"LITSIFT_HOME": str(home)},
    )
    t.wait_for("Search: a full sentence or keyphrases", timeout=60)
    assert t.mode("alternate_on") == "1"  # the app holds the screen
    os.kill(int(pid_file.read_text()), signal.SIGTERM)
    t.wait_exit(5.0)
    assert t.exit_status() == 128 + signal.SIGTERM
    assert ended.read_text() == str(-signal.SIGTERM)  # died by it; exited 143 before
    time.sleep(0.2)
    assert t.mode("alternate_on") == "0" and t.mode("mouse_any_flag") == "0"
    assert "Traceback" not in t.screen()
