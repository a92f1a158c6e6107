"""Research-question extraction with the configured LLM (prompt: ``litsift.llm.prompts``).

Every result is "LLM-extracted, unverified": the study behind the task found LLM judges of RQ
quality to agree poorly with annotators (Spearman ≤ 0.214 on the problem, 0.493 on the method),
so nothing is gated on one, and the store records the model and the prompt version with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from litsift.errors import LLMError
from litsift.llm.client import ChatClient
from litsift.llm.prompts import RQ_PROMPT_VERSION, rq_messages
from litsift.rq.offline import Extraction

__all__ = ["LLMExtraction", "extract_with_llm", "parse_rq_reply"]

_TAG = {
    name: re.compile(rf"<{name}>\s*(.*?)\s*</{name}>", re.S | re.I)
    for name in ("problem", "method", "rq")
}
_LINE = {
    name: re.compile(rf"^\s*\**{name}\**\s*[:\-]\s*(.+)$", re.M | re.I)
    for name in ("problem", "method")
}


@dataclass(frozen=True)
class LLMExtraction:
    """One paper's LLM extraction, or the error that stopped it; ``tried`` is False for a
    paper not sent because the run stopped before it (``stop`` holds why: message, hint)."""

    doc_id: str
    extraction: Extraction | None
    error: str = ""
    tried: bool = True
    stop: tuple[str, str] | None = None


def parse_rq_reply(text: str) -> tuple[str, str] | None:
    """``(problem, method)`` from a reply: ``<problem>``/``<method>`` tags, else
    ``Problem: …`` / ``Method: …`` lines; None when either is missing."""
    found: dict[str, str] = {}
    for name in ("problem", "method"):
        m = _TAG[name].search(text) or _LINE[name].search(text)
        if m is not None and m.group(1).strip():
            found[name] = " ".join(m.group(1).split()).strip(" .")
    if len(found) < 2:
        return None
    return found["problem"], found["method"]


def extract_with_llm(
    client: ChatClient,
    papers: Sequence[tuple[str, str, str, str]],
    progress: Callable[[int, int], None] | None = None,
) -> list[LLMExtraction]:
    """Extract each paper's problem and method with one chat call per paper (cached).

    Args:
        client: the session's chat client (its cache and budget apply).
        papers: ``(doc id, title, abstract, introduction)``.
        progress: ``progress(done, total)`` after each paper.

    Returns:
        One :class:`LLMExtraction` per paper; an unparseable reply or a paper the endpoint
        refused (too long, a filtered reply) is recorded in ``error`` and the next paper is
        tried, but an error of the endpoint itself (budget spent, unreachable, timed out,
        rejected key, rate limit or 5xx through every retry) stops the run: every paper after
        would wait out the same retries and timeouts (hours for a library), so the remaining
        papers are not sent (``tried`` False, ``stop`` the error's message and hint).
    """
    from litsift.llm.errors import ENDPOINT_ERRORS as endpoint_down
    from litsift.llm.errors import LLMBudgetError

    out: list[LLMExtraction] = []
    source = f"llm:{client.settings.model}:{RQ_PROMPT_VERSION}"
    for i, (doc_id, title, abstract, intro) in enumerate(papers):
        try:
            reply = client.complete(
                rq_messages(title, abstract, intro),
                purpose="rq",
                temperature=0.0,
                usable=lambda text: parse_rq_reply(text) is not None,
            )
        except endpoint_down as err:
            stop = (err.message, err.hint)
            tried = not isinstance(err, LLMBudgetError)  # refused before it was sent
            out.append(LLMExtraction(doc_id, None, str(err), tried, stop))
            out += [LLMExtraction(d, None, str(err), False, stop) for d, *_ in papers[i + 1 :]]
            break
        except LLMError as err:
            out.append(LLMExtraction(doc_id, None, str(err)))
        else:
            parsed = parse_rq_reply(reply.text)
            if parsed is None:
                out.append(LLMExtraction(doc_id, None, "the reply has no <problem> and <method>"))
            else:
                out.append(LLMExtraction(doc_id, Extraction(*parsed, source=source)))
        if progress is not None:
            progress(i + 1, len(papers))
    return out
