"""Optional remote LLM layer: an OpenAI-compatible chat client, listwise rerank (RankGPT) and
cited answers with mechanical citation checks (OpenScholar). Never imports ``litsift.search``:
the service hands it hits. Everything else in litsift works with no LLM configured.
"""

from litsift.cache.llm_cache import CallStats, Usage
from litsift.llm.answer import Answer, Reference, answer_question, answer_to_json
from litsift.llm.budget import Budget
from litsift.llm.citations import Passage, Sentence, build_passages, verify_citations
from litsift.llm.client import ChatClient
from litsift.llm.judge import AspectJudgement, judge_aspects, judge_attribution
from litsift.llm.protocol import ChatStream, Completion
from litsift.llm.rerank import RerankReport, RerankResult, parse_permutation, rerank

__all__ = [
    "Answer",
    "AspectJudgement",
    "Budget",
    "CallStats",
    "ChatClient",
    "ChatStream",
    "Completion",
    "Passage",
    "Reference",
    "RerankReport",
    "RerankResult",
    "Sentence",
    "Usage",
    "answer_question",
    "answer_to_json",
    "build_passages",
    "judge_aspects",
    "judge_attribution",
    "parse_permutation",
    "rerank",
    "verify_citations",
]
