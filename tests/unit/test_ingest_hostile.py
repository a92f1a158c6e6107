"""Issue 14, item 1: hostile input lines cost one line each, never the file.

Each case mixes one hostile line into real lines of the paper sample, plain and gzip-compressed,
and checks that the good rows are stored (by id) and the bad line is reported with its line
number. A property test throws arbitrary bytes lines between valid ones.
"""

from __future__ import annotations

import gzip
import itertools
import json
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litsift.cli.root import main
from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.store import IngestReport, Store, ingest_jsonl, ingest_records
from litsift.types import Dataset, Kind

SHARED_DATA = shared_data_dir()
PAPERS_GZ = SHARED_DATA / "papers" / "ml-nlp-papers.jsonl.gz"


@pytest.fixture(scope="module")
def real_lines() -> list[bytes]:
    """The first 40 lines of the real paper sample (about 40 KB), as raw bytes."""
    with gzip.open(PAPERS_GZ, "rb") as fh:
        return [fh.readline().rstrip(b"\n") for _ in range(40)]


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "litsift.sqlite") as s:
        yield s


@pytest.fixture(params=[False, True], ids=["plain", "gz"])
def gz(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def _write(path: Path, lines: list[bytes], gz: bool) -> Path:
    data = b"\n".join(lines) + b"\n"
    path = path.with_name(path.name + (".gz" if gz else ""))
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def _ids(lines: list[bytes]) -> list[str]:
    return [json.loads(line)["id"] for line in lines]


def _ingest_with(
    store: Store, tmp_path: Path, gz: bool, good: list[bytes], bad: dict[int, bytes]
) -> tuple[IngestReport, dict[int, str]]:
    """Ingest ``good`` with ``bad`` lines put at the given 1-based line numbers."""
    lines = list(good)
    for line_no in sorted(bad):
        lines.insert(line_no - 1, bad[line_no])
    report = ingest_jsonl(store, Kind.PAPER, _write(tmp_path / "hostile.jsonl", lines, gz))
    assert store.count(Kind.PAPER) == len(good)
    assert all(store.get(Kind.PAPER, doc_id) is not None for doc_id in _ids(good))
    assert report.read == len(lines) and report.added == len(good)
    reasons = {b.line_no: b.reason for b in report.bad}
    assert sorted(reasons) == sorted(bad)
    assert all("\n" not in r and len(r) < 200 for r in reasons.values())
    return report, reasons


@pytest.mark.parametrize("field", ["title", "abstract", "authors", "id"])
def test_lone_surrogate_escape_costs_one_line(
    store: Store, tmp_path: Path, gz: bool, real_lines: list[bytes], field: str
) -> None:
    obj: dict[str, Any] = {"id": "a", "title": "x"}
    obj[field] = ["Ann \ud800 Lee"] if field == "authors" else "x\ud800"
    line = json.dumps(obj).encode()  # ensure_ascii: the surrogate is the escape \ud800
    assert b"\\ud800" in line
    _, reasons = _ingest_with(store, tmp_path, gz, real_lines[:10], {4: line})
    assert f"'{field}' holds a lone surrogate U+D800" in reasons[4]


def test_invalid_utf8_after_the_first_4kb_costs_one_line(
    store: Store, tmp_path: Path, gz: bool, real_lines: list[bytes]
) -> None:
    assert sum(len(line) + 1 for line in real_lines[:10]) > 4096
    line = b'{"id": "a", "title": "x\xed\xa0\x80y"}'  # a UTF-8-encoded surrogate, not UTF-8
    _, reasons = _ingest_with(store, tmp_path, gz, real_lines, {11: line, 30: b"\xff\xfe"})
    assert reasons[11].startswith("not UTF-8: byte 0xED at column 24")
    assert reasons[30].startswith("not UTF-8: byte 0xFF at column 1")


def test_deep_nesting_costs_one_line(
    store: Store, tmp_path: Path, gz: bool, real_lines: list[bytes]
) -> None:
    deep = b'{"id": "a", "title": "x", "extra": ' + b"[" * 100_000
    _, reasons = _ingest_with(
        store, tmp_path, gz, real_lines[:6], {2: b"[" * 100_000, 5: deep + b"]" * 100_000 + b"}"}
    )
    assert reasons[2] == reasons[5] == "invalid JSON: nested too deeply"


def test_years_too_long_or_out_of_range_cost_one_line_each(
    store: Store, tmp_path: Path, gz: bool, real_lines: list[bytes]
) -> None:
    def year(value: bytes) -> bytes:
        return b'{"id": "y", "title": "x", "year": ' + value + b"}"

    bad = {
        1: year(b"1" * 5000),  # int() refuses more than 4,300 digits
        3: year(b"9" * 4000),  # converts, then out of range
        5: year(b"10000"),
        6: year(b"0"),
        7: year(b"-5"),
        9: year(b"1e400"),  # inf
        10: year(b"2020.5"),
    }
    _, reasons = _ingest_with(store, tmp_path, gz, real_lines[:5], bad)
    assert reasons[1] == "a number has more than 4,300 digits"
    assert reasons[3] == "'year' out of range: of 4,000 digits (must be 1..9999)"
    assert reasons[5] == "'year' out of range: 10000 (must be 1..9999)"
    assert "out of range: 0 " in reasons[6] and "out of range: -5 " in reasons[7]
    assert reasons[9] == "'year' must be an integer, got inf"
    assert reasons[10] == "'year' must be an integer, got 2020.5"


def test_nul_bytes_in_the_first_4kb_cost_one_line_each(
    store: Store, tmp_path: Path, gz: bool, real_lines: list[bytes]
) -> None:
    bad = {1: b'{"id": "a",\x00 "title": "x"}', 3: b"\x00" * 64, 4: b'{"id": "b", "title": "\x00"}'}
    _, reasons = _ingest_with(store, tmp_path, gz, real_lines[:8], bad)
    assert reasons == {
        1: "NUL byte at column 12",
        3: "NUL byte at column 1",
        4: "NUL byte at column 23",
    }


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"title": 12345}, "'title' must be a string, got int 12345"),
        ({"title": ["x"]}, "'title' must be a string, got list of 1 items"),
        ({"abstract": 1.5}, "'abstract' must be a string, got float 1.5"),
        ({"venue": True}, "'venue' must be a string, got bool True"),
        ({"authors": 5}, "'authors' must be a list of strings or one string, got int 5"),
        ({"authors": ["A", 2]}, "'authors' must be a list of strings, got int 2 in it"),
        ({"authors": [{"id": 1}]}, "'authors' must be a list of strings, got dict of 1 items"),
        ({"year": "2019"}, "'year' must be an integer, got str '2019'"),
        ({"year": True}, "'year' must be an integer, got bool True"),
        ({"id": 1.5}, "'id' must be a string, got float"),
        ({"id": False}, "'id' must be a string, got bool"),
        ({"title": None}, "missing required field 'title'"),
    ],
)
def test_wrong_types_are_errors_not_coerced(
    store: Store, tmp_path: Path, real_lines: list[bytes], fields: dict[str, Any], reason: str
) -> None:
    line = json.dumps({"id": "w", "title": "x", **fields}).encode()
    _, reasons = _ingest_with(store, tmp_path, False, real_lines[:3], {2: line})
    assert reasons[2].startswith(reason), reasons[2]


