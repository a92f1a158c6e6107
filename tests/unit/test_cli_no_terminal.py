"""The app started where there is no terminal (a script, cron, CI: ``litsift < /dev/null``):
it drew its escape codes into the log and waited for keys for ever. Now it says so at once and
names the command that does the job without the app."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("args", "alternative"),
    [((), 'litsift search "QUERY"'), (("demo",), "litsift demo --no-tui")],
)
def test_the_app_without_a_terminal_says_so_instead_of_waiting(
    tmp_path: Path, args: tuple[str, ...], alternative: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "litsift", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "LITSIFT_HOME": str(tmp_path / "home")},
        check=False,
        timeout=60,  # the old code never ended
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "error: the app needs a terminal, and standard input is not one",
        f"  hint: run it in a terminal; from a script, use a command: {alternative}",
    ]
    assert "\x1b" not in done.stdout + done.stderr
    assert not (tmp_path / "home" / "data" / "litsift.sqlite").exists()  # told before any work
