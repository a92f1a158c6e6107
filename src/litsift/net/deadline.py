"""A total deadline per HTTP request: ``llm.timeout_s`` bounds connect + every write and read +
the whole (streamed) body, not each socket operation.

httpx applies its timeouts to each socket operation, so a server sending one byte a second, or an
SSE stream of ``: ping`` comments, can keep a request alive forever. Here the request carries a
:class:`Deadline` (a float, so other transports read it as an ordinary per-operation timeout of
the whole budget) in its ``timeout`` extension, and :class:`DeadlineTransport` - httpx's own
transport with a network backend that clamps every socket operation to the time left - raises
httpcore's timeout errors (httpx's ``TimeoutException``) once it has passed. The caller also
checks :meth:`Deadline.expired` between body chunks, which bounds custom transports (proxies) too,
to within one socket operation.

A request can also be cancelled from another thread: a read :class:`Deadline` made with a
``cancelled`` check waits for the server in slices of :data:`CANCEL_POLL_S` and raises
:class:`Cancelled` at the first slice after the check turns true; the connection is then closed
(httpcore drops a connection whose response was not read to its end), so the server sees the
client hang up even while it is still generating a non-streamed reply.
"""

from __future__ import annotations

import ssl
import time
import typing
from collections.abc import Callable, Iterable

import httpcore
import httpx

__all__ = ["CANCEL_POLL_S", "Cancelled", "Deadline", "DeadlineTransport", "timeout_extension"]

#: how often (seconds) a cancellable read looks at its ``cancelled`` check while it waits.
CANCEL_POLL_S = 0.1


class Cancelled(Exception):
    """The request's ``cancelled`` check turned true: the caller gave up the request."""


class Deadline(float):
    """Seconds left until a ``time.monotonic()`` instant, frozen at creation as the float value.

    Attributes:
        at: the monotonic instant (seconds) at which the request must be over.
        cancelled: a check (any thread may turn it true) that ends the request early, or None.
    """

    at: float
    cancelled: Callable[[], bool] | None

    def __new__(cls, at: float, cancelled: Callable[[], bool] | None = None) -> Deadline:
        self = super().__new__(cls, max(0.001, at - time.monotonic()))
        self.at = at
        self.cancelled = cancelled
        return self

    def remaining(self) -> float:
        """Seconds left now (negative once passed)."""
        return self.at - time.monotonic()

    def expired(self) -> bool:
        return time.monotonic() >= self.at


def timeout_extension(
    deadline: float, *, connect_s: float = 10.0, cancelled: Callable[[], bool] | None = None
) -> dict[str, float]:
    """The ``timeout`` request extension for a request that must end by ``deadline``.

    Args:
        deadline: ``time.monotonic()`` instant, seconds.
        connect_s: a connect is also given up after this many seconds.
        cancelled: checked every :data:`CANCEL_POLL_S` while a read waits (with
            :class:`DeadlineTransport`); once true the read raises :class:`Cancelled`.
    """
    d = Deadline(deadline)
    return {
        "connect": Deadline(min(deadline, time.monotonic() + connect_s)),
        "read": Deadline(deadline, cancelled),
        "write": d,
        "pool": d,
    }


def _left(timeout: float | None, exc: type[Exception]) -> float | None:
    """The timeout of one socket operation: the time left for a :class:`Deadline`."""
    if not isinstance(timeout, Deadline):
        return timeout
    left = timeout.remaining()
    if left <= 0:
        raise exc("the request deadline has passed")
    return left


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        check = timeout.cancelled if isinstance(timeout, Deadline) else None
        if check is None:
            return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))
        while True:  # a socket that timed out can be read again (plain TCP and TLS alike)
            if check():
                raise Cancelled("the request was cancelled")
            left = _left(timeout, httpcore.ReadTimeout)
            assert left is not None  # a Deadline always gives the time left
            try:
                return self._inner.read(max_bytes, min(left, CANCEL_POLL_S))
            except httpcore.ReadTimeout:
                if left <= CANCEL_POLL_S:
                    raise

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(
            self._inner.connect_tcp(host, port, left, local_address, socket_options)
        )

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_unix_socket(path, left, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's HTTP transport (TLS verified, HTTP/1.1, default limits) whose socket operations
    honour a :class:`Deadline` in the request's ``timeout`` extension. Not for proxies: give
    ``ChatClient`` its own transport for those (the deadline is then checked between chunks).
    """

    def __init__(self) -> None:
        ssl_context = httpx.create_ssl_context()  # ~60 ms: made once, shared with the parent
        super().__init__(verify=ssl_context)
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)
        # the pool httpx would build, with a deadline-aware network backend
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_DeadlineBackend(),
        )
