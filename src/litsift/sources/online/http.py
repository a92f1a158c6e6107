"""A polite HTTP client for ``litsift sync``: one request at a time per source, a minimum
delay between requests, retries with ``Retry-After``, a whole-request deadline and a cap on the
size of a response.

Why httpx and not the services' own clients: ``arxiv`` (arxiv.py) hard-codes its API URL and
parses the feed itself; ``oaipmh-scythe`` takes a base URL and retries 503s, but hands back
parsed records, not the bytes litsift's parsers and tests replay; ``pyalex``, ``habanero`` and
``semanticscholar`` each wrap one service with their own retry and paging rules. One small
client over httpx gives every source the same politeness, Retry-After handling, deadline and
errors, and lets ``[sources.NAME] base_url`` point any of them at a mirror or a test server.

Retried: connection errors (refused, reset, dropped mid-response; not a host name that does not
resolve, as offline: that fails at once), timeouts, and HTTP 429,
500, 502, 503, 504 -- waiting ``Retry-After`` (seconds or an HTTP date) when the server sends
it, else an exponential back-off, never more than ``max_wait_s``. Any other status is an error
at once. An error names what the body said (a JSON ``error``/``message``, an HTML page's title),
never the page's markup.

Bounds: ``timeout_s`` is the deadline of one whole attempt -- connect, headers and every byte of
the body -- not of each socket read (httpx's own timeouts are per operation, so a server that
drips a byte a second would never time out); the transport is :class:`~litsift.net.deadline.
DeadlineTransport`, and the deadline is checked again between body chunks. The body is streamed
and given up once it passes ``max_response_bytes`` (a never-ending chunked body, a 50 MB page),
so memory stays bounded; an oversized response is not retried (it would be as large again).
"""

from __future__ import annotations

import email.utils
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from litsift.errors import LitsiftError
from litsift.net.bodies import body_text
from litsift.net.deadline import DeadlineTransport, timeout_extension

__all__ = ["FetchError", "PoliteClient", "retry_after_seconds"]

RETRY_STATUS = {429, 500, 502, 503, 504}

#: Default cap on one response body, bytes. The largest real pages litsift asks for (OAI-PMH
#: ListRecords of 1,000 arXivRaw records, OpenAlex per-page=200 with abstracts, S2 bulk search
#: of 1,000 papers) are a few MB.
MAX_RESPONSE_BYTES = 64 * 1024 * 1024


class _TooLarge(Exception):
    """The body passed ``max_response_bytes`` (internal; reported as FetchError)."""


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


def _unresolved(err: httpx.HTTPError) -> bool:
    """The host name could not be resolved (no network, no DNS, a mistyped ``base_url``):
    trying again in a few seconds does not help, so it is not retried."""
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, socket.gaierror):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _connection_failure(err: httpx.HTTPError) -> str:
    """What went wrong with the connection, in words (no exception class names)."""
    if _unresolved(err):
        return "cannot resolve the server's name (no network, or a wrong base_url)"
    if isinstance(err, httpx.ConnectError):
        return "cannot connect (refused or unreachable)"
    if isinstance(err, httpx.RemoteProtocolError):
        return "the server closed the connection before the response was complete"
    if isinstance(err, (httpx.ReadError, httpx.WriteError)):
        return "the connection broke during the response"
    if isinstance(err, httpx.DecodingError):
        return "the response's content encoding is broken"
    return "the request failed"


@dataclass
class PoliteClient:
    """GETs with politeness and retries (see the module docstring).

    Attributes:
        delay_s: least seconds between the start of two requests (arXiv asks 3).
        timeout_s: deadline of one whole attempt (connect + headers + body), in seconds.
        max_response_bytes: the largest body accepted, in bytes.
        max_retries: attempts after the first.
        max_wait_s: the longest single wait before a retry.
        user_agent: sent with every request (``litsift/VERSION (mailto:...)``).
        sleep: how to wait (tests pass a recorder).
    """

    delay_s: float = 1.0
    timeout_s: float = 60.0
    max_response_bytes: int = MAX_RESPONSE_BYTES
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
                transport=DeadlineTransport(),
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
            FetchError: the server kept failing (retryable status, connection errors or attempts
                past their ``timeout_s`` deadline, more than ``max_retries`` times), answered with
                another error status, or sent more than ``max_response_bytes``; the message
                names the URL (without query secrets) and the cause.
        """
        last_error = ""
        status: int | None = None
        for attempt in range(self.max_retries + 1):
            self._wait(self._last + self.delay_s - time.monotonic())
            self._last = time.monotonic()
            deadline = self._last + self.timeout_s
            try:
                status, retry_after, body = self._attempt(url, params, headers, deadline)
            except _TooLarge:
                raise FetchError(
                    f"cannot fetch {url}: the response is larger than "
                    f"{self.max_response_bytes / 1e6:g} MB"[:400],
                    "ask for smaller pages, or raise max_response_mb under [sources.NAME] in "
                    "config.toml if this source really sends pages that large",
                ) from None
            except httpx.TimeoutException:
                last_error = f"no complete response within {self.timeout_s:g} s"
                status = None
                self._wait(min(2.0**attempt, self.max_wait_s))
                continue
            except httpx.HTTPError as err:  # refused, reset, dropped mid-body
                last_error = _connection_failure(err)
                status = None
                if _unresolved(err):  # offline: four more tries only made the user wait 30 s
                    break
                self._wait(min(2.0**attempt, self.max_wait_s))
                continue
            if status < 400:
                return body
            last_error = f"HTTP {status}: {body_text(body) or '(no error text)'}"
            if status not in RETRY_STATUS:
                break
            wait = retry_after_seconds(retry_after)
            self._wait(wait if wait is not None else min(2.0**attempt, self.max_wait_s))
        hint = (
            "the service limits how fast it may be asked: wait a few minutes and run it again "
            "(a larger delay_s under [sources.NAME] in config.toml asks more slowly)"
            if status == 429
            else "check the source's base_url in config.toml, the network, or try again later "
            "(timeout_s under [sources.NAME] bounds each request)"
        )
        raise FetchError(f"cannot fetch {url}: {last_error}"[:400], hint, status)

    def _attempt(
        self,
        url: str,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        deadline: float,
    ) -> tuple[int, str | None, bytes]:
        """One request, by ``deadline`` (monotonic seconds): (status, Retry-After, body).

        Raises:
            httpx.TimeoutException: the deadline passed (connect, headers or body).
            httpx.HTTPError: the connection failed.
            _TooLarge: the body passed ``max_response_bytes``.
        """
        ext = {"timeout": timeout_extension(deadline, connect_s=min(10.0, self.timeout_s))}
        with self._http().stream(
            "GET", url, params=params, headers=headers, extensions=ext
        ) as response:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > self.max_response_bytes:
                raise _TooLarge
            parts: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                if time.monotonic() >= deadline:
                    raise httpx.ReadTimeout("the request deadline has passed")
                size += len(chunk)
                if size > self.max_response_bytes:
                    raise _TooLarge
                parts.append(chunk)
            return response.status_code, response.headers.get("Retry-After"), b"".join(parts)
