"""Records of the optional LLM that cross the service's door (TUI <-> service): what a rerank,
an aspect judgement and a cited answer return, and what the calls cost.

:mod:`litsift.llm` makes them (:mod:`litsift.llm.rerank`, :mod:`litsift.llm.judge`,
:mod:`litsift.llm.answer`); the TUI reads them without importing the LLM layer. ``Passage`` here
is a numbered passage of a prompt, not :class:`litsift.types.Passage` (a paper's full-text
passage), so these records are imported from this module, not from :mod:`litsift.types`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from litsift.types.core import Hit, Record

__all__ = [
    "CITATION_WORTHY_CHARS",
    "MARKER_RE",
    "Answer",
    "AspectJudgement",
    "CallStats",
    "Passage",
    "Reference",
    "RerankReport",
    "RerankResult",
    "RetryWait",
    "Sentence",
    "Usage",
    "strip_markers",
]

#: ScholarQABench counts sentences of at least 50 characters as citation-worthy.
CITATION_WORTHY_CHARS = 50

#: a citation marker: [3], [1, 2], [1;2], [2-4], [2–4]
MARKER_RE = re.compile(r"\[\s*\d+(?:\s*(?:[,;]|[-–])\s*\d+)*\s*\]")


@dataclass(frozen=True)
class Usage:
    """Tokens of one call; ``estimated`` is True when the endpoint reported no ``usage``."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False


@dataclass(frozen=True)
class RetryWait:
    """A wait before an LLM call is sent again (``ChatClient.on_wait``): the endpoint's
    ``host`` (``host:port``, no userinfo) answered HTTP ``status`` (429 rate limited; 5xx, 529
    overloaded), so attempt ``attempt`` of ``attempts`` (1 + ``llm.max_retries``) is sent after
    ``wait_s`` seconds: the server's ``Retry-After`` when ``asked``, else the backoff."""

    host: str
    status: int
    wait_s: float
    attempt: int
    attempts: int
    asked: bool = False

    def line(self) -> str:
        """One line for a person: ``rate limited by HOST: waiting 20 s (attempt 2 of 5)``."""
        if self.status == 429:
            what = f"rate limited by {self.host}"
        elif self.status in (503, 529):
            what = f"{self.host} is overloaded (HTTP {self.status})"
        else:
            what = f"{self.host} failed (HTTP {self.status})"
        wait = f"{round(self.wait_s, 1):g} s"
        return f"{what}: waiting {wait} (attempt {self.attempt} of {self.attempts})"


@dataclass(frozen=True)
class CallStats:
    """What LLM calls cost: calls made, of which answered from the cache, tokens, dollars.

    The total of a piece of work (a rerank, an answer: :meth:`add` per call) and the sums over
    the call log (:meth:`LLMCache.totals`).
    """

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, usage: Usage, cost: float, cached: bool) -> CallStats:
        """A new total with one more call added; a cache hit adds no tokens and no cost."""
        if cached:
            return CallStats(
                self.calls + 1,
                self.cached_calls + 1,
                self.prompt_tokens,
                self.completion_tokens,
                self.cost_usd,
            )
        return CallStats(
            calls=self.calls + 1,
            cached_calls=self.cached_calls,
            prompt_tokens=self.prompt_tokens + usage.prompt_tokens,
            completion_tokens=self.completion_tokens + usage.completion_tokens,
            cost_usd=self.cost_usd + cost,
        )

    def __add__(self, other: CallStats) -> CallStats:
        return CallStats(
            self.calls + other.calls,
            self.cached_calls + other.cached_calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cost_usd + other.cost_usd,
        )


@dataclass(frozen=True)
class Passage:
    """One numbered passage of the prompt: a chunk of a record's abstract (or description), or
    a passage of its imported full text.

    Attributes:
        number: the ``[n]`` the model cites, from 1.
        record: the store record it came from.
        chunk: 0-based chunk index within the record (at most 3 per record), or the full-text
            passage's index in the paper.
        text: the chunk text (without the title).
        section: where the full-text passage is in the paper (``"§ Results, p. 4"``; "" for
            abstract chunks).
        fulltext: True when the text is a passage of the paper's full text.
    """

    number: int
    record: Record
    chunk: int
    text: str
    section: str = ""
    fulltext: bool = False

    @property
    def docid(self) -> str:
        return self.record.id

    @property
    def title(self) -> str:
        return self.record.display_title