def test_dataset_dates_give_the_year_and_bad_dates_cost_one_line(
    store: Store, tmp_path: Path
) -> None:
    lines = [
        b'{"id": "D1", "date": "2019-05-01"}',
        b'{"id": "D2", "date": 20190501}',
        b'{"id": "D3", "date": "0000-01-01"}',
        b'{"id": "D4", "date": "May 2019"}',
        b'{"id": "D5", "year": 2018, "date": "2019-05-01"}',
    ]
    report = ingest_jsonl(store, Kind.DATASET, _write(tmp_path / "d.jsonl", lines, False))
    reasons = {b.line_no: b.reason for b in report.bad}
    assert reasons == {
        2: "'date' must be a string, got int 20190501",
        3: "'date' out of range: 0 (must be 1..9999)",
        4: "'date' must be YYYY-MM-DD, got 'May 2019'",
    }
    d1, d5 = store.get(Kind.DATASET, "D1"), store.get(Kind.DATASET, "D5")
    assert isinstance(d1, Dataset) and isinstance(d5, Dataset)
    assert (d1.year, d5.year) == (2019, 2018)


@pytest.mark.parametrize("make", ["random", "sqlite", "latin-1"])
def test_a_file_that_is_not_text_is_one_clear_error(
    store: Store, tmp_path: Path, gz: bool, make: str
) -> None:
    if make == "random":
        data = random.Random(14).randbytes(64 * 1024)
    elif make == "sqlite":
        data = store.path.read_bytes()
    else:
        objs = [{"id": f"p{i}", "title": f"Étude {i}"} for i in range(5)]
        data = "\n".join(json.dumps(o, ensure_ascii=False) for o in objs).encode("latin-1")
    path = tmp_path / "not-text.jsonl"
    path.write_bytes(gzip.compress(data) if gz else data)
    with pytest.raises(IngestError, match="neither gzip nor text") as err:
        ingest_jsonl(store, Kind.PAPER, path)
    assert err.value.hint and "UTF-8" in err.value.hint
    if make == "latin-1":
        assert "first: line 1: not UTF-8: byte 0xC9" in str(err.value)
    assert store.count(Kind.PAPER) == 0


