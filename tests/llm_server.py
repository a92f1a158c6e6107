"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol with scripted
replies, for the LLM tests.

Replies are queued with :meth:`ScriptedLLMServer.push` and served in order, one per request
(JSON bodies or server-sent events, any status and headers, an optional delay before answering).
Every request is recorded (path, headers, parsed JSON body) so tests can assert on prompts.
When the queue is empty the server answers HTTP 500 "no scripted reply".

The tests share one server per session through the fixtures of ``tests/conftest.py``:
``llm_server`` (module scope, emptied when a module starts) and ``srv`` (the same server,
emptied before each test); :func:`llm_settings` and :func:`configured_home` point litsift at it.

Hostile servers for the hardening tests: ``drip_s`` sends the whole response (status line,
headers, body) one byte at a time; ``pings`` sends SSE ``: ping`` comment lines before the
events; ``close_after`` hangs up after that many body bytes; the text ``$AUTHORIZATION`` in a
body or event is replaced by the request's ``Authorization`` header (a server that echoes it).
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from litsift.config import LLMSettings
from litsift.paths import shared_data_dir
from litsift.types import Hit, Paper


@dataclass
class Reply:
    """One scripted response.

    Attributes:
        status: HTTP status.
        body: a dict/list (sent as JSON) or a str (sent as is); ignored when ``sse`` is set.
        headers: extra response headers (e.g. ``{"Retry-After": "1"}``).
        sse: server-sent event ``data`` payloads (dicts are JSON-encoded), sent as a stream.
        delay_s: seconds to wait before answering.
        drip_s: send the response one byte every ``drip_s`` seconds (0: all at once).
        pings: SSE only: ``: ping`` comment lines sent before the events, one every
            ``ping_every_s`` seconds.
        close_after: hang up after this many body bytes (the headers promise the whole body).
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    sse: list[Any] | None = None
    delay_s: float = 0.0
    drip_s: float = 0.0
    pings: int = 0
    ping_every_s: float = 0.25
    close_after: int | None = None


def chat_reply(
    text: str, *, usage: dict[str, int] | None = None, finish_reason: str = "stop"
) -> Reply:
    """A 200 JSON chat completion whose message content is ``text``."""
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish_reason,
            }
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return Reply(body=body)


def sse_reply(chunks: list[str], *, usage: dict[str, int] | None = None) -> Reply:
    """A streamed chat completion: one delta per chunk, a finish chunk, usage, ``[DONE]``."""
    events: list[Any] = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    events += [{"choices": [{"index": 0, "delta": {"content": c}}]} for c in chunks]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if usage is not None:
        events.append({"choices": [], "usage": usage})
    events.append("[DONE]")
    return Reply(sse=events)


@dataclass(frozen=True)
class Request:
    """A request the server received."""

    path: str
    headers: dict[str, str]
    body: Any


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        owner = self.server.owner
        with owner.lock:
            owner.requests.append(Request(self.path, dict(self.headers.items()), body))
            reply = owner.queue.popleft() if owner.queue else Reply(500, "no scripted reply")
        if reply.delay_s:
            time.sleep(reply.delay_s)
        auth = self.headers.get("Authorization", "")
        if reply.sse is not None:
            self._send_sse(reply, auth)
            return
        payload = (reply.body if isinstance(reply.body, str) else json.dumps(reply.body)).replace(
            "$AUTHORIZATION", auth
        )
        raw = payload.encode()
        ctype = "text/plain" if isinstance(reply.body, str) else "application/json"
        headers = {"Content-Type": ctype, "Content-Length": str(len(raw)), **reply.headers}
        if reply.drip_s:
            self._drip(reply, headers, raw)
            return
        self.send_response(reply.status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        if reply.close_after is not None:
            self.wfile.write(raw[: reply.close_after])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(raw)

    def _send_sse(self, reply: Reply, auth: str) -> None:
        if reply.drip_s:
            raw = b"".join(
                f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n".encode()
                for e in reply.sse or []
            )
            self._drip(reply, {"Content-Type": "text/event-stream", **reply.headers}, raw)
            return
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream")
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.end_headers()
        for _ in range(reply.pings):
            self.wfile.write(b": ping\n\n")
            self.wfile.flush()
            time.sleep(reply.ping_every_s)
        for event in reply.sse or []:
            data = event if isinstance(event, str) else json.dumps(event)
            self.wfile.write(f"data: {data.replace('$AUTHORIZATION', auth)}\n\n".encode())
            self.wfile.flush()

    def _drip(self, reply: Reply, headers: dict[str, str], raw: bytes) -> None:
        head = f"HTTP/1.1 {reply.status} OK\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in headers.items()
        )
        self.close_connection = True
        for i, byte in enumerate((head + "\r\n").encode() + raw):
            if i:
                time.sleep(reply.drip_s)
            self.wfile.write(bytes([byte]))
            self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedLLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out closed its socket; the late write fails. Nothing to report.
        return


class ScriptedLLMServer:
    """Chat-completions server on ``127.0.0.1:<free port>`` in a daemon thread."""

    def __init__(self) -> None:
        self.queue: deque[Reply] = deque()
        self.requests: list[Request] = []
        self.lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The ``base_url`` to configure: ``http://127.0.0.1:PORT/v1``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> ScriptedLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def push(self, *replies: Reply) -> None:
        with self.lock:
            self.queue.extend(replies)

    def reset(self) -> None:
        """Forget queued replies and recorded requests."""
        with self.lock:
            self.queue.clear()
            self.requests.clear()

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def llm_settings(server: ScriptedLLMServer, **overrides: Any) -> LLMSettings:
    """Settings that point litsift at ``server``: model ``test-model``, no retries (as every
    LLM test wants unless it overrides them)."""
    base: dict[str, Any] = {"base_url": server.url, "model": "test-model", "max_retries": 0}
    base.update(overrides)
    return LLMSettings(**base)


@contextmanager
def configured_home(home: Path, server: ScriptedLLMServer) -> Iterator[Path]:
    """Write an ``[llm]`` section pointing at ``server`` into ``home``'s config file for the
    duration (the CLI and services opened on ``home`` then use it). After, the file is removed
    and so is the home's LLM response cache: the session shares one server (one URL), so a
    reply cached here would otherwise answer the next test's identical prompt."""
    from litsift.cache.llm_cache import FILE_NAME
    from litsift.paths import get_paths

    paths = get_paths(home)
    paths.config_file.write_text(
        f'[llm]\nbase_url = "{server.url}"\nmodel = "test-model"\nmax_retries = 0\n',
        encoding="utf-8",
    )
    try:
        yield home
    finally:
        paths.config_file.unlink()
        for suffix in ("", "-wal", "-shm"):
            (paths.cache_dir / (FILE_NAME + suffix)).unlink(missing_ok=True)


# -- real records for the LLM tests --------------------------------------------------------------

SHARED_DATA = shared_data_dir()
PAPERS_GZ = SHARED_DATA / "papers" / "ml-nlp-papers.jsonl.gz"


def sample_hits(n: int, *, skip: int = 0) -> list[Hit]:
    """The first ``n`` papers with an abstract from ``../shared/data`` as hits ranked 1..n."""
    papers: list[Paper] = []
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            if not row.get("abstract"):
                continue
            if skip:
                skip -= 1
                continue
            papers.append(
                Paper(
                    id=row["id"],
                    title=row["title"],
                    abstract=row["abstract"],
                    authors=tuple(row.get("authors") or ()),
                    year=row.get("year"),
                    venue=row.get("venue") or "",
                    url=row.get("url") or "",
                    rowid=len(papers) + 1,
                )
            )
            if len(papers) == n:
                break
    return [Hit(record=p, rank=i, score=1.0 / i) for i, p in enumerate(papers, start=1)]
