"""The volumes, issues and parts of one series are not duplicates.

A real Scopus export of ``../shared/data/sources`` (``litstudy_scopus-export.csv``) holds the
front-matter records of Lecture Notes in Computer Science 6016, 6017, 6018 and 6019 (ICCSA
2010, parts 1-4): one title, no authors, one year, no DOI; only ``Volume`` / ``Issue`` (and
the Scopus EID in ``Link``) tell them apart. They were grouped as one record, so a review
screened 55 of the file's 58 records. A record's locator (volume, issue, first page, article
number, ISBN) now keeps apart two records whose locators differ, in every format that has
one, while the same work exported twice (different case, punctuation, ``6017 LNCS`` /
``6017``, ``PART 2`` / ``2``, fields missing) still groups.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.dedup import find_duplicates
from litsift.sources.identity.locators import locator, locator_conflict, locator_of_id
from litsift.sources.identity.matcher import IdentityIndex, title_key, titles_agree, work_key
from litsift.sources.importer import import_paths
from litsift.store import Store

EXPORTS = shared_data_dir() / "sources" / "reference-managers" / "database-exports"
SCOPUS = EXPORTS / "litstudy_scopus-export.csv"
ICCSA = "Computational Science and Its Applications - ICCSA 2010 - International Conference"

needs_scopus = pytest.mark.skipif(not SCOPUS.is_file(), reason=f"{SCOPUS} not here")


def _iccsa_rows() -> list[dict[str, str]]:
    """The four LNCS front-matter rows of the real export, as its header names the cells."""
    with SCOPUS.open(encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["Title"].startswith(ICCSA)]
    assert [r["Volume"] for r in rows] == ["6017 LNCS", "6019 LNCS", "6016 LNCS", "6018 LNCS"]
    return rows


def _docs_of(store: Store, path: Path) -> dict[str, str]:
    """location -> doc id of the entries of ``path``."""
    rows = store._conn.execute(
        "SELECT location, doc_id FROM provenance WHERE file = ?", (str(path),)
    ).fetchall()
    return {str(loc): str(doc) for loc, doc in rows}


def _cli(home: Path, *args: str) -> str:
    done = CliRunner().invoke(main, ["--home", str(home), *args])
    assert done.exit_code == 0, done.output
    return done.output


# ------------------------------------------------------------------ the reported file


@needs_scopus
def test_a_review_of_the_scopus_export_screens_every_lncs_volume(tmp_path: Path) -> None:
    """``review new`` of the real export: 58 records, none grouped (it was 3 grouped, 55)."""
    made = _cli(tmp_path / "home", "review", "new", "x", "--from", str(SCOPUS))
    assert "58 records identified in 1 file, 0 duplicates grouped, 58 to screen" in made
    shown = _cli(tmp_path / "home", "review", "show", "x")
    assert "groups of duplicates" not in shown


@needs_scopus
def test_the_four_volumes_are_four_papers_that_stay_apart(tmp_path: Path) -> None:
    """Imported, each volume is its own paper (its ``key:`` id names its volume and part);
    importing the file again changes nothing, and ``litsift dedup`` finds no group."""
    with Store(tmp_path / "s.db") as store:
        first = import_paths(store, [SCOPUS])
        assert (first.added, first.merged) == (58, 0)
        docs = _docs_of(store, SCOPUS)
        volumes = {docs[f"row {n}"] for n in (38, 39, 40, 41)}
        assert {locator_of_id(d)["volume"] for d in volumes} == {"6016", "6017", "6018", "6019"}
        again = import_paths(store, [SCOPUS])
        assert (again.added, again.merged, again.updated, again.unchanged) == (0, 0, 0, 58)
        assert _docs_of(store, SCOPUS) == docs
        assert find_duplicates(store).groups == []


def _as_ris(rows: list[dict[str, str]], volume: bool = True) -> str:
    """The rows as another database writes them: RIS, no link (no EID), ``VL  - 6017``,
    ``IS  - 2``, the title in another case."""
    out = []
    for r in rows:
        tags = [("TY", "CONF"), ("TI", r["Title"].upper()), ("PY", r["Year"])]
        tags.append(("T2", r["Source title"]))
        if volume:
            tags += [("VL", r["Volume"].split()[0]), ("IS", r["Issue"].split()[-1])]
        out.append("".join(f"{t}  - {v}\n" for t, v in tags) + "ER  - \n\n")
    return "".join(out)


def _as_bibtex(rows: list[dict[str, str]]) -> str:
    """The rows as a BibTeX export writes them: ``volume = {6017}``, no number, no link, the
    title braced and punctuated otherwise."""
    return "".join(
        f"@proceedings{{iccsa{i},\n  title = {{{{{r['Title'].replace(' - ', ': ')}}}}},\n"
        f"  series = {{LNCS}},\n  volume = {{{r['Volume'].split()[0]}}},\n"
        f"  year = {{{r['Year']}}},\n}}\n\n"
        for i, r in enumerate(rows)
    )


@needs_scopus
def test_the_volumes_from_other_databases_stay_apart_and_join_their_own(
    tmp_path: Path,
) -> None:
    """The same four records as RIS and as BibTeX, without the Scopus link (only the volume
    tells them apart): each file alone is four papers, and imported with the Scopus export
    each entry joins the Scopus record of its own volume (true duplicates still group)."""
    rows = _iccsa_rows()
    ris, bib = tmp_path / "iccsa.ris", tmp_path / "iccsa.bib"
    ris.write_text(_as_ris(rows), encoding="utf-8")
    bib.write_text(_as_bibtex(rows), encoding="utf-8")
    for path in (ris, bib):
        with Store(tmp_path / f"{path.suffix}.db") as store:
            report = import_paths(store, [path])
            assert (report.added, report.merged) == (4, 0), path.name
    with Store(tmp_path / "all.db") as store:
        import_paths(store, [SCOPUS])
        report = import_paths(store, [ris, bib])
        assert (report.added, report.merged) == (0, 8)
        scopus = _docs_of(store, SCOPUS)
        by_volume = {locator_of_id(scopus[f"row {n}"])["volume"]: scopus[f"row {n}"]
                     for n in (38, 39, 40, 41)}  # fmt: skip
        for path in (ris, bib):
            joined = sorted(_docs_of(store, path).items())
            volumes = [r["Volume"].split()[0] for r in rows]
            assert [doc for _, doc in joined] == [by_volume[v] for v in volumes], path.name


@needs_scopus
def test_a_record_without_a_volume_still_joins_one_of_them(tmp_path: Path) -> None:
    """A locator only one record gives says nothing: the title alone joins a stored one."""
    rows = _iccsa_rows()
    bare = tmp_path / "bare.ris"
    bare.write_text(_as_ris(rows[:1], volume=False), encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        import_paths(store, [SCOPUS])
        report = import_paths(store, [bare])
        assert (report.added, report.merged) == (0, 1)


@needs_scopus
def test_a_review_export_comes_back_with_every_volume(tmp_path: Path) -> None:
    """``review export --format ris`` then ``review new --from`` it, in another home and in
    the same one, without the links (the ``ID`` line's ``key:`` id carries the locator)."""
    home = tmp_path / "home"
    _cli(home, "review", "new", "x", "--from", str(SCOPUS))
    out = tmp_path / "x.ris"
    _cli(home, "review", "export", "x", "--format", "ris", "-o", str(out))
    bare = tmp_path / "bare.ris"
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    bare.write_text("".join(x for x in lines if not x.startswith("UR  - ")), encoding="utf-8")
    for where, name in ((tmp_path / "other", "y"), (home, "z")):
        made = _cli(where, "review", "new", name, "--from", str(bare))
        assert "58 records identified in 1 file, 0 duplicates grouped, 58 to screen" in made


# ------------------------------------------------------------------ the class of problem


_VOLUME_SPELLINGS = ("{n}", "{n} LNCS", "Vol. {n}", "vol {n}", "Volume {n}")
_ISSUE_SPELLINGS = ("{n}", "PART {n}", "Pt. {n}", "No. {n}", "Part {roman}")
_ROMAN = ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")


def _issue(n: int, form: int) -> str:
    return _ISSUE_SPELLINGS[form].format(n=n, roman=_ROMAN[n])


_titles = st.sampled_from(
    [
        ICCSA + ", Proceedings",
        "Editorial",
        "Abstracts of the Annual Meeting of the Society for Neuroscience",
        "Preface to the special issue on systematic reviews",
    ]
)
_authors = st.sampled_from([[], ["Gervasi, O."], ["Osvaldo Gervasi", "David Taniar"]])


@settings(max_examples=200, deadline=None)
@given(
    title=_titles,
    authors=_authors,
    year=st.sampled_from([None, 2010]),
    fact=st.sampled_from(["volume", "issue", "page"]),
    a=st.integers(1, 12),
    b=st.integers(1, 12),
    form_a=st.integers(0, 4),
    form_b=st.integers(0, 4),
)
def test_records_that_differ_only_in_volume_issue_or_page_never_group(
    title: str,
    authors: list[str],
    year: int | None,
    fact: str,
    a: int,
    b: int,
    form_a: int,
    form_b: int,
) -> None:
    """Two records alike but for one locator fact, however each spells it: two works when the
    values differ (pages more than two apart in one volume), and what the title rule says
    without locators when they are the same (a short title needs its first author)."""
    if fact == "volume":
        la = locator(volume=_VOLUME_SPELLINGS[form_a].format(n=6015 + a))
        lb = locator(volume=_VOLUME_SPELLINGS[form_b].format(n=6015 + b))
    elif fact == "issue":
        la = locator(volume="12", issue=_issue(a, form_a))
        lb = locator(volume="12", issue=_issue(b, form_b))
    else:
        la = locator(volume="12", pages=f"{a * 100}-{a * 100 + 9}")
        lb = locator(volume="12", pages=f"{b * 100}\u2013{b * 100 + 12}")
    index, bare = IdentityIndex(), IdentityIndex()
    index.add("stored", title, authors, year, {}, locator=la)
    bare.add("stored", title, authors, year, {})
    match = index.match(title.lower() + ".", authors, year, {}, locator=lb)
    if a == b:
        assert match == bare.match(title.lower() + ".", authors, year, {})
    else:
        assert match is None
        assert work_key(title, authors, year, locator=la) != work_key(
            title, authors, year, locator=lb
        )


_PART_FORMS = ("Part {n}", "Part {roman}", "Vol. {n}", "Volume {roman}", "part {letter}")


def _part(n: int, form: int) -> str:
    return _PART_FORMS[form].format(n=n, roman=_ROMAN[n], letter="abcdefghijkl"[n - 1])


@settings(max_examples=200, deadline=None)
@given(
    a=st.integers(1, 12),
    b=st.integers(1, 12),
    form_a=st.integers(0, 3),
    form_b=st.integers(0, 3),
    letters=st.booleans(),
)
def test_titles_that_name_two_parts_never_agree(
    a: int, b: int, form_a: int, form_b: int, letters: bool
) -> None:
    """``Part II`` / ``Part 2`` / ``Vol. 2`` name one part (the same part word), ``Part A`` /
    ``Part B`` and ``Part 1`` / ``Part 2`` two."""
    stem = "Computational Science and Its Applications - ICCSA 2010, "
    if letters:
        form_a = form_b = 4
    ta, tb = stem + _part(a, form_a), stem + _part(b, form_b)
    same_word = _PART_FORMS[form_a].split()[0].lower() == _PART_FORMS[form_b].split()[0].lower()
    agree = titles_agree(title_key(ta), title_key(tb))
    if a != b:
        assert not agree, (ta, tb)
    elif same_word:
        assert agree, (ta, tb)
    index = IdentityIndex()
    index.add("stored", ta, ["Gervasi, O."], 2010, {})
    match = index.match(tb, ["Gervasi, O."], 2010, {})
    assert (match is not None) == (a == b and same_word), (ta, tb)


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        # one article as two databases write it
        (locator("6017 LNCS", "PART 2"), locator("6017", "2")),
        (locator("26", "16", "1781-1802"), locator("Vol. 26", "16", "1781\u2013802")),
        (locator("22", "4", "573-595"), locator("22", "4", "572-595")),  # a first page typo
        # BMC Bioinform. 6:30, read off two real BibTeX entries (biblio.bib, iridia-2009)
        (locator("6", "", "30"), locator("6", "30", "1")),
        (locator("9", "1", "", "e86394"), locator("9", "1", "e86394")),
        (locator("54", "3", "510-519"), locator("", "", "10")),  # a PDF's page count
        (locator(isbn="3642121640; 9783642121647"), locator(isbn="978-3-642-12164-7")),
        ({}, locator("6017", "2", "1")),
    ],
)
def test_one_work_as_databases_spell_it_has_no_conflict(
    stored: dict[str, str], incoming: dict[str, str]
) -> None:
    assert locator_conflict(stored, incoming) is None


