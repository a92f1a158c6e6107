"""Every importer on damaged copies of real files: a clear error or what could be read, never a
traceback.

Hypothesis cuts, splices and overwrites bytes of one real sample per format (the files of
../shared/data/sources; MEDLINE's from tests/data/imports), then detects the format and reads
the whole file, as ``litsift ingest papers FILE`` does. Allowed outcomes: records and bad
items, or an ``IngestError`` (our message + hint). Any other exception is a bug the CLI would
show as a crash.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, Notice, SourceRecord
from litsift.sources.formats import registry

SRC = shared_data_dir() / "sources"
RM = SRC / "reference-managers"
#: one real file per text format (PDF and zotero.sqlite have tests of their own damage)
SAMPLES = {
    "bibtex": RM / "bibtex" / "biblatex-examples.bib",
    "ris": RM / "ris" / "asreview_scopus-export.ris",
    "wos": RM / "database-exports" / "rispy_web-of-science-plaintext-isi.txt",
    "medline": Path(__file__).parents[2]
    / "data"
    / "imports"
    / "ris-medline"
    / "telemonitoring_pubmed_7-records.nbib",
    "csl-json": RM / "csl-json" / "bbt-811_better-csl-json_dates.json",
    "bbt-json": RM / "bbt-json" / "zot-package_betterbibtex-json-library.json",
    "csv-export": RM / "database-exports" / "litstudy_scopus-export.csv",
    "arxiv-oai": SRC / "arxiv" / "oai-pmh" / "arxivoaiharvester_ListRecordsResponse.xml",
    "arxiv-atom": SRC / "arxiv" / "api-atom" / "legacy-2016_search_query-au-del_maestro_max10.xml",
    "arxiv-snapshot": SRC
    / "arxiv"
    / "kaggle-metadata-snapshot"
    / "arxiv-metadata-oai-snapshot.first200.json",
    "openalex": SRC / "openalex" / "api" / "works_filter-doi-list_per-page-200_cursor-page1.json",
    "crossref": SRC / "crossref" / "works_sample-10.json",
    "grobid-tei": SRC / "fulltext" / "grobid-tei" / "acl-N18-3011.grobid-0.6.1.tei.xml",
    "jats": SRC / "fulltext" / "jats" / "PMC5828200.nxml",
    "s2orc": SRC / "fulltext" / "s2orc-doc2json-json" / "acl-N18-3011.doc2json.json",
    "hf-card": SRC / "huggingface" / "dataset-cards" / "scifact" / "README.md",
}
#: bytes worth splicing in: delimiters of every format, a NUL, invalid UTF-8, a UTF-16 BOM
NASTY = [b"\x00", b"\xff\xfe", b"\xc3", b"{", b"}", b'"', b"<", b">", b"@", b"ER  -", b"\n", b"%"]


@st.composite
def damage(draw: st.DrawFn, data: bytes) -> bytes:
    n = len(data)
    kind = draw(st.sampled_from(["cut", "splice", "overwrite", "drop"]))
    at = draw(st.integers(0, n))
    if kind == "cut":
        return data[:at]
    junk = b"".join(draw(st.lists(st.sampled_from(NASTY) | st.binary(max_size=8), max_size=6)))
    if kind == "splice":
        return data[:at] + junk + data[at:]
    if kind == "overwrite":
        return data[:at] + junk + data[at + len(junk) :]
    end = draw(st.integers(at, min(n, at + 200)))
    return data[:at] + data[end:]


def read_all(path: Path) -> list[SourceRecord | BadItem]:
    fmt = registry.detect(path)
    if fmt is None:
        return []
    return list(fmt.read(path))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_damaged_file_is_read_or_a_clear_error(
    name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    original = SAMPLES[name]
    data = original.read_bytes()
    assert registry.detect(original) is not None
    workdir = tmp_path_factory.mktemp(name)
    target = workdir / original.name

    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(damage(data))
    def check(mutated: bytes) -> None:
        target.write_bytes(mutated)
        try:
            items = read_all(target)
        except IngestError as err:
            assert err.message  # our message, shown with its hint
            return
        assert all(isinstance(i, SourceRecord | BadItem | Notice) for i in items)

    check()
