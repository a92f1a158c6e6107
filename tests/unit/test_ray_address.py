"""``litsift index --ray ADDRESS`` joins a Ray head started with ``ray start --head`` (issue 42:
"works the same on ``ray start --head`` locally and on a cluster address").

A head with one CPU is started on a free port as its own process (``--block``, so stopping it
stops its raylet and GCS and leaves the other Ray of the suite alone); litsift joins it by
address (with the token where ``ray start --head`` uses one, as on a cluster), embeds 120
real papers into the embedding cache with one actor, builds the index; a second run finds them
cached, and a search answers hybrid. Needs the ``scale`` extra (ray).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray")


N = 120
pytestmark = pytest.mark.xdist_group("ray")  # after test_ray_embed's Ray, never beside it


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _auth_env() -> dict[str, str]:
    """The environment of a client of the head: ``ray start --head`` (Ray 2.60) turns token
    authentication on where a token exists (``~/.ray/auth_token``, ``RAY_AUTH_TOKEN``), and
    then a client must send it (``RAY_AUTH_MODE=token``); on a machine without one (a fresh
    CI machine) the head runs without, and a client told to send a token crashes looking for
    it. litsift decides the same way (``search.engines.ray_embed``)."""
    token = Path(os.environ.get("RAY_AUTH_TOKEN_PATH", "~/.ray/auth_token")).expanduser()
    if "RAY_AUTH_MODE" not in os.environ and (os.environ.get("RAY_AUTH_TOKEN") or token.is_file()):
        return {**os.environ, "RAY_AUTH_MODE": "token"}
    return dict(os.environ)


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    ray_bin = Path(sys.executable).with_name("ray")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("ray-head") / "head.log"
    with log.open("w") as out:
        head = subprocess.Popen(
            [
                str(ray_bin), "start", "--head", "--block", f"--port={port}",
                "--node-ip-address=127.0.0.1", "--num-cpus=1", "--include-dashboard=false",
                "--disable-usage-stats",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            up = subprocess.run(
                [str(ray_bin), "status", f"--address={address}"],
                capture_output=True,
                text=True,
                timeout=60,
                env=_auth_env(),
            )
            if up.returncode == 0:
                break
            assert head.poll() is None, log.read_text()
            assert time.monotonic() < deadline, up.stdout + up.stderr + log.read_text()
            time.sleep(2)
        yield address
    finally:
        # --block: the head stops what it started. On Ctrl-C (SIGINT) it does so in ~3 s; on
        # SIGTERM it took 33-60 s (the worker waited for it at the end of every CI run)
        os.killpg(head.pid, signal.SIGINT)
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait(timeout=30)


def test_index_joins_a_ray_head_by_address_and_the_search_is_hybrid(
    ray_head: str, paper_slice_rows: list[dict], tmp_path: Path
) -> None:
    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:N]), "utf-8")
    home = tmp_path / "home"
    env = {
        **os.environ,
        "LITSIFT_EMBED_CACHE_DIR": str(tmp_path / "cache"),  # an empty embedding cache
        "LITSIFT_EMBED_WORKERS": "1",
    }
    env.pop("RAY_ADDRESS", None)

    def litsift(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "litsift", "--home", str(home), *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)

    assert litsift("ingest", "papers", str(papers)).returncode == 0
    index = litsift("index", "--ray", ray_head, "--quiet")
    assert index.returncode == 0, index.stdout + index.stderr
    assert "Traceback" not in index.stderr
    # every passage embedded by the Ray job on the head (1 actor: its one CPU), none by the build
    assert f"papers: {N} of {N} passages embedded by Ray Data (1 actors" in index.stdout
    again = litsift("index", "--ray", ray_head, "--quiet")
    assert f"all {N} passage vectors already cached (Ray not needed)" in again.stdout
    found = litsift("search", "neural machine translation", "--json")
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["hits"] and set(answer["signals_used"]) >= {"bm25", "dense"}


def test_an_address_where_no_head_listens_fails_at_once_with_a_hint(tmp_path: Path) -> None:
    """`index --ray 127.0.0.1:PORT` with nothing there retried for minutes, printing Ray's raw
    log lines ("Failed to connect to GCS ..."); it now ends with our message and hint before
    Ray is asked (the subprocess's timeout is the test's limit)."""
    papers = tmp_path / "papers.jsonl"
    papers.write_text('{"id": "p1", "title": "A paper", "abstract": "Text."}\n', "utf-8")
    home = tmp_path / "home"
    cmd = [sys.executable, "-m", "litsift", "--home", str(home)]
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    run = subprocess.run([*cmd, "ingest", "papers", str(papers)], capture_output=True, env=env)
    assert run.returncode == 0
    address = f"127.0.0.1:{_free_port()}"  # free: nothing listens there
    index = subprocess.run(
        [*cmd, "index", "--ray", address, "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert index.returncode == 1, index.stdout + index.stderr
    assert f"no Ray head answers at {address}" in index.stderr
    assert "hint: start one there (ray start --head" in index.stderr
    assert "Traceback" not in index.stderr and "GCS" not in index.stderr
