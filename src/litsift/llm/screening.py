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

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial

from litsift.errors import LLMCancelledError, LLMError
from litsift.llm.budget import estimate_prompt_tokens
from litsift.llm.client import ChatClient
from litsift.llm.prompts import DATA_NOTE, quote, truncate_words
from litsift.llm.protocol import Message, strip_thinking
from litsift.llm.reply_json import json_values
from litsift.types.llm import CallStats

#: verdict label -> the value the learning order reads
VERDICTS = {"include": 1, "unsure": 0, "exclude": -1}
#: records judged per call
RECORDS_PER_CALL = 8
#: words of each abstract sent
ABSTRACT_WORDS = 250
#: reply tokens allowed per record: one object with a 20-word reason is about 50 tokens
TOKENS_PER_RECORD = 64
#: replies in a row without any verdict that end a run
NO_VERDICT_STOP = 2
#: bumped whenever :func:`screening_messages` changes (part of :func:`prompt_id`)
SCREENING_PROMPT_VERSION = "screen-1"

_LINE_RE = re.compile(
    r"(?:record|#)?[ \t]*(\d+)[ \t]*[:.)\-–|][ \t]*\**[ \t]*(include|unsure|exclude)\w*\**"
    r"[ \t]*[:\-–,|]?[ \t]*(.*)",
    re.I,
)
#: any reasoning block left in a reply (the client removes a leading one)
_THINK_RE = re.compile(r"<think>.*?(?:</think>|\Z)", re.S | re.I)
#: a record number as models write it: 3, "3", "Record 3", "#3"
_NUMBER_RE = re.compile(r"(?:record|#|no\.?)?\s*[_#-]?\s*(\d+)", re.I)
#: the keys a record's number, its verdict and its reason come under
_NUMBER_KEYS = ("record", "record_id", "record_number", "id", "index", "number", "n", "no")
_LABEL_KEYS = ("verdict", "decision", "label", "screening_decision", "classification")
_REASON_KEYS = ("reason", "reasoning", "rationale", "explanation", "justification")
#: keys whose yes / no (true / false) answers "does it meet the criteria?"
_YES_NO_KEYS = ("include", "included", "eligible", "meets_criteria")
#: the forms of the three labels models write (any case, markdown bold or quotes around)
_LABELS = {
    **{w: "include" for w in ("include", "included", "includes")},
    **{w: "exclude" for w in ("exclude", "excluded", "excludes")},
    **{w: "unsure" for w in ("unsure", "uncertain", "unclear", "maybe")},
}
_YES_NO = {"yes": "include", "true": "include", "no": "exclude", "false": "exclude"}


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


def prompt_id(criteria: str) -> str:
    """What a verdict was asked with, stored beside it: :data:`SCREENING_PROMPT_VERSION` and a
    digest of ``criteria`` (``"screen-1:3f2a9c0d1e4b"``). A verdict stored with another id
    was given against other criteria (edited since) or another prompt: it is asked again."""
    digest = hashlib.sha256(criteria.strip().encode("utf-8")).hexdigest()[:12]
    return f"{SCREENING_PROMPT_VERSION}:{digest}"


def _one_line(text: object) -> str:
    return " ".join(str(text).split())[:200]


def parse_verdicts(text: str, n_records: int) -> dict[int, Verdict]:
    """Verdicts by 1-based record number from a reply.

    Read: the JSON in the reply (:func:`~litsift.llm.reply_json.json_values`: fenced, in
    prose, Python-quoted, trailing commas, cut at the output limit) as an array of
    ``{"record": n, "verdict": ..., "reason": ...}`` objects (also under ``id`` / ``index``,
    ``decision`` / ``label``, any case, wrapped in an object), or an object keyed by record
    number (``{"1": "include"}``); else ``1: include - reason`` lines (markdown tables too).
    Reasoning in ``<think>`` blocks is skipped: a draft there is not the answer. A later
    verdict for a record replaces an earlier one (the model's final answer after a draft);
    two different verdicts for one record in one array give none. Labels: include / unsure /
    exclude in any case or tense (``Included``), maybe / uncertain / unclear as unsure; yes /
    no only under a key that asks it (``"include": false``); anything else ("probably") is no
    verdict. Records numbered from 0
    are shifted when the reply numbers all ``n_records`` of them ``0..n_records-1``; any
    other reply with a record 0 gives no verdict (which record is which cannot be told).
    Numbers outside the batch are ignored.
    """
    text = _THINK_RE.sub(" ", strip_thinking(text))
    found: dict[int, Verdict | None] = {}
    for value in json_values(text):
        found.update(_unclashed(_json_verdicts(value)))  # a clash there drops the earlier one
    if not found:
        found = _unclashed(
            (int(m.group(1)), Verdict(m.group(2).lower(), _one_line(m.group(3).strip(" |*"))))
            for m in _LINE_RE.finditer(text)
        )
    if 0 in found:
        if set(found) != set(range(n_records)):
            return {}
        found = {k + 1: v for k, v in found.items()}
    return {k: v for k, v in sorted(found.items()) if 1 <= k <= n_records and v is not None}


