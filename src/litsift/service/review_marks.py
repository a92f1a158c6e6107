"""What a review's files bring back besides their records, for ``litsift review new``
(:meth:`litsift.service.review.ReviewService.create`): each stage's decision, each named
reviewer's vote and the resolution of their conflicts, the record's note, and the exclusion
reasons they name.

Two sources give them, read as :class:`~litsift.sources.formats.ris_review.Marks` per entry
``(file, location)``: litsift's own RIS export (:mod:`litsift.sources.formats.ris_review`),
and a screening tool's export whose records carry their screening work
(``SourceRecord.screening``: a Rayyan export's notes, CSV, RIS or BibTeX,
:mod:`litsift.sources.formats.rayyan_notes`), whose reviewers' decisions become their votes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litsift.sources.base import BadItem, Notice, SourceRecord
    from litsift.sources.formats.ris_review import Marks

__all__ = [
    "Disagreement",
    "csv_marks",
    "disagreement_lines",
    "fit_reasons",
    "marked",
    "ris_marks",
    "screening_marks",
    "screening_marks_of",
]

#: ``(doc_id, stage, reviewer, source)`` -> ``(decision, reason)``
Votes = dict[tuple[str, str, str, str], tuple[str, str]]


@dataclass(frozen=True)
class Disagreement:
    """Copies of one record (its entries in the files: two RIS or CSV copies of a review, or
    a record twice in one file) that give it different decisions at ``stage``: the record's
    own decision (``reviewer`` and ``source`` empty) or ``reviewer``'s vote (source ``user``)
    or resolution (``resolved``). ``said``: ``(file, decision, reason)`` of each copy, in the
    order the files were given; ``kept``: the ``(decision, reason)`` the review took (the
    strongest decision, include, maybe, exclude, the first copy's on a tie; a vote or
    resolution: the last copy's)."""

    doc_id: str
    stage: str
    reviewer: str
    source: str
    said: tuple[tuple[str, str, str], ...]
    kept: tuple[str, str]


def _differ(said: Sequence[tuple[str, str, str]]) -> bool:
    """True when ``said`` (``(file, decision, reason)``) holds two decisions, or two
    exclusion reasons (a copy without a reason does not differ from one with it)."""
    reasons = {" ".join(r.split()) for _, _, r in said if r.strip()}
    return len({d for _, d, _ in said}) > 1 or len(reasons) > 1


def disagreement_lines(found: Sequence[Disagreement], limit: int = 10) -> list[str]:
    """What ``litsift review new`` says of copies that disagree (:func:`marked`): a line with
    their count and what was kept, then one per disagreement up to ``limit`` (``[]`` for none).
    The lines hold the files' text (ids, reasons, names): sanitise them for a terminal."""
    if not found:
        return []
    stages = {"tiab": "title/abstract", "fulltext": "full text"}
    records = len({d.doc_id for d in found})
    lines = [
        f"the files disagree on the decisions of {records:,} record{'s' if records != 1 else ''}"
        " (copies that differ): kept the strongest decision (include, maybe, exclude), and a "
        "reviewer's vote as the last file given has it"
    ]

    def said(decision: str, reason: str) -> str:
        return f"{decision} ({reason})" if reason.strip() else decision

    for d in found[:limit]:
        who = d.reviewer or "the unnamed reviewer"
        whose = {"user": f"{who}'s vote, ", "resolved": f"the resolution by {who}, "}
        copies = ", ".join(f"{said(v, why)} in {Path(f).name}" for f, v, why in d.said)
        lines.append(
            f"  {d.doc_id} ({whose.get(d.source, '')}{stages.get(d.stage, d.stage)}): "
            f"{copies}; kept {said(*d.kept)}"
        )
    if len(found) > limit:
        lines.append(f"  ... and {len(found) - limit:,} more")
    return lines


def ris_marks(file: str) -> dict[tuple[str, str], Marks]:
    """``{(file, location): marks}`` of an RIS file's records (a review's own export, or a
    Rayyan export's ``N1`` notes)."""
    from litsift.sources.formats.ris_review import review_marks
    from litsift.store.reviews import DECISIONS

    return {(file, loc): got for loc, got in review_marks(Path(file), DECISIONS).items()}


def csv_marks(file: str) -> dict[tuple[str, str], Marks]:
    """``{(file, location): marks}`` of a review's own CSV export: each row's decision at the
    exported stage, its exclusion reason and note."""
    from litsift.sources.formats.csv_review import review_csv_marks
    from litsift.store.reviews import DECISIONS

    return {(file, loc): got for loc, got in review_csv_marks(Path(file), DECISIONS).items()}


def screening_marks_of(
    file: str, items: Iterable[SourceRecord | BadItem | Notice]
) -> dict[tuple[str, str], Marks]:
    """``{(file, location): marks}`` of the records of ``items`` whose ``screening`` holds a
    screening tool's work (a Rayyan export's notes)."""
    from litsift.sources.base import SourceRecord
    from litsift.sources.formats.ris_review import rayyan_marks

    out: dict[tuple[str, str], Marks] = {}
    for item in items:
        if isinstance(item, SourceRecord) and item.screening:
            got = rayyan_marks(item.screening)
            if got is not None:
                out[(file, item.location)] = got
    return out


def screening_marks(file: str, fmt: str) -> dict[tuple[str, str], Marks]:
    """:func:`screening_marks_of` the records of ``file`` read again as format ``fmt`` (the
    BibTeX of a Rayyan export); ``{}`` for a file that cannot be read (the import has told)."""
    from litsift.errors import IngestError
    from litsift.sources.formats import registry

    try:
        return screening_marks_of(file, registry.get(fmt).read(Path(file)))
    except (IngestError, OSError, UnicodeDecodeError, KeyError):
        return {}


def marked(
    entries: Sequence[tuple[str, str, str]], marks: dict[tuple[str, str], Marks]
) -> tuple[
    dict[str, dict[str, tuple[str, str]]], dict[str, dict[str, str]], Votes, list[Disagreement]
]:
    """``({stage: {doc_id: (decision, reason)}}, {doc_id: {reviewer: note}}, {(doc_id, stage,
    reviewer, source): (decision, reason)}, disagreements)`` of the entries that carry a
    review's decisions, note, reviewers' votes (source ``user``: litsift's own RIS export, a
    Rayyan export's reviewers) or the resolution of their conflict (``resolved``); a record of
    several entries keeps each stage's strongest decision (include, maybe, exclude), each
    reviewer's vote of the last entry and every note. Where its entries disagree (two copies
    of a review that differ) each difference is a :class:`Disagreement`, to be told: the later
    copy silently won (or the include); a record's own decision is left out of them where its
    reviewers voted at that stage (their votes decide it)."""
    rank = {"include": 3, "maybe": 2, "exclude": 1}
    decided: dict[str, dict[str, tuple[str, str]]] = {}
    notes: dict[str, dict[str, list[str]]] = {}  # {doc_id: {reviewer: notes}}
    votes: Votes = {}
    said: dict[tuple[str, str, str, str], list[tuple[str, str, str]]] = {}  # key as votes'
    for doc_id, file, loc in entries:
        got = marks.get((file, loc))
        if got is None:
            continue
        every = [((stage, who, "user"), v) for (stage, who), v in got.votes.items()]
        every += [((s, who, "resolved"), (v, why)) for s, (who, v, why) in got.resolved.items()]
        for (stage, who, source), (v, why) in every:
            votes[(doc_id, stage, who, source)] = (v, why)
            said.setdefault((doc_id, stage, who, source), []).append((file, v, why))
        for stage, (decision, reason) in got.decisions.items():
            now = decided.setdefault(stage, {})
            old = now.get(doc_id)
            if old is None or rank[decision] > rank[old[0]]:
                now[doc_id] = (decision, reason)
            said.setdefault((doc_id, stage, "", ""), []).append((file, decision, reason))
        for who, note in [("", got.note), *got.notes_by]:
            if note and note not in (have := notes.setdefault(doc_id, {}).setdefault(who, [])):
                have.append(note)
    voted = {(d, s) for d, s, _, source in votes if source == "user"}
    differ = [
        Disagreement(d, s, w, src, tuple(copies), votes[(d, s, w, src)] if src else decided[s][d])
        for (d, s, w, src), copies in said.items()
        if _differ(copies) and (src or (d, s) not in voted)
    ]
    return (
        decided,
        {d: {w: "; ".join(n) for w, n in by.items() if n} for d, by in notes.items()},
        votes,
        differ,
    )


def timed_votes(
    votes: Votes, decided: dict[str, dict[str, tuple[str, str]]]
) -> list[tuple[tuple[str, str, str, str], tuple[str, str], str]]:
    """``[(key, (decision, reason), decided_at)]`` of :func:`marked`'s ``votes``, in order,
    each with the time to record it: now, and a millisecond later for a vote that gives the
    exclusion reason the file's own decision of the record gives (``decided``: ``{stage:
    {doc_id: (decision, reason)}}``). Reviewers who agree on exclude with different reasons
    keep the reason given last (:func:`litsift.store.review_stages.final_decisions`); decided
    in one millisecond, their copy kept the one whose reviewer's name sorts last, and counted
    other reasons than the review it was exported from."""
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    at = [now.isoformat(timespec="milliseconds"),
          (now + timedelta(milliseconds=1)).isoformat(timespec="milliseconds")]  # fmt: skip
    out = []
    for key, (v, why) in votes.items():
        doc_id, stage, _, source = key
        kept = source == "user" and why.strip() and decided.get(stage, {}).get(doc_id) == (v, why)
        out.append((key, (v, why), at[bool(kept)]))
    return out


def fit_reasons(
    reasons: Sequence[str], named: Iterable[str], limit: int
) -> tuple[list[str], list[str]]:
    """``(kept, left out)``: ``reasons`` then the ``named`` ones they lack (the reasons of
    the decisions and votes a file brings back, and those its records list), in order, up
    to ``limit`` (keys 1-9); the rest are left out, to be reported."""
    clean = (" ".join(r.split()) for r in [*reasons, *named])
    every = list(dict.fromkeys(r for r in clean if r))
    return every[:limit], every[limit:]
