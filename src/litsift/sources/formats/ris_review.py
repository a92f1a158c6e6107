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
  two or more named reviewers decided (its ``LB`` is ``conflict`` while they disagree), read
  back as that reviewer's decision, so the copy awaits the same resolutions and reports the
  same agreement (Cohen's kappa);
* ``Note by NAME: ...``: a line of named reviewer NAME's note on the record, read back as
  that reviewer's note, its spaces as written (the unnamed reviewer's note is written as plain
  lines; a name with ": " in it in double quotes: ``Note by "Dr: Smith": ...``);
* ``Resolved by NAME: D`` (or ``Resolved: D``, by the unnamed reviewer): the third decision
  that settled the reviewers' conflict, read back as that resolution;
* ``Full-text reviewer NAME: D`` or ``Title/abstract reviewer NAME: D`` (``exclude (R)``), and
  ``Full-text resolved by NAME: D``: the same at the other stage than the exported one, so
  each reviewer's votes of both stages come back (a record the named reviewers decided carries
  no prior decision in the copy: a reviewer who did not decide it still sees it undecided);
* on the first record only, the review's own settings (:func:`review_lines`): ``Review
  criteria: ...``, ``Review keywords: a; b`` and ``Review exclusion reasons: 1. R; 2. R``, read
  back as the copy's criteria, keywords and reasons in their order (keys 1-9 keep their
  meaning, unused reasons included).

An ``N1`` line of a Rayyan export (``RAYYAN-INCLUSION: {"Kofi"=>"Included"} | ...``,
:mod:`litsift.sources.formats.rayyan_notes`) is read as each Rayyan reviewer's title/abstract
vote, the exclusion reasons the record lists, and its readable note (the reviewers' notes and
labels), never as the markup itself.

Every other ``N1`` line is a line of the record's note (a note of several lines is written one
``N1`` a line and read back joined by ``"; "``, as several notes of one record are). In a file
that is no review's export (no ``LB`` decision) only what the library reads as the record's
note is (:mod:`litsift.sources.formats.ris_notes`): a Scopus or ProQuest ``N1`` is no note.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from litsift.errors import IngestError
from litsift.sources.base import BadItem, clean_text, read_text
from litsift.sources.formats.rayyan_notes import has_rayyan_notes, rayyan_notes
from litsift.sources.formats.ris import REASON_PREFIX, _parser
from litsift.sources.formats.ris_notes import REVIEW_LABELS, ris_notes

__all__ = [
    "STAGE_LABELS",
    "STAGE_PREFIX",
    "Marks",
    "mark_lines",
    "rayyan_marks",
    "review_lines",
    "review_marks",
    "review_settings",
]

#: The review's stages (:data:`litsift.store.review_stages.STAGES`) as the ``N1`` lines name them.
STAGE_LABELS = {"tiab": "Title/abstract", "fulltext": "Full-text"}
#: The ``N1`` line that says which stage's decision the ``LB`` is (none: title/abstract).
STAGE_PREFIX = "Review stage: "


class Marks(NamedTuple):
    """What one record of a review's RIS export carries: ``decisions`` = ``{stage: (decision,
    reason)}`` (the reason of an exclude only, ``""``: none given), its ``note``, the
    ``votes`` of its reviewers at each stage: ``{(stage, reviewer): (decision, reason)}``
    (``Reviewer alice: exclude (wrong design)`` lines), and the resolution of their conflicts:
    ``{stage: (reviewer, decision, reason)}``."""

    decisions: dict[str, tuple[str, str]]
    note: str
    votes: dict[tuple[str, str], tuple[str, str]]
    resolved: dict[str, tuple[str, str, str]]
    #: the review's settings lines (:func:`review_lines`) as ``{prefix: text}``
    review: dict[str, str]
    #: the exclusion reasons the record lists (a Rayyan export's, in its order)
    reasons: tuple[str, ...] = ()
    #: the named reviewers' notes ``((reviewer, note), ...)`` (``Note by alice: ...`` lines;
    #: ``note`` is the unnamed reviewer's)
    notes_by: tuple[tuple[str, str], ...] = ()


def rayyan_marks(text: str) -> Marks | None:
    """What a review takes from a record's Rayyan notes ``text``: each reviewer's vote at
    title/abstract (an exclude with the record's first exclusion reason), the readable note
    (:meth:`RayyanNotes.note_lines`, joined by ``"; "``) and the reasons it lists; None
    without Rayyan markup."""
    got = rayyan_notes(text)
    if got is None:
        return None
    why = got.reasons[0] if got.reasons else ""
    votes = {("tiab", who): (d, why if d == "exclude" else "") for who, d in got.votes.items()}
    return Marks({}, "; ".join(got.note_lines()), votes, {}, {}, tuple(got.reasons))


