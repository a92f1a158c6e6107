"""The text the structured full-text formats (GROBID TEI, JATS) give, on the real files of
../shared/data/sources/fulltext: what a researcher reads in the detail pane, in passages and in
the answers that cite them."""

from __future__ import annotations

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.fulltext import read_tei

FULLTEXT = shared_data_dir() / "sources" / "fulltext"


def test_a_tei_venue_is_the_journal_not_its_name_and_abbreviation() -> None:
    (rec,) = read_tei(FULLTEXT / "grobid-tei" / "jner-2016_multi-contact-FES.grobid-0.6.1.tei.xml")
    assert isinstance(rec, SourceRecord)
    assert rec.venue == "Journal of NeuroEngineering and Rehabilitation"
