"""A query that is an identifier finds the stored record it names first (query audit).

Researchers paste a DOI, an arXiv id or link, an ACL Anthology link or litsift's own record id
into the search box. BM25 split them into number fragments and the encoder read noise, so the
named paper ranked anywhere. Real home: 40 papers of ../shared/data, a real arXiv API answer and
a real ACL-heavy BibTeX file (DOIs), the real encoder; the CLI is the real command.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.sources.identity.ids import ids_in_text
from litsift.types import Kind, Query, YearRange
from tests.conftest import PAPERS_GZ, SHARED_DATA

SOURCES = SHARED_DATA / "sources"
ATOM = SOURCES / "arxiv" / "api-atom" / "2026_id_list-0808.05394-1707.08567.xml"
BIB = SOURCES / "reference-managers" / "bibtex" / "thesis-nlp_acl-anthology-heavy.bib"
#: the first JSONL paper: url https://aclanthology.org/2021.acl-long.24/, no DOI stored
ACL_ID = "acl2021:2021.acl-long.24"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, encoder: Any) -> Path:
    home = tmp_path_factory.mktemp("named-home")
    papers = home / "papers.jsonl"
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        papers.write_text("".join(next(f) for _ in range(40)), encoding="utf-8")
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [ATOM, BIB]).ok
        assert svc.ingest(Kind.PAPER, papers).ok  # imported last: its url ids not keyed yet
        svc.build_index(Kind.PAPER)
    return home


@pytest.fixture(scope="module")
def svc(home: Path, encoder: Any) -> Any:
    with LitsiftService(get_paths(home), encoder=encoder) as service:
        yield service


@pytest.mark.parametrize(
    ("text", "doc_id"),
    [
        ("10.18653/v1/2021.acl-demo.37", "doi:10.18653/v1/2021.acl-demo.37"),
        ("https://doi.org/10.18653/V1/2021.ACL-DEMO.37", "doi:10.18653/v1/2021.acl-demo.37"),
        ("doi:10.1109/tpami.2018.2858826", "doi:10.1109/tpami.2018.2858826"),
        ("focal loss 10.1109/tpami.2018.2858826", "doi:10.1109/tpami.2018.2858826"),
        ("arXiv:1707.03237v2", "arxiv:1707.03237"),
        ("1707.03237", "arxiv:1707.03237"),
        ("https://arxiv.org/abs/1901.05555", "arxiv:1901.05555"),
        ("arxiv.org/pdf/1901.05555v1.pdf", "arxiv:1901.05555"),
        (ACL_ID, ACL_ID),
        ("https://aclanthology.org/2021.acl-long.24/", ACL_ID),
        ("2021.acl-long.24", ACL_ID),
    ],
)
def test_an_identifier_finds_its_paper_first(svc: LitsiftService, text: str, doc_id: str) -> None:
    result = svc.search(Query(text, Kind.PAPER, k=5))
    assert result.hits[0].docid == doc_id
    assert "identifier" in result.hits[0].signals
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
    assert len({h.docid for h in result.hits}) == len(result.hits)
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)


def test_the_year_filter_still_applies(svc: LitsiftService) -> None:
    result = svc.search(Query("1707.03237", Kind.PAPER, YearRange(1990, 1995), k=5))
    assert "arxiv:1707.03237" not in [h.docid for h in result.hits]


def test_an_exclusion_wins_over_the_paper_the_query_names(svc: LitsiftService) -> None:
    """``LINK -transformer``: the named paper is "A Bidirectional Transformer Based Alignment
    Model ...". It was pinned first all the same; an exclusion is a rule over every hit, so
    it is left out, and the note says which paper and why (it is not silently missing)."""
    link = "https://aclanthology.org/2021.acl-long.24/"
    result = svc.search(Query(f"{link} -transformer", Kind.PAPER, k=5))
    assert ACL_ID not in [h.docid for h in result.hits]
    assert all("identifier" not in h.signals for h in result.hits)
    assert result.partial is not None
    assert (
        'the paper the query names, "A Bidirectional Transformer Based Alignment Model for…", '
        "holds -transformer: left out (drop -transformer to see it)"
    ) in result.partial
    # an exclusion the paper does not hold leaves it first
    kept = svc.search(Query(f"{link} -genomics", Kind.PAPER, k=5))
    assert kept.hits[0].docid == ACL_ID and "identifier" in kept.hits[0].signals
    assert "names" not in (kept.partial or "")
    # a DOI in a sentence, NOT: "objects" excludes the title's "Object" (stemmed)
    plural = svc.search(Query("focal loss 10.1109/tpami.2018.2858826 NOT objects", Kind.PAPER))
    assert "doi:10.1109/tpami.2018.2858826" not in [h.docid for h in plural.hits]
    assert "holds -objects: left out" in (plural.partial or "")


def test_words_and_numbers_name_nothing(svc: LitsiftService) -> None:
    for text in ("neural machine translation", "2021.5", "BLEU 2017", "doi:", "arXiv:"):
        result = svc.search(Query(text, Kind.PAPER, k=5))
        assert all("identifier" not in h.signals for h in result.hits), text


def test_cli_json_finds_the_doi(home: Path) -> None:
    args = ["--home", str(home), "search", "https://doi.org/10.1109/TPAMI.2018.2858826", "--json"]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["hits"][0]["id"] == "doi:10.1109/tpami.2018.2858826"


@pytest.mark.parametrize("text", ["arXiv:", "see arXiv:   ", "arxiv", "arXiv: \n"])
def test_ids_in_text_of_an_empty_arxiv_note(text: str) -> None:
    """A note or url field of "arXiv:" alone raised IndexError (an import, and a query)."""
    assert "arxiv" not in ids_in_text(text)
