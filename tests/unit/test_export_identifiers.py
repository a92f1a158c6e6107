"""`litsift export` writes each paper's DOI (issue 44's testers: a kept library exported to
BibTeX, RIS or CSL-JSON lost every DOI, so a reference manager could not find the papers
again), on a real BibTeX export of a psychology thesis library (Zotero + Better BibTeX) in a
real store; the DOIs are read back from the exported files with bibtexparser, rispy and json,
and a re-import of the BibTeX export groups onto the same papers."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest
import rispy
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.store.repositories import Identities
from litsift.types import Kind, Label
from tests.unit.test_review_rounds import THESIS_BIB

BIB = THESIS_BIB  # a real Zotero + Better BibTeX export of a psychology thesis library

pytestmark = pytest.mark.skipif(not BIB.is_file(), reason=f"{BIB} not here")


def test_every_export_format_carries_the_papers_dois(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [BIB]).added > 400
        ids = [r[0] for r in svc.store._conn.execute("SELECT id FROM papers ORDER BY id")]
        known = Identities(svc.store).ids_of_docs(Kind.PAPER, ids)
        with_doi = [d for d in ids if known.get(d, {}).get("doi")][:12]
        without = [d for d in ids if not known.get(d, {}).get("doi")][:3]
        assert len(with_doi) == 12 and without
        for doc_id in with_doi + without:
            svc.set_label(Kind.PAPER, doc_id, Label.KEEP)
        want = sorted(known[d]["doi"] for d in with_doi)

    def export(fmt: str) -> str:
        got = CliRunner().invoke(main, ["--home", str(home), "export", "kept", "--format", fmt])
        assert got.exit_code == 0, got.output
        return got.stdout

    bib = bibtexparser.parse_string(export("bibtex"))
    assert sorted(e.fields_dict["doi"].value for e in bib.entries if "doi" in e.fields_dict) == want
    assert len(bib.entries) == 15
    ris = rispy.loads(export("ris"))
    assert sorted(r["doi"] for r in ris if r.get("doi")) == want
    csl = json.loads(export("csl-json"))
    assert sorted(i["DOI"] for i in csl if "DOI" in i) == want
    # the BibTeX export read back into the same home: every paper is found again, none added
    out = tmp_path / "kept.bib"
    out.write_text(export("bibtex"), encoding="utf-8")
    with LitsiftService(get_paths(home)) as svc:
        again = svc.sources.import_paths(Kind.PAPER, [out])
        assert again.added == 0


def test_an_organisation_as_author_stays_one_name(tmp_path: Path) -> None:
    """ "Institute of Medicine (US) Committee on Understanding the Biology of Sex and Gender
    Differences" was exported as "of Medicine (US) Committee ..., Institute" and read back as
    two people split at its " and " (a second copy of the paper). Braced, it stays one."""
    org = "Institute of Medicine (US) Committee on Understanding the Biology of Sex and Gender"
    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as svc:
        svc.sources.import_paths(Kind.PAPER, [BIB])
        title = "Sex Affects Behavior and Perception"
        (doc_id,) = [r[0] for r in svc.store._conn.execute(
            "SELECT id FROM papers WHERE title = ?", (title,))]  # fmt: skip
        svc.set_label(Kind.PAPER, doc_id, Label.KEEP)
        before = svc.store._conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
    got = CliRunner().invoke(main, ["--home", str(home), "export", "kept", "--format", "bibtex"])
    assert f"author = {{{{{org} Differences}} and Wizemann, Theresa M." in got.stdout, got.stdout
    ris = CliRunner().invoke(main, ["--home", str(home), "export", "kept", "--format", "ris"])
    assert f"AU  - {org} Differences\n" in ris.stdout
    out = tmp_path / "kept.bib"
    out.write_text(got.stdout, encoding="utf-8")
    with LitsiftService(get_paths(home)) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [out]).added == 0
        assert svc.store._conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0] == before
        paper = svc.store.get(Kind.PAPER, doc_id)
        assert paper is not None and paper.authors[0] == f"{org} Differences"
