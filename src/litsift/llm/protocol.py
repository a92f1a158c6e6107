"""Wire-level pieces of the OpenAI chat-completions protocol: the completion record, URL and
header helpers, the server-sent-event reader, the API-key redactor, the filter of thinking
blocks and the streaming iterator."""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass

import httpx

from litsift.types.llm import Usage

#: a chat message: ``{"role": "system" | "user" | "assistant", "content": str}``.
Message = dict[str, str]
#: receives each streamed text delta as it arrives.
DeltaCallback = Callable[[str], None]

#: error texts of OpenAI, vLLM, Ollama and llama.cpp that mean "prompt longer than the context".
OVERFLOW_RE = re.compile(
    r"context[_ ](length|window|size)|maximum context|too many tokens|prompt is too long|n_ctx",
    re.IGNORECASE,
)
#: statuses retried with backoff: 429 rate limited, 5xx failed or overloaded (529: Anthropic's
#: "overloaded_error", also sent by proxies in front of it).
RETRY_STATUS = frozenset({429, 500, 502, 503, 504, 529})
#: words of an error sent inside a 200 body without a numeric code (OpenAI's and Anthropic's
#: ``type`` / ``code``, OpenRouter's mid-stream ``server_error``, a bare message) and the HTTP
#: status each stands for; an error that names none stands for 400 (a request refused).
_ERROR_WORDS = (
    (re.compile(r"rate[ _-]?limit|too many requests", re.I), 429),
    (re.compile(r"overloaded", re.I), 503),
    (re.compile(r"server_error|api_error|internal_error", re.I), 500),
    (re.compile(r"authentication|invalid_api_key", re.I), 401),
    (re.compile(r"permission_error", re.I), 403),
)


@dataclass(frozen=True)
class Completion:
    """One chat completion.

    Attributes:
        text: the assistant message content (plain text; render it without markup).
        usage: prompt/completion tokens (the endpoint's ``usage`` or an estimate).
        cost_usd: cost of this call at the configured prices; 0 for a cache hit.
        cached: True when answered from the cache without a request.
        model: the configured model name.
        finish_reason: ``"stop"``, ``"length"``, ... or None if the endpoint sent none.
    """

    text: str
    usage: Usage
    cost_usd: float
    cached: bool
    model: str
    finish_reason: str | None = None


def chat_url(base_url: str) -> str:
    """The chat-completions URL of ``base_url``: its path + ``/chat/completions`` unless it ends
    with it, and ``/v1`` first when the path is empty (``http://localhost:11434``, as Ollama and
    LM Studio print their address, serve the API under ``/v1``). A query (Azure OpenAI's
    ``?api-version=``) stays the query."""
    url = httpx.URL(base_url.strip())
    path = url.path.rstrip("/")
    if not path:
        path = "/v1"
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return str(url.copy_with(path=path))


#: hosts of Azure OpenAI and Azure AI Foundry, which take the key in an ``api-key`` header.
_AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")


def key_in_api_key_header(url: str) -> bool:
    """Whether ``url`` is Azure OpenAI's (an Azure host, or an ``api-version`` query), whose key
    goes in an ``api-key`` header; Azure answers 401 to it as a Bearer token."""
    u = httpx.URL(url)
    return "api-version" in u.params or u.host.endswith(_AZURE_HOSTS)


def redact_url(url: str) -> str:
    """``url`` without userinfo and query string (safe to log and to store)."""
    u = httpx.URL(url)
    return str(u.copy_with(username=None, password=None, query=None))


def body_error_status(data: object) -> int:
    """The HTTP status an error inside a 200 body stands for (OpenRouter and proxies answer 200
    with ``{"error": {"code": 429 | "502" | "server_error", "message": ...}}``, in the body or
    as a stream event): its numeric ``code`` or ``status`` (400-599), else the status its words
    name (:data:`_ERROR_WORDS`: a rate limit 429, overloaded 503...), else 400."""
    err = data.get("error") if isinstance(data, dict) else None
    fields = [err.get(k) for k in ("code", "status", "type")] if isinstance(err, dict) else []
    for value in fields:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and 400 <= value < 600:
            return value
    message = err.get("message") if isinstance(err, dict) else err
    said = " ".join(v for v in [*fields, message] if isinstance(v, str))
    return next((status for word, status in _ERROR_WORDS if word.search(said)), 400)


