"""A generic type (BibTeX ``@misc``, RIS ``GEN``: ``document``) gives way to a more specific
type another source gives of the same paper, as a preprint's does to the published
version's; a specific type, or a preprint's, never gives way to a generic one.

The merge kept every stored type but a preprint's, so what a paper ended up typed depended on
the order its files were imported in: one Zotero library exported as Better BibTeX (a
``webpage``, ``dataset`` or ``computerProgram`` item is an ``@misc``) and as CSL-JSON (its
``webpage``, ``dataset``, ``book``) stored ``document`` for those items when the BibTeX came
first, the specific type when the CSL-JSON did; and a CSL ``article`` (Zotero's
``document`` item, taken for a preprint) stored first became ``document`` once the BibTeX
came.

Data: ``thesis-psychology_zotero-bbt-export.bib`` and ``thesis-psychology_zotero-csl-json-
export.json`` of ``../shared/data/sources/reference-managers`` (one Zotero library's two
exports; see its README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.importer import import_paths
from litsift.store import Store
from litsift.store.biblio import GENERIC_TYPE, PREPRINT_TYPE, Biblio, biblio_of
from litsift.types import Kind

REFS = shared_data_dir() / "sources" / "reference-managers"
BIB = REFS / "bibtex" / "thesis-psychology_zotero-bbt-export.bib"
CSL = REFS / "csl-json" / "thesis-psychology_zotero-csl-json-export.json"

#: papers the BibTeX export types ``@misc`` and the CSL-JSON export types otherwise (read
#: out of the two files), with the type stored whichever file comes first
EXPECTED = {
    "General Social Survey, 2000: Version 3": "dataset",
    "The Nature of Human Altruism": "webpage",
    "Human Wagering Behavior Depends on Opponents' Faces": "webpage",
    "R: A Language and Environment for Statistical Computing": "book",
    "Sexually Transmitted Disease Surveillance 2017": PREPRINT_TYPE,
}


def _types(tmp_path: Path, order: list[Path]) -> dict[str, str]:
    """``{doc_id: type}`` of the papers stored from the files of ``order``, in that order,
    and ``{title, case folded: type}`` under the same keys."""
    with Store(tmp_path / f"{order[0].suffix}.db") as store:
        for path in order:
            assert import_paths(store, [path], Kind.PAPER).ok
        titles = dict(store._conn.execute("SELECT id, title FROM papers"))
        types = {i: b.type for i, b in biblio_of(store._conn, list(titles)).items()}
    return types | {str(titles[i]).casefold(): kind for i, kind in types.items()}


def test_a_generic_type_gives_way_whichever_file_comes_first(tmp_path: Path) -> None:
    for path in (BIB, CSL):
        if not path.is_file():
            pytest.skip(f"{path} not here")
    bib_first = _types(tmp_path, [BIB, CSL])
    csl_first = _types(tmp_path, [CSL, BIB])
    for title, kind in EXPECTED.items():
        got = (bib_first[title.casefold()], csl_first[title.casefold()])
        assert got == (kind, kind), title
    both = [i for i in bib_first if i.startswith(("doi:", "key:")) and i in csl_first]
    assert len(both) > 500
    # no paper is generic in one order and given a type in the other
    pairs = {(bib_first[i], csl_first[i]) for i in both}
    assert not [p for p in pairs if GENERIC_TYPE in p and p != (GENERIC_TYPE, GENERIC_TYPE)]


@pytest.mark.parametrize(
    ("stored", "other", "merged"),
    [
        (GENERIC_TYPE, "dataset", "dataset"),
        (GENERIC_TYPE, PREPRINT_TYPE, PREPRINT_TYPE),
        (PREPRINT_TYPE, "article-journal", "article-journal"),
        (PREPRINT_TYPE, GENERIC_TYPE, PREPRINT_TYPE),
        ("dataset", GENERIC_TYPE, "dataset"),
        ("thesis", "report", "thesis"),
        ("", GENERIC_TYPE, GENERIC_TYPE),
        (GENERIC_TYPE, "", GENERIC_TYPE),
    ],
)
def test_a_type_gives_way_only_to_one_that_tells_more(stored: str, other: str, merged: str) -> None:
    got = Biblio(type=stored, volume="3").filled_from(Biblio(type=other, pages="1-9"))
    assert (got.type, got.volume, got.pages) == (merged, "3", "1-9")
