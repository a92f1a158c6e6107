"""httpx client for any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, llama.cpp
server, vLLM, LM Studio), JSON or streamed (server-sent events).

- The API key is read from the environment variable named by ``llm.api_key_env`` at each call;
  it is sent only in the ``Authorization`` header (Azure OpenAI: ``api-key``) and never logged,
  cached or put in an error.
- ``base_url`` may be given with or without ``/v1`` or ``/chat/completions``, with a query
  (:func:`~litsift.llm.protocol.chat_url`).
- A field the model refuses (``max_tokens`` on o1/o3/gpt-5: sent as ``max_completion_tokens``;
  ``temperature``, ``stream_options``: left out) is dropped once and for the client's life.
- HTTP 429 and 5xx (529, Anthropic's "overloaded", too) are retried ``llm.max_retries`` times
  with exponential backoff (``backoff_base_s * 2**attempt``), or after the server's
  ``Retry-After`` when it sends one; each wait is told to ``on_wait`` before it begins;
  so is the same error sent inside a 200 body (OpenRouter, proxies: ``{"error": {"code": 429}}``)
  or as a stream's error event before any text was delivered. After text was delivered the
  error is raised, not retried: the caller keeps the text and reports the error.
  Timeouts, auth errors, bad responses and context overflow raise at once, each as its own
  :mod:`litsift.llm.errors` type. There is no fallback to another endpoint.
- ``llm.timeout_s`` bounds each request as a whole - connect, every read and the whole body or
  stream (:mod:`litsift.net.deadline`) - so a server that drips bytes or sends SSE ``: ping``
  comments cannot keep a call alive past it.
- Whatever the model returns (JSON text, every streamed delta, a cached text) has the API key
  redacted before it is cached, returned or handed to ``on_delta``: a server that echoes the
  ``Authorization`` header cannot leak the key.
- A ``cancelled`` check given to :meth:`ChatClient.complete` closes the request once it turns
  true, whether the reply is streamed or one JSON body still being generated (the default
  transport looks at it every 0.1 s while waiting, :mod:`litsift.net.deadline`); the call
  raises :class:`~litsift.llm.errors.LLMCancelledError` and nothing is cached or charged.
- Responses are cached (:class:`litsift.cache.LLMCache`) and every call is logged with its
  tokens and cost; a :class:`~litsift.llm.budget.Budget` refuses calls over the session limit.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

import httpx

from litsift.cache import CachedResponse, LLMCache, cache_key, prompt_hash
from litsift.config import LLMSettings
from litsift.llm.budget import Budget, cost_usd, estimate_prompt_tokens, estimate_tokens
from litsift.llm.endpoint import Endpoint, Retry, Unsupported, cancelled_error
from litsift.llm.errors import LLMAuthError, LLMConnectionError, LLMNotConfiguredError
from litsift.llm.protocol import (
    ChatStream,
    Completion,
    DeltaCallback,
    KeyRedactor,
    Message,
    chat_url,
    key_in_api_key_header,
    redact_url,
)
from litsift.net.deadline import DeadlineTransport
from litsift.types.llm import RetryWait, Usage

log = logging.getLogger(__name__)

__all__ = ["ChatClient"]


class ChatClient:
    """A chat-completions client bound to one endpoint and model.

    Args:
        settings: ``[llm]`` settings; ``base_url`` and ``model`` are required.
        cache: response cache and call log; None disables both.
        budget: session budget shared by clients; default a new one of ``settings.budget_usd``.
        environ: where the API key variable is read (default ``os.environ``).
        backoff_base_s: first retry delay in seconds when no ``Retry-After`` is sent.
        max_wait_s: longest wait honoured for one retry; a longer ``Retry-After`` raises.
        transport: an httpx transport (tests, proxies); default httpx's with a total deadline
            per request (:class:`~litsift.net.deadline.DeadlineTransport`). With another
            transport the deadline is checked between body chunks only.
        on_wait: told of each wait before a retry (:class:`~litsift.types.llm.RetryWait`),
            from the calling thread; also settable as the attribute ``on_wait``.

    Raises:
        LLMNotConfiguredError: ``base_url`` or ``model`` is empty.
    """

    def __init__(
        self,
        settings: LLMSettings,
        *,
        cache: LLMCache | None = None,
        budget: Budget | None = None,
        environ: Mapping[str, str] | None = None,
        backoff_base_s: float = 1.0,
        max_wait_s: float = 60.0,
        transport: httpx.BaseTransport | None = None,
        on_wait: Callable[[RetryWait], None] | None = None,
    ) -> None:
        if not settings.configured:
            raise LLMNotConfiguredError(
                "no LLM endpoint configured",
                "set [llm] base_url and model in config.toml (any OpenAI-compatible endpoint)",
            )
        self.settings = settings
        self.url = chat_url(settings.base_url)
        #: the endpoint as recorded in the cache and in messages (no userinfo, no query).
        self.endpoint = redact_url(self.url)
        self.cache = cache
        self.budget = budget if budget is not None else Budget.from_settings(settings)
        self._environ = environ if environ is not None else os.environ
        self.backoff_base_s = backoff_base_s
        self.max_wait_s = max_wait_s
        self.on_wait = on_wait
        timeout = httpx.Timeout(settings.timeout_s, connect=min(10.0, settings.timeout_s))
        self._http = httpx.Client(timeout=timeout, transport=transport or DeadlineTransport())
        self._endpoint = Endpoint(settings, self.url, self.endpoint, self._http, self._key)
        #: request fields the model refused (:data:`~litsift.llm.endpoint.ADAPTABLE`)
        self._refused: set[str] = set()

    # -- public ----------------------------------------------------------------------------
    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str = "chat",
        use_cache: bool = True,
        on_delta: DeltaCallback | None = None,
        cancelled: Callable[[], bool] | None = None,
        usable: Callable[[str], bool] | None = None,
    ) -> Completion:
        """Send one chat completion request; stream it when ``on_delta`` is given.

        Args:
            messages: the chat messages.
            max_tokens: output limit in tokens (default ``llm.max_tokens``).
            temperature: sampling temperature (default ``llm.temperature``).
            purpose: a label for the call log (``"rerank"``, ``"answer"``, ``"judge"``...).
            use_cache: look up and store the response in the cache.
            on_delta: called with each text delta (API key redacted); a cache hit delivers the
                whole text once. Time spent in it counts towards ``llm.timeout_s``; what it
                raises ends the call (the request is closed) and propagates.
            cancelled: called from the calling thread while the reply is awaited (about every
                0.1 s) and between retries; once it returns True the request is closed and
                :class:`~litsift.llm.errors.LLMCancelledError` raised. Any thread may turn it.
            usable: whether the caller can use a reply's text (it holds verdicts, a ranking):
                a reply it cannot use is not cached, and a cached one is not served but asked
                again, so a rerun reaches the model instead of replaying a refusal or prose.

        Returns:
            The completion, with usage and cost.

        Raises:
            LLMBudgetError, LLMTimeoutError, LLMConnectionError, LLMAuthError,
            LLMContextOverflowError, LLMRateLimitError, LLMServerError, LLMResponseError,
            LLMCancelledError.
        """
        stream = on_delta is not None
        gen = self._run(
            messages, max_tokens, temperature, purpose, use_cache, stream, cancelled, usable
        )
        try:
            while True:
                try:
                    delta = next(gen)
                except StopIteration as stop:
                    result: Completion = stop.value
                    return result
                if on_delta is not None:
                    on_delta(delta)
        finally:
            gen.close()  # on_delta raised (the reader went away): the request is closed now

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str = "chat",
        use_cache: bool = True,
    ) -> ChatStream:
        """Like :meth:`complete` with streaming, as an iterator of text deltas.

        Nothing is sent until the first ``next()``. After the iterator is exhausted,
        ``.completion`` holds the :class:`Completion`; ``.close()`` abandons the request.
        The consumer's time between ``next()`` calls counts towards ``llm.timeout_s``.
        """
        return ChatStream(self._run(messages, max_tokens, temperature, purpose, use_cache, True))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------
    def _api_key(self) -> str | None:
        env = self.settings.api_key_env
        if not env:
            return None
        key = self._environ.get(env, "")
        if not key:
            raise LLMAuthError(
                f"the API key variable ${env} is not set",
                f"export {env}=... before starting litsift, or clear llm.api_key_env",
            )
        return key

    def _key(self) -> str:
        env = self.settings.api_key_env
        return self._environ.get(env, "") if env else ""

    def _redact_model_text(self, text: str) -> str:
        """Model text without the key (:class:`KeyRedactor`: placeholder keys are kept)."""
        return KeyRedactor(self._key()).redact(text)

    def _run(
        self,
        messages: Sequence[Message],
        max_tokens: int | None,
        temperature: float | None,
        purpose: str,
        use_cache: bool,
        stream: bool,
        cancelled: Callable[[], bool] | None = None,
        usable: Callable[[str], bool] | None = None,
    ) -> Generator[str, None, Completion]:
        s = self.settings
        is_cancelled = cancelled or _never
        msgs = [dict(m) for m in messages]
        params: dict[str, Any] = {
            "max_tokens": max_tokens if max_tokens is not None else s.max_tokens,
            "temperature": temperature if temperature is not None else s.temperature,
        }
        psha = prompt_hash(msgs)
        key = cache_key(self.endpoint, s.model, psha, params)
        cache = self.cache if use_cache else None
        if cache is not None:
            hit = cache.get(key)
            if hit is not None and usable is not None and not usable(hit.text):
                log.debug("LLM cache entry unusable, asking again (%s, %s)", purpose, key[:12])
                hit = None
            if hit is not None:
                log.debug("LLM cache hit (%s, %s)", purpose, key[:12])
                self._log_call(key, purpose, True, Usage(), 0.0)
                text = self._redact_model_text(hit.text)
                if stream and text:
                    yield text
                usage = Usage(hit.prompt_tokens, hit.completion_tokens)
                return Completion(text, usage, 0.0, True, s.model, hit.finish_reason)

        est_prompt = estimate_prompt_tokens(msgs)
        self.budget.check(cost_usd(s, est_prompt, int(params["max_tokens"])))
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        api_key = self._api_key()
        redactor = KeyRedactor(api_key)
        if api_key and key_in_api_key_header(self.url):
            headers["api-key"] = api_key
        elif api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        payload: dict[str, Any] = {"model": s.model, "messages": msgs, **params}
        if stream:
            payload["stream"] = True
            payload["stream_options"] = {"include_usage": True}
        for param in list(self._refused):
            _without(payload, param)

        for attempt in range(s.max_retries + 1):
            log.debug("LLM %s request to %s (attempt %d)", purpose, self.endpoint, attempt + 1)
            try:
                text, raw_usage, finish = yield from self._post(
                    payload, headers, stream, redactor, is_cancelled
                )
                break
            except Retry as r:
                if attempt >= s.max_retries:
                    raise r.error from None
                delay = r.retry_after
                if delay is None:
                    delay = self.backoff_base_s * 2**attempt
                if delay > self.max_wait_s:
                    raise type(r.error)(
                        f"{r.error.message}; the server asks to wait {delay:.0f} s", r.error.hint
                    ) from None
                log.info("LLM endpoint said %s; retrying in %.1f s", r.error.message, delay)
                if self.on_wait is not None:
                    host = httpx.URL(self.endpoint).netloc.decode("ascii", "replace")
                    asked = r.retry_after is not None
                    tries = s.max_retries + 1
                    self.on_wait(RetryWait(host, r.status, delay, attempt + 2, tries, asked))
                _sleep(delay, is_cancelled)
            except httpx.TimeoutException:
                raise self._endpoint.timeout_error() from None
            except httpx.TransportError as e:
                raise LLMConnectionError(
                    f"cannot reach LLM endpoint {self.endpoint} ({type(e).__name__})",
                    "check llm.base_url and that the server is running",
                ) from None
        else:  # pragma: no cover - the loop always breaks or raises
            raise AssertionError("unreachable")

        usage = self._usage(raw_usage, est_prompt, text)
        cost = cost_usd(s, usage.prompt_tokens, usage.completion_tokens)
        self.budget.charge(cost)
        self._log_call(key, purpose, False, usage, cost)
        if cache is not None and finish != "length" and (usable is None or usable(text)):
            cache.put(
                key,
                CachedResponse(text, usage.prompt_tokens, usage.completion_tokens, cost, finish),
                endpoint=self.endpoint,
                model=s.model,
                prompt_sha256=psha,
                params=params,
            )
        return Completion(text, usage, cost, False, s.model, finish)

    def _post(
        self,
        payload: dict[str, Any],
        headers: dict[str, str],
        stream: bool,
        redactor: KeyRedactor,
        cancelled: Callable[[], bool],
    ) -> Generator[str, None, tuple[str, Any, str | None]]:
        """:meth:`Endpoint.post`, resent without each field the model refuses (once each)."""
        while True:
            try:
                return (
                    yield from self._endpoint.post(payload, headers, stream, redactor, cancelled)
                )
            except Unsupported as u:
                if u.param in self._refused or u.param not in payload:
                    raise u.error from None
                log.info("LLM model refused %r; resending without it", u.param)
                self._refused.add(u.param)
                _without(payload, u.param)

    def _log_call(self, key: str, purpose: str, cached: bool, usage: Usage, cost: float) -> None:
        if self.cache is not None:
            self.cache.record_call(
                endpoint=self.endpoint,
                model=self.settings.model,
                key=key,
                purpose=purpose,
                cached=cached,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cost_usd=cost,
            )

    @staticmethod
    def _usage(raw: Any, est_prompt: int, text: str) -> Usage:
        if isinstance(raw, dict):
            p, c = raw.get("prompt_tokens"), raw.get("completion_tokens")
            if isinstance(p, int) and isinstance(c, int):
                return Usage(p, c)
        return Usage(est_prompt, estimate_tokens(text), estimated=True)


def _never() -> bool:
    return False


def _sleep(seconds: float, cancelled: Callable[[], bool]) -> None:
    """Wait ``seconds`` before a retry, looking at ``cancelled`` every 0.1 s.

    Raises:
        LLMCancelledError: ``cancelled`` turned true.
    """
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0:
        if cancelled():
            raise cancelled_error()
        time.sleep(min(left, 0.1))


def _without(payload: dict[str, Any], param: str) -> None:
    """Drop ``param`` from ``payload``; ``max_tokens`` becomes ``max_completion_tokens``."""
    value = payload.pop(param, None)
    if param == "max_tokens" and value is not None:
        payload["max_completion_tokens"] = value
