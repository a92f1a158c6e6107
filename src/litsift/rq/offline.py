"""Offline research-question extraction: the PROBLEM and METHOD spans of an abstract, no LLM.

The research-question extraction study (EVALUATION.md §6) frames a paper's research question as
"Can the PROBLEM be solved by the METHOD?". This extractor picks one sentence of the abstract
(and, when given, of the introduction's last paragraphs, where papers state their contribution)
for each role and trims it to the span that carries the role:

* each sentence ``s`` gets a role score
  ``score_r(s) = cos(E_p(s), mean_k E_q(prototype_{r,k})) + w_cue · cue_r(s) + w_pos · pos_r(s)``
  where ``E_q`` / ``E_p`` are the bi-encoder's query / passage sides (sentence vectors are
  those aspect scoring stores, :mod:`litsift.search.aspects.sentences`), ``cue_r`` counts role cue
  phrases (capped), ``pos_r`` prefers early sentences for the problem and later ones for the
  method (``1 - i/(m-1)`` and ``i/(m-1)``);
* the method sentence is the best-scoring one; the problem sentence is the best-scoring one
  before it (the abstract's usual move order: background/problem, then "we propose"), or the
  best other sentence when the method is the first;
* a method span starts after its cue ("we propose …" → "…"); leading discourse markers
  ("However,", "In this paper,") are cut from both.

The constants were set on the PaperRQ papers whose RQ annotators rated 2/2 (a 44-paper
development set; ``litsift eval paperrq`` reports on all 93 papers, with that caveat).
Throughput on this 2-core CPU is printed by ``litsift eval paperrq`` (papers/s, with stored
sentence vectors and without).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from litsift.text.sentences import split_sentences

__all__ = [
    "OFFLINE_VERSION",
    "Extraction",
    "RQEncoder",
    "extract",
    "extract_from_sentences",
    "extract_many",
    "rq_text",
]

#: recorded with every offline extraction, bumped when the method changes
OFFLINE_VERSION = "offline-1"

FloatArray = npt.NDArray[np.float32]

PROBLEM_PROTOTYPES = (
    "the problem is that existing methods fail, are limited, costly or inaccurate",
    "a challenging open problem that remains difficult to solve",
    "this task is important but hard because of a lack of data",
)
METHOD_PROTOTYPES = (
    "we propose a novel method, model or framework",
    "our approach uses a new architecture trained with a new objective",
    "in this paper we introduce a new technique",
)

_PROBLEM_CUES = re.compile(
    r"\b(problem|challeng\w*|difficult\w*|hard|limit\w*|lack\w*|suffer\w*|fail\w*|"
    r"bottleneck|issue\w*|bias\w*|costly|expensive|remain\w*|unclear|insufficient|"
    r"however|although|despite|struggle\w*|poor\w*|noisy|noise|sparsity|scarc\w*|"
    r"under-?explored|little attention|open question)\b",
    re.IGNORECASE,
)
_METHOD_CUES = re.compile(
    r"\b(we (?:propose|present|introduce|develop|design|describe|devise|put forward|"
    r"build|adopt|leverage|use|employ)|our (?:method|approach|model|framework|system|"
    r"algorithm|technique)|this (?:paper|work) (?:proposes|presents|introduces|develops)|"
    r"novel|proposed (?:method|approach|model|framework))\b",
    re.IGNORECASE,
)
#: where a method span starts: right after the first of these
_METHOD_START = re.compile(
    r"\b(?:we (?:propose|present|introduce|develop|design|describe|devise|put forward|"
    r"build)|(?:this|the present) (?:paper|work|study) (?:proposes|presents|introduces|"
    r"develops|describes))\s+(?:to\s+)?",
    re.IGNORECASE,
)
#: results, evaluation and availability statements: neither the problem nor the method
_RESULT_CUES = re.compile(
    r"\b(experiment\w*|results? (?:show|demonstrate|indicate|suggest)|outperform\w*|"
    r"state[- ]of[- ]the[- ]art|achiev\w*|improv\w* (?:over|upon)|publicly available|"
    r"available|https?|github|code|releas\w*|evaluat\w* on|significant\w*|"
    r"empirical\w*|extensive|demonstrat\w*|we show|show that|gains?)\b",
    re.IGNORECASE,
)
_CONTRIBUTION = re.compile(
    r"\bin this (?:paper|work|study)\b|\bwe (?:propose|present|introduce)", re.I
)
_LEAD = re.compile(
    r"^(?:(?:however|moreover|furthermore|therefore|thus|hence|specifically|in addition|"
    r"additionally|to this end|to address (?:this|these)(?: \w+)?|to (?:solve|tackle|"
    r"overcome|mitigate|alleviate) (?:this|these)(?: \w+)?|in this (?:paper|work|study)|"
    r"here|in particular|finally|first|second|then|instead)\s*,?\s*)+",
    re.IGNORECASE,
)
_CITATION = re.compile(r"\s*\([^()]*\d{4}[a-z]?[^()]*\)")

CUE_WEIGHT = 0.06
CUE_CAP = 3
#: bonus of a sentence that states the contribution ("we propose …") for the method
EXPLICIT_WEIGHT = 0.1
#: penalty per results/evaluation/availability cue, both roles
RESULT_WEIGHT = 0.08
POSITION_WEIGHT = 0.05
#: penalty of an introduction sentence against the abstract's (abstracts state RQs tersely)
INTRO_PENALTY = 0.2
#: sentences of the introduction used (its last ones: the contribution statements)
INTRO_SENTENCES = 12


class RQEncoder(Protocol):
    """What extraction needs of a bi-encoder (:class:`litsift.models_onnx.Encoder` has it)."""

    def encode_queries(self, texts: Sequence[str]) -> FloatArray: ...

    def encode_passages(self, texts: Sequence[str]) -> FloatArray: ...


@dataclass(frozen=True)
class Extraction:
    """A paper's problem and method, with where they came from.

    Attributes:
        problem: the problem span ("" when the text has no sentence).
        method: the method span.
        problem_sentence: the whole sentence the problem span was cut from.
        method_sentence: the whole sentence the method span was cut from.
        source: :data:`OFFLINE_VERSION` (or the LLM's model for LLM extractions).
    """

    problem: str
    method: str
    problem_sentence: str = ""
    method_sentence: str = ""
    source: str = OFFLINE_VERSION

    @property
    def rq(self) -> str:
        """The research question in the study's format (see :func:`rq_text`)."""
        return rq_text(self.problem, self.method)


def rq_text(problem: str, method: str) -> str:
    """``"Can <problem> be solved by <method>?"`` -- the study's target format -- or ""."""
    p, m = problem.strip().rstrip(".;:"), method.strip().rstrip(".;:")
    if not p and not m:
        return ""
    return f"Can {p or 'the problem'} be solved by {m or 'the method'}?"


@functools.cache
def _cue_count(pattern: re.Pattern[str], sentence: str) -> int:
    return min(CUE_CAP, len(pattern.findall(sentence)))


def _clean(span: str) -> str:
    span = _CITATION.sub("", span).strip()
    span = _LEAD.sub("", span).strip()
    if span and span[0].islower() and not span[:2].isupper():
        span = span[0].upper() + span[1:]
    return span.rstrip(" .;:")


def _method_span(sentence: str) -> str:
    m = _METHOD_START.search(sentence)
    span = sentence[m.end() :] if m is not None and m.end() < len(sentence) - 10 else sentence
    return _clean(span)


class _Prototypes:
    def __init__(self, encoder: RQEncoder) -> None:
        q = encoder.encode_queries([*PROBLEM_PROTOTYPES, *METHOD_PROTOTYPES])
        n = len(PROBLEM_PROTOTYPES)
        self.problem = _unit(q[:n].mean(axis=0))
        self.method = _unit(q[n:].mean(axis=0))


def _unit(v: FloatArray) -> FloatArray:
    return (v / max(float(np.linalg.norm(v)), 1e-12)).astype(np.float32)


def sentences_of(abstract: str, introduction: str = "") -> list[str]:
    """The candidate sentences: every sentence of the abstract, then the last
    :data:`INTRO_SENTENCES` of the introduction (where contributions are stated)."""
    out = [abstract[s:e] for s, e in split_sentences(abstract)]
    if introduction.strip():
        intro = [introduction[s:e] for s, e in split_sentences(introduction)]
        out += [s for s in intro[-INTRO_SENTENCES:] if _CONTRIBUTION.search(s)]
    return out


def extract_many(
    papers: Sequence[tuple[str, str]],
    encoder: RQEncoder,
) -> list[Extraction]:
    """Extract the problem and method of each ``(abstract, introduction)`` pair.

    Args:
        papers: ``(abstract, introduction)``; the introduction may be "".
        encoder: the bi-encoder (prototypes as queries, sentences as passages).

    Returns:
        One :class:`Extraction` per paper; empty spans for a paper without sentences.
    """
    items: list[tuple[Sequence[str], FloatArray | None, int]] = []
    for abstract, introduction in papers:
        sentences = sentences_of(abstract, introduction)
        items.append((sentences, None, len(sentences_of(abstract))))
    return extract_from_sentences(items, encoder)


def extract_from_sentences(
    items: Sequence[tuple[Sequence[str], FloatArray | None, int]],
    encoder: RQEncoder,
) -> list[Extraction]:
    """Extract from papers already cut into candidate sentences.

    Args:
        items: ``(sentences, vectors, n_abstract)`` per paper: the candidate sentences (the
            abstract's first, then any introduction sentences), their ``(m, dim)`` passage
            vectors or None to embed them, and how many of them are the abstract's.
        encoder: the bi-encoder.
    """
    protos = _Prototypes(encoder)
    out: list[Extraction] = []
    for sentences, given, n_abstract in items:
        kept = [i for i, s in enumerate(sentences) if len(s.split()) >= 4]
        if not kept:
            out.append(Extraction("", ""))
            continue
        cand = [sentences[i] for i in kept]
        if given is None:
            emb = np.asarray(encoder.encode_passages(cand), dtype=np.float32)
        else:
            emb = np.asarray(given, dtype=np.float32)[kept]
        n_abs = sum(1 for i in kept if i < n_abstract)
        out.append(_pick(cand, emb, protos, n_abs))
    return out


def extract(abstract: str, encoder: RQEncoder, introduction: str = "") -> Extraction:
    """Extract one paper's problem and method (see :func:`extract_many`)."""
    return extract_many([(abstract, introduction)], encoder)[0]


def _pick(
    sentences: list[str], emb: FloatArray, protos: _Prototypes, n_abstract: int
) -> Extraction:
    m = len(sentences)
    intro = (np.arange(m) >= n_abstract).astype(np.float32)
    pos = np.arange(m, dtype=np.float32) / max(m - 1, 1)
    p_cue = np.array([_cue_count(_PROBLEM_CUES, s) for s in sentences], dtype=np.float32)
    m_cue = np.array([_cue_count(_METHOD_CUES, s) for s in sentences], dtype=np.float32)
    r_cue = np.array([_cue_count(_RESULT_CUES, s) for s in sentences], dtype=np.float32)
    explicit = np.array([_METHOD_START.search(s) is not None for s in sentences], np.float32)
    p_score = (
        emb @ protos.problem
        + CUE_WEIGHT * p_cue
        - RESULT_WEIGHT * r_cue
        + POSITION_WEIGHT * (1.0 - pos)
        - INTRO_PENALTY * intro
    )
    m_score = (
        emb @ protos.method
        + CUE_WEIGHT * m_cue
        + EXPLICIT_WEIGHT * explicit
        - RESULT_WEIGHT * r_cue
        - INTRO_PENALTY * intro
    )
    j = int(np.argmax(m_score))
    if j > 0:
        i = int(np.argmax(p_score[:j]))
    else:
        rest = p_score.copy()
        rest[j] = -np.inf
        i = int(np.argmax(rest)) if m > 1 else j
    problem, method = _clean(sentences[i]), _method_span(sentences[j])
    return Extraction(problem, method, sentences[i], sentences[j])