@pytest.mark.parametrize(
    ("stored", "incoming", "fact"),
    [
        (locator("6016 LNCS", "PART 1"), locator("6017 LNCS", "PART 2"), "volume"),
        (locator("12", "1"), locator("12", "Suppl 2"), "issue"),
        (locator("12", "", "5-8"), locator("12", "", "101-104"), "page"),
        (locator(isbn="9783642121647"), locator(isbn="978-3-642-12178-4"), "isbn"),
    ],
)
def test_two_places_conflict(stored: dict[str, str], incoming: dict[str, str], fact: str) -> None:
    assert locator_conflict(stored, incoming) == fact


def test_a_key_id_carries_its_locator() -> None:
    facts = locator("6017 LNCS", "3-4", isbn="3642121640")
    key = work_key(ICCSA, [], 2010, locator=facts)
    assert re.fullmatch(r"key:[0-9a-f]{12}:v6017:n3\.4:i9783642121647", key)
    assert locator_of_id(key) == facts
    assert work_key(ICCSA, [], 2010) == key.split(":v")[0]  # no locator: the old key


@pytest.mark.parametrize(
    ("scheme", "a", "b"),
    [
        ("doi", "10.1007/978-3-642-12156-2", "10.1007/978-3-642-12165-4"),
        ("scopus", "2-s2.0-77952380739", "2-s2.0-77952412778"),
    ],
)
def test_records_of_one_title_with_two_dois_or_two_scopus_eids_stay_apart(
    scheme: str, a: str, b: str
) -> None:
    index = IdentityIndex()
    index.add("stored", ICCSA, [], 2010, {scheme: a})
    assert index.match(ICCSA, [], 2010, {scheme: b}) is None
    match = index.match(ICCSA.lower(), [], 2010, {scheme: a})
    assert match is not None and match.doc_id == "stored"
