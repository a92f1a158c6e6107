"""litsift where there is no terminal (a script, cron, CI). The app (``litsift < /dev/null``)
drew its escape codes into the log and waited for keys for ever; now it says so at once and
names the command that does the job without the app. A command's progress bar printed its
last state into the log, and an empty line above an error that came before any work."""

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


def test_no_progress_bar_where_stderr_is_no_terminal(tmp_path: Path) -> None:
    def rq_extract(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "litsift", "rq", "extract", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "LITSIFT_HOME": str(tmp_path / "home")},
            check=False,
            timeout=120,
        )

    done = rq_extract()
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("offline-1: 0 of 0 papers got a problem and method")
    done = rq_extract("--llm")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "error: no LLM endpoint configured",
        f"  hint: set [llm] base_url and model in {tmp_path / 'home' / 'config.toml'} "
        "(see README, LLM)",  # the file's path: config.toml alone left the user to find it
    ]


@pytest.mark.parametrize(("no_color", "red"), [("1", False), ("", True)])
def test_no_color_turns_the_red_error_off(tmp_path: Path, no_color: str, red: bool) -> None:
    """NO_COLOR (https://no-color.org) in a terminal: rich's tables obeyed it, the red
    ``error:`` of every failed command did not."""
    from click.testing import CliRunner

    from litsift.cli.root import main

    home = ["--home", str(tmp_path / "home")]
    out = CliRunner().invoke(main, [*home, "search", " "], env={"NO_COLOR": no_color}, color=True)
    assert out.exit_code == 1
    assert ("\x1b[31merror: the query is empty" in out.output) is red
    assert ("\x1b" in out.output) is red
