"""A review's decisions in its RIS export (``litsift review export --format ris``), and read
back from it (``litsift review new NAME --from`` that file) so that the export is a whole copy
of the review: its records, each stage's decision with its exclusion reason, and notes.

Each record's ``LB`` is its decision at the exported stage (``include``, ``exclude``, ``maybe``
or ``unscreened``: what reference managers show as its label). ``N1`` lines carry the rest, in
words a reader of the file understands, and are not read back as the record's note:

* ``Exclusion reason: R``: the reason of the ``LB`` exclude;
* ``Review stage: fulltext``: the ``LB`` is the full-text decision (without it: title/abstract);
* ``Title/abstract decision: D`` or ``Full-text decision: D``, then ``Full-text exclusion
  reason: R``: the record's decision at another stage than the exported one;
* ``Reviewer NAME: D`` or ``Reviewer NAME: exclude (R)``: each reviewer's vote on a record
  awaiting resolution (its ``LB`` is ``conflict``), read back as that reviewer's decision, so
  the copy awaits the same resolutions.

Every other ``N1`` line is a line of the record's note (a note of several lines is written one
``N1`` a line and read back joined by ``"; "``, as several notes of one record are).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from litsift.errors import IngestError
from litsift.sources.base import BadItem, clean_text, read_text
from litsift.sources.formats.ris import REASON_PREFIX, _parser

__all__ = ["STAGE_LABELS", "STAGE_PREFIX", "Marks", "mark_lines", "review_marks"]

#: The review's stages (:data:`litsift.store.review_stages.STAGES`) as the ``N1`` lines name them.
STAGE_LABELS = {"tiab": "Title/abstract", "fulltext": "Full-text"}
#: The ``N1`` line that says which stage's decision the ``LB`` is (none: title/abstract).
STAGE_PREFIX = "Review stage: "


class Marks(NamedTuple):
    """What one record of a review's RIS export carries: ``decisions`` = ``{stage: (decision,
    reason)}`` (the reason of an exclude only, ``""``: none given), its ``note``, and the
    ``votes`` of a record awaiting resolution at the ``LB`` stage: ``{(stage, reviewer):
    (decision, reason)}`` (``Reviewer alice: exclude (wrong design)`` lines)."""

    decisions: dict[str, tuple[str, str]]
    note: str
    votes: dict[tuple[str, str], tuple[str, str]]


#: The ``N1`` line of one reviewer's vote on a record in conflict.
VOTE_RE = re.compile(r"Reviewer (\S+): (include|exclude|maybe)(?: \((.+)\))?")


def mark_lines(
    stage: str,
    decisions: Mapping[str, tuple[str, str]],
    note: str = "",
    votes: Mapping[str, tuple[str, str]] | None = None,
) -> list[str]:
    """The ``N1`` lines of one record of a review exported at ``stage``: the note's lines, then
    the reason of its ``stage`` decision, the stage when not title/abstract, its decision
    (and reason) at each other stage, and each reviewer's vote when it awaits resolution.

    Args:
        decisions: ``{stage: (decision, reason)}`` of the stages where the record has one.
        votes: ``{reviewer: (decision, reason)}`` of a record in conflict at ``stage``.
    """
    lines = [line.strip() for line in note.splitlines() if line.strip()]
    for who, (d, why) in (votes or {}).items():
        lines.append(f"Reviewer {who}: {d}" + (f" ({clean_text(why)})" if why.strip() else ""))
    decision, reason = decisions.get(stage, ("", ""))
    if decision == "exclude" and reason.strip():
        lines.append(f"{REASON_PREFIX}{clean_text(reason)}")
    if stage != "tiab":
        lines.append(f"{STAGE_PREFIX}{stage}")
    for other, (d, why) in decisions.items():
        if other == stage or other not in STAGE_LABELS:
            continue
        lines.append(f"{STAGE_LABELS[other]} decision: {d}")
        if d == "exclude" and why.strip():
            lines.append(f"{STAGE_LABELS[other]} exclusion reason: {clean_text(why)}")
    return lines


def _read_marks(label: str, lines: list[str], decisions: tuple[str, ...]) -> Marks:
    stage, reason = "tiab", ""
    got: dict[str, list[str]] = {}
    note = []
    votes: dict[str, tuple[str, str]] = {}
    for line in lines:
        vote = VOTE_RE.fullmatch(line)
        if vote:
            votes[vote[1]] = (vote[2], vote[3] or "" if vote[2] == "exclude" else "")
            continue
        if line.startswith(REASON_PREFIX):
            reason = line.removeprefix(REASON_PREFIX).strip()
            continue
        if line.startswith(STAGE_PREFIX) and line.removeprefix(STAGE_PREFIX) in STAGE_LABELS:
            stage = line.removeprefix(STAGE_PREFIX)
            continue
        for key, name in STAGE_LABELS.items():
            if line.startswith(f"{name} decision: "):
                got.setdefault(key, ["", ""])[0] = line.split(": ", 1)[1].strip().lower()
                break
            if line.startswith(f"{name} exclusion reason: "):
                got.setdefault(key, ["", ""])[1] = line.split(": ", 1)[1].strip()
                break
        else:
            note.append(line)
    got[stage] = [label, reason]
    return Marks(
        {
            key: (d, why if d == "exclude" else "")
            for key, (d, why) in got.items()
            if d in decisions
        },
        "; ".join(note),
        {(stage, who): vote for who, vote in votes.items()},
    )


def review_marks(path: Path, decisions: tuple[str, ...]) -> dict[str, Marks]:
    """``{location: marks}`` of the RIS records that carry a review's decision (``LB`` one of
    ``decisions``, or an ``N1`` decision line of another stage) or a note (``N1``), at the
    locations :func:`litsift.sources.formats.ris.read_ris` gives; ``{}`` for a file that cannot
    be read (the import has told that already)."""
    try:
        text = read_text(path)
    except IngestError:
        return {}
    out: dict[str, Marks] = {}
    for item in _parser(text, wos=False).records(text):
        if isinstance(item, BadItem):
            continue
        label = clean_text(item.fields.get("label")).lower()
        lines = [clean_text(n) for n in item.fields.get("notes") or [] if clean_text(n)]
        marks = _read_marks(label, lines, decisions)
        if marks.decisions or marks.note or marks.votes:
            out[f"record {item.number}"] = marks
    return out