def _unclashed(items: Iterable[tuple[int, Verdict]]) -> dict[int, Verdict | None]:
    """``items`` by number, the first of each; None for a number given two labels."""
    out: dict[int, Verdict | None] = {}
    for number, verdict in items:
        if number not in out:
            out[number] = verdict
        elif (said := out[number]) is not None and said.label != verdict.label:
            out[number] = None
    return out


def _json_verdicts(value: object) -> Iterator[tuple[int, Verdict]]:
    """``(number, verdict)`` of each item of a parsed JSON value (see :func:`parse_verdicts`)."""
    if isinstance(value, list):
        for item in value:
            yield from _json_verdicts(item)
        return
    if not isinstance(value, dict):
        return
    item = {str(k).strip().lower(): v for k, v in value.items()}
    key = next((k for k in _NUMBER_KEYS if k in item), None)
    if key is not None:
        number, verdict = _number(item[key]), _verdict(item)
        if number is not None and verdict is not None:
            yield number, verdict
        return
    numbers = [_number(k) for k in item]
    if item and None not in numbers:  # {"1": "include", "2": {"verdict": "exclude"}}
        for number, said in zip(numbers, item.values(), strict=True):
            verdict = _verdict(said) if isinstance(said, dict) else _verdict({"verdict": said})
            if number is not None and verdict is not None:
                yield number, verdict
        return
    for said in item.values():  # {"verdicts": [...]}
        if isinstance(said, (list, dict)):
            yield from _json_verdicts(said)


def _number(said: object) -> int | None:
    """A record number from a JSON key or value (``3``, ``"3"``, ``"Record 3"``), or None."""
    if isinstance(said, int) and not isinstance(said, bool):
        return said
    m = _NUMBER_RE.fullmatch(said.strip()) if isinstance(said, str) else None
    return int(m.group(1)) if m else None


def _verdict(item: dict[str, object]) -> Verdict | None:
    """The verdict of one parsed item (keys lower-cased), or None when it gives none."""
    item = {str(k).strip().lower(): v for k, v in item.items()}
    reason = next((item[k] for k in _REASON_KEYS if item.get(k) is not None), "")
    for key in _LABEL_KEYS:
        if isinstance(item.get(key), str):
            label = _LABELS.get(str(item[key]).strip(" *_.'\"`").lower())
            return Verdict(label, _one_line(reason)) if label else None
    for key in _YES_NO_KEYS:
        if key in item:
            label = _YES_NO.get(str(item[key]).strip(" *_.'\"`").lower())
            return Verdict(label, _one_line(reason)) if label else None
    return None


@dataclass(frozen=True)
class ScreeningJudgement:
    """What :func:`judge_records` returns: ``verdicts`` by record key, the call stats, and a
    one-line ``error`` when a call failed (the verdicts before it are kept), ``missing``: the
    keys sent whose verdict the replies left out, ``cut``: the replies cut at the output
    limit (their records after the cut are among ``missing``), ``elsewhere``: the records
    left unsent because another run judged them meanwhile."""

    verdicts: dict[str, Verdict]
    stats: CallStats
    error: str | None = None
    missing: tuple[str, ...] = ()
    cut: int = 0
    elsewhere: int = 0


