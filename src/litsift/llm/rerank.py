"""Listwise LLM rerank of the top ``n`` hits: RankGPT permutation generation with sliding windows
(Sun et al., EMNLP 2023, §3.2-3.3), as LitSearch (Ajith et al., EMNLP 2024) reranked the top 100.

Each candidate is its title + abstract (or dataset name + description) cut to a word budget. All
``n`` go in one prompt when the estimate fits the context window; otherwise windows of
``llm.rerank_window`` candidates slide from the bottom of the list to the top by
``llm.rerank_step``, so strong candidates bubble up. The reply is parsed leniently (see
:func:`parse_permutation`). Any failed call leaves the original order and says why; a reply cut
at the output limit is used as far as it goes and the report says it was cut. A ``cancelled``
check closes the call in flight (:class:`~litsift.llm.errors.LLMCancelledError` propagates).

Each call may write ``llm.max_tokens`` tokens (at least 8 per id + 32): a reasoning model
thinks before it ranks, and with the bare ranking's budget it never got to the ranking.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from litsift.errors import LLMCancelledError, LLMError
from litsift.llm.budget import estimate_prompt_tokens
from litsift.llm.client import ChatClient
from litsift.llm.errors import LLMContextOverflowError, LLMResponseError
from litsift.llm.prompts import rankgpt_messages, truncate_words
from litsift.types import Dataset, Hit, Record
from litsift.types.llm import CallStats, RerankReport, RerankResult

#: words kept per candidate (RankGPT's ``max_length`` = 300 words).
DEFAULT_DOC_WORDS = 300
#: context window assumed when none is given (tokens); see the report for a config key.
DEFAULT_CONTEXT_TOKENS = 8192
#: reply tokens allowed per candidate in a window, e.g. "[12] > " is about 5 tokens.
_TOKENS_PER_ID = 8

_BRACKET_RE = re.compile(r"\[\s*(\d+)\s*\]")
_NUMBER_RE = re.compile(r"\d+")
_ID = r"(?:\[\s*\d+\s*\]|\b\d+\b)"
#: a RankGPT ranking: ids joined by ``>`` (``[2] > [3] > [1]``, ``2 > 3 > 1``)
_CHAIN_RE = re.compile(rf"{_ID}(?:\s*>\s*{_ID})+")
#: a JSON list of ids (``{"ranking": [2, 3, 1]}``, in a fence or not)
_LIST_RE = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)+\s*\]")


@dataclass(frozen=True)
class Permutation:
    """A parsed ranking of ``n`` candidates.

    Attributes:
        order: 0-based indices, a full permutation of ``range(n)``: the ids the model ranked
            (first occurrence), then the missing ones in their original order.
        duplicates: 1-based ids the model repeated (later occurrences ignored).
        out_of_range: ids outside ``1..n`` (ignored).
        missing: 1-based ids the model left out (kept in original order after the ranked ones).
    """

    order: tuple[int, ...]
    duplicates: tuple[int, ...] = ()
    out_of_range: tuple[int, ...] = ()
    missing: tuple[int, ...] = ()

    def notes(self) -> list[str]:
        """One-line remarks about a messy reply, empty for a clean one."""
        out = []
        if self.duplicates:
            out.append(f"repeated ids ignored: {_ids(self.duplicates)}")
        if self.out_of_range:
            out.append(f"out-of-range ids ignored: {_ids(self.out_of_range)}")
        if self.missing:
            out.append(f"{len(self.missing)} ids missing, kept in original order")
        return out


def _ids(ids: Sequence[int]) -> str:
    return " ".join(f"[{i}]" for i in ids)


def parse_permutation(text: str, n: int) -> Permutation:
    """Parse a RankGPT reply such as ``[3] > [1] > [2]`` for ``n`` candidates.

    The ranking is the longest run of ids joined by ``>`` (the last of equally long ones), so
    ids a model names while explaining itself ("[5] is the best ... Ranking: [2] > [5] > [1]")
    are not read as its ranking; else a JSON list of ids (``{"ranking": [2, 5, 1]}``); else
    the bracketed ids; else every integer in the reply (the RankGPT ``clean_response``
    fallback). Duplicates and ids outside ``1..n`` are dropped; missing ids follow in their
    original order.

    Args:
        text: the model's reply.
        n: number of candidates in the prompt.

    Returns:
        The permutation with what was repaired.
    """
    found = [int(x) for x in _NUMBER_RE.findall(_ranking_span(text))]
    seen: set[int] = set()
    ranked: list[int] = []
    dup: list[int] = []
    bad: list[int] = []
    for i in found:
        if not 1 <= i <= n:
            bad.append(i)
        elif i in seen:
            dup.append(i)
        else:
            seen.add(i)
            ranked.append(i)
    missing = [i for i in range(1, n + 1) if i not in seen]
    order = tuple(i - 1 for i in ranked + missing)
    return Permutation(order, tuple(dup), tuple(bad), tuple(missing))


def _ranking_span(text: str) -> str:
    """The part of a reply that holds the ranking (see :func:`parse_permutation`)."""
    chains = [m.group() for m in _CHAIN_RE.finditer(text)]
    if _BRACKET_RE.search(text):  # "0.9 > 0.5" in prose is no ranking when ids are bracketed
        chains = [c for c in chains if "[" in c]
    if chains:
        return max(reversed(chains), key=lambda c: len(_NUMBER_RE.findall(c)))
    lists = _LIST_RE.findall(text)
    if lists:
        return str(max(reversed(lists), key=lambda c: len(_NUMBER_RE.findall(c))))
    return " ".join(_BRACKET_RE.findall(text)) or text


def document_text(record: Record, words: int = DEFAULT_DOC_WORDS) -> str:
    """A candidate as the model sees it: title + abstract (dataset: name, aliases, description),
    cut to ``words`` words."""
    if isinstance(record, Dataset):
        aliases = f" (also: {', '.join(record.variants)})" if record.variants else ""
        text = f"Dataset: {record.id}{aliases}. Description: {record.description}"
    else:
        text = f"Title: {record.title}. Abstract: {record.abstract}"
    return truncate_words(text, words)


def sliding_windows(n: int, window: int, step: int) -> list[tuple[int, int]]:
    """``(start, end)`` windows from the bottom of ``n`` candidates to the top.

    RankGPT's back-to-front pass, except that the last window is always ``(0, window)`` (the
    original skips the top when ``n - window`` is not a multiple of ``step``).
    """
    if window >= n:
        return [(0, n)]
    step = max(1, min(step, window))
    out: list[tuple[int, int]] = []
    end = n
    while True:
        start = end - window
        if start <= 0:
            out.append((0, window))
            return out
        out.append((start, end))
        end -= step


def rerank(
    client: ChatClient,
    query: str,
    hits: Sequence[Hit],
    *,
    top_n: int | None = None,
    window: int | None = None,
    step: int | None = None,
    doc_words: int = DEFAULT_DOC_WORDS,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    on_progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    exclude: Sequence[str] = (),
) -> RerankResult:
    """Rerank the top ``top_n`` hits listwise with the LLM; the rest keep their places.

    Args:
        client: the chat client (its settings give the defaults below).
        query: the search query, its operator syntax removed (``-word``, quotes).
        hits: hits best first, as the service returned them.
        top_n: hits to rerank (default ``llm.rerank_top_n``, 100).
        window: candidates per prompt when they do not fit one (default ``llm.rerank_window``).
        step: window stride (default ``llm.rerank_step``).
        doc_words: words kept per candidate.
        context_tokens: the model's context window in tokens, for the one-prompt decision.
        on_progress: called with ``(windows done, windows total)``.
        cancelled: once it returns True the call in flight is closed (see
            :meth:`ChatClient.complete`).
        exclude: the words and phrases the query excluded; the prompt says they are not
            wanted (:func:`~litsift.llm.prompts.rankgpt_messages`).

    Returns:
        The new order and a report. Raises no other :class:`LLMError`: on failure the hits
        come back in their original order with ``report.error`` set.

    Raises:
        LLMCancelledError: ``cancelled`` turned true; nothing of the call in flight is cached.
    """
    s = client.settings
    n = min(top_n if top_n is not None else s.rerank_top_n, len(hits))
    win = window if window is not None else s.rerank_window
    stride = step if step is not None else s.rerank_step
    head = list(hits[:n])
    texts = [document_text(h.record, doc_words) for h in head]
    notes: list[str] = []
    if n < 2:
        return RerankResult(_renumber(list(hits)), RerankReport(CallStats(), 0, n))

    whole = (
        estimate_prompt_tokens(rankgpt_messages(query, texts, exclude)) + _TOKENS_PER_ID * n + 32
    )
    if whole <= context_tokens:
        windows = [(0, n)]
    else:
        windows = sliding_windows(n, win, stride)
        notes.append(f"{n} candidates do not fit {context_tokens} tokens: {len(windows)} windows")
    order = list(range(n))
    acc = _Acc()
    try:
        try:
            _run_windows(
                client, (query, exclude), texts, order, windows, acc, on_progress, cancelled
            )
        except LLMContextOverflowError:
            if len(windows) > 1 or win >= n:
                raise
            windows = sliding_windows(n, win, stride)
            acc.notes.append(f"context overflow: retried with {len(windows)} windows of {win}")
            order = list(range(n))
            _run_windows(
                client, (query, exclude), texts, order, windows, acc, on_progress, cancelled
            )
    except LLMCancelledError:
        raise
    except LLMError as e:
        # the error's own hint (what to fix) stays; callers say the original order is kept
        error = f"rerank failed: {e.message}" + (f"; {e.hint}" if e.hint else "")
        report = RerankReport(acc.stats, acc.sent, n, error, tuple(notes + acc.notes))
        return RerankResult(_renumber(list(hits)), report)
    new = [head[i] for i in order] + list(hits[n:])
    report = RerankReport(acc.stats, acc.sent, n, None, tuple(notes + acc.notes))
    return RerankResult(_renumber(new), report)


@dataclass
class _Acc:
    stats: CallStats = field(default_factory=CallStats)
    sent: int = 0
    notes: list[str] = field(default_factory=list)


def _run_windows(
    client: ChatClient,
    query: tuple[str, Sequence[str]],
    texts: list[str],
    order: list[int],
    windows: list[tuple[int, int]],
    acc: _Acc,
    on_progress: Callable[[int, int], None] | None,
    cancelled: Callable[[], bool] | None = None,
) -> None:
    """Rank each window in turn for ``query`` (its text and exclusions), rewriting ``order``
    in place and adding to ``acc``."""
    for w, (start, end) in enumerate(windows, start=1):
        sub = order[start:end]
        msgs = rankgpt_messages(query[0], [texts[i] for i in sub], query[1])
        acc.sent += 1
        limit = max(_TOKENS_PER_ID * len(sub) + 32, client.settings.max_tokens)
        done = client.complete(
            msgs,
            max_tokens=limit,
            temperature=0.0,
            purpose="rerank",
            cancelled=cancelled,
            usable=partial(_ranks_any, len(sub)),
        )
        acc.stats = acc.stats.add(done.usage, done.cost_usd, done.cached)
        perm = parse_permutation(done.text, len(sub))
        where = f"window {w} ({start + 1}-{end})" if len(windows) > 1 else "reply"
        if len(perm.missing) == len(sub):  # nothing was ranked: not "N ids missing"
            said = " ".join(done.text.split())
            raise LLMResponseError(
                f"the model's {where} named none of the {len(sub)} candidates: "
                f"{said[:80]!r}" + ("…" if len(said) > 80 else ""),
                "use a model that follows instructions (it must answer like [2] > [1] > [3])",
            )
        if done.finish_reason == "length":
            acc.notes.append(
                f"{where}: cut at the output limit ({limit} tokens); the ids after the last one "
                "read keep their order (raise llm.max_tokens)"
            )
        acc.notes.extend(f"{where}: {note}" for note in perm.notes())
        order[start:end] = [sub[i] for i in perm.order]
        if on_progress is not None:
            on_progress(w, len(windows))


def _ranks_any(n: int, text: str) -> bool:
    """Whether a reply for ``n`` candidates names at least one of them (else it is not cached:
    a rerun asks the model again)."""
    return len(parse_permutation(text, n).missing) < n


def _renumber(hits: list[Hit]) -> list[Hit]:
    return [h if h.rank == r else replace(h, rank=r) for r, h in enumerate(hits, start=1)]