#: The ``N1`` prefixes of the review's own settings, written on its first record.
CRITERIA_PREFIX, KEYWORDS_PREFIX = "Review criteria: ", "Review keywords: "
REASONS_PREFIX = "Review exclusion reasons: "
_SETTINGS = (CRITERIA_PREFIX, KEYWORDS_PREFIX, REASONS_PREFIX)


def review_lines(criteria: str, keywords: Sequence[str], reasons: Sequence[str]) -> list[str]:
    """The ``N1`` lines of a review's criteria, keywords and exclusion reasons (key order),
    for the first record of its export; none for a setting the review lacks."""
    lines = []
    if criteria.strip():
        lines.append(CRITERIA_PREFIX + " ".join(criteria.split()))
    if keywords:
        lines.append(KEYWORDS_PREFIX + "; ".join(" ".join(k.split()) for k in keywords))
    if reasons:
        numbered = (f"{i}. {' '.join(r.split())}" for i, r in enumerate(reasons, start=1))
        lines.append(REASONS_PREFIX + "; ".join(numbered))
    return lines


def review_settings(marks: Iterable[Marks]) -> tuple[str, list[str], list[str]]:
    """``(criteria, keywords, reasons)`` of the first record that carries :func:`review_lines`
    (``("", [], [])`` when none does)."""
    got = next((m.review for m in marks if m.review), {})
    keywords = [k.strip() for k in got.get(KEYWORDS_PREFIX, "").split(";") if k.strip()]
    reasons = re.split(r"(?:^|; )\d+\. ", got.get(REASONS_PREFIX, ""))
    return got.get(CRITERIA_PREFIX, ""), keywords, [r.strip() for r in reasons if r.strip()]


#: The ``N1`` line of one reviewer's vote (a name may have spaces: the first ": D" ends it);
#: the unnamed reviewer's is ``Reviewer: D`` (``Reviewer : D`` in files written before).
VOTE_RE = re.compile(r"Reviewer(?: (.*?))?: (include|exclude|maybe)(?: \((.+)\))?")
#: The ``N1`` line of a named reviewer's note (one per line of it); a name with ": " in it (or
#: starting with a quote) is written in double quotes (``Note by "Dr: Smith": ...``).
NOTE_BY_RE = re.compile(r'Note by (?:"(.+?)"|(.+?)): (.+)')
#: The ``N1`` line of the decision that resolved the reviewers' conflict.
RESOLVED_RE = re.compile(r"Resolved(?: by (.+?))?: (include|exclude|maybe)(?: \((.+)\))?")


def _vote_lines(
    votes: Mapping[str, tuple[str, str]], resolved: tuple[str, str, str] | None
) -> list[str]:
    lines = []
    for who, (d, why) in votes.items():
        lines.append(f"Reviewer{' ' + who if who else ''}: {d}"
                     + (f" ({clean_text(why)})" if why.strip() else ""))  # fmt: skip
    if resolved is not None:
        who, d, why = resolved
        lines.append(f"Resolved{' by ' + who if who else ''}: {d}"
                     + (f" ({clean_text(why)})" if why.strip() else ""))  # fmt: skip
    return lines


def _other_stage(line: str) -> tuple[str, str]:
    """``(stage, line)`` of a vote or resolution line of another stage (``Full-text reviewer
    bob: include`` -> ``("fulltext", "Reviewer bob: include")``), else ``("", line)``."""
    for key, label in STAGE_LABELS.items():
        rest = line.removeprefix(f"{label} ")
        if rest != line and rest.startswith(("reviewer ", "reviewer:", "resolved")):
            return key, rest[0].upper() + rest[1:]
    return "", line


def note_lines(note: str, notes_by: Mapping[str, str]) -> list[str]:
    """A record's notes as lines: the unnamed reviewer's ``note`` as written, then each named
    reviewer's (``{reviewer: note}``) as ``Note by NAME: ...`` lines (:func:`split_note_lines`
    reads them back)."""
    lines = [line.strip() for line in note.splitlines() if line.strip()]
    for who, text in notes_by.items():
        name = f'"{who}"' if ": " in who or who.startswith('"') else who  # read back whole
        lines += [f"Note by {name}: {ln.strip()}" for ln in text.splitlines() if ln.strip()]
    return lines


def _note_by(line: str) -> tuple[str, str] | None:
    """``(reviewer, text)`` of a ``Note by NAME: text`` line (:data:`NOTE_BY_RE`), else None."""
    noted = NOTE_BY_RE.fullmatch(line)
    return None if noted is None else (noted[1] or noted[2], noted[3])


