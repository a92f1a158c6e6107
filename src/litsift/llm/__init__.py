"""Optional remote LLM layer: an OpenAI-compatible chat client, listwise rerank (RankGPT) and
cited answers with mechanical citation checks (OpenScholar). Never imports ``litsift.search``:
the service hands it hits. Everything else in litsift works with no LLM configured. What its
calls return (answers, rerank results, judgements, call costs) are records of
:mod:`litsift.types.llm`, so the TUI reads them without importing this layer.
"""

from litsift.llm.answer import answer_question, answer_to_json
from litsift.llm.budget import Budget
from litsift.llm.citations import build_passages, verify_citations
from litsift.llm.client import ChatClient
from litsift.llm.judge import judge_aspects, judge_attribution
from litsift.llm.protocol import ChatStream, Completion
from litsift.llm.rerank import parse_permutation, rerank

__all__ = [
    "Budget",
    "ChatClient",
    "ChatStream",
    "Completion",
    "answer_question",
    "answer_to_json",
    "build_passages",
    "judge_aspects",
    "judge_attribution",
    "parse_permutation",
    "rerank",
    "verify_citations",
]
