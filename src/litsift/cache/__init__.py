"""Content-addressed caches with a ``CACHE_VERSION``: LLM responses and their call log."""

from litsift.cache.llm_cache import (
    CACHE_VERSION,
    CachedResponse,
    LLMCache,
    cache_key,
    prompt_hash,
)

__all__ = [
    "CACHE_VERSION",
    "CachedResponse",
    "LLMCache",
    "cache_key",
    "prompt_hash",
]