def test_in_memory_records_never_fail_the_ingest(store: Store) -> None:
    rows: list[Any] = [
        {"id": "ok-1", "title": "fine"},
        {"id": "s", "title": "x\udfff"},
        {"id": 10**5000, "title": "huge id"},  # str() refuses: reported, not raised
        {"id": "y", "title": "x", "year": 10**5000},
        {"id": "t", "title": {1, 2}},
        {"id": "ok-2", "title": "fine too"},
    ]
    report = ingest_records(store, Kind.PAPER, rows)
    assert [b.line_no for b in report.bad] == [2, 3, 4, 5]
    assert "lone surrogate U+DFFF" in report.bad[0].reason
    assert "ValueError" in report.bad[1].reason
    assert report.bad[2].reason == "'year' out of range: (huge) (must be 1..9999)"
    assert report.bad[3].reason.startswith("'title' must be a string, got set")
    assert {r.id for b in store.rows_since(Kind.PAPER) for r in b} == {"ok-1", "ok-2"}


def test_cli_reports_hostile_lines_as_file_line_reason(
    tmp_path: Path, real_lines: list[bytes]
) -> None:
    lines = [*real_lines[:3], b"[" * 100_000, b'{"id":"a","title":"x\\ud800"}', real_lines[3]]
    path = _write(tmp_path / "cli.jsonl", lines, True)
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(path), "--quiet"])
    assert out.exit_code == 1, out.output
    assert out.exception is None or isinstance(out.exception, SystemExit)
    assert f"{path}:4: invalid JSON: nested too deeply" in out.output
    assert f"{path}:5: 'title' holds a lone surrogate" in out.output
    assert "4 added" in out.output and "2 bad" in out.output
    assert "Traceback" not in out.output


_HOSTILE_TEMPLATES = [
    b'{"id":"h","title":"x\\ud800"}',
    b'{"id":"h","title":"x\xed\xa0\x80"}',
    b"[" * 5000,
    b'{"id":"h","title":"x","year":' + b"7" * 4400 + b"}",
    b'{"id":"h","title":12345}',
    b"\x00\x00\x00",
    b"\xef\xbb\xbf{}",
    b'{"id":"h","title":"x","year":1e999}',
    b"NaN",
]

_valid = st.builds(
    lambda title, year, authors, ascii_only: (title, year, authors, ascii_only),
    st.text(min_size=1, max_size=30).filter(lambda t: t.strip() != ""),
    st.none() | st.integers(1, 9999),
    st.lists(st.text(max_size=10), max_size=3),
    st.booleans(),
)
_hostile = (
    st.binary(max_size=120)
    | st.sampled_from(_HOSTILE_TEMPLATES)
    | st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass"))
)


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """One store for every example of the property test (ids are unique per example)."""
    with Store(tmp_path_factory.mktemp("property") / "s.sqlite") as s:
        yield s


