"""Truncated and unreadable input (issue 27, item 8), on real files written by others.

* Every prefix of a real CSL-JSON export imports exactly the items that are complete in it
  and reports the cut one at the line where it starts; Better BibTeX JSON, Semantic Scholar
  and Crossref responses keep their complete records the same way.
* A PNG or random bytes named ``.bib``, an empty or cut ``.pdf``, an HTML page saved as
  ``.pdf``: ``FILE: reason; hint`` and exit code 1 through the real CLI, in a directory walk
  too; images, notes and general-purpose JSON beside the exports are skipped.
* Every file-level and entry-level message names the file once and no internal exception
  class, over these cases and over damaged copies of one real file per format.

The item spans of the oracle come from the standard library's decoder on the whole, valid
file; what is under test is what the readers and ``litsift ingest`` make of the prefixes.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litsift.cli.root import main
from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, SourceRecord, decode_text
from litsift.sources.formats import registry
from litsift.sources.importer import import_paths
from litsift.store import Store
from litsift.types import Kind

HERE = Path(__file__).resolve().parents[2] / "data" / "imports" / "truncation"
SRC = shared_data_dir() / "sources"
CSL = SRC / "reference-managers" / "csl-json"
CSL_FILES = [
    CSL / "bbt-811_better-csl-json_dates.json",
    CSL / "bbt-1400_better-csl-json.json",
    CSL / "thesis-psychology_zotero-csl-json-export.json",
    HERE / "meta-review_manual-references.csl.json",
]
PNG = HERE / "meta-review_thumbnail.png"
PDF = SRC / "fulltext" / "pdf" / "acl-N18-3011_literature-graph-semantic-scholar.pdf"
HTML_503 = (
    SRC / "arxiv" / "oai-pmh" / "paperhive_ListRecords_arXiv_2015-01-01_2015-01-03_HTTP503-"
    "retry-after.html"
)
BIB = SRC / "reference-managers" / "bibtex" / "biblatex-examples.bib"
#: an internal exception's class name: ``KeyError``, ``JSONDecodeError``, ``XMLSyntaxError``
CLASS_NAME = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b")


def item_spans(data: bytes) -> list[tuple[int, int]]:
    """Byte ``(start, end)`` of each element of the top-level JSON array in ``data``."""
    text = data.decode("utf-8-sig")
    offset = len(data) - len(text.encode())  # a BOM
    decoder = json.JSONDecoder()
    spans, pos = [], text.index("[") + 1
    while True:
        while text[pos] in " \t\r\n,":
            pos += 1
        if text[pos] == "]":
            return spans
        _, end = decoder.raw_decode(text, pos)
        spans.append((offset + len(text[:pos].encode()), offset + len(text[:end].encode())))
        pos = end


def summary(rec: SourceRecord) -> tuple[Any, ...]:
    return (rec.location, rec.title, rec.authors, rec.year, rec.ids, rec.venue, rec.source_key)


def ingest(home: Path, *paths: Path) -> tuple[int, dict[str, Any]]:
    out = CliRunner().invoke(
        main, ["--home", str(home), "ingest", "papers", *map(str, paths), "--json"]
    )
    assert "Traceback" not in out.output
    start = out.output.index("{")
    return out.exit_code, json.loads(out.output[start:])


def assert_clean(message: str, file: Path) -> None:
    """The path once, no exception class name."""
    assert message.count(str(file)) == 1, message
    assert not CLASS_NAME.search(message), message


# ---------------------------------------------------------------- cut JSON arrays


@pytest.mark.parametrize("original", CSL_FILES, ids=lambda p: p.name)
def test_every_prefix_of_a_csl_json_export_keeps_its_complete_items(
    original: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    data = original.read_bytes()
    spans = item_spans(data)
    whole = [summary(r) for r in registry.get("csl-json").read(original)]  # type: ignore[arg-type]
    assert len(whole) == len(spans)
    target = tmp_path_factory.mktemp("prefix") / original.name

    @settings(
        max_examples=60,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.integers(0, len(data)) | st.sampled_from([e for _, e in spans] + [len(data) - 2]))
    def check(size: int) -> None:
        target.write_bytes(data[:size])
        complete = sum(1 for _, end in spans if end <= size)
        try:
            items = list(registry.get("csl-json").read(target))
        except IngestError as err:  # nothing to keep: the file as a whole is reported
            assert complete == 0, err.message
            return
        records = [summary(i) for i in items if isinstance(i, SourceRecord)]
        bad = [i for i in items if isinstance(i, BadItem)]
        assert records == whole[:complete]
        if size >= len(data.rstrip()):
            assert not bad
            return
        assert len(bad) == 1, bad  # the cut is reported, once
        if complete < len(spans) and size > spans[complete][0]:  # cut inside an item
            start_line = data[: spans[complete][0]].count(b"\n") + 1
            assert bad[0].location == f"line {start_line}"
            assert f"item {complete + 1} is cut off" in bad[0].reason

    check()


def test_a_cut_inside_a_multibyte_character_keeps_the_text_utf8() -> None:
    """meta-review's references hold curly quotes and dashes: cut inside one, the text before
    it must not turn into Windows-1252 mojibake."""
    data = (HERE / "meta-review_manual-references.csl.json").read_bytes()
    at = data.index("’".encode()) + 1  # inside the quote that closes "‘Manubot’"
    text = decode_text(data[:at])
    assert text == data[: at - 1].decode() + "\ufffd"
    assert "‘Manubot\ufffd" in text and "â€" not in text


def test_cli_imports_the_complete_items_of_a_cut_export_and_exits_1(tmp_path: Path) -> None:
    data = CSL_FILES[1].read_bytes()
    start, end = item_spans(data)[12]
    size = (start + end) // 2  # inside item 13
    cut = tmp_path / "library.json"
    cut.write_bytes(data[:size])
    code, report = ingest(tmp_path / "home", cut)
    assert code == 1
    assert (report["read"], report["added"]) == (13, 12)
    tail = data[:size].decode()
    line, column = tail.count("\n") + 1, len(tail) - tail.rfind("\n")
    starts = data[:start].count(b"\n") + 1
    assert report["bad"] == [
        f"{cut}:line {starts}: item 13 is cut off: the file ends "
        f"inside it at line {line}, column {column} (a truncated export?); "
        "kept the 12 items before it"
    ]


@pytest.mark.parametrize(
    ("fmt", "sample"),
    [
        (
            "bbt-json",
            SRC / "reference-managers/bbt-json/zot-package_betterbibtex-json-library.json",
        ),
        ("s2", SRC / "semantic-scholar/graph-api/paper-search-bulk_kubernetes_page1.json"),
        ("s2", SRC / "semantic-scholar/graph-api/paper-batch_rich-fields_4ids-1null.json"),
        ("crossref", SRC / "crossref/works_query-widget_cursor-page1.json"),
    ],
    ids=lambda v: v if isinstance(v, str) else v.name,
)
def test_cut_responses_keep_their_complete_records(fmt: str, sample: Path, tmp_path: Path) -> None:
    whole = [i for i in registry.get(fmt).read(sample) if isinstance(i, SourceRecord)]
    data = sample.read_bytes()
    cut = tmp_path / sample.name
    for fraction in (0.5, 0.85):
        cut.write_bytes(data[: int(len(data) * fraction)])
        items = list(registry.get(fmt).read(cut))
        records = [i for i in items if isinstance(i, SourceRecord)]
        bad = [i for i in items if isinstance(i, BadItem)]
        assert records, fraction
        assert [summary(r) for r in records] == [summary(r) for r in whole[: len(records)]]
        assert len(bad) >= 1 and "is cut off" in bad[-1].reason and items[-1] is bad[-1]


def test_a_cut_single_record_is_an_error_not_half_a_record(tmp_path: Path) -> None:
    sample = SRC / "crossref" / "works_10.1371-journal.pone.0033693.json"
    cut = tmp_path / "work.json"
    cut.write_bytes(sample.read_bytes()[:5000])
    with pytest.raises(IngestError, match=r"cut off at line 1, column \d+"):
        list(registry.get("crossref").read(cut))


# ---------------------------------------------------------------- unreadable files


def _random_bib(tmp: Path) -> Path:
    path = tmp / "random.bib"
    path.write_bytes(random.Random(27).randbytes(4096))
    return path


def _png_bib(tmp: Path) -> Path:
    path = tmp / "refs.bib"
    shutil.copyfile(PNG, path)
    return path


def _empty_pdf(tmp: Path) -> Path:
    path = tmp / "empty.pdf"
    path.write_bytes(b"")
    return path


def _cut_pdf(tmp: Path) -> Path:
    path = tmp / "paper.pdf"
    data = PDF.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _html_pdf(tmp: Path) -> Path:
    path = tmp / "download.pdf"
    shutil.copyfile(HTML_503, path)
    return path


def _notes_txt(tmp: Path) -> Path:
    path = tmp / "notes.txt"
    path.write_text("papers to read after the deadline\n", encoding="utf-8")
    return path


UNREADABLE = {
    "png-named-bib": (_png_bib, "it holds a PNG image"),
    "random-bytes-bib": (_random_bib, "it holds binary data, not text"),
    "empty-pdf": (_empty_pdf, "empty file (0 bytes)"),
    "cut-pdf": (_cut_pdf, "a damaged or cut-off PDF"),
    "html-named-pdf": (_html_pdf, "not pdf (nor any other format litsift reads)"),
    "notes-given-explicitly": (_notes_txt, "(nor any other format litsift reads)"),
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_an_unreadable_file_is_file_reason_and_exit_1(case: str, tmp_path: Path) -> None:
    make, reason = UNREADABLE[case]
    path = make(tmp_path)
    out = CliRunner().invoke(
        main, ["--home", str(tmp_path / "home"), "ingest", "papers", str(path)]
    )
    assert out.exit_code == 1, out.output
    assert "Traceback" not in out.output and "skipped" not in out.output
    line = next(ln for ln in out.output.splitlines() if ln.startswith(f"{path}: "))
    assert reason in line and "; hint: " in line
    assert_clean(line, path)


def test_a_directory_walk_reports_bad_exports_and_skips_images_and_notes(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    shutil.copyfile(BIB, folder / "library.bib")
    png_bib, empty_pdf = _png_bib(folder), _empty_pdf(folder)
    shutil.copyfile(PNG, folder / "figure.png")
    _notes_txt(folder)
    infos = SRC / "huggingface" / "dataset-cards" / "scifact" / "dataset_infos.json"
    shutil.copyfile(infos, folder / "dataset_infos.json")  # JSON, but no export
    code, report = ingest(tmp_path / "home", folder)
    assert code == 1
    assert report["added"] > 0  # the good export is imported
    assert sorted(p.split(": ")[0] for p in report["bad"]) == sorted([str(empty_pdf), str(png_bib)])
    assert sorted(p.split(": ")[0] for p in report["skipped"]) == sorted(
        [str(folder / n) for n in ("dataset_infos.json", "figure.png", "notes.txt")]
    )
    for problem, file in zip(sorted(report["bad"]), sorted([empty_pdf, png_bib]), strict=True):
        assert_clean(problem, file)


def test_a_file_of_the_other_kind_given_explicitly_is_bad(tmp_path: Path) -> None:
    card = SRC / "huggingface" / "dataset-cards" / "scifact" / "README.md"
    code, report = ingest(tmp_path / "home", card)
    assert code == 1
    assert report["bad"] == [
        f"{card}: holds datasets (hf-card), not papers; hint: use: litsift ingest datasets FILE"
    ]


# ---------------------------------------------------------------- messages


DAMAGED = [
    SRC / "reference-managers" / "bibtex" / "biblatex-examples.bib",
    SRC / "reference-managers" / "ris" / "asreview_scopus-export.ris",
    SRC / "reference-managers" / "database-exports" / "rispy_web-of-science-plaintext-isi.txt",
    SRC / "reference-managers" / "bbt-json" / "zot-package_betterbibtex-json-library.json",
    SRC / "reference-managers" / "database-exports" / "litstudy_scopus-export.csv",
    SRC / "arxiv" / "oai-pmh" / "arxivoaiharvester_ListRecordsResponse.xml",
    SRC / "openalex" / "api" / "works_filter-cites_two-works_per-page-200_cursor.json",
    SRC / "crossref" / "works_sample-10.json",
    SRC / "fulltext" / "jats" / "PMC5828200.nxml",
    SRC / "fulltext" / "grobid-tei" / "acl-N18-3011.grobid-0.6.1.tei.xml",
    CSL_FILES[0],
]


@pytest.mark.parametrize("original", DAMAGED, ids=lambda p: p.name)
def test_messages_name_the_file_once_and_no_exception_class(
    original: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Cut, spliced and overwritten copies of one real file per format, imported as
    ``litsift ingest`` does: every reported problem is ``FILE[:LOCATION]: reason``."""
    data = original.read_bytes()
    workdir = tmp_path_factory.mktemp("damaged")
    target = workdir / original.name
    nasty = [b"\x00", b"\xff\xfe", b"{", b"}", b'"', b"<", b">", b"@", b"ER  -", b"\n", b","]

    @settings(max_examples=12, deadline=None, derandomize=True)
    @given(
        st.integers(0, len(data)),
        st.sampled_from(["cut", "splice", "overwrite"]),
        st.lists(st.sampled_from(nasty), max_size=4),
    )
    def check(at: int, how: str, junk_parts: list[bytes]) -> None:
        junk = b"".join(junk_parts)
        mutated = {
            "cut": data[:at],
            "splice": data[:at] + junk + data[at:],
            "overwrite": data[:at] + junk + data[at + len(junk) :],
        }[how]
        target.write_bytes(mutated)
        with Store(workdir / "store.db") as store:
            report = import_paths(store, [target], Kind.PAPER)
        for problem in [*report.bad, *report.skipped]:
            assert_clean(str(problem), target)

    check()
