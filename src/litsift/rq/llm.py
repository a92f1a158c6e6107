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
    """One paper's LLM extraction, or the error that stopped it."""

    doc_id: str
    extraction: Extraction | None
    error: str = ""


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
        One :class:`LLMExtraction` per paper; a failed call or an unparseable reply is recorded
        in ``error`` and the next paper is tried, except a budget error, which stops the run
        (the remaining papers get that error).
    """
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
        except LLMBudgetError as err:
            out += [LLMExtraction(d, None, str(err)) for d, *_ in papers[i:]]
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
