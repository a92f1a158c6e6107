"""The screening work a Rayyan export carries in each record's notes field (CSV ``notes``, RIS
``N1``, BibTeX ``note``), read as decisions, exclusion reasons, labels and notes.

Rayyan (Ouzzani et al., Syst Rev 2016;5:210) writes a record's work as ``KEY: value`` parts
joined by ``" | "``, after any note the record was imported with::

    RAYYAN-INCLUSION: {"Kofi"=>"Included", "Ama"=>"Maybe"} | RAYYAN-LABELS: ML,Hospital |
    RAYYAN-EXCLUSION-REASONS: wrong population,foreign language |
    USER-NOTES: {"Kofi"=>["check later"]}

* ``RAYYAN-INCLUSION``: each reviewer's decision (a Ruby hash: ``Included`` / ``Excluded`` /
  ``Maybe``), read as that reviewer's title/abstract vote ``include`` / ``exclude`` /
  ``maybe``;
* ``RAYYAN-EXCLUSION-REASONS``: the record's exclusion reasons, comma-separated (Rayyan keeps
  them per record, not per reviewer: an exclude takes the first);
* ``RAYYAN-LABELS``: the record's labels, comma-separated (tags, and a ``Labels:`` line of
  its review note);
* ``USER-NOTES``: each reviewer's notes (``{"Kofi"=>["a", "b"]}``), read as ``Kofi: a``.

:func:`rayyan_notes` reads a notes text; :func:`litsift.sources.formats.ris_review.rayyan_marks`
gives a review what :func:`~litsift.sources.formats.ris_review.review_marks` gives of
litsift's own export.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["RayyanNotes", "has_rayyan_notes", "rayyan_notes"]

#: the parts Rayyan writes; a part starts after ``" | "`` (or the text's start) with its key
_KEYS = ("RAYYAN-INCLUSION", "RAYYAN-EXCLUSION-REASONS", "RAYYAN-LABELS", "USER-NOTES")
_PART_RE = re.compile(r"(?:^|\s*\|\s*)(?=(?:" + "|".join(_KEYS) + r"):)")
#: Rayyan's decision words -> litsift's decisions
DECISIONS = {"included": "include", "excluded": "exclude", "maybe": "maybe"}
#: a Ruby string literal, a ``=>``, or a bracket / brace / comma of a Ruby hash's inspect
_TOKEN_RE = re.compile(r'"((?:[^"\\]|\\.)*)"|=>|[\[\]{},]')
_ESCAPES = {"n": "\n", "t": " ", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class RayyanNotes:
    """One record's Rayyan markup: ``votes`` = ``{reviewer: decision}`` (``include``,
    ``exclude``, ``maybe``), ``reasons`` and ``labels`` in the order written, ``notes`` =
    ``["Kofi: check later", ...]``, and ``other``: the text before the markup (the note the
    record was imported into Rayyan with), or a part litsift does not know."""

    votes: dict[str, str] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)

    def note_lines(self, labels: bool = True) -> list[str]:
        """The readable note: the other text, each reviewer's note, the labels (``Labels: a,
        b``) and, when the record lists several, the exclusion reasons (an exclude keeps the
        first as its reason)."""
        lines = [*self.other, *self.notes]
        if labels and self.labels:
            lines.append("Labels: " + ", ".join(self.labels))
        if len(self.reasons) > 1:
            lines.append("Exclusion reasons: " + ", ".join(self.reasons))
        return lines


def has_rayyan_notes(text: str) -> bool:
    """Whether ``text`` holds a Rayyan markup part (``RAYYAN-INCLUSION: ...``, ...)."""
    return any(f"{key}:" in text for key in _KEYS)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], m[1]), text)


def _ruby_hash(text: str) -> dict[str, list[str]]:
    """``{key: [values]}`` of a Ruby hash's ``inspect`` (``{"a"=>"x", "b"=>["y", "z"]}``);
    tolerant of lost braces (a BibTeX reader may drop them) and of anything unparsable."""
    out: dict[str, list[str]] = {}
    key: str | None = None
    after_arrow = in_list = False
    for m in _TOKEN_RE.finditer(text):
        tok = m[0]
        if m[1] is not None or tok == '""':
            value = _unescape(m[1] or "")
            if after_arrow and key is not None:
                out.setdefault(key, []).append(value)
                after_arrow = in_list
            else:
                key = value
        elif tok == "=>":
            after_arrow = key is not None
        elif tok == "[":
            in_list = after_arrow
        elif tok == "]":
            in_list = after_arrow = False
        elif tok == "," and not in_list:
            after_arrow = False
    return out


def _split_list(text: str) -> list[str]:
    return list(dict.fromkeys(p for p in (" ".join(x.split()) for x in text.split(",")) if p))


def rayyan_notes(text: str) -> RayyanNotes | None:
    """The Rayyan markup of one record's notes ``text``; None when it holds none."""
    if not text or not has_rayyan_notes(text):
        return None
    got = RayyanNotes()
    for part in _PART_RE.split(text):
        key, _, value = part.partition(":")
        key, value = key.strip(), value.strip()
        if key == "RAYYAN-INCLUSION":
            for who, said in _ruby_hash(value).items():
                decision = DECISIONS.get(said[-1].strip().lower()) if said else None
                if decision and who.strip():
                    got.votes[" ".join(who.split())] = decision
        elif key == "RAYYAN-EXCLUSION-REASONS":
            got.reasons.extend(r for r in _split_list(value) if r not in got.reasons)
        elif key == "RAYYAN-LABELS":
            got.labels.extend(r for r in _split_list(value) if r not in got.labels)
        elif key == "USER-NOTES":
            for who, notes in _ruby_hash(value).items():
                name = " ".join(who.split())
                got.notes.extend(f"{name}: {n.strip()}" for n in notes if n.strip())
        elif " ".join(part.split()):
            got.other.append(" ".join(part.split()))
    return got
