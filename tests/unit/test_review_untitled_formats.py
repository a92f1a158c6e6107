"""A record with an abstract and a DOI but no title is screened, whatever the export it comes
in (issue 44: "records with abstract and DOI but no title are dropped instead of screened").
RIS, litsift's screening JSONL and a table of records kept it; a Scopus CSV, a Web of Science
tab-delimited export and an EndNote refer file dropped it in their readers ("no title"), before
the review's import could label it by its DOI and the first words of its abstract. A plain
ingest still reports it (nothing to show for a title), with its row or line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main

ABSTRACT = "Stroke rehabilitation in older adults at home: a randomised trial of early discharge."
DOI = "10.1000/untitled.1"

FILES = {
    "scopus.csv": (
        "Authors,Title,Year,Source title,DOI,Abstract\n"
        f'"Smith J.",,2020,J Med,{DOI},"{ABSTRACT}"\n'
        '"Doe J.","A titled record",2021,J Med,,"Another abstract."\n',
        "row 2",
    ),
    "savedrecs.txt": (
        "PT\tAU\tAF\tTI\tSO\tDT\tAB\tDI\tPY\tWC\tUT\n"
        f"J\tSmith, J\tSmith, John\t\tJ MED\tArticle\t{ABSTRACT}\t{DOI}\t2020\tMedicine\tWOS:1\n"
        "J\tDoe, J\tDoe, Jane\tA titled record\tJ MED\tArticle\tabs\t\t2021\tMedicine\tWOS:2\n",
        "row 2",
    ),
    "refs.enw": (
        f"%0 Journal Article\n%A Smith, John\n%X {ABSTRACT}\n%R {DOI}\n%D 2020\n\n"
        "%0 Journal Article\n%A Doe, Jane\n%T A titled record\n%D 2021\n\n",
        "line 1",
    ),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_an_untitled_record_with_abstract_and_doi_is_screened(tmp_path: Path, name: str) -> None:
    text, where = FILES[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    runner = CliRunner()
    home = ["--home", str(tmp_path / "review-home")]
    made = runner.invoke(main, [*home, "review", "new", "r", "--from", str(path)])
    assert made.exit_code == 0, made.output
    assert "2 records identified" in made.stdout and "2 to screen" in made.stdout, made.output
    shown = runner.invoke(main, [*home, "review", "export", "r", "--format", "ris"])
    assert f"DO  - {DOI}" in shown.stdout and ABSTRACT in shown.stdout

    ingest = runner.invoke(main, ["--home", str(tmp_path / "plain"), "ingest", "papers", str(path)])
    assert "1 added" in ingest.stdout and "1 bad" in ingest.stdout, ingest.output
    assert f"{name}:{where}: no title" in ingest.stderr
