"""httpx client for any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, llama.cpp
server, vLLM, LM Studio), JSON or streamed (server-sent events).

- The API key is read from the environment variable named by ``llm.api_key_env`` at each call;
  it is sent only in the ``Authorization`` header and never logged, cached or put in an error.
- HTTP 429 and 5xx are retried ``llm.max_retries`` times with exponential backoff
  (``backoff_base_s * 2**attempt``), or after the server's ``Retry-After`` when it sends one.
  Timeouts, auth errors, bad responses and context overflow raise at once, each as its own
  :mod:`litsift.llm.errors` type. There is no fallback to another endpoint.
- Responses are cached (:class:`litsift.cache.LLMCache`) and every call is logged with its
  tokens and cost; a :class:`~litsift.llm.budget.Budget` refuses calls over the session limit.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Generator, Mapping, Sequence
from typing import Any

import httpx

from litsift.cache import CachedResponse, LLMCache, cache_key, prompt_hash
from litsift.config import LLMSettings
from litsift.llm.budget import Budget, Usage, cost_usd, estimate_prompt_tokens, estimate_tokens
from litsift.llm.errors import (
    LLMAuthError,
    LLMConnectionError,
    LLMContextOverflowError,
    LLMError,
    LLMNotConfiguredError,
    LLMRateLimitError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
)
from litsift.llm.protocol import (
    OVERFLOW_RE,
    RETRY_STATUS,
    ChatStream,
    Completion,
    DeltaCallback,
    Message,
    chat_url,
    redact_url,
    retry_after_s,
    sse_data,
)

log = logging.getLogger(__name__)

__all__ = ["ChatClient", "ChatStream", "Completion", "DeltaCallback", "Message", "chat_url"]


class _Retry(Exception):
    def __init__(self, error: LLMError, retry_after: float | None) -> None:
        super().__init__(error.message)
        self.error = error
        self.retry_after = retry_after


class ChatClient:
    """A chat-completions client bound to one endpoint and model.

    Args:
        settings: ``[llm]`` settings; ``base_url`` and ``model`` are required.
        cache: response cache and call log; None disables both.
        budget: session budget shared by clients; default a new one of ``settings.budget_usd``.
        environ: where the API key variable is read (default ``os.environ``).
        backoff_base_s: first retry delay in seconds when no ``Retry-After`` is sent.
        max_wait_s: longest wait honoured for one retry; a longer ``Retry-After`` raises.
        transport: an httpx transport (tests, proxies); default httpx's.

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
        timeout = httpx.Timeout(settings.timeout_s, connect=min(10.0, settings.timeout_s))
        self._http = httpx.Client(timeout=timeout, transport=transport)

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
    ) -> Completion:
        """Send one chat completion request; stream it when ``on_delta`` is given.

        Args:
            messages: the chat messages.
            max_tokens: output limit in tokens (default ``llm.max_tokens``).
            temperature: sampling temperature (default ``llm.temperature``).
            purpose: a label for the call log (``"rerank"``, ``"answer"``, ``"judge"``...).
            use_cache: look up and store the response in the cache.
            on_delta: called with each text delta; a cache hit delivers the whole text once.

        Returns:
            The completion, with usage and cost.

        Raises:
            LLMBudgetError, LLMTimeoutError, LLMConnectionError, LLMAuthError,
            LLMContextOverflowError, LLMRateLimitError, LLMServerError, LLMResponseError.
        """
        gen = self._run(messages, max_tokens, temperature, purpose, use_cache, on_delta is not None)
        while True:
            try:
                delta = next(gen)
            except StopIteration as stop:
                result: Completion = stop.value
                return result
            if on_delta is not None:
                on_delta(delta)

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

    def _redact(self, text: str) -> str:
        env = self.settings.api_key_env
        key = self._environ.get(env, "") if env else ""
        return text.replace(key, "[redacted]") if key else text

    def _run(
        self,
        messages: Sequence[Message],
        max_tokens: int | None,
        temperature: float | None,
        purpose: str,
        use_cache: bool,
        stream: bool,
    ) -> Generator[str, None, Completion]:
        s = self.settings
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
            if hit is not None:
                log.debug("LLM cache hit (%s, %s)", purpose, key[:12])
                self._log_call(key, purpose, True, Usage(), 0.0)
                if stream and hit.text:
                    yield hit.text
                usage = Usage(hit.prompt_tokens, hit.completion_tokens)
                return Completion(hit.text, usage, 0.0, True, s.model, hit.finish_reason)

        est_prompt = estimate_prompt_tokens(msgs)
        self.budget.check(cost_usd(s, est_prompt, int(params["max_tokens"])))
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        api_key = self._api_key()
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        payload: dict[str, Any] = {"model": s.model, "messages": msgs, **params}
        if stream:
            payload["stream"] = True
            payload["stream_options"] = {"include_usage": True}

        for attempt in range(s.max_retries + 1):
            log.debug("LLM %s request to %s (attempt %d)", purpose, self.endpoint, attempt + 1)
            try:
                if stream:
                    text, raw_usage, finish = yield from self._post_stream(payload, headers)
                else:
                    text, raw_usage, finish = self._post_json(payload, headers)
                break
            except _Retry as r:
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
                time.sleep(delay)
            except httpx.TimeoutException:
                raise LLMTimeoutError(
                    f"LLM endpoint did not answer within {s.timeout_s:g} s",
                    "raise llm.timeout_s, or use a smaller model or fewer candidates",
                ) from None
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
        if cache is not None and finish != "length":
            cache.put(
                key,
                CachedResponse(text, usage.prompt_tokens, usage.completion_tokens, cost, finish),
                endpoint=self.endpoint,
                model=s.model,
                prompt_sha256=psha,
                params=params,
            )
        return Completion(text, usage, cost, False, s.model, finish)

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

    def _error_text(self, body: str) -> str:
        msg = body
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            err = data.get("error", data)
            if isinstance(err, dict):
                err = err.get("message") or err.get("detail") or json.dumps(err)
            msg = str(err)
        msg = " ".join(self._redact(msg).split())
        return msg[:200] + ("…" if len(msg) > 200 else "")

    def _raise_for_status(self, status: int, body: str, retry_after: str | None) -> None:
        if status == 200:
            return
        detail = self._error_text(body)
        where = f"LLM endpoint returned HTTP {status}"
        if status in RETRY_STATUS:
            err: LLMError
            if status == 429:
                err = LLMRateLimitError(f"{where} (rate limited): {detail}", "wait and try again")
            else:
                err = LLMServerError(f"{where}: {detail}", "the server failed; try again later")
            raise _Retry(err, retry_after_s(retry_after))
        if status in (401, 403):
            raise LLMAuthError(
                f"{where}: the endpoint rejected the credentials",
                f"check the key in ${self.settings.api_key_env or '(llm.api_key_env unset)'}",
            )
        if OVERFLOW_RE.search(detail):
            raise LLMContextOverflowError(
                f"the prompt does not fit the model's context window: {detail}",
                "use fewer candidates or passages, or a model with a longer context",
            )
        raise LLMResponseError(f"{where}: {detail}", "check llm.base_url and llm.model")

    def _bad(self, what: str) -> LLMResponseError:
        return LLMResponseError(
            f"LLM endpoint sent {what}",
            "check that llm.base_url is an OpenAI-compatible /v1 endpoint",
        )

    def _post_json(
        self, payload: dict[str, Any], headers: dict[str, str]
    ) -> tuple[str, Any, str | None]:
        resp = self._http.post(self.url, json=payload, headers=headers)
        self._raise_for_status(resp.status_code, resp.text, resp.headers.get("retry-after"))
        try:
            data = resp.json()
        except ValueError:
            raise self._bad("a response that is not JSON") from None
        if isinstance(data, dict) and "error" in data:
            self._raise_for_status(400, resp.text, None)
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise self._bad("JSON without choices[0].message.content") from None
        if not isinstance(text, str):
            raise self._bad("a message without text content")
        return text, data.get("usage"), choice.get("finish_reason")

    def _post_stream(
        self, payload: dict[str, Any], headers: dict[str, str]
    ) -> Generator[str, None, tuple[str, Any, str | None]]:
        parts: list[str] = []
        usage: Any = None
        finish: str | None = None
        done = False
        headers = {**headers, "Accept": "text/event-stream"}
        with self._http.stream("POST", self.url, json=payload, headers=headers) as resp:
            if resp.status_code != 200:
                resp.read()
                self._raise_for_status(resp.status_code, resp.text, resp.headers.get("retry-after"))
            for data in sse_data(resp.iter_lines()):
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
                    self._raise_for_status(400, data, None)
                usage = chunk.get("usage") or usage
                for choice in chunk.get("choices") or []:
                    delta = (choice.get("delta") or {}).get("content")
                    if isinstance(delta, str) and delta:
                        parts.append(delta)
                        yield delta
                    finish = choice.get("finish_reason") or finish
        if not done and finish is None:
            raise self._bad("a stream that ended before [DONE]")
        return "".join(parts), usage, finish
