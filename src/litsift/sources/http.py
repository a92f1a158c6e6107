"""A polite HTTP client for ``litsift sync``: one request at a time per source, a minimum
delay between requests, retries with ``Retry-After``, a whole-request deadline.

Why httpx and not the services' own clients: ``arxiv`` (arxiv.py) hard-codes its API URL and
parses the feed itself; ``oaipmh-scythe`` takes a base URL and retries 503s, but hands back
parsed records, not the bytes litsift's parsers and tests replay; ``pyalex``, ``habanero`` and
``semanticscholar`` each wrap one service with their own retry and paging rules. One small
client over httpx gives every source the same politeness, Retry-After handling, deadline and
errors, and lets ``[sources.NAME] base_url`` point any of them at a mirror or a test server.

Retried: connection errors (refused, reset, dropped mid-response), timeouts, and HTTP 429,
500, 502, 503, 504 -- waiting ``Retry-After`` (seconds or an HTTP date) when the server sends
it, else an exponential back-off, never more than ``max_wait_s``. Any other status is an error
at once.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from litsift.errors import LitsiftError

__all__ = ["FetchError", "PoliteClient", "retry_after_seconds"]

RETRY_STATUS = {429, 500, 502, 503, 504}


class FetchError(LitsiftError):
    """A source could not be fetched (after the retries); ``status`` is the last HTTP status
    (None for a connection error)."""

    def __init__(self, message: str, hint: str = "", status: int | None = None) -> None:
        super().__init__(message, hint)
        self.status = status


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (now if now is not None else time.time()))


@dataclass
class PoliteClient:
    """GETs with politeness and retries (see the module docstring).

    Attributes:
        delay_s: least seconds between the start of two requests (arXiv asks 3).
        timeout_s: deadline of one attempt, in seconds.
        max_retries: attempts after the first.
        max_wait_s: the longest single wait before a retry.
        user_agent: sent with every request (``litsift/VERSION (mailto:...)``).
        sleep: how to wait (tests pass a recorder).
    """

    delay_s: float = 1.0
    timeout_s: float = 60.0
    max_retries: int = 4
    max_wait_s: float = 120.0
    user_agent: str = "litsift"
    sleep: Callable[[float], None] = time.sleep
    waits: list[float] = field(default_factory=list)
    _last: float = field(default=0.0, repr=False)
    _client: httpx.Client | None = field(default=None, repr=False)

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(
                timeout=self.timeout_s,
                headers={"User-Agent": self.user_agent},
                follow_redirects=True,
            )
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _wait(self, seconds: float) -> None:
        seconds = min(max(0.0, seconds), self.max_wait_s)
        if seconds > 0:
            self.waits.append(seconds)
            self.sleep(seconds)

    def get(
        self,
        url: str,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> bytes:
        """The body of ``GET url?params``.

        Raises:
            FetchError: the server kept failing (retryable status or connection errors past
                ``max_retries``) or answered with another error status; the message names
                the URL (without query secrets) and the status.
        """
        last_error = ""
        status: int | None = None
        for attempt in range(self.max_retries + 1):
            self._wait(self._last + self.delay_s - time.monotonic())
            self._last = time.monotonic()
            try:
                response = self._http().get(url, params=params, headers=headers)
                status = response.status_code
                body = response.content
            except httpx.HTTPError as err:  # refused, reset, dropped mid-body, timeout
                last_error = f"{type(err).__name__}: {err}"
                status = None
                self._wait(min(2.0**attempt, self.max_wait_s))
                continue
            if status < 400:
                return body
            last_error = f"HTTP {status}: {body[:200].decode('utf-8', 'replace').strip()}"
            if status not in RETRY_STATUS:
                break
            wait = retry_after_seconds(response.headers.get("Retry-After"))
            self._wait(wait if wait is not None else min(2.0**attempt, self.max_wait_s))
        raise FetchError(
            f"cannot fetch {url}: {last_error}"[:400],
            "check the source's base_url in config.toml, the network, or try again later",
            status,
        )