def split_note_lines(lines: Iterable[str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``(note, ((reviewer, note), ...))`` of :func:`note_lines`' lines: the lines without a
    ``Note by NAME:`` prefix (the unnamed reviewer's, joined by newlines) and each named
    reviewer's lines joined, in the order the names first appear."""
    plain: list[str] = []
    by: dict[str, list[str]] = {}
    for line in lines:
        if noted := _note_by(line.strip()):
            by.setdefault(noted[0], []).append(noted[1])
        elif line.strip():
            plain.append(line.strip())
    return "\n".join(plain), tuple((who, "\n".join(t)) for who, t in by.items())


def mark_lines(
    stage: str,
    decisions: Mapping[str, tuple[str, str]],
    note: str = "",
    votes: Mapping[str, tuple[str, str]] | None = None,
    resolved: tuple[str, str, str] | None = None,
    others: Mapping[str, tuple[Mapping[str, tuple[str, str]], tuple[str, str, str] | None]]
    | None = None,
    notes_by: Mapping[str, str] | None = None,
) -> list[str]:
    """The ``N1`` lines of one record of a review exported at ``stage``: the note's lines, then
    each reviewer's vote and the resolution, the reason of its ``stage`` decision, the stage
    when not title/abstract, and its decision (and reason) at each other stage.

    Args:
        decisions: ``{stage: (decision, reason)}`` of the stages where the record has one.
        votes: ``{reviewer: (decision, reason)}`` of the named reviewers at ``stage``.
        resolved: ``(reviewer, decision, reason)`` that resolved their conflict at ``stage``.
        others: ``{stage: (votes, resolved)}`` the same at the other stages.
        notes_by: ``{reviewer: note}`` of the named reviewers (``note``: the unnamed one's),
            each line ``Note by NAME: ...``.
    """
    lines = note_lines(note, notes_by or {})
    lines += _vote_lines(votes or {}, resolved)
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
    for other, (said, settled) in (others or {}).items():
        if other != stage and other in STAGE_LABELS:
            lines += [f"{STAGE_LABELS[other]} {v[0].lower()}{v[1:]}"
                      for v in _vote_lines(said, settled)]  # fmt: skip
    return lines


def _read_marks(label: str, lines: list[str], decisions: tuple[str, ...]) -> Marks:
    stage, reason = "tiab", ""
    got: dict[str, list[str]] = {}
    note = []
    votes: dict[tuple[str, str], tuple[str, str]] = {}  # {(stage or "", reviewer): vote}
    resolved: dict[str, tuple[str, str, str]] = {}  # {stage or "": resolution}
    settings: dict[str, str] = {}
    rayyan: list[Marks] = []
    by: dict[str, list[str]] = {}
    for line in lines:
        if (from_rayyan := rayyan_marks(line)) is not None:
            rayyan.append(from_rayyan)
            continue
        if noted := _note_by(line):
            by.setdefault(noted[0], []).append(noted[1])
            continue
        setting = next((p for p in _SETTINGS if line.startswith(p)), None)
        if setting is not None:
            settings[setting] = line.removeprefix(setting).strip()
            continue
        at, said = _other_stage(line)
        vote = VOTE_RE.fullmatch(said)
        if vote:
            votes[(at, vote[1] or "")] = (vote[2], vote[3] or "" if vote[2] == "exclude" else "")
            continue
        settled = RESOLVED_RE.fullmatch(said)
        if settled:
            why = settled[3] or "" if settled[2] == "exclude" else ""
            resolved[at] = (settled[1] or "", settled[2], why)
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
    note += [r.note for r in rayyan if r.note]
    return Marks(
        {
            key: (d, why if d == "exclude" else "")
            for key, (d, why) in got.items()
            if d in decisions
        },
        "; ".join(note),
        {(at or stage, who): vote for (at, who), vote in votes.items()}
        | {key: vote for r in rayyan for key, vote in r.votes.items()},  # Rayyan's: tiab
        {at or stage: r for at, r in resolved.items()},
        settings,
        tuple(dict.fromkeys(why for r in rayyan for why in r.reasons)),
        tuple((who, "; ".join(text)) for who, text in by.items()),
    )


def _as_written(value: object) -> str:
    """An ``N1`` value as one line: its lines' ends stripped, joined by a space, the spaces
    inside kept (a note's ``10  mg`` comes back as written; ``clean_text`` squeezed them)."""
    lines = str(value).splitlines() if isinstance(value, str) else []
    return " ".join(part.strip() for part in lines if part.strip())


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
    for item in _parser(wos=False).records(text):
        if isinstance(item, BadItem):
            continue
        label = clean_text(item.fields.get("label")).lower()
        lines = [line for n in item.fields.get("notes") or [] if (line := _as_written(n))]
        if label not in REVIEW_LABELS:  # not a review's export: Rayyan's markup, and the note
            own = [ln for note in ris_notes(item.fields) for ln in note.splitlines()]
            lines = [n for n in lines if has_rayyan_notes(n)] + own  # (no database's N1)
        marks = _read_marks(label, lines, decisions)
        if any(
            (marks.decisions, marks.note, marks.votes, marks.resolved, marks.review,
             marks.reasons, marks.notes_by)
        ):  # fmt: skip
            out[f"record {item.number}"] = marks
    return out
