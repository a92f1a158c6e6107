"""LLM judges: does a cited passage support its sentence (AttrScore labels), and how well does an
abstract cover each aspect of a query (DORIS-MAE's 0/1/2 scale).

Replies are parsed leniently: a JSON value anywhere in the reply, else ``key: value`` pairs.
Anything the judge leaves out stays unjudged (None), never guessed; a reply cut at the output
limit is used as far as it goes and the judgement's ``notes`` say which hits were cut. Each call
may write ``llm.max_tokens`` tokens at least, so a reasoning model gets to its answer. A
``cancelled`` check closes the call in flight (:class:`~litsift.llm.errors.LLMCancelledError`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from litsift.errors import LLMCancelledError, LLMError
from litsift.llm.client import ChatClient
from litsift.llm.prompts import (
    ATTRIBUTION_LABELS,
    aspect_messages,
    attribution_messages,
    truncate_words,
)
from litsift.types import Aspect, Dataset, Hit
from litsift.types.llm import AspectJudgement, CallStats, Passage, Sentence, strip_markers

#: (claim, passage) pairs judged per call.
PAIRS_PER_CALL = 40

_LABEL_RE = re.compile(r"(\d+)\D{0,40}?\b(" + "|".join(ATTRIBUTION_LABELS) + r")\b", re.I)
_SCORE_RE = re.compile(r"\"?(\d+)\"?\s*[:=]\s*\"?([012])\b")


def _json_in(text: str, open_ch: str, close_ch: str) -> Any:
    start, end = text.find(open_ch), text.rfind(close_ch)
    if start < 0 or end <= start:
        return None
    try:
        return json.loads(text[start : end + 1])
    except ValueError:
        return None


def parse_attribution(text: str, n_pairs: int) -> dict[int, str]:
    """Labels by 1-based pair number from a judge reply (JSON array, else ``1: Label`` lines)."""
    labels = {lab.lower(): lab for lab in ATTRIBUTION_LABELS}
    out: dict[int, str] = {}
    data = _json_in(text, "[", "]")
    if isinstance(data, list):
        for item in data:
            if isinstance(item, dict):
                pair, label = item.get("pair"), str(item.get("label", "")).lower()
                if isinstance(pair, int) and 1 <= pair <= n_pairs and label in labels:
                    out.setdefault(pair, labels[label])
    if not out:
        for m in _LABEL_RE.finditer(text):
            pair = int(m.group(1))
            if 1 <= pair <= n_pairs:
                out.setdefault(pair, labels[m.group(2).lower()])
    return out


def judge_attribution(
    client: ChatClient,
    sentences: Sequence[Sentence],
    passages: Sequence[Passage],
    cancelled: Callable[[], bool] | None = None,
) -> tuple[tuple[Sentence, ...], CallStats, str | None]:
    """Label each (sentence, cited passage) pair Attributable / Contradictory / Extrapolatory.

    Source of the labels: AttrScore (Yue et al., "Automatic Evaluation of Attribution by Large
    Language Models", EMNLP Findings 2023, §2).

    Args:
        client: the chat client.
        sentences: verified sentences (their ``citations`` name passages).
        passages: the passages that were sent, numbered from 1.
        cancelled: once it returns True the call in flight is closed.

    Returns:
        Sentences with ``verdicts`` filled in where the judge answered, the call stats, and a
        one-line error if a call failed (the sentences judged before it keep their verdicts).

    Raises:
        LLMCancelledError: ``cancelled`` turned true (no other LLM error is raised).
    """
    by_number = {p.number: p for p in passages}
    pairs = [(si, k) for si, s in enumerate(sentences) for k in s.citations if k in by_number]
    verdicts: dict[int, dict[int, str]] = {}
    stats = CallStats()
    error: str | None = None
    for start in range(0, len(pairs), PAIRS_PER_CALL):
        batch = pairs[start : start + PAIRS_PER_CALL]
        texts = [
            (strip_markers(sentences[si].text), f"{by_number[k].title}. {by_number[k].text}")
            for si, k in batch
        ]
        try:
            done = client.complete(
                attribution_messages(texts),
                max_tokens=max(16 * len(batch) + 64, client.settings.max_tokens),
                temperature=0.0,
                purpose="judge",
                cancelled=cancelled,
            )
        except LLMCancelledError:
            raise
        except LLMError as e:
            error = f"citation check failed: {e.message}"
            break
        stats = stats.add(done.usage, done.cost_usd, done.cached)
        for pair, label in parse_attribution(done.text, len(batch)).items():
            si, k = batch[pair - 1]
            verdicts.setdefault(si, {})[k] = label
    out = tuple(
        replace(s, verdicts=MappingProxyType(verdicts[i])) if i in verdicts else s
        for i, s in enumerate(sentences)
    )
    return out, stats, error


def parse_aspect_scores(text: str, n_aspects: int) -> tuple[int | None, ...]:
    """Scores for aspects ``1..n_aspects`` from a reply like ``{"1": 2, "2": 0}``."""
    found: dict[int, int] = {}
    data = _json_in(text, "{", "}")
    if isinstance(data, dict):
        for key, value in data.items():
            if str(key).strip().isdigit() and str(value).strip() in {"0", "1", "2"}:
                found[int(key)] = int(str(value).strip())
    if not found:
        for m in _SCORE_RE.finditer(text):
            found.setdefault(int(m.group(1)), int(m.group(2)))
    return tuple(found.get(i) for i in range(1, n_aspects + 1))


def judge_aspects(
    client: ChatClient,
    query: str,
    aspects: Sequence[Aspect | str],
    hits: Sequence[Hit],
    *,
    top: int = 10,
    doc_words: int = 300,
    cancelled: Callable[[], bool] | None = None,
) -> AspectJudgement:
    """Score how well each of the top ``top`` hits covers each aspect: 0, 1 or 2.

    The scale is DORIS-MAE's aspect-abstract relevance annotation (Wang et al., NeurIPS 2023
    Datasets and Benchmarks, §3.3); one call per hit, cached like every call.

    Args:
        client: the chat client.
        query: the full query text.
        aspects: the query's aspects (records or plain strings).
        hits: hits best first.
        top: how many hits to judge.
        doc_words: words of each abstract kept.
        cancelled: once it returns True the call in flight is closed.

    Returns:
        Scores by docid; on a failed call, the scores so far and the error; ``notes`` name the
        hits whose reply was cut at the output limit (their later aspects stay None).

    Raises:
        LLMCancelledError: ``cancelled`` turned true (no other LLM error is raised).
    """
    texts = [a.text if isinstance(a, Aspect) else a for a in aspects]
    scores: dict[str, tuple[int | None, ...]] = {}
    stats = CallStats()
    cut: list[int] = []  # 1-based ranks of the hits whose reply hit the output limit
    limit = max(12 * len(texts) + 32, client.settings.max_tokens)
    if not texts:
        return AspectJudgement(MappingProxyType(scores), stats)
    for rank, hit in enumerate(hits[:top], start=1):
        rec = hit.record
        body = rec.description if isinstance(rec, Dataset) else f"{rec.title}. {rec.abstract}"
        try:
            done = client.complete(
                aspect_messages(query, texts, truncate_words(body, doc_words)),
                max_tokens=limit,
                temperature=0.0,
                purpose="aspects",
                cancelled=cancelled,
            )
        except LLMCancelledError:
            raise
        except LLMError as e:
            said = f"aspect judge failed: {e.message}" + (f"; {e.hint}" if e.hint else "")
            return AspectJudgement(MappingProxyType(scores), stats, said, _cut_notes(cut, limit))
        stats = stats.add(done.usage, done.cost_usd, done.cached)
        scores[hit.docid] = parse_aspect_scores(done.text, len(texts))
        if done.finish_reason == "length":
            cut.append(rank)
    return AspectJudgement(MappingProxyType(scores), stats, None, _cut_notes(cut, limit))


def _cut_notes(cut: Sequence[int], limit: int) -> tuple[str, ...]:
    """The note for replies cut at the output limit (``cut``: 1-based ranks), or none."""
    if not cut:
        return ()
    ranks = ", ".join(f"#{r}" for r in cut)
    return (
        f"judge reply cut at the output limit ({limit} tokens) for result(s) {ranks}: "
        "the aspects it did not reach stay ungraded (raise llm.max_tokens)",
    )
