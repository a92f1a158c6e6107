"""One HTTP exchange with an OpenAI-compatible chat-completions endpoint.

:class:`Endpoint` sends a request under a total deadline (:mod:`litsift.net.deadline`), reads
the JSON or server-sent-event body, redacts the API key from the model's text, and maps every
failure to a typed error of :mod:`litsift.llm.errors`:

- HTTP 429/5xx (529 included: Anthropic's "overloaded") raise :class:`Retry` (wrapping the
  rate-limit or server error, with the status and the ``Retry-After``) for the caller's
  backoff loop; 401/403 an auth error; a context-length message an overflow error; other
  statuses and malformed bodies a response error. An error inside a 200 body or stream event
  is mapped by the status it names (:func:`~litsift.llm.protocol.body_error_status`), except
  that a stream error after text was delivered raises its error, never :class:`Retry`.
- A ``Content-Encoding`` the body does not match (``gzip`` on plain bytes) is a response error,
  not httpx's ``DecodingError``.
- A connection closed after the response headers is "closed the connection mid-response",
  distinct from one closed before any answer and from "cannot reach" (refused, DNS, TLS).
- A 400 that names a request field the model does not take (OpenAI's o1/o3/gpt-5 refuse
  ``max_tokens`` and a non-default ``temperature``; older servers ``stream_options``) raises
  :class:`Unsupported` so the caller can resend without it.
- Thinking models: a leading ``<think>`` block is removed from the text (and from the deltas,
  :class:`~litsift.llm.protocol.ThinkFilter`); ``reasoning_content`` / ``reasoning`` fields are
  never shown; a reply whose output limit ran out before any answer is an error that says so.
- A reply without text (empty, whitespace, or only reasoning) is an error, never an empty
  answer or a ranking that names no candidate.
- The body is read as its ``Content-Type`` says: a streamed request answered with one JSON
  completion (servers and proxies that ignore ``stream``) gives its text as one delta, and a
  plain request answered with server-sent events is read as a stream.
- An error reply names the URL posted to and the model in its hint (a base URL without
  ``/v1``, a model name the server does not know); a 401/403 when no key was sent says to set
  ``llm.api_key_env``.
- An HTML page (a proxy's error page, a web UI at ``base_url``) is named by its title.
- A ``cancelled`` check ends the call early (:class:`~litsift.llm.errors.LLMCancelledError`):
  with :class:`~litsift.net.deadline.DeadlineTransport` it is looked at while the server is
  silent too (a non-streamed reply being generated), else between body chunks; the request is
  closed either way.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator
from typing import Any

import httpx

from litsift.config import LLMSettings
from litsift.errors import LLMCancelledError, LLMError
from litsift.llm.errors import (
    LLMAuthError,
    LLMConnectionError,
    LLMContextOverflowError,
    LLMRateLimitError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
)
from litsift.llm.protocol import (
    OVERFLOW_RE,
    RETRY_STATUS,
    KeyRedactor,
    ThinkFilter,
    body_error_status,
    retry_after_s,
    sse_data,
    strip_thinking,
)
from litsift.net.bodies import html_title
from litsift.net.deadline import Cancelled, timeout_extension

__all__ = ["ADAPTABLE", "Endpoint", "Retry", "Unsupported", "cancelled_error"]


def _never() -> bool:
    """``cancelled`` of a call nobody can cancel."""
    return False


#: message fields where reasoning models put their thinking (DeepSeek, vLLM, llama.cpp:
#: ``reasoning_content``; Ollama, OpenRouter: ``reasoning``); never shown.
_REASONING_FIELDS = ("reasoning_content", "reasoning")


def _last(gen: Generator[str, None, tuple[str, Any, str | None]]) -> tuple[str, Any, str | None]:
    """The return value of a stream reader whose deltas nobody wants (a reply streamed to a
    request that did not ask for a stream)."""
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            result: tuple[str, Any, str | None] = stop.value
            return result


def cancelled_error() -> LLMCancelledError:
    """The error of a call the caller cancelled."""
    return LLMCancelledError(
        "the LLM call was cancelled", "the request was closed; nothing was cached"
    )


#: request fields a model may refuse that the client can do without (or rename).
ADAPTABLE = ("max_tokens", "temperature", "stream_options")


class Unsupported(Exception):
    """HTTP 400 naming ``param`` (one of :data:`ADAPTABLE`) as not supported by the model:
    ``error`` to raise if resending without it is not possible."""

    def __init__(self, param: str, error: LLMError) -> None:
        super().__init__(error.message)
        self.param = param
        self.error = error


def _refused_param(body: str, detail: str) -> str | None:
    """The :data:`ADAPTABLE` field a 400 body says the model does not support, or None."""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    err = data.get("error") if isinstance(data, dict) else None
    param = err.get("param") if isinstance(err, dict) else None
    if param in ADAPTABLE:
        return str(param)
    low = detail.lower()
    if any(w in low for w in ("unsupported", "not supported", "unrecognized", "unknown")):
        return next((p for p in ADAPTABLE if p in low), None)
    return None


class Retry(Exception):
    """A retryable HTTP ``status``: ``error`` to raise when retries are exhausted, and the wait
    the server asked for (``Retry-After``, seconds) or None."""

    def __init__(self, error: LLMError, retry_after: float | None, status: int = 503) -> None:
        super().__init__(error.message)
        self.error = error
        self.retry_after = retry_after
        self.status = status


class Endpoint:
    """The HTTP side of a chat client: one endpoint URL and one httpx client.

    Args:
        settings: ``[llm]`` settings (``timeout_s``, ``api_key_env`` for hints).
        url: the chat-completions URL.
        endpoint: ``url`` as shown in messages (no userinfo, no query).
        http: the httpx client (its transport should be a ``DeadlineTransport``).
        key: returns the current API key ('' when none), to redact it from error texts.
    """

    def __init__(
        self,
        settings: LLMSettings,
        url: str,
        endpoint: str,
        http: httpx.Client,
        key: Callable[[], str],
    ) -> None:
        self.settings = settings
        self.url = url
        self.endpoint = endpoint
        self.http = http
        self._key = key

    def redact(self, text: str) -> str:
        """An error text without the key (of any length)."""
        key = self._key()
        return text.replace(key, "[redacted]") if key else text

    def timeout_error(self) -> LLMTimeoutError:
        return LLMTimeoutError(
            f"LLM endpoint did not finish its reply within {self.settings.timeout_s:g} s",
            "raise llm.timeout_s (it bounds the whole reply, streamed or not), "
            "or use a smaller model or fewer candidates",
        )

    def _error_text(self, body: str) -> str:
        msg = html_title(body) or body
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            err = data.get("error", data)
            if isinstance(err, dict):
                err = err.get("message") or err.get("detail") or json.dumps(err)
            msg = str(err)
        msg = " ".join(self.redact(msg).split())
        return msg[:200] + ("…" if len(msg) > 200 else "")

    def raise_for_status(
        self, status: int, body: str, retry_after: str | None, where: str | None = None
    ) -> None:
        """Raise the error of an HTTP error reply (``where`` names a 200 reply that is one)."""
        if status == 200:
            return
        detail = self._error_text(body) or "(no error text)"  # a bare 404: "HTTP 404:  —"
        where = where or f"LLM endpoint returned HTTP {status}"
        if status in RETRY_STATUS:
            err: LLMError
            if status == 429:
                err = LLMRateLimitError(f"{where} (rate limited): {detail}", "wait and try again")
            else:
                err = LLMServerError(f"{where}: {detail}", "the server failed; try again later")
            raise Retry(err, retry_after_s(retry_after), status)
        if status in (401, 403):
            env = self.settings.api_key_env
            raise LLMAuthError(
                f"{where}: the endpoint rejected the credentials: {detail}",
                f"check the key in ${env} (and that it is for {self.endpoint})"
                if env
                else "no key was sent: set llm.api_key_env to the NAME of the environment "
                "variable that holds the endpoint's API key",
            )
        if OVERFLOW_RE.search(detail):
            raise LLMContextOverflowError(
                f"the prompt does not fit the model's context window: {detail}",
                "use fewer candidates or passages, or a model with a longer context",
            )
        param = _refused_param(body, detail) if status == 400 else None
        if param is not None:
            hint = f"llm.model does not take '{param}' even without it; try another model"
            raise Unsupported(param, LLMResponseError(f"{where}: {detail}", hint))
        raise LLMResponseError(
            f"{where}: {detail}",
            f"litsift posted to {self.endpoint}: check llm.base_url (most servers serve the API "
            f"under /v1) and llm.model ({self.settings.model!r}: the server's name for it)",
        )

    def _bad(self, what: str) -> LLMResponseError:
        return LLMResponseError(
            f"LLM endpoint sent {what}",
            "check that llm.base_url is an OpenAI-compatible /v1 endpoint",
        )

    def post(
        self,
        payload: dict[str, Any],
        headers: dict[str, str],
        stream: bool,
        redactor: KeyRedactor,
        cancelled: Callable[[], bool] = _never,
    ) -> Generator[str, None, tuple[str, Any, str | None]]:
        """Send one request that must end within ``llm.timeout_s`` from now.

        Args:
            payload: the JSON body (with ``stream`` set for a streamed request).
            headers: request headers (``Authorization`` included).
            stream: read the reply as server-sent events and yield its text deltas.
            redactor: removes the API key from the text and from every delta.
            cancelled: once true, the request is closed (see the module docstring).

        Yields:
            Streamed text deltas, key redacted (nothing when not streaming).

        Returns:
            ``(text, raw usage or None, finish_reason)``.

        Raises:
            Retry: HTTP 429/5xx, 529 (the caller decides whether to retry).
            httpx.TimeoutException, LLMTimeoutError: the deadline passed.
            httpx.TransportError: the endpoint cannot be reached.
            LLMConnectionError: the endpoint closed the connection before or during its reply.
            LLMCancelledError: ``cancelled`` turned true.
            LLMResponseError, LLMAuthError, LLMContextOverflowError: see the module docstring.
        """
        if cancelled():
            raise cancelled_error()
        deadline = time.monotonic() + self.settings.timeout_s
        ext = {"timeout": timeout_extension(deadline, connect_s=10.0, cancelled=cancelled)}
        if stream:
            headers = {**headers, "Accept": "text/event-stream"}
        encoding: str | None = None  # set once the response headers have arrived
        try:
            with self.http.stream(
                "POST", self.url, json=payload, headers=headers, extensions=ext
            ) as resp:
                encoding = resp.headers.get("content-encoding", "")
                if resp.status_code != 200:
                    body = self._read_text(resp, deadline, cancelled)
                    self.raise_for_status(resp.status_code, body, resp.headers.get("retry-after"))
                # the body is read as what the server sent, not as what was asked for: some
                # servers and proxies answer a streamed request with one JSON completion
                ctype = resp.headers.get("content-type", "").lower()
                if "text/event-stream" in ctype or (stream and "json" not in ctype):
                    events = self._read_stream(resp, deadline, redactor, payload, cancelled, stream)
                    if stream:
                        return (yield from events)
                    return _last(events)
                body = self._read_text(resp, deadline, cancelled)
                text, usage, finish = self._parse_json(body, redactor, payload)
                if stream:
                    yield text
                return text, usage, finish
        except Cancelled:
            raise cancelled_error() from None
        except httpx.DecodingError:
            raise LLMResponseError(
                f"the endpoint sent a body that is not valid {encoding or 'compressed data'}",
                f"its reply says Content-Encoding: {encoding} but is not; fix the server "
                "(or a proxy in between) so the header matches the body",
            ) from None
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as e:
            if encoding is None:
                raise LLMConnectionError(
                    f"the endpoint {self.endpoint} closed the connection before answering "
                    f"({type(e).__name__})",
                    "check llm.base_url (http vs https, port) and the server's logs",
                ) from None
            raise LLMConnectionError(
                f"the endpoint closed the connection mid-response ({type(e).__name__})",
                "the server or a proxy dropped the reply; check the server's logs and try again",
            ) from None

    def _read_text(
        self, resp: httpx.Response, deadline: float, cancelled: Callable[[], bool] = _never
    ) -> str:
        """The whole body as text, by ``deadline`` (monotonic seconds), unless ``cancelled``."""
        parts: list[bytes] = []
        for chunk in resp.iter_bytes():
            if cancelled():  # another transport: looked at between chunks only
                raise Cancelled
            if time.monotonic() >= deadline:
                raise self.timeout_error()
            parts.append(chunk)
        return b"".join(parts).decode(resp.encoding or "utf-8", errors="replace")

    def _parse_json(
        self, body: str, redactor: KeyRedactor, payload: dict[str, Any]
    ) -> tuple[str, Any, str | None]:
        try:
            data = json.loads(body)
        except ValueError:
            title = html_title(body)
            if title is not None:
                raise LLMResponseError(
                    f"LLM endpoint sent an HTML page ({title or 'untitled'}), "
                    "not a chat completion",
                    "check that llm.base_url is the model server's API URL (often ending in /v1), "
                    "not a web page or a login proxy",
                ) from None
            raise self._bad("a response that is not JSON") from None
        if isinstance(data, dict) and "error" in data:  # LM Studio, OpenRouter: 200 + an error
            status = body_error_status(data)
            self.raise_for_status(status, body, None, "LLM endpoint answered with an error")
        try:
            choice = data["choices"][0]
            message = choice["message"]
            text = message.get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise self._bad("JSON without choices[0].message.content") from None
        finish = choice.get("finish_reason")
        if text is None and finish not in ("length", None):
            raise self._bad(f"a message without text content (finish_reason: {finish})")
        if not isinstance(text, str) and not (text is None and finish == "length"):
            raise self._bad("a message without text content")
        text = strip_thinking(text or "")
        if not text.strip():
            thought = any(message.get(k) for k in _REASONING_FIELDS) or text != (
                message.get("content") or ""
            )
            raise self._empty(payload, finish, thought)
        return redactor.redact(text), data.get("usage"), finish

    def _empty(self, payload: dict[str, Any], finish: str | None, thought: bool) -> LLMError:
        """The error of a reply with no text: nothing to rank, answer or judge from."""
        if finish == "length":
            limit = payload.get("max_tokens", payload.get("max_completion_tokens"))
            return LLMResponseError(
                f"the model used its whole output limit ({limit} tokens) before writing an "
                "answer (reasoning models think first)",
                "raise llm.max_tokens, or use a model that does not reason before answering",
            )
        said = "only its reasoning, no answer" if thought else "an empty reply"
        return LLMResponseError(
            f"the model {self.settings.model!r} sent {said} (finish_reason: {finish})",
            "try again, or check that llm.model is a chat (instruct) model; a reasoning model "
            "may need a larger llm.max_tokens",
        )

    def _read_stream(
        self,
        resp: httpx.Response,
        deadline: float,
        redactor: KeyRedactor,
        payload: dict[str, Any],
        cancelled: Callable[[], bool],
        live: bool = True,
    ) -> Generator[str, None, tuple[str, Any, str | None]]:
        """Text deltas of an SSE chat-completion stream, by ``deadline``; comment lines (pings)
        do not extend it. The returned text is the whole reply without its thinking. An error
        event raises :class:`Retry` (transient) only until a ``live`` delta (one shown to the
        user) was yielded: then its error, so the text shown stays and is not written twice."""
        parts: list[str] = []
        think = ThinkFilter()
        usage: Any = None
        finish: str | None = None
        done = thought = shown = False
        for data in sse_data(self._lines(resp, deadline, cancelled)):
            if data.strip() == "[DONE]":
                done = True
                break
            try:
                chunk = json.loads(data)
            except ValueError:
                raise self._bad("a stream event that is not JSON") from None
            if not isinstance(chunk, dict):
                raise self._bad("a stream event that is not a JSON object")
            if "error" in chunk:
                where = "LLM endpoint sent an error mid-stream" + ", after some text" * shown
                try:
                    self.raise_for_status(body_error_status(chunk), data, None, where)
                except (Retry, Unsupported) as again:
                    if shown:  # not resent: the text shown so far stays, the error follows it
                        raise again.error from None
                    raise
            usage = chunk.get("usage") or usage
            for choice in chunk.get("choices") or []:
                said = choice.get("delta") or {}
                thought = thought or any(said.get(k) for k in _REASONING_FIELDS)
                delta = said.get("content")
                if isinstance(delta, str) and delta:
                    parts.append(delta)
                    safe = redactor.feed(think.feed(delta))
                    if safe:
                        shown = live
                        yield safe
                finish = choice.get("finish_reason") or finish
        if not done and finish is None:
            raise self._bad("a stream that ended before [DONE]")
        tail = redactor.feed(think.flush()) + redactor.flush()
        if tail:
            yield tail
        text = strip_thinking("".join(parts))
        if not text.strip():
            raise self._empty(payload, finish, thought or bool("".join(parts).strip()))
        return redactor.redact(text), usage, finish

    def _lines(
        self, resp: httpx.Response, deadline: float, cancelled: Callable[[], bool]
    ) -> Generator[str, None, None]:
        for line in resp.iter_lines():
            if cancelled():
                raise Cancelled
            if time.monotonic() >= deadline:
                raise self.timeout_error()
            yield line
