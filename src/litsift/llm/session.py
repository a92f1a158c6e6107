"""One LLM session: the chat client (one cache, one budget) and the three LLM actions with
the settings of ``[llm]`` applied.

The service holds one :class:`LLMSession` and delegates to it; nothing here knows about search.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from litsift.llm.errors import LLMNotConfiguredError

if TYPE_CHECKING:
    from litsift.config import LLMSettings
    from litsift.llm.client import ChatClient
    from litsift.llm.protocol import DeltaCallback
    from litsift.paths import Paths
    from litsift.types import Aspect, Hit, Passage
    from litsift.types.llm import Answer, AspectJudgement, RerankResult, RetryWait

log = logging.getLogger(__name__)


class LLMSession:
    """The LLM side of one service.

    Args:
        settings: the ``[llm]`` settings.
        paths: where the response cache lives.
    """

    def __init__(self, settings: LLMSettings, paths: Paths) -> None:
        self.settings = settings
        self._paths = paths
        self._client: ChatClient | None = None
        self._on_wait: Callable[[RetryWait], None] | None = None
        self._lock = threading.Lock()

    @property
    def configured(self) -> bool:
        return self.settings.configured

    def report_waits(self, on_wait: Callable[[RetryWait], None] | None) -> None:
        """Tell ``on_wait`` of each wait before a call is retried (rate limited, overloaded),
        whether the client is made yet or not (:attr:`ChatClient.on_wait`); None: stop."""
        with self._lock:
            self._on_wait = on_wait
            if self._client is not None:
                self._client.on_wait = on_wait

    def client(self) -> ChatClient:
        """The session's chat client, made on first use.

        Raises:
            LLMNotConfiguredError: no ``[llm]`` base_url/model in the config.
        """
        from litsift.cache import LLMCache
        from litsift.llm.budget import Budget
        from litsift.llm.client import ChatClient

        with self._lock:
            if self._client is None:
                if not self.settings.configured:
                    raise LLMNotConfiguredError(
                        "no LLM endpoint configured",
                        f"set [llm] base_url and model in {self._paths.config_file} "
                        "(see README, LLM)",
                    )
                try:
                    cache: LLMCache | None = LLMCache.at(self._paths)
                except (OSError, sqlite3.Error) as e:  # a read-only or full disk: uncached,
                    log.warning("LLM calls not cached: %s (%s)", self._paths.cache_dir, e)
                    cache = None  # as the embeddings are (cache.embeddings.open_cache)
                self._client = ChatClient(
                    self.settings,
                    cache=cache,
                    budget=Budget.from_settings(self.settings),
                    on_wait=self._on_wait,
                )
            return self._client

    def rerank(
        self,
        query_text: str,
        hits: Sequence[Hit],
        cancelled: Callable[[], bool] | None = None,
        exclude: Sequence[str] = (),
    ) -> RerankResult:
        """Listwise LLM rerank (RankGPT prompt, as LitSearch) of the top ``rerank_top_n`` hits
        for ``query_text`` (no operator syntax); the prompt says ``exclude`` (the words the
        user excluded) is not wanted.

        On failure the original order is returned with ``report.error`` set. Raises
        LLMNotConfiguredError when no endpoint is configured, and LLMCancelledError once
        ``cancelled`` turns true (the call in flight is closed, nothing of it cached).
        """
        from litsift.llm.rerank import rerank

        s = self.settings
        return rerank(
            self.client(),
            query_text,
            list(hits),
            top_n=s.rerank_top_n,
            window=s.rerank_window,
            step=s.rerank_step,
            doc_words=s.rerank_doc_words,
            context_tokens=s.context_tokens,
            cancelled=cancelled,
            exclude=exclude,
        )

    def judge_aspects(
        self,
        query_text: str,
        aspects: Sequence[Aspect],
        hits: Sequence[Hit],
        cancelled: Callable[[], bool] | None = None,
    ) -> AspectJudgement:
        """LLM 0/1/2 grade of each aspect for the top ``aspect_judge_top`` hits, with the
        DORIS-MAE annotation prompt (``litsift.llm.prompts.aspect_messages``).

        A failed call ends judging with ``error`` set and the grades so far kept. Raises
        LLMNotConfiguredError when no endpoint is configured, and LLMCancelledError once
        ``cancelled`` turns true.
        """
        from litsift.llm.judge import judge_aspects

        s = self.settings
        return judge_aspects(
            self.client(),
            query_text,
            list(aspects),
            list(hits),
            top=s.aspect_judge_top,
            doc_words=s.rerank_doc_words,
            cancelled=cancelled,
        )

    def answer(
        self,
        question: str,
        hits: Sequence[Hit],
        on_delta: DeltaCallback | None = None,
        fulltext: Mapping[str, Sequence[Passage]] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Answer:
        """An answer citing passages of ``hits`` with every citation checked (OpenScholar-style).

        Raises:
            LLMNotConfiguredError, LLMError: the first draft could not be obtained.
            LLMCancelledError: ``cancelled`` turned true (the call in flight is closed).
            QueryError: no hits to cite.
        """
        from litsift.llm.answer import answer_question

        s = self.settings
        return answer_question(
            self.client(),
            question,
            list(hits),
            max_records=s.answer_max_records,
            max_per_record=s.answer_passages_per_record,
            chunk_words=s.answer_chunk_words,
            feedback_rounds=s.answer_feedback_rounds,
            judge=s.answer_judge,
            on_delta=on_delta,
            fulltext=fulltext,
            cancelled=cancelled,
        )