def retry_after_s(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP-date, RFC 9110 §10.2.3)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def sse_data(lines: Iterator[str]) -> Iterator[str]:
    """The ``data`` payloads of a server-sent event stream (WHATWG HTML §9.2 event stream)."""
    buf: list[str] = []
    for line in lines:
        if not line:
            if buf:
                yield "\n".join(buf)
                buf = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            buf.append(value[1:] if value.startswith(" ") else value)
    if buf:
        yield "\n".join(buf)


#: keys shorter than this are placeholders ("EMPTY" for vLLM, "ollama"), not secrets: they are
#: not redacted from model text, where they would mangle ordinary words.
MIN_REDACTED_KEY_CHARS = 8
REDACTED = "[redacted]"


class KeyRedactor:
    """Removes an API key from model text, whole or streamed in pieces.

    A server that echoes the request headers puts ``Bearer <key>`` into its reply; every
    occurrence of the key becomes ``[redacted]``. Streamed text is fed delta by delta: a tail
    that could be the start of the key is held back until the next delta (or :meth:`flush`),
    so a key split across deltas is caught too, and ``"".join(feed(d) ...) + flush()`` equals
    :meth:`redact` of the whole text.

    Args:
        key: the API key; None, or one shorter than :data:`MIN_REDACTED_KEY_CHARS`, redacts
            nothing.
    """

    def __init__(self, key: str | None) -> None:
        self.key = key if key and len(key) >= MIN_REDACTED_KEY_CHARS else ""
        self._held = ""

    def redact(self, text: str) -> str:
        """``text`` with every occurrence of the key replaced by ``[redacted]``."""
        return text.replace(self.key, REDACTED) if self.key else text

    def feed(self, delta: str) -> str:
        """The part of the stream so far that is safe to show ('' while a key may be forming)."""
        if not self.key:
            return delta
        text = self.redact(self._held + delta)
        hold = 0
        for n in range(min(len(self.key) - 1, len(text)), 0, -1):
            if self.key.startswith(text[-n:]):
                hold = n
                break
        self._held = text[len(text) - hold :]
        return text[: len(text) - hold]

    def flush(self) -> str:
        """What :meth:`feed` held back, once the stream has ended."""
        out, self._held = self._held, ""
        return out


_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"


def strip_thinking(text: str) -> str:
    """``text`` without the reasoning a thinking model put before its answer: a leading
    ``<think>…</think>`` block (Qwen3, DeepSeek-R1, QwQ served without a reasoning parser), or
    everything up to a ``</think>`` with no opening tag (DeepSeek-R1's template opens it in the
    prompt). An unclosed ``<think>`` (the output limit hit while thinking) leaves ''."""
    body = text.lstrip()
    if body.startswith(_THINK_OPEN):
        head, close, tail = body[len(_THINK_OPEN) :].partition(_THINK_CLOSE)
        return tail.lstrip() if close else ""
    head, close, tail = text.partition(_THINK_CLOSE)
    if close and _THINK_OPEN not in head:
        return tail.lstrip()
    return text


class ThinkFilter:
    """:func:`strip_thinking` for streamed text: :meth:`feed` returns what is safe to show of
    each delta (nothing while a leading ``<think>`` block is open or could be starting)."""

    def __init__(self) -> None:
        self._held = ""
        self._state = "start"  # start -> thinking -> after -> answer

    def feed(self, delta: str) -> str:
        if self._state == "answer":
            return delta
        self._held += delta
        if self._state == "start":
            body = self._held.lstrip()
            if not body or (_THINK_OPEN.startswith(body) and body != _THINK_OPEN):
                return ""
            if not body.startswith(_THINK_OPEN):
                return self._release()
            self._state, self._held = "thinking", body[len(_THINK_OPEN) :]
        if self._state == "thinking":
            _, close, tail = self._held.partition(_THINK_CLOSE)
            if not close:
                return ""
            self._state, self._held = "after", tail
        self._held = self._held.lstrip()
        return self._release() if self._held else ""

    def _release(self) -> str:
        out, self._held, self._state = self._held, "", "answer"
        return out

    def flush(self) -> str:
        """What is still held once the stream has ended (an unclosed block: nothing)."""
        return self._release() if self._state == "start" else ""


class ChatStream(Iterator[str]):
    """Iterator of streamed text deltas; ``completion`` is set once it is exhausted."""

    def __init__(self, gen: Generator[str, None, Completion]) -> None:
        self._gen = gen
        self.completion: Completion | None = None

    def __iter__(self) -> ChatStream:
        return self

    def __next__(self) -> str:
        try:
            return next(self._gen)
        except StopIteration as stop:
            self.completion = stop.value
            raise

    def close(self) -> None:
        """Abandon the request (closes the HTTP response)."""
        self._gen.close()
