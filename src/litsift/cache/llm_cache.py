"""SQLite cache of LLM responses and a log of every LLM call with its tokens and cost.

A response is keyed by ``(endpoint, model, prompt hash, params, CACHE_VERSION)`` (see
:func:`cache_key`), so re-opening an answer or re-running a rerank with the same candidates costs
nothing. Only hashes of prompts are stored, never prompt text, headers or API keys; response
texts arrive with the API key already redacted (``ChatClient`` redacts whatever the model returns,
and redacts again on a hit, so rows written before that rule are safe to show too).

The file lives at ``Paths.cache_dir / "llm-cache.sqlite"`` (:meth:`LLMCache.at`). One connection
is shared by the threads of a process behind a lock (the TUI calls the LLM from worker threads).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.paths import Paths
from litsift.types.llm import CallStats

if TYPE_CHECKING:
    import sqlite_utils

#: Bump when the meaning of a cached response changes (prompt templates, parsing); old rows are
#: then never hit again.
CACHE_VERSION = 1

FILE_NAME = "llm-cache.sqlite"

log = logging.getLogger(__name__)


def prompt_hash(messages: Any) -> str:
    """sha256 hex digest of a JSON-serialisable prompt (e.g. a chat ``messages`` list)."""
    blob = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def cache_key(endpoint: str, model: str, prompt_sha256: str, params: Mapping[str, Any]) -> str:
    """The cache key of one request: sha256 over endpoint, model, prompt hash, params and
    :data:`CACHE_VERSION`."""
    return prompt_hash(
        {
            "v": CACHE_VERSION,
            "endpoint": endpoint,
            "model": model,
            "prompt": prompt_sha256,
            "params": dict(params),
        }
    )


@dataclass(frozen=True)
class CachedResponse:
    """A stored completion. Token counts are the endpoint's ``usage`` or an estimate."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    finish_reason: str | None = None
    created_at: str = ""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class LLMCache:
    """Response cache + call log in one SQLite file.

    Args:
        path: the SQLite file; its directory is created if missing.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        import sqlite_utils  # here, not at the top: it imports pandas (~0.7 s), and
        # ``litsift.cache`` is imported by every search (the embedding cache)

        conn = sqlite3.connect(str(self.path), check_same_thread=False)
        self._db: sqlite_utils.Database = sqlite_utils.Database(conn)
        self._db.enable_wal()
        self._lock = threading.Lock()
        self._ensure_schema()

    @classmethod
    def at(cls, paths: Paths) -> LLMCache:
        """The cache of one litsift home: ``paths.cache_dir / "llm-cache.sqlite"``."""
        return cls(paths.cache_dir / FILE_NAME)

    def _ensure_schema(self) -> None:
        with self._lock:
            if "responses" not in self._db.table_names():
                self._db.table("responses").create(
                    {
                        "key": str,
                        "endpoint": str,
                        "model": str,
                        "prompt_sha256": str,
                        "params": str,
                        "cache_version": int,
                        "text": str,
                        "finish_reason": str,
                        "prompt_tokens": int,
                        "completion_tokens": int,
                        "cost_usd": float,
                        "created_at": str,
                    },
                    pk="key",
                )
            if "calls" not in self._db.table_names():
                self._db.table("calls").create(
                    {
                        "id": int,
                        "at": str,
                        "endpoint": str,
                        "model": str,
                        "key": str,
                        "purpose": str,
                        "cached": int,
                        "prompt_tokens": int,
                        "completion_tokens": int,
                        "cost_usd": float,
                    },
                    pk="id",
                )
                self._db.table("calls").create_index(["at"])

    def get(self, key: str) -> CachedResponse | None:
        """The stored response for ``key``, or None."""
        with self._lock:
            rows = list(self._db.table("responses").rows_where("key = ?", [key], limit=1))
        if not rows:
            return None
        r = rows[0]
        return CachedResponse(
            text=r["text"],
            prompt_tokens=int(r["prompt_tokens"]),
            completion_tokens=int(r["completion_tokens"]),
            cost_usd=float(r["cost_usd"]),
            finish_reason=r["finish_reason"],
            created_at=r["created_at"],
        )

    def put(
        self,
        key: str,
        response: CachedResponse,
        *,
        endpoint: str,
        model: str,
        prompt_sha256: str,
        params: Mapping[str, Any],
    ) -> None:
        """Store (or replace) the response for ``key``; on a cache that cannot be written (a
        read-only or full disk) log that it was not stored, as a miss costs only a call."""
        row = {
            "key": key,
            "endpoint": endpoint,
            "model": model,
            "prompt_sha256": prompt_sha256,
            "params": json.dumps(dict(params), sort_keys=True),
            "cache_version": CACHE_VERSION,
            "text": response.text,
            "finish_reason": response.finish_reason,
            "prompt_tokens": response.prompt_tokens,
            "completion_tokens": response.completion_tokens,
            "cost_usd": response.cost_usd,
            "created_at": response.created_at or _now(),
        }
        with self._lock:
            try:
                self._db.table("responses").upsert(row, pk="key")
            except sqlite3.OperationalError as e:  # read-only, full: the reply is not lost
                log.warning("LLM response not cached in %s: %s", self.path, e)

    def record_call(
        self,
        *,
        endpoint: str,
        model: str,
        key: str,
        purpose: str,
        cached: bool,
        prompt_tokens: int,
        completion_tokens: int,
        cost_usd: float,
    ) -> None:
        """Append one call (a cache hit too, with its cost 0) to the call log; on a cache that
        cannot be written, log that it was not (the call is made and its reply used)."""
        with self._lock:
            try:
                self._db.table("calls").insert(
                    {
                        "at": _now(),
                        "endpoint": endpoint,
                        "model": model,
                        "key": key,
                        "purpose": purpose,
                        "cached": int(cached),
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "cost_usd": cost_usd,
                    }
                )
            except sqlite3.OperationalError as e:  # read-only, full: the call was made
                log.warning("LLM call not logged in %s: %s", self.path, e)

    def totals(self, since: str | None = None) -> CallStats:
        """Sums over the call log, optionally only calls at or after the ISO time ``since``."""
        where, args = ("WHERE at >= ?", [since]) if since else ("", [])
        sql = (
            "SELECT COUNT(*), COALESCE(SUM(cached), 0), COALESCE(SUM(prompt_tokens), 0), "
            f"COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(cost_usd), 0.0) FROM calls {where}"
        )
        with self._lock:
            row = self._db.execute(sql, args).fetchone()
        return CallStats(int(row[0]), int(row[1]), int(row[2]), int(row[3]), float(row[4]))

    def clear(self) -> int:
        """Delete every cached response; returns how many were deleted. The call log stays."""
        with self._lock:
            n = self._db.table("responses").count
            self._db.execute("DELETE FROM responses")
            self._db.conn.commit()
        return int(n)

    def close(self) -> None:
        with self._lock:
            self._db.conn.close()

    def __enter__(self) -> LLMCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