_example = itertools.count()


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    lines=st.lists(st.tuples(st.booleans(), _valid, _hostile), min_size=1, max_size=12),
    compress=st.booleans(),
)
def test_property_arbitrary_lines_never_raise_and_valid_rows_are_kept(
    shared_store: Store,
    lines: list[tuple[bool, tuple[str, int | None, list[str], bool], bytes]],
    compress: bool,
) -> None:
    n = next(_example)
    out: list[bytes] = []
    valid_ids: dict[int, str] = {}
    for i, (is_valid, (title, year, authors, ascii_only), junk) in enumerate(lines):
        if is_valid or i == 0:  # at least one valid line, so the file is JSONL text
            obj = {"id": f"v{n}-{i}", "title": title, "year": year, "authors": authors}
            out.append(json.dumps(obj, ensure_ascii=ascii_only).encode("utf-8"))
            valid_ids[len(out)] = f"v{n}-{i}"
        else:
            out.append(junk.replace(b"\n", b" "))
    with tempfile.TemporaryDirectory() as tmp:
        report = ingest_jsonl(
            shared_store, Kind.PAPER, _write(Path(tmp) / "p.jsonl", out, compress)
        )
    for doc_id in valid_ids.values():
        paper = shared_store.get(Kind.PAPER, doc_id)
        assert paper is not None and paper.title
    assert not {b.line_no for b in report.bad} & set(valid_ids)
    assert all(b.line_no <= len(out) and "\n" not in b.reason for b in report.bad)


def test_cli_bad_line_reasons_never_carry_escape_sequences(tmp_path: Path) -> None:
    """A bad line's reason quotes the offending value; printed, it passes the terminal
    sanitiser, so a hostile file cannot retitle or blank the user's terminal (issue 14)."""
    hostile = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred"
    path = tmp_path / "hostile.jsonl"
    path.write_text(
        json.dumps({"id": "ok", "title": "Fine paper"})
        + "\n"
        + json.dumps({"id": "bad", "title": "t", "year": hostile})
        + "\n",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(path), "--quiet"])
    assert out.exit_code == 1
    assert "hostile.jsonl:2:" in out.output
    assert "\x1b" not in out.output and "\x07" not in out.output
    store = _open_store(home)
    try:
        assert store.get(Kind.PAPER, "ok") is not None
    finally:
        store.close()


def _open_store(home: Path) -> Store:
    from litsift.paths import get_paths

    return Store(get_paths(home).store_file)


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-32"])
def test_utf16_jsonl_reads_like_utf8_and_a_bad_line_costs_one_line(
    store: Store, tmp_path: Path, real_lines: list[bytes], codec: str
) -> None:
    # PowerShell's "litsift-export > papers.jsonl" writes UTF-16 with a BOM; without a BOM the
    # NUL pattern gives it away. Line 3 is not JSON: it costs that line, the rest is kept.
    good = real_lines[:10]
    text = "\n".join(
        [*(b.decode() for b in good[:2]), "{not json", *(b.decode() for b in good[2:])]
    )
    path = tmp_path / "papers.jsonl"
    path.write_bytes((text + "\n").encode(codec))
    report = ingest_jsonl(store, Kind.PAPER, path)
    assert report.added == 10 and [b.line_no for b in report.bad] == [3]
    want = [json.loads(b)["title"] for b in good]
    assert [store.get(Kind.PAPER, d).title for d in _ids(good)] == want  # type: ignore[union-attr]


