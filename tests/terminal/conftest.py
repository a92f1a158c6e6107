"""The real-terminal tier (issue 45): ``litsift`` run as people run it, in a tmux pane (a real
pseudo-terminal and terminal emulator), keys typed with ``send-keys``, the screen read back
with ``capture-pane`` -- not Textual's headless Pilot, which hid that the app never built its
dense index in a terminal.

Each test gets its own tmux server (``-L``), so tests never share a screen; the command's exit
status is written to a file when it ends. tmux is part of this project's machine image; without
it these tests fail in CI (``CI`` set) and are skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import PAPERS_GZ, read_jsonl_gz

#: the Python that runs litsift in the pane (the test's own: the same install)
LITSIFT = f"{shlex.quote(sys.executable)} -m litsift"


class Terminal:
    """One tmux server with one pane of ``cols`` x ``rows`` running a shell command."""

    def __init__(self, workdir: Path, cols: int = 160, rows: int = 40) -> None:
        self.socket = f"litsift-test-{os.getpid()}-{time.monotonic_ns()}"
        self.workdir = workdir
        self.cols, self.rows = cols, rows
        self.status_file = workdir / f"{self.socket}.status"

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False
        )

    def start(self, command: str, env: dict[str, str]) -> None:
        """Run ``command`` (a shell line) in the pane with ``env`` added to this environment;
        its exit status goes to :attr:`status_file` when it ends (the pane then stays)."""
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        line = (
            # the pane's shell outlives a Ctrl-C, as an interactive one does (litsift dies by
            # SIGINT, and a script's shell then ends too, without writing the status)
            "trap : INT; "
            # pytest's own COLUMNS / LINES would fix the app's size (Textual reads them)
            f"cd {shlex.quote(str(self.workdir))} && env -u COLUMNS -u LINES {exports} "
            f"{command}; "
            f"echo $? > {shlex.quote(str(self.status_file))}; sleep 600"
        )
        done = self._tmux(
            "new-session", "-d", "-s", "main", "-x", str(self.cols), "-y", str(self.rows), line
        )
        assert done.returncode == 0, done.stderr

    def keys(self, *keys: str) -> None:
        """tmux key names (``Down``, ``C-q``, ``Enter``, ``+``) sent one after the other."""
        for key in keys:
            self._tmux("send-keys", "-t", "main", key)

    def burst(self, *keys: str) -> None:
        """tmux key names and literal strings sent in one ``send-keys``: the app reads them as
        one burst, as from a fast typist, a paste or a key macro."""
        self._tmux("send-keys", "-t", "main", *keys)

    def type(self, text: str) -> None:
        """``text`` typed literally."""
        self._tmux("send-keys", "-t", "main", "-l", text)

    def screen(self) -> str:
        """The pane's text as the terminal shows it now."""
        return self._tmux("capture-pane", "-p", "-t", "main").stdout

    def title(self) -> str:
        """The pane's title (what an OSC 0 or 2 sequence the program wrote would have set)."""
        return self._tmux("display-message", "-p", "-t", "main", "#{pane_title}").stdout.strip()

    def mode(self, flag: str) -> str:
        """A tmux format flag of the pane (``alternate_on``, ``mouse_any_flag``): "1" or "0"."""
        return self._tmux("display-message", "-p", "-t", "main", f"#{{{flag}}}").stdout.strip()

    def exit_status(self) -> int | None:
        """The command's exit status once it has ended, else None."""
        try:
            return int(self.status_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def wait_for(
        self, check: str | Callable[[str], bool], timeout: float, every: float = 0.1
    ) -> str:
        """The screen once ``check`` (a regex searched in it, or a predicate) holds.

        Raises:
            AssertionError: not within ``timeout`` seconds (the last screen is shown), or the
                command ended first.
        """
        test = (lambda s: re.search(check, s) is not None) if isinstance(check, str) else check
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if test(screen):
                return screen
            if self.exit_status() is not None:
                break
            time.sleep(every)
        raise AssertionError(
            f"waited {timeout:.0f} s for {check!r}; exit status {self.exit_status()}; "
            f"screen:\n{screen}"
        )

    def wait_exit(self, timeout: float) -> float:
        """Seconds until the command ended (at most ``timeout``; AssertionError past it)."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            if self.exit_status() is not None:
                return time.monotonic() - start
            time.sleep(0.02)
        raise AssertionError(f"still running {timeout:.1f} s later; screen:\n{self.screen()}")

    def close(self) -> None:
        self._tmux("kill-server")


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Callable[..., Terminal]]:
    """``terminal(cols=160, rows=40)``: a new tmux pane driver; every server is killed after
    the test."""
    if shutil.which("tmux") is None:
        if os.environ.get("CI"):
            pytest.fail("tmux is not installed: the real-terminal tier cannot run")
        pytest.skip("tmux is not installed")
    made: list[Terminal] = []

    def make(cols: int = 160, rows: int = 40) -> Terminal:
        made.append(Terminal(tmp_path, cols, rows))
        return made[-1]

    yield make
    for t in made:
        t.close()


def papers_file(directory: Path, n: int, start: int = 0) -> Path:
    """``n`` real papers of the shared corpus (from row ``start``) as litsift JSONL."""
    rows = read_jsonl_gz(PAPERS_GZ)[start : start + n]
    path = directory / f"papers-{start}-{n}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def run_litsift(home: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """``litsift ARGS`` in a subprocess on ``home``; its stdout (AssertionError on failure)."""
    done = subprocess.run(
        [sys.executable, "-m", "litsift", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "LITSIFT_HOME": str(home), **(env or {})},
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout
