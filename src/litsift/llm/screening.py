"""The LLM as a screening judge: each record's title and abstract read against the review's
criteria, a verdict per record (include / unsure / exclude) with a one-line reason.

The task and its three labels follow the LLM title/abstract screening studies: the review's
eligibility criteria and one record per item, the model asked to include or exclude (Guo et al.,
"Automated Paper Screening for Clinical Reviews Using Large Language Models", JMIR 26:e48996,
2024), leaning to include when unsure, as screeners are told to (a missed study costs more than
an extra full text; Khraisha et al., Research Synthesis Methods 15(4), 2024). Several records
go in one call, numbered, each inside ``<passage>`` tags (data, never instructions).

The verdicts are not decisions: the learning order reads them as one more column
(:attr:`litsift.review.orders.OrderSpec.judge_weight`) and the screen shows them beside the
record; the reviewer decides. What-if figures: docs/EVALUATION.md, "An LLM judge".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from litsift.errors import LLMCancelledError, LLMError
from litsift.llm.client import ChatClient
from litsift.llm.prompts import DATA_NOTE, quote, truncate_words
from litsift.llm.protocol import Message
from litsift.types.llm import CallStats

#: verdict label -> the value the learning order reads
VERDICTS = {"include": 1, "unsure": 0, "exclude": -1}
#: records judged per call
RECORDS_PER_CALL = 8
#: words of each abstract sent
ABSTRACT_WORDS = 250
#: bumped whenever :func:`screening_messages` changes (stored with each verdict)
SCREENING_PROMPT_VERSION = "screen-1"

_LINE_RE = re.compile(
    r"(?:record|#)?\s*(\d+)\s*[:.)\-–]\s*\**\s*(include|unsure|exclude)\w*\**\s*[:\-–,]?\s*(.*)",
    re.I,
)
_OBJ_RE = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True)
class Verdict:
    """One record's verdict: ``label`` (include / unsure / exclude), ``value`` (+1 / 0 / -1)
    and the model's reason (one line, may be empty)."""

    label: str
    reason: str = ""

    @property
    def value(self) -> int:
        """+1 include, 0 unsure, -1 exclude."""
        return VERDICTS[self.label]


def screening_messages(criteria: str, records: Sequence[tuple[str, str]]) -> list[Message]:
    """Ask for a verdict per ``(title, abstract)`` record numbered from 1, as a JSON array.

    Raises:
        ValueError: ``criteria`` is empty (there is nothing to judge against).
    """
    if not criteria.strip():
        raise ValueError("a screening judge needs the review's criteria")
    blocks = "\n".join(
        f"Record {i}:\n<passage>{quote(title)}\n{quote(truncate_words(abstract, ABSTRACT_WORDS))}"
        "</passage>"
        for i, (title, abstract) in enumerate(records, start=1)
    )
    user = (
        "You are screening titles and abstracts for a systematic review.\n"
        f"The review's question and eligibility criteria:\n{quote(criteria)}\n\n"
        "For each numbered record decide:\n"
        "- include: it meets the criteria, or may meet them (the abstract leaves it open);\n"
        "- unsure: you cannot tell from the title and abstract;\n"
        "- exclude: it clearly fails at least one criterion.\n"
        "When in doubt between include and exclude, choose include: a study missed here is lost "
        "for good, an extra one costs a full-text read.\n"
        "Reply with a JSON array only, one object per record, e.g. "
        '[{"record": 1, "verdict": "exclude", "reason": "animal study; the review wants '
        'humans"}]. Keep each reason under 20 words.\n\n'
        f"{blocks}"
    )
    system = "You are a careful systematic-review screener. " + DATA_NOTE
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _one_line(text: object) -> str:
    return " ".join(str(text).split())[:200]


def parse_verdicts(text: str, n_records: int) -> dict[int, Verdict]:
    """Verdicts by 1-based record number from a reply: the JSON objects in it (a whole array,
    or objects with prose around them), else ``1: include - reason`` lines. Numbers outside
    ``1..n_records`` and unknown labels are ignored; the first verdict for a number wins."""
    import json

    out: dict[int, Verdict] = {}
    for m in _OBJ_RE.finditer(text):
        try:
            item = json.loads(m.group(0))
        except ValueError:
            continue
        if not isinstance(item, dict):
            continue
        number = item.get("record", item.get("id", item.get("n")))
        label = str(item.get("verdict", item.get("decision", item.get("label", "")))).lower()
        label = label.strip()
        if isinstance(number, str) and number.strip().isdigit():
            number = int(number)
        if isinstance(number, int) and 1 <= number <= n_records and label in VERDICTS:
            out.setdefault(number, Verdict(label, _one_line(item.get("reason", ""))))
    if not out:
        for m in _LINE_RE.finditer(text):
            number = int(m.group(1))
            if 1 <= number <= n_records:
                out.setdefault(number, Verdict(m.group(2).lower(), _one_line(m.group(3))))
    return out


@dataclass(frozen=True)
class ScreeningJudgement:
    """What :func:`judge_records` returns: ``verdicts`` by record key, the call stats, and a
    one-line ``error`` when a call failed (the verdicts before it are kept), ``missing``: the
    keys sent whose verdict the replies left out."""

    verdicts: dict[str, Verdict]
    stats: CallStats
    error: str | None = None
    missing: tuple[str, ...] = ()


def judge_records(
    client: ChatClient,
    criteria: str,
    records: Sequence[tuple[str, str, str]],
    *,
    per_call: int = RECORDS_PER_CALL,
    on_batch: Callable[[dict[str, Verdict]], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> ScreeningJudgement:
    """Judge ``records`` (``(key, title, abstract)``) against ``criteria``, ``per_call`` per
    call, each call cached like every call (temperature 0).

    Args:
        client: the chat client.
        criteria: the review's question and criteria (not empty).
        records: what to judge, in the order to judge them.
        per_call: records per call (at least 1).
        on_batch: called with each call's verdicts as they arrive (the caller saves them, so
            an interrupted run keeps what was judged).
        cancelled: once it returns True the call in flight is closed.

    Returns:
        The verdicts; a failed call ends the run there with ``error`` set.

    Raises:
        LLMCancelledError: ``cancelled`` turned true (no other LLM error is raised).
        ValueError: ``criteria`` is empty.
    """
    verdicts: dict[str, Verdict] = {}
    missing: list[str] = []
    stats = CallStats()
    per_call = max(1, per_call)
    for start in range(0, len(records), per_call):
        batch = records[start : start + per_call]
        messages = screening_messages(criteria, [(t, a) for _, t, a in batch])
        try:
            done = client.complete(
                messages,
                max_tokens=max(48 * len(batch) + 64, client.settings.max_tokens),
                temperature=0.0,
                purpose="screen",
                cancelled=cancelled,
            )
        except LLMCancelledError:
            raise
        except LLMError as e:
            said = f"screening judge failed: {e.message}" + (f"; {e.hint}" if e.hint else "")
            return ScreeningJudgement(verdicts, stats, said, tuple(missing))
        stats = stats.add(done.usage, done.cost_usd, done.cached)
        found = parse_verdicts(done.text, len(batch))
        got = {batch[i - 1][0]: v for i, v in found.items()}
        missing += [key for key, _, _ in batch if key not in got]
        verdicts.update(got)
        if on_batch is not None and got:
            on_batch(got)
    return ScreeningJudgement(verdicts, stats, None, tuple(missing))