def test_cli_turns_a_bug_into_our_message_not_a_traceback(
    tmp_path: Path, real_lines: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    # fault injection: the importer's JSONL step fails the way a bug would (the handler under
    # test is the CLI's); the message quotes the error through the terminal sanitiser
    import litsift.store.ingest as ingest_module

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom \x1b[2J\x1b]0;pwned\x07")

    monkeypatch.setattr(ingest_module, "ingest_jsonl", broken)
    path = _write(tmp_path / "ok.jsonl", real_lines[:3], False)
    args = ["--home", str(tmp_path / "home"), "ingest", "papers", str(path), "--quiet"]
    monkeypatch.delenv("LITSIFT_DEBUG", raising=False)
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 2 and isinstance(out.exception, SystemExit)
    assert "error: litsift failed unexpectedly (RuntimeError: boom" in out.output
    assert "hint: this is a bug in litsift" in out.output
    assert "Traceback" not in out.output and "\x1b" not in out.output and "\x07" not in out.output
    monkeypatch.setenv("LITSIFT_DEBUG", "1")
    debug = CliRunner().invoke(main, args)
    assert isinstance(debug.exception, RuntimeError)  # the traceback, on request


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "hostile.json",  # CSL-JSON
            json.dumps(
                [
                    {
                        "id": "p1",
                        "type": "article-journal",
                        "title": "Emicizumab\x1b[2J in\x1b]0;pwned\x07 haemophilia A",
                        "abstract": "Bleeds \x1b[31mfell\x1b[0m by 87 %.",
                        "author": [{"family": "Lee\x1b[1m", "given": "Ann"}],
                    }
                ]
            ),
        ),
        (
            "hostile.ris",
            "TY  - JOUR\nTI  - Emicizumab\x1b[2J in\x1b]0;pwned\x07 haemophilia A\n"
            "AB  - Bleeds \x1b[31mfell\x1b[0m by 87 %.\nAU  - Lee\x1b[1m, Ann\nER  - \n",
        ),
        (
            "hostile.jsonl",  # litsift's own layout
            json.dumps(
                {
                    "id": "p1",
                    "title": "Emicizumab\x1b[2J in\x1b]0;pwned\x07 haemophilia A",
                    "abstract": "Bleeds \x1b[31mfell\x1b[0m by 87 %.",
                    "authors": ["Lee\x1b[1m, Ann"],
                }
            )
            + "\n",
        ),
    ],
)
def test_stored_text_keeps_no_remnant_of_an_escape_sequence(
    tmp_path: Path, name: str, text: str
) -> None:
    """Ingest removed the ESC of ``ESC [ 2 J`` and kept ``[2J`` in the title (shown, exported,
    searched); the whole sequence goes now, in every format read as records. litsift's own
    JSONL kept its text as written, so a title's sequence reached a terminal through any
    output that is not sanitised there (a pipe into a file, later ``cat``)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(path), "--quiet"])
    assert out.exit_code == 0, out.output
    store = _open_store(home)
    try:
        (paper,) = store.get_by_rowids(Kind.PAPER, [1]).values()
    finally:
        store.close()
    assert paper.title == "Emicizumab in haemophilia A"
    assert paper.abstract == "Bleeds fell by 87 %."
    assert "Lee" in paper.authors[0] and "[1m" not in paper.authors[0]


def test_files_whose_names_are_not_utf8_are_read_like_any_other(tmp_path: Path) -> None:
    """A library folder copied from an old Latin-1 system: ``café.bib`` and ``résumé.pdf``
    named in Latin-1 bytes. Every record of such a file failed ("cannot be read as bibtex:
    unexpected content ('utf-8' codec can't encode character '\\udce9' ... surrogates not
    allowed)"): the name went into the store as Python's surrogate escapes; mupdf could not
    open the PDF at all."""
    import os

    folder = tmp_path / "library"
    folder.mkdir()
    bib = "@article{a, title={Café culture in Vienna}, author={Müller, J}, year={2020}}\n"
    (folder / os.fsdecode(b"caf\xe9.bib")).write_text(bib, encoding="utf-8")
    pdf = next((SHARED_DATA / "sources" / "fulltext" / "pdf").glob("*.pdf"))
    (folder / os.fsdecode(b"r\xe9sum\xe9.pdf")).write_bytes(pdf.read_bytes())
    args = ["--home", str(tmp_path / "home"), "ingest", "papers", str(folder)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert "2 files: 2 read, 2 added" in first.stdout
    again = CliRunner().invoke(main, args)  # the same files again: nothing twice
    assert (
        again.exit_code == 0 and "2 read, 0 added, 0 updated, 0 merged, 2 unchanged" in again.stdout
    )
