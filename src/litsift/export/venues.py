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
_JOURNALS = {"TACL", "JMLR", "TMLR", "TPAMI", "PAMI", "JAIR", "CL"}
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


def venue_of(record: Paper) -> Venue:
    """Classify a paper's venue: a known or conference-like one gives ``inproceedings``, a
    journal-like one ``article``; rejected/withdrawn submissions and no venue give ``misc``.
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
    if key in _JOURNALS or _JOURNAL_RE.search(venue):
        return Venue("article", container=venue, short=f"{venue}{when}")
    if key in KNOWN_VENUES or _CONF_RE.search(venue) or _ACRONYM_RE.match(venue):
        if status == "findings" and key in _ACL_FAMILY:
            findings = f"Findings of the Association for Computational Linguistics: {venue}{when}"
            return Venue("inproceedings", container=findings, short=f"Findings of {venue}{when}")
        return Venue("inproceedings", KNOWN_VENUES.get(key, venue), short=f"{venue}{when}")
    return Venue("misc", short=f"{venue}{when}", note=venue)


__all__ = ["KNOWN_VENUES", "Venue", "venue_of"]
