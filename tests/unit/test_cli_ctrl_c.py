"""Ctrl-C in a ``litsift`` command that keeps nothing to report ends it quietly, and the process
dies by SIGINT (Python's returncode -2, a shell's ``$?`` 130), so that a calling shell's loop
stops too (it went on to the next command after a plain ``exit 130``). Before, what was printed
depended on when the key came: while the command line loaded (its first quarter second), the
traceback of the import it cut short; while the app's widgets were being defined, "litsift
failed unexpectedly (RuntimeError: Error calling __set_name__ ...) -- this is a bug in
litsift"; later (the app starting, a search, an answer waiting for the model), click's
"Aborted!" and status 1. These tests send a real SIGINT to a real ``python -m litsift``
process.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from litsift.cli.common import reports_errors
from litsift.cli.terminal import LitsiftGroup
from tests.llm_server import Reply, ScriptedLLMServer, chat_reply, configured_home
from tests.terminal.conftest import papers_file, run_litsift

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for the signals")


def _loading_the_command_line(pid: int) -> bool:
    """True once ``pid`` (``python -m litsift``) is importing litsift's command line: its first
    C extension, ``_json`` (``import json`` in ``litsift.cli.root``), is mapped. Before, Python
    is still starting (a SIGINT there is Python's own "Fatal Python error")."""
    try:
        return "/_json." in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def test_ctrl_c_while_the_command_line_loads_ends_quietly(tmp_path: Path) -> None:
    """SIGINT while litsift imports its command line (or, on a fast machine, just after)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "litsift", "search", "neural machine translation"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "LITSIFT_HOME": str(tmp_path / "home")},
    )
    deadline = time.monotonic() + 30
    while not _loading_the_command_line(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGINT, (proc.returncode, err)  # 130 exited, 1 or -2
    assert err == "" and out == "", err  # with a traceback


def test_ctrl_c_while_an_answer_waits_for_the_model_dies_by_sigint(
    tmp_path: Path, srv: ScriptedLLMServer
) -> None:
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 40)))
    run_litsift(home, "search", "--json", "semantic textual similarity")  # builds BM25
    srv.push(Reply(body=chat_reply("Answered [1].").body, delay_s=30.0))
    with configured_home(home, srv):
        proc = subprocess.Popen(
            [sys.executable, "-m", "litsift", "answer", "Which datasets evaluate STS?"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={
                **os.environ,
                "LITSIFT_HOME": str(home),
                "LITSIFT_EMBED_CACHE_DIR": str(tmp_path / "cache"),
            },
        )
        deadline = time.monotonic() + 60
        while not srv.requests and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert srv.requests, proc.communicate(timeout=30)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)  # far below the model's 30 s
    assert proc.returncode == -signal.SIGINT, (proc.returncode, err)  # 1, after "Aborted!"
    assert "Aborted!" not in err and "Traceback" not in err, err


def test_ctrl_c_in_a_shell_loop_stops_the_loop(tmp_path: Path, srv: ScriptedLLMServer) -> None:
    """A terminal's Ctrl-C goes to the shell and litsift alike; the shell stops its loop only
    if the command died by the signal. litsift exited with status 130, and the loop went on to
    its next question (a script of twenty questions took twenty Ctrl-Cs)."""
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 40)))
    run_litsift(home, "search", "--json", "semantic textual similarity")  # builds BM25
    for _ in range(2):
        srv.push(Reply(body=chat_reply("Answered [1].").body, delay_s=30.0))
    litsift = f"{shlex.quote(sys.executable)} -m litsift"
    loop = f'for q in one two; do {litsift} answer "$q"; done; echo "after $?"'
    with configured_home(home, srv):
        proc = subprocess.Popen(
            ["bash", "-c", loop],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={
                **os.environ,
                "LITSIFT_HOME": str(home),
                "LITSIFT_EMBED_CACHE_DIR": str(tmp_path / "cache"),
            },
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
        deadline = time.monotonic() + 60
        while not srv.requests and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert srv.requests, proc.communicate(timeout=30)
        os.killpg(proc.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        out, err = proc.communicate(timeout=80)
    assert proc.returncode == -signal.SIGINT, (proc.returncode, out, err)
    assert "after" not in out and len(srv.requests) == 1, (out, err)


def test_ctrl_c_that_python_wraps_in_a_runtime_error_is_no_bug() -> None:
    """A KeyboardInterrupt raised while a class is made (``__set_name__``: Textual's widgets,
    imported as the app starts) reaches the command as a RuntimeError on Python 3.11: it was
    reported as a bug in litsift, with status 2."""

    class Slow:
        def __set_name__(self, owner: type, name: str) -> None:
            raise KeyboardInterrupt

    @click.group(cls=LitsiftGroup)
    def group() -> None:
        """A group of the ``litsift`` kind."""

    @group.command()
    @reports_errors
    def start() -> None:
        type("Widget", (), {"expand": Slow()})  # the class statement the key interrupted

    done = CliRunner().invoke(group, ["start"])
    assert done.exit_code == 130, done.output
    assert "unexpectedly" not in done.output and "bug" not in done.output, done.output
