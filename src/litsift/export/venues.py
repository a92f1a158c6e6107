"""Where a paper appeared, as the export formats need it: the BibTeX entry type, the
proceedings or journal title, the RIS and CSL types, a short form and a note for rejected or
withdrawn submissions (:func:`venue_of`), from the stored venue and status.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from litsift.types import Paper

#: Full proceedings names of venues known by acronym (the sample corpus's venues and kin).
KNOWN_VENUES: dict[str, str] = {
    "NEURIPS": "Advances in Neural Information Processing Systems",
    "NIPS": "Advances in Neural Information Processing Systems",
    "ICML": "Proceedings of the International Conference on Machine Learning",
    "ICLR": "International Conference on Learning Representations",
    "ACL": "Proceedings of the Annual Meeting of the Association for Computational Linguistics",
    "NAACL": "Proceedings of the Conference of the North American Chapter of the "
    "Association for Computational Linguistics",
    "EMNLP": "Proceedings of the Conference on Empirical Methods in Natural Language Processing",
    "COLING": "Proceedings of the International Conference on Computational Linguistics",
    "COLM": "Conference on Language Modeling",
}
#: Journals known by an acronym or a short word (upper-case in Web of Science exports), which
#: the acronym rule below would take for conferences.
_JOURNALS = {
    "TACL", "JMLR", "TMLR", "TPAMI", "PAMI", "JAIR", "CL", "AIJ", "JACM", "CACM", "CORR",
    "BMJ", "JAMA", "NEJM", "CMAJ", "PNAS", "PEERJ", "ELIFE", "AMBIO", "NATURE", "SCIENCE",
    "CELL", "BLOOD", "LANCET", "PMLA",
}  # fmt: skip
#: Conferences known by an acronym longer than :data:`_ACRONYM_LETTERS`.
_LONG_ACRONYMS = {"INTERSPEECH", "EUROSPEECH", "SIGGRAPH", "SIGMETRICS", "SIGCOMM", "INFOCOM"}
#: An upper-case word of more letters is a journal's title in Web of Science's upper case
#: (``BIOCHEMISTRY``, ``SUSTAINABILITY``), not a conference's acronym.
_ACRONYM_LETTERS = 7
#: Journals whose title starts like a conference's proceedings
_JOURNAL_PROCEEDINGS_RE = re.compile(
    r"^proceedings(?: of the)? (?:national academy|royal society|ieee\s*$|ire\s*$|"
    r"vldb endowment|acm on )|^proceedings[:.] (?:biological|mathematical)",
    re.I,
)
#: a conference's acronym and year inside a proceedings title (``..., IDA 2023``, ``ICL2018``),
#: or a year first (IEEE's ``2012 SC Companion: ...``)
_ACRONYM_YEAR_RE = re.compile(
    r"(?:^|[\s,(])[A-Z][A-Za-z]*[A-Z]\s?'?(?:19|20)\d{2}\b|^(?:19|20)\d{2} [A-Z0-9]"
)
_UNPUBLISHED = {"reject", "rejected", "withdraw", "withdrawn", "desk reject", "active"}
_ACL_FAMILY = {"ACL", "NAACL", "EMNLP", "EACL", "AACL"}
_CONF_RE = re.compile(r"\b(conference|proceedings|symposium|workshop|meeting|congress)\b", re.I)
_JOURNAL_RE = re.compile(r"\b(journal|transactions|letters|review|magazine)\b", re.I)
_ACRONYM_RE = re.compile(r"^[A-Z][A-Za-z&-]*[A-Z](?:\s*'?\d{2,4})?$")


@dataclass(frozen=True)
class Venue:
    """Where a record appeared, as each format needs it.

    Attributes:
        bibtex_type: ``inproceedings``, ``article`` or ``misc``.
        container: proceedings or journal title (empty for ``misc``).
        short: a short form for Markdown (``"ACL 2021"``, ``"Submitted to ICLR 2018"``).
        note: a note field (``"Submitted to ICLR 2018"`` for rejected submissions).
        unpublished: a rejected or withdrawn submission.
    """

    bibtex_type: Literal["inproceedings", "article", "misc"]
    container: str = ""
    short: str = ""
    note: str = ""
    unpublished: bool = False

    @property
    def csl_type(self) -> str:
        """The CSL item type (``paper-conference``, ``article-journal``, ``manuscript``...)."""
        if self.bibtex_type == "inproceedings":
            return "paper-conference"
        if self.bibtex_type == "article":
            return "article-journal"
        return "manuscript" if self.note else "article"

    @property
    def ris_type(self) -> str:
        """The RIS reference type: ``CONF``, ``JOUR`` (also a venue of unknown kind: a
        ``T2`` is read as the journal), ``UNPB`` (rejected or withdrawn submissions) or
        ``GEN`` (no venue)."""
        if self.unpublished:
            return "UNPB"
        return {"inproceedings": "CONF", "article": "JOUR"}.get(
            self.bibtex_type, "JOUR" if self.note else "GEN"
        )


def _is_acronym(venue: str) -> bool:
    """``ACL``, ``ICLR 2018``, ``INTERSPEECH``: not ``BIOCHEMISTRY`` nor ``TECHTRENDS``."""
    if not _ACRONYM_RE.match(venue):
        return False
    word = re.sub(r"[^A-Za-z]", "", venue)
    return len(word) <= _ACRONYM_LETTERS or word.upper() in _LONG_ACRONYMS


def venue_of(record: Paper) -> Venue:
    """Classify a paper's venue: a journal-like one gives ``article`` (``Journal of ...``,
    ``BMJ``, ``Proceedings of the National Academy of Sciences``), a known or conference-like
    one ``inproceedings`` (``Proceedings of ...``, ``ACL``, ``..., IDA 2023``); rejected or
    withdrawn submissions, no venue and a venue of unknown kind give ``misc`` (RIS: ``UNPB``,
    ``GEN``, and ``JOUR`` for a venue of unknown kind, which is most often a journal's title).
    """
    venue, year = " ".join(record.venue.split()), record.year
    when = f" {year}" if year else ""
    if not venue:
        return Venue("misc")
    status = record.status.strip().lower()
    if status in _UNPUBLISHED:
        note = f"Submitted to {venue}{when}"
        return Venue("misc", short=note, note=note, unpublished=True)
    key = venue.upper()
    if key in _JOURNALS or _JOURNAL_RE.search(venue) or _JOURNAL_PROCEEDINGS_RE.search(venue):
        return Venue("article", container=venue, short=f"{venue}{when}")
    if (
        key in KNOWN_VENUES
        or _CONF_RE.search(venue)
        or _is_acronym(venue)
        or _ACRONYM_YEAR_RE.search(venue)
    ):
        if status == "findings" and key in _ACL_FAMILY:
            findings = f"Findings of the Association for Computational Linguistics: {venue}{when}"
            return Venue("inproceedings", container=findings, short=f"Findings of {venue}{when}")
        return Venue("inproceedings", KNOWN_VENUES.get(key, venue), short=f"{venue}{when}")
    return Venue("misc", short=f"{venue}{when}", note=venue)


__all__ = ["KNOWN_VENUES", "Venue", "venue_of"]
