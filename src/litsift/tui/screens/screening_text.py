"""The screening screen's texts (:mod:`litsift.tui.screens.screening`): the record with the
review's keywords and criteria words highlighted, and what to do once a stage is done."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from litsift.tui.widgets.safe_text import Part
from litsift.types.reviews import ESTIMATE_MIN_SCREENED, ScreeningProgress

if TYPE_CHECKING:
    from litsift.service.api import ScreeningAPI

__all__ = [
    "CRITERIA_STYLE",
    "KEYWORD_STYLE",
    "done_lines",
    "highlighted",
    "progress_line",
    "reason_key_hint",
    "stop_lines",
]

KEYWORD_STYLE = "bold black on yellow"
CRITERIA_STYLE = "bold underline"


def highlighted(text: str, keywords: list[str], terms: list[str]) -> list[Part]:
    """``text`` cut into plain parts and ``(word, style)`` parts for each keyword (whole
    words, any case) and criteria term (word starts)."""
    pats = [(k, KEYWORD_STYLE, r"\b") for k in keywords]
    pats += [(t, CRITERIA_STYLE, r"\w*") for t in terms]
    if not pats or not text:
        return [text]
    alts = "|".join(
        f"(?P<g{i}>" + r"\b" + re.escape(w) + end + ")" for i, (w, _, end) in enumerate(pats)
    )
    regex = re.compile(alts, re.IGNORECASE)
    parts: list[Part] = []
    at = 0
    for m in regex.finditer(text):
        style = pats[int(str(m.lastgroup)[1:])][1]
        parts.extend([text[at : m.start()], (m.group(0), style)])
        at = m.end()
    parts.append(text[at:])
    return parts


def reason_key_hint(review: str, reasons: Sequence[str], key: int) -> str:
    """What key ``key`` says where the review has fewer reasons: the keys it has, and the
    command that adds one. ``review reasons`` replaces the list, so the command names the
    review's reasons and then the new one (it read ``'wrong population' 'wrong design'
    ...``, which would have dropped the review's own)."""
    name = shlex.quote(review)
    if not reasons:
        return (f"no exclusion reasons yet (x excludes without one): litsift review reasons "
                f"{name} 'wrong population' 'wrong design' ...")  # fmt: skip
    have = " ".join(shlex.quote(r) for r in reasons)
    keys = "key 1" if len(reasons) == 1 else f"keys 1-{len(reasons)}"
    return (f"no exclusion reason {key}: this review's are {keys}; to add one: litsift review "
            f"reasons {name} {have} 'NEW REASON'")  # fmt: skip


def done_lines(
    review: str, stage: str, reviewer: str, records: int | None, conflicts: int = 0
) -> list[Part]:
    """What to do once every record of the stage has a decision: the ``conflicts`` (records
    whose reviewers disagree) to resolve first, the next stage, the export of this stage's
    includes (or, screening blind, of this reviewer's decisions for ``review merge``) and the
    PRISMA diagram -- each a command to paste. A full-text stage that no record reached yet
    (``records`` 0) says so: it read "Every report has a decision"."""
    name = shlex.quote(review)
    if stage != "tiab" and records == 0:
        return [
            ("No record has reached the full text yet.", "bold"),
            "\nInclude (or mark maybe) records at title/abstract first: litsift review screen "
            f"{name}" + (f" --reviewer {shlex.quote(reviewer)}" if reviewer else ""),
        ]
    if reviewer:
        who, out = shlex.quote(reviewer), shlex.quote(f"{reviewer}.jsonl")
        return [
            (f"Every record has your decision, {reviewer}.", "bold"),
            "\nFor the one who merges: litsift review export "
            f"{name} --format decisions --reviewer {who} -o {out}",
        ]
    if conflicts:  # "Next, the full text" said nothing of the records awaiting resolution
        what = "record awaits" if conflicts == 1 else "records await"
        at = "" if stage == "tiab" else f" --stage {stage}"
        return [
            (f"Every record has a decision; {conflicts} {what} resolution.", "bold"),
            f"\nThe reviewers disagree on them: litsift review conflicts {name}{at}",
            f"\nResolve each with a third decision: litsift review resolve {name} ID DECISION"
            f"{at} --reviewer NAME",
        ]
    if stage == "tiab":
        return [
            ("Every record has a decision at title/abstract.", "bold"),
            f"\nNext, the full text: litsift review screen {name} --stage fulltext",
            f"\nThe includes so far: litsift review export {name} --format ris --which include",
        ]
    return [
        ("Every report has a decision at full text.", "bold"),
        "\nThe included studies: litsift review export "
        f"{name} --stage fulltext --format ris --which include",
        f"\nThe PRISMA 2020 diagram: litsift review prisma {name} -o prisma.svg",
    ]


def stop_lines(progress: ScreeningProgress) -> list[Part]:
    """The stop panel: a heading and a line per stopping rule (fired or running, what it
    waits for; one line for all when they wait for the same reason), with no blank line after
    the last (it took a row of an 80x24 terminal)."""
    parts: list[Part] = [("Stopping rules (none stops on its own)", "bold")]
    said = {s.detail for s in progress.stops}
    if len(progress.stops) > 1 and len(said) == 1 and not any(s.fired_at for s in progress.stops):
        # one reason for every rule (no record at this stage): said once, not three times
        # over six rows at 80 columns
        rules = ", ".join(s.rule for s in progress.stops)
        return [*parts, "\n", ("○ waiting", "dim"), f"  {rules}: {said.pop()}"]
    for s in progress.stops:
        mark = ("● fired  ", "bold red") if s.fired_at else ("○ running", "dim")
        parts += ["\n", mark, f"  {s.rule:<15} {s.detail}"]
    return parts


def progress_line(session: ScreeningAPI) -> str:
    """The progress line: screened n of N, included, maybe, the estimate of includes left
    (or what it waits for) and the order's name."""
    screened, total, included, maybe = session.counts()
    mine, found, more = session.estimate_basis()
    est = session.estimate
    if screened >= total:
        estimate = "no record left to screen"
    elif est is not None:
        rate = f"{found:,} of your {mine:,} screened included or maybe"
        estimate = f"~{est:.0f} includes left (from {rate})"
    elif (more is None and mine + total - screened < ESTIMATE_MIN_SCREENED) or (
        more is not None and more > total - screened
    ):  # it would never come (before an include: not even if the rest were screened)
        estimate = f"includes left: too few records left for an estimate ({total - screened:,})"
    elif more is not None:  # an include, but too few records to read a rate from yet
        estimate = f"includes left: estimated after {max(more, 1):,} more screened"
    elif included or maybe:  # prior decisions only: they carry no rate along the order
        estimate = "includes left: estimated once you include a record here"
    else:
        estimate = f"includes left: estimated after an include and {ESTIMATE_MIN_SCREENED} screened"
    return (
        f"screened {screened:,} of {total:,} · included {included:,} · maybe {maybe:,} · "
        f"{estimate} · order: {session.model_name}"
    )
