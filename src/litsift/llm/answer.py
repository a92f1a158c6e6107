"""A written answer that cites the top results, checked mechanically (OpenScholar-style).

Steps (Asai et al., "OpenScholar", 2024, §2.2): number passages from the top hits, ask for an
answer that cites ``[n]`` only where a passage supports the sentence, strip any ``[n]`` that was
not sent and resolve author-year citations against the records sent, flagging one that names
none (:mod:`litsift.llm.citations`), optionally let the model critique and revise its answer
(≤ 3 rounds of self-feedback), and optionally judge each citation (AttrScore labels). The
reference list is built from the store records, never from the model's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from litsift.errors import LLMCancelledError, LLMError, QueryError
from litsift.llm.citations import (
    StreamedCitations,
    VerifiedText,
    build_passages,
    verify_citations,
)
from litsift.llm.client import ChatClient
from litsift.llm.judge import judge_attribution
from litsift.llm.prompts import answer_messages, feedback_messages, revise_messages
from litsift.llm.protocol import DeltaCallback
from litsift.types import Dataset, Hit, Record
from litsift.types import Passage as TextPassage
from litsift.types.llm import Answer, CallStats, Passage, Reference

#: OpenScholar iterates self-feedback at most 3 times.
MAX_FEEDBACK_ROUNDS = 3

#: the note of a reply that hit the output limit (finish_reason "length").
_CUT = "{what} was cut at the output limit (llm.max_tokens = {limit}): its end is missing"

_FEEDBACK_RE = re.compile(r"^\s*(?:[-*\d.)\s]*)feedback\s*:\s*(.+?)\s*$", re.I | re.M)


def parse_feedback(text: str) -> list[str]:
    """Feedback items from a self-feedback reply; empty when it says ``terminate``."""
    items = [m.group(1) for m in _FEEDBACK_RE.finditer(text)]
    if not items or any(i.strip(" .[]").lower() == "terminate" for i in items):
        return []
    return items[:MAX_FEEDBACK_ROUNDS]


def _references(verified: VerifiedText, passages: Sequence[Passage]) -> tuple[Reference, ...]:
    by_number = {p.number: p for p in passages}
    cited: dict[str, list[int]] = {}
    records: dict[str, Record] = {}
    for n in verified.cited:
        p = by_number[n]
        cited.setdefault(p.docid, []).append(n)
        records[p.docid] = p.record
    return tuple(
        Reference(
            records[d],
            tuple(ns),
            tuple(dict.fromkeys(by_number[n].section for n in ns if by_number[n].section)),
        )
        for d, ns in cited.items()
    )


def answer_question(
    client: ChatClient,
    question: str,
    hits: Sequence[Hit],
    *,
    max_records: int = 10,
    max_per_record: int = 3,
    chunk_words: int = 120,
    feedback_rounds: int = 0,
    judge: bool = False,
    on_delta: DeltaCallback | None = None,
    fulltext: Mapping[str, Sequence[TextPassage]] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Answer:
    """Write an answer to ``question`` from the top hits, with verified ``[n]`` citations.

    Args:
        client: the chat client.
        question: the user's question.
        hits: hits best first; passages come from the first ``max_records``.
        max_records: records that contribute passages.
        max_per_record: passages per record (abstract chunks), at most 3 by default.
        chunk_words: words per passage.
        feedback_rounds: self-feedback rounds (0-3); each is a critique call and, unless the
            model says ``terminate``, a revision call.
        judge: run the attribution judge on every (sentence, citation) pair.
        on_delta: receives the first draft's text deltas as they stream (only the first draft
            streams; ``Answer.text`` is the authoritative, checked text). In the draft, a
            citation of a passage that was not sent is shown as ``[?]`` (unverified), never as
            if it were valid.
        fulltext: full-text passages per record id, best first: those records are cited from
            them (at most ``max_per_record`` each) instead of their abstracts.
        cancelled: once it returns True the call in flight (draft, feedback, revision or
            judge) is closed (see :meth:`ChatClient.complete`) and nothing more is sent.

    Returns:
        The verified answer.

    Raises:
        QueryError: no hit has text to cite.
        LLMError: the first draft could not be obtained (feedback and judge failures become
            notes; the answer so far is kept).
        LLMCancelledError: ``cancelled`` turned true.
    """
    passages = build_passages(
        hits,
        max_records=max_records,
        max_per_record=max_per_record,
        chunk_words=chunk_words,
        fulltext=fulltext,
    )
    if not passages:
        raise QueryError("no results to answer from", "run a search that returns results first")
    triples = [(p.number, p.title, p.text) for p in passages]
    marks = StreamedCitations(len(passages))

    def show(delta: str) -> None:
        if on_delta is not None and (text := marks.feed(delta)):
            on_delta(text)

    messages = answer_messages(question, triples)
    done = client.complete(
        messages, purpose="answer", on_delta=show if on_delta else None, cancelled=cancelled
    )
    if on_delta is not None and (tail := marks.flush()):
        on_delta(tail)
    stats = CallStats().add(done.usage, done.cost_usd, done.cached)
    raw = done.text
    verified = verify_citations(raw, len(passages), passages)
    notes: list[str] = []
    if done.finish_reason == "length":
        notes.append(_CUT.format(what="the answer", limit=client.settings.max_tokens))
    rounds = 0
    for _ in range(min(feedback_rounds, MAX_FEEDBACK_ROUNDS)):
        try:
            fb = client.complete(
                feedback_messages(question, triples, verified.text),
                purpose="feedback",
                cancelled=cancelled,
            )
            stats = stats.add(fb.usage, fb.cost_usd, fb.cached)
            items = parse_feedback(fb.text)
            if not items:
                break
            rev = client.complete(
                revise_messages(question, triples, verified.text, items),
                purpose="revise",
                cancelled=cancelled,
            )
            stats = stats.add(rev.usage, rev.cost_usd, rev.cached)
        except LLMCancelledError:
            raise
        except LLMError as e:
            notes.append(f"self-feedback stopped: {e.message}")
            break
        if not rev.text.strip():
            notes.append("self-feedback stopped: the revision was empty")
            break
        if rev.finish_reason == "length":  # the whole draft beats half a revision
            cut = _CUT.format(what="the revision", limit=client.settings.max_tokens)
            notes.append(f"self-feedback stopped: {cut}; the draft before it is kept")
            break
        raw = rev.text
        verified = verify_citations(raw, len(passages), passages)
        rounds += 1
    sentences = verified.sentences
    if verified.fabricated:
        listed = " ".join(f"[{n}]" for n in verified.fabricated)
        notes.append(f"stripped citations to passages that were never sent: {listed}")
    if verified.invented:
        listed = "; ".join(verified.invented)
        notes.append(f"citations naming no source that was sent (left unverified): {listed}")
    if judge:
        sentences, jstats, error = judge_attribution(client, sentences, passages, cancelled)
        stats = stats + jstats
        if error:
            notes.append(error)
    return Answer(
        question=question,
        sentences=sentences,
        passages=passages,
        references=_references(verified, passages),
        fabricated=verified.fabricated,
        raw_text=raw,
        stats=stats,
        model=client.settings.model,
        feedback_rounds=rounds,
        notes=tuple(notes),
        invented=verified.invented,
    )


def _record_json(record: Record) -> dict[str, Any]:
    if isinstance(record, Dataset):
        return {
            "kind": "dataset",
            "id": record.id,
            "title": record.id,
            "year": record.year,
            "url": record.url,
        }
    return {
        "kind": "paper",
        "id": record.id,
        "title": record.title,
        "authors": list(record.authors),
        "year": record.year,
        "venue": record.venue,
        "url": record.url,
    }


def answer_to_json(answer: Answer) -> dict[str, Any]:
    """A JSON-serialisable view of an answer for ``litsift answer QUESTION --json``.

    Keys: ``question``, ``answer`` (checked text), ``model``, ``sentences`` (text, citations,
    fabricated, invented, verdicts, supported, citation_worthy), ``references`` (record fields +
    cited passage numbers), ``passages`` (number, id, title, text), ``fabricated``, ``invented``
    (author-year citations naming no record sent, as written), ``unsupported``,
    ``feedback_rounds``, ``usage`` (calls, cached_calls, prompt/completion tokens, cost_usd),
    ``notes``.
    """
    s = answer.stats
    return {
        "question": answer.question,
        "answer": answer.text,
        "model": answer.model,
        "sentences": [
            {
                "text": x.text,
                "citations": list(x.citations),
                "fabricated": list(x.fabricated),
                "invented": list(x.invented),
                "verdicts": {str(k): v for k, v in x.verdicts.items()},
                "supported": x.supported,
                "citation_worthy": x.citation_worthy,
            }
            for x in answer.sentences
        ],
        "references": [
            {**_record_json(r.record), "passages": list(r.passages), "sections": list(r.sections)}
            for r in answer.references
        ],
        "passages": [
            {
                "number": p.number,
                "id": p.docid,
                "title": p.title,
                "text": p.text,
                "section": p.section,
                "fulltext": p.fulltext,
            }
            for p in answer.passages
        ],
        "fabricated": list(answer.fabricated),
        "invented": list(answer.invented),
        "unsupported": list(answer.unsupported),
        "feedback_rounds": answer.feedback_rounds,
        "usage": {
            "calls": s.calls,
            "cached_calls": s.cached_calls,
            "prompt_tokens": s.prompt_tokens,
            "completion_tokens": s.completion_tokens,
            "cost_usd": round(s.cost_usd, 6),
        },
        "notes": list(answer.notes),
    }