@dataclass(frozen=True)
class Sentence:
    """A sentence of the answer and its citations.

    Attributes:
        text: the sentence as shown (fabricated markers stripped; the markers of an
            author-year citation naming a record sent written after it).
        citations: passage numbers cited, in order of appearance, without repeats.
        fabricated: numbers the model cited that name no passage (stripped from ``text``).
        verdicts: passage number -> AttrScore label, after :func:`judge_attribution`.
        separator: the whitespace after the sentence.
        invented: author-year citations (as written: ``"Jones et al., 2018"``) that name no
            record sent; kept in ``text``. One that names a record adds its passage numbers
            to ``citations`` instead.
    """

    text: str
    citations: tuple[int, ...] = ()
    fabricated: tuple[int, ...] = ()
    verdicts: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    separator: str = ""
    invented: tuple[str, ...] = ()

    @property
    def citation_worthy(self) -> bool:
        return len(strip_markers(self.text)) >= CITATION_WORTHY_CHARS

    @property
    def supported(self) -> bool | None:
        """True if a cited passage is Attributable; False if every cited passage was judged and
        none is; None when not judged (or nothing is cited)."""
        if not self.verdicts:
            return None
        if any(v == "Attributable" for v in self.verdicts.values()):
            return True
        return False if all(c in self.verdicts for c in self.citations) else None


def strip_markers(text: str) -> str:
    """``text`` without any ``[n]`` markers."""
    return " ".join(MARKER_RE.sub(" ", text).split())


@dataclass(frozen=True)
class Reference:
    """One cited record, built from the store: its passage numbers and bibliographic fields."""

    record: Record
    passages: tuple[int, ...]
    #: section headings of the cited full-text passages, in citation order ("" entries skipped)
    sections: tuple[str, ...] = ()

    @property
    def docid(self) -> str:
        return self.record.id


@dataclass(frozen=True)
class Answer:
    """A verified answer.

    Attributes:
        question: the question asked.
        sentences: the answer's sentences, with citations (and verdicts when judged).
        passages: every passage sent, numbered from 1.
        references: the cited records, in order of first citation.
        fabricated: every cited number that named no passage (stripped from the text).
        raw_text: the model's final text before checking.
        stats: calls, cache hits, tokens and dollars of every step.
        model: the model name.
        feedback_rounds: self-feedback rounds that revised the answer.
        notes: one-line remarks (a failed judge or feedback step, stripped citations).
        invented: every author-year citation that named no record sent (kept in the text).
    """

    question: str
    sentences: tuple[Sentence, ...]
    passages: tuple[Passage, ...]
    references: tuple[Reference, ...]
    fabricated: tuple[int, ...]
    raw_text: str
    stats: CallStats
    model: str
    feedback_rounds: int = 0
    notes: tuple[str, ...] = ()
    invented: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The answer as shown: fabricated markers stripped."""
        return "".join(s.text + s.separator for s in self.sentences)

    @property
    def unsupported(self) -> tuple[int, ...]:
        """Indices of sentences the judge found unsupported by every passage they cite."""
        return tuple(i for i, s in enumerate(self.sentences) if s.supported is False)

    def places(self, reference: Reference) -> tuple[str, ...]:
        """Where each cited full-text passage of ``reference`` is, by its number:
        ``("[1] § Results, p. 4", "[3] p. 9")``, so a reader can find what ``[3]`` says;
        empty for abstract chunks (their place is the abstract)."""
        by_number = {p.number: p for p in self.passages}
        return tuple(
            f"[{n}] {by_number[n].section}"
            for n in reference.passages
            if n in by_number and by_number[n].section
        )


@dataclass(frozen=True)
class RerankReport:
    """What a rerank did and cost.

    Attributes:
        stats: calls, cache hits, tokens and dollars.
        windows: prompts sent (1 when all candidates fit one prompt).
        reranked: how many top hits were reordered (``n``).
        error: one-line reason when the rerank failed and the original order was kept.
        notes: remarks on messy replies and on the window strategy.
    """

    stats: CallStats
    windows: int = 0
    reranked: int = 0
    error: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def cached(self) -> bool:
        """True when every call was answered from the cache."""
        return self.stats.calls > 0 and self.stats.cached_calls == self.stats.calls


@dataclass(frozen=True)
class RerankResult:
    """The hits in their new order (``rank`` renumbered from 1) and the report."""

    hits: list[Hit]
    report: RerankReport


@dataclass(frozen=True)
class AspectJudgement:
    """0/1/2 scores per aspect for each judged hit.

    Attributes:
        scores: docid -> one score per aspect (None where the judge gave none).
        stats: calls, tokens and cost.
        error: one-line reason if a call failed; hits judged before it keep their scores.
        notes: what went wrong short of failing (a reply cut at the output limit), one line each.
    """

    scores: Mapping[str, tuple[int | None, ...]]
    stats: CallStats
    error: str | None = None
    notes: tuple[str, ...] = ()
