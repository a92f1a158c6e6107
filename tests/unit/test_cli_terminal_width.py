"""litsift's command output is as wide as the terminal it is in: rich's tables and bars, and
click's help (its examples wrapped to the width with a hanging indent)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.terminal.conftest import papers_file, run_litsift

#: what rich writes besides the text: colours, styles, the cursor
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _in_a_terminal(cols: int, args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """``litsift ARGS`` in a real pseudo-terminal ``cols`` columns wide: (status, its text)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "litsift", *args], stdin=slave, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + 120  # a bound for a broken run, not a speed requirement
    try:
        while time.monotonic() < deadline:
            if not select.select([master], [], [], 1.0)[0]:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the other side is closed and everything was read
                break
            if not chunk:
                break
            shown += chunk
        status = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return status, ANSI.sub("", shown.decode("utf-8", "replace")).replace("\r", "")


@pytest.mark.skipif(sys.platform != "linux", reason="a Linux pseudo-terminal")
def test_a_search_table_under_term_dumb_is_as_wide_as_the_terminal(tmp_path: Path) -> None:
    """Under ``TERM=dumb`` (Emacs's shell, an IDE's console) rich took 80 columns whatever the
    window: in 132 columns the table of hits was folded into 80."""
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 40)))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(LITSIFT_HOME=str(home), TERM="dumb")
    status, text = _in_a_terminal(132, ["search", "semantic textual similarity", "-k", "5"], env)
    assert status == 0, text
    table = [line.rstrip() for line in text.splitlines() if line.startswith(tuple("┏┃┡│└"))]
    assert table and 80 < max(map(len, table)) <= 132, text  # 80: titles folded in two
