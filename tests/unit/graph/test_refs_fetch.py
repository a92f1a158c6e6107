"""``litsift refs fetch`` against a real 127.0.0.1 server replaying recorded OpenAlex and
Semantic Scholar responses (../shared/data/sources): cursor and offset paging, a 429 with
Retry-After, works stored as stubs with their edges, a finished walk not fetched again, and a
walk interrupted by a dropped connection that resumes at its saved page.

The seed is a real OpenAlex Work (W2162348455, doi 10.1038/35002501, "Biodiversity hotspots
for conservation priorities"); the server answers its walks with the recorded pages of other
seeds' walks (what is tested is paging, storing and resuming, not which works cite which)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.errors import LitsiftError
from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.sources.online.http import FetchError, PoliteClient
from litsift.store import citations
from litsift.types.citations import TrailFetch
from tests.unit.sources.recorded_server import RecordedServer

SRC = shared_data_dir() / "sources"
OA = SRC / "openalex" / "api"
S2 = SRC / "semantic-scholar" / "graph-api"
SEED_FILE = OA / "work_W2162348455.json"
SEED = "doi:10.1038/35002501"
JSON = {"Content-Type": "application/json"}
CITED_BY = OA / "works_filter-cited_by_two-works_per-page-200_cursor.json"
CITES = OA / "works_filter-cites_two-works_per-page-200_cursor.json"
LAST = OA / "works_filter-doi-list_per-page-200_cursor-page2-last.json"


def _home(tmp_path: Path, url: str, source: str, retries: int = 2) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        f'[sources.{source}]\nbase_url = "{url}"\ndelay_s = 0\nmax_retries = {retries}\n'
        "timeout_s = 5\n"
    )
    return home


def _ingest_seed(home: Path) -> None:
    with LitsiftService(get_paths(home)) as svc:
        assert svc.sources.import_paths(svc_kind(), [SEED_FILE]).ok
        assert svc.get(svc_kind(), SEED) is not None


def svc_kind():  # type: ignore[no-untyped-def]
    from litsift.types import Kind

    return Kind.PAPER


def _run(home: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--home", str(home), "refs", "fetch", *args])
    return result.exit_code, result.stdout, result.stderr


def test_openalex_walks_both_directions_with_cursor_paging_and_a_429(tmp_path: Path) -> None:
    cursor = {
        "cited_by": json.loads(CITED_BY.read_bytes())["meta"]["next_cursor"],
        "cites": json.loads(CITES.read_bytes())["meta"]["next_cursor"],
    }
    state = {"throttled": False}

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        if not state["throttled"]:
            state["throttled"] = True
            return 429, {"Retry-After": "1"}, b'{"error": "Too Many Requests"}'
        assert path == "/works"
        kind, _, seed = query["filter"].partition(":")
        assert seed == "W2162348455"
        if query["cursor"] == "*":
            return 200, JSON, (CITED_BY if kind == "cited_by" else CITES).read_bytes()
        assert query["cursor"] == cursor[kind]
        return 200, JSON, LAST.read_bytes()  # OpenAlex ends a cursor walk with an empty page

    with RecordedServer(route) as server:
        home = _home(tmp_path, server.url, "openalex")
        _ingest_seed(home)
        code, out, err = _run(home, SEED, "--json")
        assert code == 0, err
        report = json.loads(out)
        asked = [(q["filter"], q["cursor"]) for _, q in server.requests]
        # first run: 429 (waited Retry-After), then 2 pages per direction
        assert len(asked) == 5
        assert [w["status"] for w in report["walks"]] == ["fetched", "fetched"]
        assert [w["pages"] for w in report["walks"]] == [2, 2]
        assert [w["records"] for w in report["walks"]] == [37, 5]  # + 1 untitled work
        # the untitled work of the cited_by page is reported, not stored
        assert report["bad"] == [
            f"refs:openalex:{SEED} backward page 1 work 2: "
            "no title (title and display_name are null)"
        ]
        # a second run: both walks are done, nothing is asked
        code, out, _ = _run(home, SEED, "--json")
        assert code == 0 and len(server.requests) == 5
        assert [w["status"] for w in json.loads(out)["walks"]] == ["cached", "cached"]
    with LitsiftService(get_paths(home)) as svc:
        conn = svc.store._conn
        refs = set(citations.references(conn, SEED))
        citing = set(citations.cited_by(conn, SEED))
        # the 37 titled works of the backward walk are stored papers the seed cites; the 5
        # forward works cite it
        fetched = {
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT doc_id FROM provenance WHERE file = 'refs:openalex'"
            )
        }
        assert len(citing) == 5 and citing <= fetched
        stored_refs = {k for k in refs if svc.get(svc_kind(), k) is not None}
        assert len(stored_refs & fetched) == 37
        got = svc.refs.neighbours(SEED)
        assert len(got.cited_by) == 5 and all(n.stored and n.title for n in got.cited_by)
        assert got.references[0].stored and got.references[-1].stored is False  # stubs last


def test_s2_offset_paging_resumes_after_a_dropped_connection(tmp_path: Path) -> None:
    state = {"dropped": False}

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        assert path.startswith("/graph/v1/paper/DOI:10.1038/35002501/")
        if path.endswith("/citations"):  # forward: one page of 100, then --max-pages stops
            return 200, JSON, (S2 / "paper-citations_offset0.json").read_bytes()
        if query["offset"] == "0":
            return 200, JSON, (S2 / "paper-references_offset0.json").read_bytes()
        assert query["offset"] == "50"
        if not state["dropped"]:
            state["dropped"] = True
            return "drop"
        return 200, JSON, (S2 / "paper-references_offset50.json").read_bytes()

    with RecordedServer(route) as server:
        home = _home(tmp_path, server.url, "s2", retries=0)
        _ingest_seed(home)
        code, out, err = _run(home, SEED, "--backward", "--source", "s2")
        assert code == 1
        assert "the server closed the connection" in err
        assert "fetching again goes on from the page" in err
        assert "Traceback" not in err and "Error:" not in err.replace("error:", "")
        with LitsiftService(get_paths(home)) as svc:
            first = len(citations.references(svc.store._conn, SEED))
        code, out, err = _run(home, SEED, "--backward", "--source", "s2", "--json")
        assert code == 0, err
        walk = json.loads(out)["walks"][0]
        assert walk["status"] == "resumed" and walk["pages"] == 1 and walk["records"] == 17
        offsets = [q.get("offset") for p, q in server.requests if p.endswith("/references")]
        assert offsets == ["0", "50", "50"]  # the resumed run asked for the unwritten page only
        code, out, err = _run(home, SEED, "--forward", "--source", "s2", "--max-pages", "1")
        assert code == 0, err
        assert "1 partial" in out
    with LitsiftService(get_paths(home)) as svc:
        conn = svc.store._conn
        refs = citations.references(conn, SEED)
        assert first > 0 and len(refs) > first
        # S2 lists references without ids (paperId null): stored by title, linked all the same
        assert any(k.startswith("key:") for k in refs)
        assert len(citations.cited_by(conn, SEED)) == 100


BIB = SRC / "reference-managers" / "bibtex" / "thesis-nlp_acl-anthology-heavy.bib"
BERT = "doi:10.18653/v1/n19-1423"  # in the .bib with a DOI and no OpenAlex id


def test_openalex_looks_up_a_seed_known_only_by_doi(tmp_path: Path) -> None:
    """A paper imported from BibTeX has a DOI, no OpenAlex id: one ``/works/doi:…`` lookup
    finds its Work (OpenAlex's own BERT Work, W2963341956, whose title is null: its ids still
    name the seed), which stores the seed's OpenAlex id and references; an unknown DOI (404)
    is reported by paper, and the other papers go on."""
    works = json.loads(CITED_BY.read_bytes())["results"]
    bert_work = next(w for w in works if w["id"].endswith("/W2963341956"))

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        if path == f"/works/{BERT}":
            return 200, JSON, json.dumps(bert_work).encode()
        if path.startswith("/works/doi:"):
            return 404, JSON, b'{"error": "404 Not Found"}'
        assert path == "/works" and query["filter"].endswith(":W2963341956")
        return 200, JSON, LAST.read_bytes()

    with RecordedServer(route) as server:
        home = _home(tmp_path, server.url, "openalex", retries=0)
        with LitsiftService(get_paths(home)) as svc:
            assert svc.sources.import_paths(svc_kind(), [BIB]).ok
            other = next(
                r[0]
                for r in svc.store._conn.execute(
                    "SELECT id FROM papers WHERE id LIKE 'doi:%' AND id != ? ORDER BY id", (BERT,)
                )
            )
        code, out, _ = _run(home, BERT, other, "--json")
        lookups = [p for p, _ in server.requests if p != "/works"]
        again, _, again_err = _run(home, BERT, other)  # BERT's walks are done: only `other`
    assert code == 1
    report = json.loads(out)
    assert [(w["doc_id"], w["status"]) for w in report["walks"]] == [
        (BERT, "fetched"),
        (BERT, "fetched"),
        (other, "failed"),
        (other, "failed"),
    ]
    assert report["walks"][2]["problem"] == f"{other}: OpenAlex has no work with {other}"
    assert again == 1 and f"{other}: OpenAlex has no work with {other}" in again_err
    assert lookups[0] == f"/works/{BERT}" and lookups.count(f"/works/{BERT}") == 1
    with LitsiftService(get_paths(home)) as svc:
        conn = svc.store._conn
        ids = dict(
            conn.execute(
                "SELECT scheme, value FROM record_ids WHERE doc_id = ?", (BERT,)
            ).fetchall()
        )
        assert ids["openalex"] == "W2963341956"
        assert len(citations.references(conn, BERT)) == len(bert_work["referenced_works"])


ATOM = SRC / "arxiv" / "api-atom" / "2026_id_list-0808.05394-1707.08567.xml"


def test_openalex_finds_a_seed_known_only_by_its_arxiv_id(tmp_path: Path) -> None:
    """A paper imported from arXiv has an arXiv id and no DOI; before, OpenAlex walks ended
    "no identifier openalex knows (DOI, arXiv, ...)", naming arXiv among what it would use.
    Now the seed is looked up by the DOI arXiv gives every article (10.48550/arXiv.ID)."""
    works = json.loads(CITED_BY.read_bytes())["results"]
    work = next(w for w in works if w["id"].endswith("/W2963341956"))

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        if path.startswith("/works/doi:10.48550/arxiv."):
            return 200, JSON, json.dumps(work).encode()
        assert path == "/works" and query["filter"].endswith(":W2963341956")
        return 200, JSON, LAST.read_bytes()

    with RecordedServer(route) as server:
        home = _home(tmp_path, server.url, "openalex", retries=0)
        with LitsiftService(get_paths(home)) as svc:
            assert svc.sources.import_paths(svc_kind(), [ATOM]).ok
            seed = next(
                str(r[0])
                for r in svc.store._conn.execute(
                    "SELECT id FROM papers WHERE id LIKE 'arxiv:%' ORDER BY id"
                )
            )
        code, out, err = _run(home, seed, "--json")
        lookups = [p for p, _ in server.requests if p != "/works"]
    assert code == 0, err
    assert [w["status"] for w in json.loads(out)["walks"]] == ["fetched", "fetched"]
    # one lookup: the Work found merged onto the seed (by the seed's own ids), so the second
    # walk starts from the seed's stored OpenAlex id
    assert lookups == [f"/works/doi:10.48550/arxiv.{seed.removeprefix('arxiv:').lower()}"]
    with LitsiftService(get_paths(home)) as svc:
        ids = dict(
            svc.store._conn.execute(
                "SELECT scheme, value FROM record_ids WHERE doc_id = ?", (seed,)
            ).fetchall()
        )
    assert ids["openalex"] == "W2963341956"


def test_a_seed_without_any_identifier_says_what_the_source_needs(tmp_path: Path) -> None:
    """A paper known by a citation key alone cannot be walked; the message names what each
    source would walk from (OpenAlex takes no ACL id, S2 takes no OpenAlex id)."""
    home = _home(tmp_path, "http://127.0.0.1:9", "openalex", retries=0)
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text('{"id": "key:smith2020", "title": "A paper with a key only"}\n')
    with LitsiftService(get_paths(home)) as svc:
        assert svc.sources.import_paths(svc_kind(), [jsonl]).ok
        seed = next(str(r[0]) for r in svc.store._conn.execute("SELECT id FROM papers"))
    code, _, err = _run(home, seed)
    assert code == 1
    said = "no identifier openalex knows (it needs an OpenAlex id, DOI, PMID or arXiv id)"
    assert err.count(said) == 1  # once for the seed, not once per direction walked


def test_offline_a_fetch_fails_at_once_and_says_why(tmp_path: Path) -> None:
    """With no network the server's name does not resolve; each request was tried again four
    times with back-off, so `refs fetch` (and the citations screen's F, 'fetching the citation
    trail…') waited ~30 s for 'cannot connect (refused or unreachable)', with a hint to run
    the same command again and none about the network. ``.invalid`` never resolves (RFC 2606).
    The client's own test below counts the attempts; this one checks what the user reads.
    """
    home = _home(tmp_path, "http://api.litsift-test.invalid", "openalex", retries=4)
    _ingest_seed(home)
    code, out, err = _run(home, SEED)
    assert code == 1 and "1 walk (1 failed)" in out  # "1 walks" before
    assert "cannot resolve the server's name (no network, or a wrong base_url)" in err
    assert "the network" in err and "run the same command" not in err  # also the app's hint


def test_an_unresolvable_server_is_not_tried_again() -> None:
    """A name that does not resolve fails on the first attempt: no back-off wait (1, 2, 4, 8 s
    before), so an offline fetch ends at once. The client records every wait it makes."""
    slept: list[float] = []
    client = PoliteClient(delay_s=0, max_retries=4, timeout_s=5, sleep=slept.append)
    with pytest.raises(FetchError, match="cannot resolve the server's name"):
        client.get("http://api.litsift-test.invalid/works")
    client.close()
    assert slept == [] and client.waits == []


def test_the_app_s_fetch_goes_to_semantic_scholar_where_openalex_has_no_work(
    tmp_path: Path,
) -> None:
    """The citations screen's F fetched from OpenAlex only; for a paper OpenAlex does not know
    it said "try --source s2", a command-line option the app has no way to give. It now
    walks Semantic Scholar then, as ``refs fetch --source s2`` does; where neither knows the
    paper it says what each said. One server answers as both (404 from OpenAlex)."""
    known = {"on": True}

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        if path.startswith("/works/"):
            return 404, JSON, b'{"error": "404 Not Found"}'
        if not known["on"] or not path.startswith(f"/graph/v1/paper/DOI:{BERT[4:]}/"):
            return 404, JSON, b'{"error": "Paper not found"}'
        if path.endswith("/references") and query["offset"] == "0":
            return 200, JSON, (S2 / "paper-references_offset0.json").read_bytes()
        if path.endswith("/citations") and query["offset"] == "0":
            return 200, JSON, (S2 / "paper-citations_offset0.json").read_bytes()
        return 200, JSON, json.dumps({"offset": int(query["offset"]), "data": []}).encode()

    with RecordedServer(route) as server:
        home = tmp_path / "home"
        home.mkdir()
        (home / "config.toml").write_text(
            "".join(
                f'[sources.{s}]\nbase_url = "{server.url}"\ndelay_s = 0\nmax_retries = 0\n'
                for s in ("openalex", "s2")
            )
        )
        with LitsiftService(get_paths(home)) as svc:
            assert svc.sources.import_paths(svc_kind(), [BIB]).ok
            fetched = svc.refs.fetch_trail(BERT)
            assert fetched.added > 0 and not fetched.cached
            s2_asked = sum(p.startswith("/graph/") for p, _ in server.requests)
            again = svc.refs.fetch_trail(BERT)  # the walks are stored: Semantic Scholar not asked
            assert again == TrailFetch(0, cached=True)
            assert sum(p.startswith("/graph/") for p, _ in server.requests) == s2_asked
            anew = svc.refs.fetch_trail(BERT, refresh=True)  # the app's second F
            assert not anew.cached and anew.added == 0  # the same pages: no new links
            assert sum(p.startswith("/graph/") for p, _ in server.requests) > s2_asked
            assert len(citations.references(svc.store._conn, BERT)) > 0
            assert len(citations.cited_by(svc.store._conn, BERT)) == 100
            known["on"] = False
            other = next(
                str(r[0])
                for r in svc.store._conn.execute(
                    "SELECT id FROM papers WHERE id LIKE 'doi:%' AND id != ? ORDER BY id", (BERT,)
                )
            )
            with pytest.raises(LitsiftError) as err:
                svc.refs.fetch_trail(other)
    said = f"{err.value.message} {err.value.hint}"
    assert f"{other}: neither OpenAlex nor Semantic Scholar has its trail (OpenAlex has no" in said
    assert "--source" not in said, said
