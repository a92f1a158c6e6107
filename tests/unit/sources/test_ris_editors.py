"""Which RIS tags name a record's editors (they were never read: an edited book imported from
RIS had no names at all, a chapter no editors).

The RIS specification (RefMan / Thomson Reuters 2011, its reference type tables) names the
editor per type: ``A2`` of a chapter (``CHAP``), a conference paper or proceedings (``CPAPER``,
``CONF``), a dictionary or encyclopedia entry; ``A3`` of a whole book (``BOOK``, whose ``A2`` is
its series editor); ``AU`` of an edited book (``EDBOOK``); the older tag ``ED`` is the editor of
any type. Zotero's RIS translator (zotero/translators, ``RIS.js``, ``fieldMap``) writes them
the same way (``A2`` editor of a ``bookSection`` / ``conferencePaper``, ``A3`` editor and ``A2``
series editor of a ``book``) and reads ``ED`` as the editor of any type. No export in
../shared/data holds an editor in RIS, so the records below are written as those tools write
them; the real Ovid PsycINFO export shows that a journal article's ``A2`` is no editor there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.ris import read_ris
from litsift.sources.identity.matcher import work_key

OVID = (
    shared_data_dir()
    / "sources"
    / "reference-managers"
    / "ris"
    / "asreview_ovid-psycinfo-export.ris"
)

#: a book as Zotero exports it (A3 its editors, A2 its series editor), a chapter (A2 its
#: book's editors, A3 the series editor), an edited book as the specification has it (AU its
#: editors), a journal article with the ED tag
ZOTERO_LIKE = """TY  - BOOK
TI  - The Social Psychology of Power
A3  - Guinote, Ana
A3  - Vescio, Theresa K.
A2  - Higgins, E. Tory
PY  - 2010
PB  - Guilford Press
ER  -

TY  - CHAP
TI  - An Embedded-Processes Model of Working Memory
AU  - Cowan, Nelson
A2  - Miyake, Akira
A2  - Shah, Priti
A3  - Series, Sam
T2  - Models of Working Memory
PY  - 1999
ER  -

TY  - EDBOOK
TI  - Ecology and Power
AU  - Hornborg, Alf
AU  - Clark, Brett
PY  - 2012
ER  -

TY  - JOUR
TI  - Statistical Reporting Errors and Collaboration on Statistical Analyses
AU  - Veldkamp, Coosje L. S.
ED  - Courvoisier, Delphine Sophie
PY  - 2014
ER  -
"""


def _records(path: Path) -> list[SourceRecord]:
    return [r for r in read_ris(path) if isinstance(r, SourceRecord)]


def test_editor_tags_are_read_by_reference_type(tmp_path: Path) -> None:
    path = tmp_path / "zotero.ris"
    path.write_text(ZOTERO_LIKE, "utf-8")
    book, chapter, edited, article = _records(path)
    assert (book.authors, book.editors) == ([], ["Ana Guinote", "Theresa K. Vescio"])
    assert book.editor_parts == [("Guinote", "Ana"), ("Vescio", "Theresa K.")]
    assert (chapter.authors, chapter.editors) == (["Nelson Cowan"], ["Akira Miyake", "Priti Shah"])
    # an edited book's AU are its editors, and stay its identity, as when read as authors
    assert (edited.authors, edited.editors) == ([], ["Alf Hornborg", "Brett Clark"])
    assert work_key(edited.title, edited.authors, 2012, edited.family_names) == work_key(
        edited.title, ["Alf Hornborg", "Brett Clark"], 2012
    )
    assert (article.authors, article.editors) == (
        ["Coosje L. S. Veldkamp"],
        ["Delphine Sophie Courvoisier"],
    )


@pytest.mark.skipif(not OVID.is_file(), reason=f"{OVID} not here")
def test_a_journal_articles_a2_is_no_editor() -> None:
    """Ovid's PsycINFO export writes a list of family names in a ``JOUR``'s ``A2`` (record 2:
    ``A2  - Andres, Bucchianeri, Buote, ...``): no editors."""
    records = _records(OVID)
    assert len(records) > 2 and records[1].authors[0] == "Ines A Trindade"
    assert [r.editors for r in records if r.editors] == []
