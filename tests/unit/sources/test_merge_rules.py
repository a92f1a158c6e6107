"""Merge rules (issue 27, item 7) on real exports of ../shared/data/sources.

An identifier shared by clearly different titles is a conflict, not a merge; the title rule
keeps apart titles that differ in a number, an ordinal, a part word or a short token; a merge
never replaces the stored people; re-importing a file is idempotent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.bibtex import read_bibtex
from litsift.sources.identity.matcher import IdentityIndex
from litsift.sources.importer import import_paths, plan
from litsift.sources.writer import merge_fields
from litsift.store import Store
from litsift.types import Kind

REFS = shared_data_dir() / "sources" / "reference-managers"
BIB = REFS / "bibtex"
NLP_BIB = BIB / "thesis-nlp_acl-anthology-heavy.bib"
PSY_BIB = BIB / "thesis-psychology_zotero-bbt-export.bib"


def _records(path: Path) -> dict[str, SourceRecord]:
    return {r.location: r for r in read_bibtex(path) if isinstance(r, SourceRecord)}


def _authors(store: Store, doc_id: str) -> list[str]:
    row = store._conn.execute("SELECT authors FROM papers WHERE id = ?", (doc_id,)).fetchone()
    assert row is not None, doc_id
    return list(json.loads(row[0]))


# ------------------------------------------------------------------ identifier conflicts


def test_identifier_shared_by_clearly_different_titles_is_a_conflict(tmp_path: Path) -> None:
    """Three real exports hold a DOI on two different works: a chapter and its book
    (fiske2018 / fiske2018a), a DOI pasted into the wrong entry (Furnham1991 carries the DOI of
    "Herd behavior in purchasing books online"), two chapters of one edited book (bbt-2660)."""
    files = [
        PSY_BIB,
        BIB / "bbt_mendeley-export_duplicate-keys.bib",
        BIB / "bbt-2660_plus-in-field-name.bib",
    ]
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, files)
        titles = {t for (t,) in store._conn.execute("SELECT title FROM papers")}
        conflicts = report.to_json()["conflicts"]
        book_authors = _authors(store, "doi:10.4324/9781315187280")
    for title in (
        "Controlling Other People: The Impact of Power on Stereotyping",
        "Social Cognition: Selected Works of Susan t. Fiske",
        "The Art of Book Reviewing",
        "Herd behavior in purchasing books online",
        "The Complete Social Scientist",
        "Group Decision and Social Change",
    ):
        assert title in titles, title  # both works of each pair are kept
    by_entry = {c["entry"].split(".bib:", 1)[1]: c for c in conflicts}
    assert by_entry["entry fiske2018a"]["id"] == "doi:10.4324/9781315187280"
    assert by_entry["entry Furnham1991"]["with"] == "doi:10.1080/0309877910150304"
    assert by_entry["entry 10.3:46"]["id"] == "doi:10.1037/10319-000"
    assert all(c["title_score"] < 60 for c in conflicts)
    assert len(conflicts) == 3
    assert book_authors == ["S.T. Fiske"]  # the chapter's people stay its own


def test_conflict_threshold_lies_in_the_gap_of_real_identifier_sharing_pairs() -> None:
    """Every pair of entries of the reference-manager exports that shares a DOI scores either
    >= 98 (one work) or < 50 (two works) on token_set_ratio: the threshold 60 is in the gap."""
    from rapidfuzz import fuzz

    from litsift.sources.identity.matcher import ID_CONFLICT_MAX_RATIO, title_key

    todo = plan([BIB, REFS / "csl-json"], Kind.PAPER)[0]
    by_doi: dict[str, list[str]] = {}
    for path, fmt in todo:
        for item in fmt.read(path):
            if isinstance(item, SourceRecord) and item.ids.get("doi") and item.title.strip():
                by_doi.setdefault(item.ids["doi"], []).append(title_key(item.title))
    scores = [
        fuzz.token_set_ratio(a, b)
        for keys in by_doi.values()
        for i, a in enumerate(keys)
        for b in keys[i + 1 :]
    ]
    assert len(scores) > 500
    low = [s for s in scores if s < ID_CONFLICT_MAX_RATIO]
    assert len(low) >= 3 and max(low) < 50
    assert min(s for s in scores if s >= ID_CONFLICT_MAX_RATIO) >= 98


# ------------------------------------------------------------------ the title rule


def test_title_rule_keeps_numbered_findings_papers_apart_on_a_real_bibliography() -> None:
    """The WMT findings papers of an ACL thesis bibliography differ only in their year and
    edition number; matched blind (no identifiers, title + first author + year) they stay
    apart, while the three entries of one paper (cho2014GRU) still merge."""
    recs = _records(NLP_BIB)
    index = IdentityIndex()
    cluster: dict[str, str] = {}
    for loc, rec in recs.items():
        match = index.match(rec.title, rec.authors, rec.year, {})
        if match is None:
            index.add(loc, rec.title, rec.authors, rec.year, {})
            cluster[loc] = loc
        else:
            cluster[loc] = match.doc_id
    for a, b in [
        ("bojar-etal-2013-findings", "bojar-etal-2014-findings"),
        ("bojar-etal-2017-findings", "bojar-etal-2018-findings"),
        ("barrault-etal-2019-findings", "barrault-etal-2020-findings"),
    ]:
        assert cluster[f"entry {a}"] != cluster[f"entry {b}"], (a, b)
    assert cluster["entry cho2014GRU (2nd)"] == cluster["entry cho2014GRU"]


def test_import_keeps_each_findings_paper_with_its_own_authors(tmp_path: Path) -> None:
    """Imported for real, WMT 2013 (ACL id, no DOI) used to absorb WMT 2014 and take its
    longer author list; now each keeps its own row and people."""
    recs = _records(NLP_BIB)
    with Store(tmp_path / "s.db") as store:
        import_paths(store, [NLP_BIB])
        assert _authors(store, "acl:W13-2201") == recs["entry bojar-etal-2013-findings"].authors
        assert _authors(store, "acl:W19-5301") == recs["entry barrault-etal-2019-findings"].authors
        assert store.get(Kind.PAPER, "doi:10.3115/v1/w14-3302") is not None


STORED = "A branch-and-cut algorithm for the ATSP with time windows"


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        (STORED, "A branch-and-cut algorithm for the STSP with time windows"),
        (
            "2012 IEEE Congress on Evolutionary Computation (CEC 2012), Proceedings",
            "2013 IEEE Congress on Evolutionary Computation (CEC 2013), Proceedings",
        ),
        (
            "Proceedings of the 37th International Conference on Machine Learning",
            "Proceedings of the 38th International Conference on Machine Learning",
        ),
        (
            "Handbook of Natural Language Processing and Machine Translation, Part I",
            "Handbook of Natural Language Processing and Machine Translation, Part II",
        ),
        (
            "Proceedings of the Second Workshop on Statistical Machine Translation",
            "Proceedings of the Third Workshop on Statistical Machine Translation",
        ),
        (
            "Higher-Dimensional Algebra V: 2-Groups and their categorification",
            "Higher-Dimensional Algebra VI: 2-Groups and their categorification",
        ),
        (
            "Analyzing the growth of InGaN/GaN superlattices in self-induced nanowires",
            "Erratum: Analyzing the growth of InGaN/GaN superlattices in self-induced nanowires",
        ),
    ],
)
def test_title_rule_needs_the_same_numbers_and_distinguishing_words(
    stored: str, incoming: str
) -> None:
    index = IdentityIndex()
    index.add("stored", stored, ["Gerhard Reinelt"], 2012, {})
    assert index.match(incoming, ["Gerhard Reinelt"], 2013, {}) is None


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        (
            "Nature Tourism, Conservation, and Development in KwaZulu Natal, South Africa",
            "Nature Tourism, Conservation, and Development in KwaZulu-Natal, South Africa",
        ),
        (
            "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
            "BERT: Pretraining of deep bidirectional transformers for language understanding",
        ),
        (
            "Hidden Surface States at Non-Polar GaN (10-10) Facets: Intrinsic Pinning of Nanowires",
            "Hidden Surface States at Non-Polar GaN (1010) Facets: Intrinsic Pinning of Nanowires",
        ),
        (
            "Extracting a Biologically Relevant Latent Space from Cancer Transcriptomes",
            "Extracting a biologically relevant latent space from cancer transcriptomes with VAEs",
        ),
    ],
)
def test_title_rule_still_merges_renderings_of_one_title(stored: str, incoming: str) -> None:
    index = IdentityIndex()
    index.add("stored", stored, ["Jacob Devlin"], 2018, {})
    match = index.match(incoming, ["Jacob Devlin"], 2019, {})
    assert match is not None and match.doc_id == "stored"


# ------------------------------------------------------------------ people


def test_person_names_in_every_export_form_are_one_person() -> None:
    from litsift.sources.identity.person_keys import person_key, same_persons

    assert person_key("{Yarin Gal}") == person_key("Gal, Yarin") == ("gal", "y")
    assert same_persons(["{Yarin Gal}", "Zoubin Ghahramani"], ["Gal, Yarin", "Ghahramani, Z."])
    assert not same_persons(["Gal, Yarin"], ["Gal, Yarin", "Ghahramani, Zoubin"])
    # Scopus since ~2023 and PubMed write initials after the family name
    assert person_key("Unnikrishnan M.A.") == person_key("Unnikrishnan, M. A.")
    assert person_key("Phillips JC") == ("phillips", "j")
    assert person_key("Barker, Jr., A. S.")[0] == person_key("A. S. Barker Jr.")[0] == "barker"
    assert person_key("{de Vries}, Jan")[0] == person_key("Jan de Vries")[0]


def test_scopus_initials_after_the_family_name_match_the_stored_paper() -> None:
    index = IdentityIndex()
    title = "Friction stir welding of AA6061 aluminium alloy plates: a parametric study"
    index.add("stored", title, ["Unnikrishnan, M. A.", "Edwin Raja Dhas, J."], 2019, {})
    match = index.match(title + ".", ["Unnikrishnan M.A.", "Edwin Raja Dhas J."], 2019, {})
    assert match is not None and match.doc_id == "stored"


_PEOPLE = [
    ("Yarin", "Gal"),
    ("Zoubin", "Ghahramani"),
    ("Laurens", "van der Maaten"),
    ("Geoffrey", "Hinton"),
    ("Ondřej", "Bojar"),
    ("Marta R.", "Costa-jussà"),
]


def _render(person: tuple[str, str], form: int) -> str:
    given, family = person
    return [
        f"{given} {family}",
        f"{family}, {given}",
        f"{{{given} {family}}}",
        f"{family}, {given[0]}.",
        f"{given[0]}. {family}",
    ][form]


_author_list = st.lists(
    st.tuples(st.integers(0, len(_PEOPLE) - 1), st.integers(0, 4)), max_size=5
).map(lambda xs: [_render(_PEOPLE[p], f) for p, f in xs])


def _paper(authors: list[str]) -> dict[str, Any]:
    return {
        "id": "p",
        "title": "t",
        "abstract": "",
        "authors": authors,
        "year": 2020,
        "venue": "",
        "status": "",
        "url": "",
        "license": "",
    }


@settings(max_examples=300, deadline=None)
@given(stored=_author_list, other=_author_list, etal=st.booleans())
def test_merging_never_replaces_the_stored_people(
    stored: list[str], other: list[str], etal: bool
) -> None:
    """Whatever the lengths, a stored author list is kept name for name; it is only filled
    when empty or continued when it was cut short ("and others")."""
    if etal and stored:
        stored = [*stored, "others"]
    merged = merge_fields(_paper(stored), _paper(other))["authors"]
    kept = [a for a in stored if a != "others"]
    if not kept:
        assert merged == (other if other else stored)
        return
    assert merged[: len(kept)] == kept
    from litsift.sources.identity.person_keys import person_keys

    if merged != stored:  # continued: the stored people are the first of other's
        assert person_keys(merged) == person_keys(other)
        assert [k[0] for k in person_keys(kept)] == [k[0] for k in person_keys(other)][: len(kept)]


# ------------------------------------------------------------------ idempotence


def test_reimport_of_a_file_after_its_duplicate_merged_is_idempotent(tmp_path: Path) -> None:
    """A Zotero export braces a family name with a particle (``{van Kleef}, Gerben A.``); the
    source says the family name is "van Kleef", the stored author string reads "Gerben A. van
    Kleef". The matcher used the source's split while importing and the stored string when
    rebuilt, so a duplicate merged the first time was added as new the second time."""
    dup = tmp_path / "dup.bib"
    dup.write_text(
        "@article{vankleef2021,\n"
        "  title = {No Guts, No Glory? How Risk-Taking Shapes Dominance, Prestige, and "
        "Leadership Endorsement},\n"
        "  author = {{van Kleef}, Gerben A. and Heerdink, Marc W. and Cheshin, Arik},\n"
        "  year = {2021},\n"
        "  journal = {Journal of Applied Psychology},\n"
        "}\n",
        encoding="utf-8",
    )
    with Store(tmp_path / "s.db") as store:
        import_paths(store, [PSY_BIB])
        first = import_paths(store, [dup])
        assert (first.added, first.merged) == (0, 1)
        again = import_paths(store, [dup])
        assert (again.added, again.merged, again.updated, again.unchanged) == (0, 0, 0, 1)
        assert _authors(store, "doi:10.1037/apl0000868")[0] == "Gerben A. van Kleef"


def test_reimport_of_every_reference_manager_export_is_idempotent(tmp_path: Path) -> None:
    """All reference-manager exports into one store, then each file again on its own: nothing
    is added, merged or updated the second time."""
    with Store(tmp_path / "s.db") as store:
        first = import_paths(store, [REFS])
        assert first.added > 4000 and first.merged > 500
        todo = plan([REFS], Kind.PAPER)[0]
        for path, _fmt in todo:
            again = import_paths(store, [path])
            assert (again.added, again.merged, again.updated) == (0, 0, 0), (
                path.name,
                again.merges[:3],
            )
            assert again.unchanged == again.read - len(again.bad)


def test_dedup_lists_papers_sharing_a_doi_with_different_titles_as_conflicts(
    tmp_path: Path,
) -> None:
    """``litsift dedup`` over litsift JSONL rows whose links carry one DOI: the chapter and its
    book (titles from the real Zotero export) are a conflict, not a group; a second rendering
    of the book's title is merged."""
    from litsift.sources.dedup import find_duplicates
    from litsift.store import ingest_jsonl

    url = "https://doi.org/10.4324/9781315187280"
    rows = [
        ("key:chapter", "Controlling Other People: The Impact of Power on Stereotyping", url),
        ("key:book", "Social Cognition: Selected Works of Susan T. Fiske", url),
        ("key:book2", "Social cognition: selected works of Susan T. Fiske", ""),
    ]
    src = tmp_path / "p.jsonl"
    src.write_text(
        "".join(
            json.dumps({"id": i, "title": t, "authors": ["S. T. Fiske"], "year": 2018, "url": u})
            + "\n"
            for i, t, u in rows
        ),
        encoding="utf-8",
    )
    with Store(tmp_path / "s.db") as store:
        ingest_jsonl(store, Kind.PAPER, src)
        plan_ = find_duplicates(store).to_json()
    assert [(g["keep"]["id"], [m["id"] for m in g["merge"]]) for g in plan_["groups"]] == [
        ("key:book", ["key:book2"])
    ]
    assert [(c["id"], c["with"]) for c in plan_["conflicts"]] == [("key:book", "key:chapter")]
    assert plan_["conflicts"][0]["title_score"] < 60


def test_braced_literal_name_and_family_comma_given_are_one_first_author(tmp_path: Path) -> None:
    """``{Yarin Gal}`` (a BibTeX literal: the source's family name is "Yarin Gal") and
    ``Gal, Yarin`` are one person, so the two entries of the paper merge by title + first
    author + year."""
    bib = tmp_path / "gal.bib"
    bib.write_text(
        "@inproceedings{gal2016dropout,\n"
        "  title = {Dropout as a {Bayesian} Approximation: Representing Model Uncertainty in "
        "Deep Learning},\n"
        "  author = {{Yarin Gal} and {Zoubin Ghahramani}},\n"
        "  booktitle = {International Conference on Machine Learning},\n"
        "  year = {2016},\n"
        "}\n\n"
        "@article{gal2015dropout,\n"
        "  title = {Dropout as a Bayesian approximation: representing model uncertainty in "
        "deep learning.},\n"
        "  author = {Gal, Yarin and Ghahramani, Zoubin},\n"
        "  journal = {arXiv preprint},\n"
        "  year = {2015},\n"
        "}\n",
        encoding="utf-8",
    )
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, [bib])
        assert (report.added, report.merged) == (1, 1)
        assert store.count(Kind.PAPER) == 1
