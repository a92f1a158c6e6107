"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol with scripted
replies, for the LLM tests.

Replies are queued with :meth:`ScriptedLLMServer.push` and served in order, one per request
(JSON bodies or server-sent events, any status and headers, an optional delay before answering;
a client that hangs up during the delay or a dripped reply is counted in ``hangups``); once the
queue is empty, ``responder`` (when set) makes the reply from the request's body.
Every request is recorded (path, headers, parsed JSON body) so tests can assert on prompts.
When the queue is empty the server answers HTTP 500 "no scripted reply".

The tests share one server per session through the fixtures of ``tests/conftest.py``:
``llm_server`` (module scope, emptied when a module starts) and ``srv`` (the same server,
emptied before each test); :func:`llm_settings` and :func:`configured_home` point litsift at it.

Hostile servers for the hardening tests: ``drip_s`` sends the whole response (status line,
headers, body) one byte at a time; ``pings`` sends SSE ``: ping`` comment lines before the
events; ``close_after`` hangs up after that many body bytes; the text ``$AUTHORIZATION`` in a
body or event is replaced by the request's ``Authorization`` header (a server that echoes it).

Real servers' quirks, set on the server for a test (:meth:`ScriptedLLMServer.reset` clears them):
``paths`` answers only those request paths (query excluded) and 404s the rest as Ollama's Go
router does (``404 page not found``); ``key_header`` + ``key`` answer 401 unless that header
carries the key (Azure OpenAI reads ``api-key``); ``reject_params`` answers OpenAI's 400
``unsupported_parameter`` / ``unsupported_value`` for each named body field (o1/o3/gpt-5 reject
``max_tokens`` and a non-default ``temperature``). :func:`chat_reply` can send ``content`` null
with ``reasoning_content`` (DeepSeek-R1 on vLLM / llama.cpp), :func:`html_reply` a proxy's
HTML error page, :func:`body_error` and :func:`sse_error_reply` an error sent with HTTP 200 (as
OpenRouter does once the model has started: in the body, or as an event mid-stream).
"""

from __future__ import annotations

import gzip
import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
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


def reasoning_reply(
    content: str | None,
    reasoning: str,
    *,
    finish_reason: str = "stop",
    field: str = "reasoning_content",
) -> Reply:
    """A reasoning model's JSON reply: its thinking in ``field`` (``reasoning_content`` for
    DeepSeek, vLLM and llama.cpp; ``reasoning`` for Ollama and OpenRouter), ``content`` the
    answer, null or empty when the output limit was spent thinking."""
    reply = chat_reply("", finish_reason=finish_reason)
    message = reply.body["choices"][0]["message"]
    message["content"] = content
    message[field] = reasoning
    return reply


#: nginx's error page, as a reverse proxy in front of a model server sends it.
NGINX_502 = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n"
    "</body>\r\n</html>\r\n"
)


def html_reply(status: int = 502, page: str = NGINX_502) -> Reply:
    """An HTML page (a proxy's error page, a web UI) with ``Content-Type: text/html``."""
    return Reply(status, page, headers={"Content-Type": "text/html"})


def body_error(code: int | str, message: str) -> dict[str, Any]:
    """OpenRouter's error object, sent with HTTP 200 once the model has started (as the body,
    or as a stream event): ``code`` a status (``429``, ``"502"``) or a word (``server_error``)."""
    return {"error": {"code": code, "message": message}}


def sse_error_reply(chunks: list[str], code: int | str, message: str) -> Reply:
    """A 200 stream that sends ``chunks`` as deltas, then an error event as OpenRouter sends one
    mid-stream (the error beside a choice whose ``finish_reason`` is ``"error"``), and ends."""
    events: list[Any] = [{"choices": [{"index": 0, "delta": {"content": c}}]} for c in chunks]
    error = {"choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]}
    return Reply(sse=[*events, {**body_error(code, message), **error}])


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


def _unsupported(param: str, value: Any) -> dict[str, Any]:
    """OpenAI's 400 error for a field a reasoning model (o1, o3, gpt-5) does not take."""
    if param == "max_tokens":
        return {
            "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            "type": "invalid_request_error",
            "param": "max_tokens",
            "code": "unsupported_parameter",
        }
    return {
        "message": f"Unsupported value: '{param}' does not support {value} with this model. "
        "Only the default (1) value is supported.",
        "type": "invalid_request_error",
        "param": param,
        "code": "unsupported_value",
    }


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
            reply = owner.quirk(self.path, self.headers, body)
            if reply is None:
                if owner.queue:
                    reply = owner.queue.popleft()
                elif owner.responder is not None:  # a reply made from the request
                    reply = owner.responder(body)
                else:
                    reply = Reply(500, "no scripted reply")
        if reply.delay_s and self._hung_up_within(reply.delay_s):
            return
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

    def _hung_up_within(self, seconds: float) -> bool:
        """Wait ``seconds`` (a model still generating) unless the client hangs up first: then
        count it in ``hangups`` and say so."""
        until = time.monotonic() + seconds
        while (left := until - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(left, 0.02))
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                with self.server.owner.lock:
                    self.server.owner.hangups += 1
                self.close_connection = True
                return True
        return False

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
        try:
            for _ in range(reply.pings):
                self.wfile.write(b": ping\n\n")
                self.wfile.flush()
                time.sleep(reply.ping_every_s)
        except OSError:  # the client hung up while the server kept the stream alive
            with self.server.owner.lock:
                self.server.owner.hangups += 1
            self.close_connection = True
            return
        for event in reply.sse or []:
            data = event if isinstance(event, str) else json.dumps(event)
            self.wfile.write(f"data: {data.replace('$AUTHORIZATION', auth)}\n\n".encode())
            self.wfile.flush()

    def _drip(self, reply: Reply, headers: dict[str, str], raw: bytes) -> None:
        head = f"HTTP/1.1 {reply.status} OK\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in headers.items()
        )
        self.close_connection = True
        try:
            for i, byte in enumerate((head + "\r\n").encode() + raw):
                if i:
                    time.sleep(reply.drip_s)
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        except OSError:  # the client hung up mid-response
            with self.server.owner.lock:
                self.server.owner.hangups += 1
            raise


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
        self.paths: tuple[str, ...] | None = None
        self.key_header: str | None = None
        self.key: str | None = None
        self.reject_params: tuple[str, ...] = ()
        #: makes the reply from the request's JSON body once the queue is empty (None: 500)
        self.responder: Callable[[Any], Reply] | None = None
        #: delayed, dripped or pinged replies the client stopped waiting for (it closed the
        #: connection while the server still had the reply to send)
        self.hangups = 0
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The ``base_url`` to configure: ``http://127.0.0.1:PORT/v1``."""
        return self.root + "/v1"

    @property
    def root(self) -> str:
        """``http://127.0.0.1:PORT``, no path."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def quirk(self, path: str, headers: Any, body: Any) -> Reply | None:
        """The reply a real server's quirk gives this request, or None to serve the queue."""
        if self.paths is not None and path.partition("?")[0] not in self.paths:
            return Reply(404, "404 page not found")
        if self.key_header is not None and headers.get(self.key_header) != self.key:
            msg = "Access denied due to invalid subscription key or wrong API endpoint."
            return Reply(401, {"error": {"code": "401", "message": msg}})
        for param in self.reject_params:
            if isinstance(body, dict) and param in body:
                return Reply(400, {"error": _unsupported(param, body[param])})
        return None

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
        """Forget queued replies, recorded requests and quirks."""
        with self.lock:
            self.queue.clear()
            self.requests.clear()
            self.paths = None
            self.key_header = self.key = None
            self.reject_params = ()
            self.responder = None
            self.hangups = 0

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


def chat_client(server: ScriptedLLMServer, backoff_base_s: float = 0.01, **overrides: Any) -> Any:
    """A :class:`~litsift.llm.client.ChatClient` on ``server`` (timeout 5 s, no retries unless
    ``overrides`` say; no API key from the environment; backoff ``backoff_base_s``)."""
    from litsift.llm.client import ChatClient

    settings = llm_settings(server, **{"timeout_s": 5.0, **overrides})
    return ChatClient(settings, environ={}, backoff_base_s=backoff_base_s)


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
