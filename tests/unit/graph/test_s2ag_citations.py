"""``litsift refs import``: S2AG ``citations`` dataset files (edge-only lines) as citation edges,
on the real 100-line sample of ../shared/data/sources and on tiny files built from its lines and
from real S2AG ``papers`` records (their real corpus ids)."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.store import citations
from litsift.types import Kind

SAMPLES = shared_data_dir() / "sources" / "semantic-scholar" / "datasets-samples"
CITATIONS = SAMPLES / "citations" / "citations-sample.jsonl.gz"
PAPERS = SAMPLES / "papers" / "papers-sample.jsonl.gz"


def _lines(path: Path) -> list[bytes]:
    with gzip.open(path, "rb") as fh:
        return fh.read().splitlines(keepends=True)


def _edges(lines: list[bytes]) -> set[tuple[str, str]]:
    """The ``corpusid:`` edges of citations lines, read with json (null cited ids left out)."""
    rows = [json.loads(line) for line in lines]
    return {
        (f"corpusid:{r['citingcorpusid']}", f"corpusid:{r['citedcorpusid']}")
        for r in rows
        if r["citedcorpusid"] is not None and r["citedcorpusid"] != r["citingcorpusid"]
    }


def _stored_edges(home: Path) -> set[tuple[str, str]]:
    with LitsiftService(get_paths(home)) as svc:
        rows = svc.store._conn.execute(
            "SELECT citing, cited FROM citations WHERE source = 's2ag'"
        ).fetchall()
    return {(str(a), str(b)) for a, b in rows}


def _refs_import(home: Path, *files: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--home", str(home), "refs", "import", *map(str, files)])
    return result.exit_code, result.stdout, result.stderr


def test_real_sample_gives_its_edges_and_reimport_adds_none(tmp_path: Path) -> None:
    lines = _lines(CITATIONS)
    expected = _edges(lines)
    no_cited = sum(json.loads(line)["citedcorpusid"] is None for line in lines)
    assert expected and no_cited  # the sample has both kinds of line
    home = tmp_path / "home"
    code, out, err = _refs_import(home, CITATIONS)
    assert code == 0, err
    assert _stored_edges(home) == expected
    assert f"{len(lines)} lines read from 1 file: {len(expected)} edges added" in out
    assert f"{no_cited} skipped (no cited id), 0 bad" in out
    code, out, err = _refs_import(home, CITATIONS)  # again: nothing twice
    assert code == 0, err
    assert f"0 edges added ({len(expected)} already stored)" in out
    assert _stored_edges(home) == expected


def test_later_releases_ids_as_json_numbers_with_a_citationid(tmp_path: Path) -> None:
    """Releases from 2024 on write the corpus ids as JSON numbers and add ``citationid``
    (``{"citationid":4740408346,"citingcorpusid":268754447,...}``): the sample so written."""
    lines = _lines(CITATIONS)
    rows = [json.loads(line) for line in lines]
    for i, r in enumerate(rows):
        r["citationid"] = 4740408346 + i
        for key in ("citingcorpusid", "citedcorpusid"):
            r[key] = None if r[key] is None else int(r[key])
    path = tmp_path / "citations-0000.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    home = tmp_path / "home"
    code, _, err = _refs_import(home, path)
    assert code == 0, err
    assert _stored_edges(home) == _edges(lines)


def test_broken_lines_are_reported_and_the_others_kept(tmp_path: Path) -> None:
    lines = _lines(CITATIONS)
    bad = [*lines[:40], b"<html><body>502 Bad Gateway</body></html>\n"]
    bad += [b'{"citedcorpusid":"85219962","isinfluential":false}\n']  # no citing id
    bad += [lines[40].replace(b'"citingcorpusid":"', b'"citingcorpusid":"x'), *lines[41:60]]
    bad += [lines[60][: len(lines[60]) // 2]]  # a download cut mid-line: the file ends there
    path = tmp_path / "citations-broken.jsonl"
    path.write_bytes(b"".join(bad))
    home = tmp_path / "home"
    code, out, err = _refs_import(home, path)
    assert code == 1
    assert f"{path}:41: not a JSON line\n" in err
    assert f"{path}:42: no citingcorpusid" in err
    assert f"{path}:43: citingcorpusid 'x" in err
    assert f"{path}:{len(bad)}: not a JSON line (the file ends inside it)" in err
    assert "Error" not in err and "Traceback" not in err
    kept = _edges(lines[:40] + lines[41:60])
    assert _stored_edges(home) == kept
    assert f"{len(kept)} edges added" in out and ", 4 bad" in out


def test_a_cut_gzip_download_in_a_folder_keeps_its_whole_lines(tmp_path: Path) -> None:
    data = CITATIONS.read_bytes()
    folder = tmp_path / "citations"
    folder.mkdir()
    (folder / "part-0.jsonl.gz").write_bytes(data[: len(data) * 3 // 5])  # a partial download
    whole = zlib.decompressobj(wbits=31).decompress(data[: len(data) * 3 // 5])
    lines = whole.splitlines(keepends=True)
    lines = lines[:-1] if not lines[-1].endswith(b"\n") else lines
    home = tmp_path / "home"
    code, out, err = _refs_import(home, folder)
    assert code == 1
    assert f"part-0.jsonl.gz:{len(lines) + 1}: the gzip stream breaks off here" in err
    assert _stored_edges(home) == _edges(lines)
    assert f"{len(_edges(lines))} edges added" in out


def test_edges_resolve_to_stored_s2_records_in_either_order(tmp_path: Path) -> None:
    papers = _lines(PAPERS)[:2]
    ids = [str(json.loads(p)["corpusid"]) for p in papers]
    paper_file = tmp_path / "papers.jsonl"
    paper_file.write_bytes(b"".join(papers))
    real_cited = json.loads(_lines(CITATIONS)[0])["citedcorpusid"]  # not a stored paper
    edge_file = tmp_path / "citations.jsonl"
    edge_file.write_text(
        json.dumps({"citingcorpusid": ids[0], "citedcorpusid": ids[1], "contexts": None})
        + "\n"
        + json.dumps({"citingcorpusid": ids[0], "citedcorpusid": real_cited})
        + "\n"
    )
    for order in ("papers first", "edges first"):
        home = tmp_path / order
        with LitsiftService(get_paths(home)) as svc:
            if order == "papers first":
                assert svc.sources.import_paths(Kind.PAPER, [paper_file]).added == 2
            report = svc.refs.import_citations([edge_file])
            if order == "edges first":
                assert report.resolved == 0
                assert svc.sources.import_paths(Kind.PAPER, [paper_file]).added == 2
            else:
                assert report.resolved == 2
            doc = {
                i: str(d)
                for i, d in svc.store._conn.execute(
                    "SELECT value, doc_id FROM record_ids WHERE scheme = 'corpusid'"
                )
            }
            conn = svc.store._conn
            assert citations.references(conn, doc[ids[0]]) == sorted(
                [doc[ids[1]], f"corpusid:{real_cited}"]
            )
            assert citations.cited_by(conn, doc[ids[1]]) == [doc[ids[0]]]
            assert svc.refs.neighbours(doc[ids[1]]).cited_by[0].stored
            again = svc.refs.import_citations([edge_file])
            assert (again.edges_added, again.edges_known, again.resolved) == (0, 2, 2)
            assert citations.count(conn) == 2


def test_wrong_files_get_our_message_and_the_command_that_reads_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    code, _, err = _refs_import(home, PAPERS, tmp_path / "missing.jsonl.gz")
    assert code == 1
    assert "Semantic Scholar papers, not S2AG citations lines" in err
    assert f"hint: papers are read by: litsift ingest papers {PAPERS}" in err
    assert f"{tmp_path / 'missing.jsonl.gz'}: no such file; hint: check the path" in err
    assert "Error" not in err and "Traceback" not in err


def test_an_empty_folder_is_bad_not_a_quiet_success(tmp_path: Path) -> None:
    """A folder with no files (the release not yet downloaded into it) printed "0 lines read
    from 0 files ... 0 bad" and exited 0."""
    folder = tmp_path / "citations"
    (folder / ".partial").mkdir(parents=True)
    code, out, err = _refs_import(tmp_path / "home", folder)
    assert code == 1
    assert f"{folder}: an empty folder; hint: name the folder the release's citations" in err
    assert "1 bad" in out


def test_ingest_papers_names_refs_import_for_a_citations_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["--home", str(tmp_path / "home"), "ingest", "papers", str(CITATIONS)]
    )
    assert result.exit_code == 1
    assert "it holds S2AG citations lines (edges, not papers)" in result.stderr
    assert f"hint: import its citation edges with: litsift refs import {CITATIONS}" in (
        result.stderr
    )
