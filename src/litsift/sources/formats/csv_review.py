"""A review's decisions read back from its own CSV export (``litsift review export NAME -o
FILE.csv``: columns ``id, decision, reason, stage, source, note, title, ...``), so that
``litsift review new NAME --from`` that file keeps each record's decision at the exported stage
(``include``, ``exclude`` or ``maybe``; ``conflict`` and ``unscreened`` rows none), the reason
of an exclude and the record's notes (a named reviewer's ``Note by NAME: ...`` lines go back to
that reviewer, as from the RIS export). Every row of an export of the full-text stage is a
report sought, so it is an include at title/abstract too (the file does not say whether it was
one or a maybe): without it the copy's full-text stage, which holds the records not excluded at
title/abstract, held none of them, and their full-text decisions were counted nowhere. The
reviewers' votes and the other stage's decisions are in the RIS export only
(:mod:`litsift.sources.formats.ris_review`).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from litsift.errors import IngestError
from litsift.sources.base import clean_text, read_text
from litsift.sources.formats.ris_review import STAGE_LABELS, Marks, split_note_lines

__all__ = ["is_review_csv", "review_csv_marks"]

#: the columns that tell litsift's own export from another table of records
_COLUMNS = ("id", "decision", "reason", "stage", "source", "note")


def _header(text: str) -> list[str]:
    first = next(csv.reader(io.StringIO(text, newline="")), [])
    return [h.strip().lstrip("\ufeff").lower() for h in first]


def is_review_csv(path: Path) -> bool:
    """Whether ``path`` is a CSV file with the columns of a review's own export."""
    if path.suffix.lower() != ".csv" or not path.is_file():
        return False
    try:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
            head = fh.readline()
    except OSError:
        return False
    return set(_COLUMNS) <= set(_header(head))


def review_csv_marks(path: Path, decisions: tuple[str, ...]) -> dict[str, Marks]:
    """``{location: marks}`` of the export's rows that carry a decision (one of
    ``decisions``) or a note, at the locations the CSV importer gives (``row N``, the header
    row 1); ``{}`` for a file that cannot be read (the import has told that already)."""
    try:
        text = read_text(path)
    except IngestError:
        return {}
    rows = csv.reader(io.StringIO(text, newline=""))
    header = _header(text)
    next(rows, None)
    col = {name: header.index(name) for name in _COLUMNS if name in header}
    out: dict[str, Marks] = {}
    for n, cells in enumerate(rows, start=2):

        def get(name: str, cells: list[str] = cells) -> str:
            i = col.get(name, -1)
            return clean_text(cells[i]) if 0 <= i < len(cells) else ""

        stage = get("stage").lower() or "tiab"
        decision = get("decision").lower()
        reason = get("reason") if decision == "exclude" else ""
        got = {stage: (decision, reason)} if decision in decisions else {}
        if stage not in STAGE_LABELS:
            got = {}
        elif stage != "tiab" and "include" in decisions:  # a report sought: past title/abstract
            got = {"tiab": ("include", ""), **got}
        i = col.get("note", -1)
        cell = cells[i] if 0 <= i < len(cells) else ""  # its lines as written
        note, notes_by = split_note_lines(cell.splitlines())
        if got or note or notes_by:
            out[f"row {n}"] = Marks(got, note, {}, {}, {}, notes_by=notes_by)
    return out