def judge_records(
    client: ChatClient,
    criteria: str,
    records: Sequence[tuple[str, str, str]],
    *,
    per_call: int = RECORDS_PER_CALL,
    on_batch: Callable[[dict[str, Verdict]], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    judged_elsewhere: Callable[[], set[str]] | None = None,
) -> ScreeningJudgement:
    """Judge ``records`` (``(key, title, abstract)``) against ``criteria``, ``per_call`` per
    call, each call cached like every call (temperature 0).

    Each call may write :data:`TOKENS_PER_RECORD` tokens a record + 64, or ``llm.max_tokens``
    when larger (a reasoning model thinks first); it sends fewer than ``per_call`` records
    when their prompt and that reply would not fit ``llm.context_tokens`` (estimated). A reply
    that holds no verdict (a refusal, prose) leaves its records missing; :data:`NO_VERDICT_STOP`
    such replies in a row end the run (the model does not answer the task: the calls after
    would be spent for nothing), and so does a reply cut at the output limit before its first
    verdict.

    Args:
        client: the chat client.
        criteria: the review's question and criteria (not empty).
        records: what to judge, in the order to judge them.
        per_call: records per call (at least 1).
        on_batch: called with each call's verdicts as they arrive (the caller saves them, so
            an interrupted run keeps what was judged).
        cancelled: once it returns True the call in flight is closed.
        judged_elsewhere: asked before each call for the keys judged since the run began by
            another run on the same records (a second terminal, ``J`` in the app): those are
            not sent (each would be paid for twice).

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
    cut = empty = elsewhere = 0
    todo = list(records)
    while todo:
        if judged_elsewhere is not None and (done_there := judged_elsewhere()):
            left = [r for r in todo if r[0] not in done_there]
            elsewhere, todo = elsewhere + len(todo) - len(left), left
            if not todo:
                break
        messages, limit, batch = _fitted_call(client, criteria, todo[:per_call])
        todo = todo[len(batch) :]
        try:
            done = client.complete(
                messages,
                max_tokens=limit,
                temperature=0.0,
                purpose="screen",
                cancelled=cancelled,
                usable=partial(_holds_a_verdict, len(batch)),
            )
        except LLMCancelledError:
            raise
        except LLMError as e:
            said = f"screening judge failed: {e.message}" + (f"; {e.hint}" if e.hint else "")
            return ScreeningJudgement(verdicts, stats, said, tuple(missing), cut, elsewhere)
        stats = stats.add(done.usage, done.cost_usd, done.cached)
        cut += done.finish_reason == "length"
        found = parse_verdicts(done.text, len(batch))
        got = {batch[i - 1][0]: v for i, v in found.items()}
        missing += [key for key, _, _ in batch if key not in got]
        verdicts.update(got)
        if on_batch is not None and got:
            on_batch(got)
        empty = 0 if got else empty + 1
        if empty and (done.finish_reason == "length" or empty >= NO_VERDICT_STOP):
            said = _no_verdict(done.text, done.finish_reason, limit, empty)
            return ScreeningJudgement(verdicts, stats, said, tuple(missing), cut, elsewhere)
    return ScreeningJudgement(verdicts, stats, None, tuple(missing), cut, elsewhere)


def _holds_a_verdict(n_records: int, text: str) -> bool:
    """Whether a reply for ``n_records`` holds a verdict (else it is not cached: the records
    left out are asked again, not read back from the cache)."""
    return bool(parse_verdicts(text, n_records))


def _fitted_call(
    client: ChatClient, criteria: str, records: Sequence[tuple[str, str, str]]
) -> tuple[list[Message], int, Sequence[tuple[str, str, str]]]:
    """``(messages, max_tokens, records sent)`` for the first of ``records`` (at least one)
    whose prompt and reply fit ``llm.context_tokens`` by estimate (a server with a short
    window refuses a longer prompt, or silently drops its start: the criteria)."""
    window = client.settings.context_tokens
    while True:
        messages = screening_messages(criteria, [(t, a) for _, t, a in records])
        limit = max(TOKENS_PER_RECORD * len(records) + 64, client.settings.max_tokens)
        if len(records) <= 1 or estimate_prompt_tokens(messages) + limit <= window:
            return messages, limit, records
        records = records[:-1]


def _no_verdict(text: str, finish: str | None, limit: int, replies: int) -> str:
    """The error that ends a run on replies without a verdict (see :func:`judge_records`)."""
    if finish == "length":
        return (
            f"screening judge failed: the model's reply was cut at the output limit ({limit} "
            "tokens) before its first verdict; raise llm.max_tokens (reasoning models think "
            "before they answer)"
        )
    said = " ".join(text.split())
    return (
        f"screening judge failed: {replies} replies in a row held no verdict, the last: "
        f"{said[:80]!r}" + ("…" if len(said) > 80 else "") + "; use a model that follows "
        "instructions (it must answer with a JSON array of verdicts)"
    )
