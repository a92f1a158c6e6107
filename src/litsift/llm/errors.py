"""Typed errors of the LLM layer: each has a one-line message and a hint, never the API key."""

from __future__ import annotations

from litsift.errors import LLMError


class LLMNotConfiguredError(LLMError):
    """``[llm] base_url`` or ``model`` is missing from the configuration."""


class LLMTimeoutError(LLMError):
    """The call did not finish within ``llm.timeout_s``: connect, every read and the whole body
    or stream count together, so a slow drip or SSE pings cannot extend it."""


class LLMConnectionError(LLMError):
    """The endpoint cannot be reached (refused, DNS, TLS), or closed the connection before or
    during its reply (the message says which)."""


class LLMAuthError(LLMError):
    """The endpoint rejected the credentials (HTTP 401/403) or the key variable is unset."""


class LLMResponseError(LLMError):
    """The endpoint answered with an error or with something that is not a chat completion."""


class LLMContextOverflowError(LLMError):
    """The prompt is longer than the model's context window."""


class LLMRateLimitError(LLMError):
    """HTTP 429 persisted through every retry (or asked for a wait longer than allowed)."""


class LLMServerError(LLMError):
    """HTTP 5xx persisted through every retry."""


class LLMBudgetError(LLMError):
    """The next call would exceed this session's spending budget (``llm.budget_usd``)."""


#: errors of the endpoint itself (unreachable, timed out, key rejected, rate limit or 5xx
#: through every retry, budget spent), not of one request: the next request fails the same way
ENDPOINT_ERRORS: tuple[type[LLMError], ...] = (
    LLMAuthError,
    LLMBudgetError,
    LLMConnectionError,
    LLMRateLimitError,
    LLMServerError,
    LLMTimeoutError,
)

__all__ = [
    "ENDPOINT_ERRORS",
    "LLMAuthError",
    "LLMBudgetError",
    "LLMConnectionError",
    "LLMContextOverflowError",
    "LLMNotConfiguredError",
    "LLMRateLimitError",
    "LLMResponseError",
    "LLMServerError",
    "LLMTimeoutError",
]
