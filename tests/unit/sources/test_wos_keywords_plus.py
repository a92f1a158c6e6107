"""Web of Science's Keywords Plus (its own index terms: ``ID`` in the plain-text export,
``Keywords-Plus`` in its BibTeX) are keywords after the authors' (``DE``, ``Keywords``), each
once: an upper-case Keywords Plus term that repeats an author keyword (``BIG DATA`` after
``big data``) is not added again. File: a real WoS plain-text export of ``../shared/data``.
"""

from __future__ import annotations

from pathlib import Path

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.bibtex import read_bibtex
from litsift.sources.formats.ris import read_wos

WOS_TXT = (
    shared_data_dir()
    / "sources"
    / "reference-managers"
    / "database-exports"
    / "calcore_web-of-science-plaintext-c3-we.txt"
)


def _by_key(items: object) -> dict[str, SourceRecord]:
    return {r.source_key: r for r in items if isinstance(r, SourceRecord)}  # type: ignore[attr-defined]


def test_wos_plain_text_keywords_plus_follow_the_author_keywords() -> None:
    records = _by_key(read_wos(WOS_TXT))
    # DE big data; data science/education; nursing research / ID DATA SCIENCE; BIG DATA
    arcus = records["WOS:001299313200011"]
    assert arcus.tags == ["big data", "data science/education", "nursing research", "DATA SCIENCE"]
    # a record with Keywords Plus only (``ID TOOLS``)
    assert records["WOS:000538053200019"].tags == ["TOOLS"]
    assert sum(1 for r in records.values() if r.tags) == 127


def test_wos_bibtex_keywords_plus_follow_the_author_keywords(tmp_path: Path) -> None:
    """The same record as WoS writes it in BibTeX (its field names; the values of the
    plain-text record above, which the repository has no BibTeX export of)."""
    bib = tmp_path / "savedrecs.bib"
    bib.write_text(
        "@article{ WOS:001299313200011,\n"
        "Title = {{The Arcus Experience}},\n"
        "Journal = {{NURSING RESEARCH}},\n"
        "Keywords = {big data; data science/education; nursing research},\n"
        "Keywords-Plus = {DATA SCIENCE; BIG DATA},\n"
        "Unique-ID = {WOS:001299313200011},\n"
        "}\n",
        encoding="utf-8",
    )
    (record,) = _by_key(read_bibtex(bib)).values()
    assert record.tags == ["big data", "data science/education", "nursing research", "DATA SCIENCE"]
