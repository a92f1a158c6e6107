"""arXiv importers on the recorded responses, and ``litsift sync`` against a real HTTP server
on 127.0.0.1 serving them: paging by resumptionToken to the end, resuming from the high-water
mark, 503 + Retry-After, a dropped connection, error bodies, truncated XML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.errors import IngestError, LitsiftError
from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.arxiv import parse_atom_page, parse_oai_page
from litsift.sources.online.http import PoliteClient, retry_after_seconds
from litsift.sources.online.sync import run_sync
from litsift.types import Kind, SyncSpec
from tests.unit.sources.recorded_server import RecordedServer

ARXIV = shared_data_dir() / "sources" / "arxiv"
OAI = ARXIV / "oai-pmh"
PAGE1 = (OAI / "arxivoaiharvester_ListRecordsResponse.xml").read_bytes()  # 6 records + token
PAGE2 = (OAI / "paperhive_ListRecords_arXiv_2015-01-01_2015-01-03.xml").read_bytes()  # 2, end
BAD_TOKEN = (OAI / "arxivoaiharvester_ErrorResponseBadResumptionToken.xml").read_bytes()
RETRY_503 = (
    OAI / "paperhive_ListRecords_arXiv_2015-01-01_2015-01-03_HTTP503-retry-after.html"
).read_bytes()
XML = {"Content-Type": "text/xml"}


@pytest.mark.parametrize(
    "name,fmt,count",
    [
        ("oai-pmh/arxivoaiharvester_ListRecordsResponse.xml", "arxiv-oai", 6),
        ("oai-pmh/atomiklabs_ListRecords_oai_dc_set-cs_from-2024-01-25.xml", "arxiv-oai", 5),
        ("oai-pmh/paperhive_ListRecords_arXiv_2015-01-01_2015-01-03.xml", "arxiv-oai", 2),
        ("oai-pmh/paperhive_GetRecord_arXiv.xml", "arxiv-oai", 1),
        ("oai-pmh/arxivoaiharvester_GetRecordResponse.xml", "arxiv-oai", 1),
        ("api-atom/2026_search_query-testing_start0_max100.xml", "arxiv-atom", 100),
        ("api-atom/2026_id_list-0808.05394-1707.08567.xml", "arxiv-atom", 1),
        ("api-atom/legacy-2016_search_query-au-del_maestro_max10.xml", "arxiv-atom", 10),
        ("api-atom/legacy-2025_search_query-cat-cs.RO-AND-neural_max2.xml", "arxiv-atom", 2),
        (
            "kaggle-metadata-snapshot/arxiv-metadata-oai-snapshot.first200.json",
            "arxiv-snapshot",
            200,
        ),
    ],
)
def test_arxiv_samples_read_with_their_counts(name: str, fmt: str, count: int) -> None:
    detected = registry.detect(ARXIV / name)
    assert detected is not None and detected.name == fmt
    items = list(detected.read(ARXIV / name))
    assert len(items) == count
    assert all(isinstance(i, SourceRecord) and i.title and i.ids.get("arxiv") for i in items)


def test_fields_of_the_three_oai_formats_and_both_atom_layouts() -> None:
    page = parse_oai_page(PAGE2)  # metadataPrefix=arXiv
    first = page.items[0]
    assert isinstance(first, SourceRecord)
    assert first.title == "A Kochen-Specker system has at least 22 vectors (extended abstract)"
    assert first.authors == ["Sander Uijlen", "Bas Westerbaan"] and first.year == 2014
    assert first.ids == {"arxiv": "1412.8544", "doi": "10.4204/eptcs.172.11"}
    assert page.next is None and page.high_water == "2015-01-03"
    raw = parse_oai_page(PAGE1)  # arXivRaw, trimmed page with its real token
    assert raw.next == "726959|1001" and raw.total == 58011 and len(raw.items) == 6
    dc = parse_oai_page(
        (OAI / "atomiklabs_ListRecords_oai_dc_set-cs_from-2024-01-25.xml").read_bytes()
    )
    assert dc.total == 1162 and all(isinstance(i, SourceRecord) and i.abstract for i in dc.items)
    new = parse_atom_page(
        (ARXIV / "api-atom/2026_search_query-testing_start0_max100.xml").read_bytes()
    )
    assert new.total == 214_881 and new.next == "100"
    err = parse_atom_page((ARXIV / "api-atom/2026_id_list-abc_error.xml").read_bytes())
    assert err.error and "abc" in err.error and not err.items


@pytest.mark.parametrize(
    "name",
    [
        "paperhive_Identify.xml",
        "paperhive_ListSets.xml",
        "arxivoaiharvester_ErrorResponseBadVerb.xml",
    ],
)
def test_responses_without_records_are_clear_errors(name: str) -> None:
    with pytest.raises(IngestError):
        list(registry.get("arxiv-oai").read(OAI / name))


def test_truncated_xml_is_a_clear_error(tmp_path: Path) -> None:
    cut = tmp_path / "cut.xml"
    cut.write_bytes(PAGE1[: len(PAGE1) // 2])
    with pytest.raises(IngestError, match="not well-formed"):
        list(registry.get("arxiv-oai").read(cut))


def test_retry_after_parsing() -> None:
    assert retry_after_seconds("10") == 10.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after_seconds("soon") is None


def _oai_route(fail_first: str | None = None):  # type: ignore[no-untyped-def]
    state = {"n": 0}

    def route(path: str, q: dict[str, str]):  # type: ignore[no-untyped-def]
        state["n"] += 1
        if fail_first == "503" and state["n"] == 1:
            return 503, {"Retry-After": "10", "Content-Type": "text/html"}, RETRY_503
        if fail_first == "drop" and state["n"] == 1:
            return "drop"
        if q.get("resumptionToken") == "726959|1001":
            return 200, XML, PAGE2
        if "resumptionToken" in q:
            return 200, XML, BAD_TOKEN
        return 200, XML, PAGE1

    return route


def _client() -> PoliteClient:
    return PoliteClient(delay_s=0, timeout_s=5, max_retries=2, sleep=lambda s: None)


def test_oai_sync_pages_to_the_end_and_resumes_from_the_high_water() -> None:
    got: list[int] = []
    with RecordedServer(_oai_route()) as server:
        spec = SyncSpec("cs", "arxiv-oai", {"set": "cs", "from": "2015-01-01"})
        result = run_sync(spec, server.url + "/oai", _client(), lambda r, b, p: got.append(len(r)))
        assert got == [6, 2] and result.pages == 2 and result.records == 8
        assert server.requests[0][1] == {
            "verb": "ListRecords",
            "metadataPrefix": "arXiv",
            "set": "cs",
            "from": "2015-01-01",
        }
        assert server.requests[1][1] == {"verb": "ListRecords", "resumptionToken": "726959|1001"}
        assert result.high_water == "2015-01-03"
        spec.high_water = result.high_water
        run_sync(spec, server.url + "/oai", _client(), lambda r, b, p: None, max_pages=1)
        assert server.requests[2][1]["from"] == "2015-01-03"  # only what is new


@pytest.mark.parametrize("failure", ["503", "drop"])
def test_oai_sync_retries_a_503_and_a_dropped_connection(failure: str) -> None:
    client = _client()
    with RecordedServer(_oai_route(failure)) as server:
        result = run_sync(SyncSpec("x", "arxiv-oai", {}), server.url, client, lambda r, b, p: None)
    assert result.records == 8
    assert client.waits[:1] == ([10.0] if failure == "503" else [1.0])  # Retry-After honoured


def test_a_service_that_keeps_failing_is_a_clear_error() -> None:
    with RecordedServer(lambda p, q: (503, {"Retry-After": "1"}, RETRY_503)) as server:
        with pytest.raises(LitsiftError, match="HTTP 503"):
            run_sync(SyncSpec("x", "arxiv-oai", {}), server.url, _client(), lambda r, b, p: None)
    with RecordedServer(
        lambda p, q: (
            200,
            XML,
            (OAI / "arxivoaiharvester_ErrorResponseBadArgument.xml").read_bytes(),
        )
    ) as server:
        with pytest.raises(LitsiftError, match="badArgument"):
            run_sync(SyncSpec("x", "arxiv-oai", {}), server.url, _client(), lambda r, b, p: None)


def test_cli_sync_saves_the_sync_and_runs_it_again_for_what_is_new(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with RecordedServer(_oai_route()) as server:
        config = home / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(
            '[sources]\nmailto = "t@example.org"\n[sources.arxiv-oai]\n'
            f'base_url = "{server.url}/oai"\ndelay_s = 0\n',
            encoding="utf-8",
        )
        out = CliRunner().invoke(
            main,
            ["--home", str(home), "sync", "arxiv", "--set", "cs", "--from", "2015-01-01", "--json"],
        )
        assert out.exit_code == 0, out.output
        (row,) = json.loads(out.output)
        assert (row["pages"], row["added"], row["high_water"]) == (2, 8, "2015-01-03")
        again = CliRunner().invoke(main, ["--home", str(home), "sync", "--json"])
        assert again.exit_code == 0, again.output
        (row,) = json.loads(again.output)
        assert row["added"] == 0 and row["unchanged"] == 8
        assert server.requests[2][1]["from"] == "2015-01-03"
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    with LitsiftService(get_paths(home)) as svc:
        assert svc.sources.arrivals() == 8
        svc.sources.mark_arrivals_seen()
        assert svc.sources.arrivals() == 0


def test_double_encoded_author_names_are_repaired() -> None:
    # arXiv's API writes some names as UTF-8 read as Latin-1 ("JosÃ© RaÃºl Romero": 18 such
    # sequences in this real page); ftfy's fix_encoding repairs them, other names stay as sent
    path = ARXIV / "api-atom" / "2026_search_query-testing_start0_max100.xml"
    assert "JosÃ© RaÃºl Romero" in path.read_text(encoding="utf-8")
    records = [r for r in registry.get("arxiv-atom").read(path) if isinstance(r, SourceRecord)]
    names = [a for r in records for a in r.authors]
    assert "José Raúl Romero" in names and "Clément L. Canonne" in names
    assert not any("Ã" in a or "Â" in a for a in names)
    assert "Katharina Götz" in names


def test_an_interrupted_oai_walk_resumes_at_its_saved_token() -> None:
    """The token after each written page is handed to ``checkpoint``; a walk started from it
    fetches only the pages not yet written; a token the server forgot restarts the walk."""
    marks: list[tuple[str | None, str | None]] = []
    got: list[int] = []
    state = {"drop": True}
    good = _oai_route()

    def route(path: str, q: dict[str, str]):  # type: ignore[no-untyped-def]
        if "resumptionToken" in q and state["drop"]:
            return "drop"  # the network goes away after page 1
        return good(path, q)

    with RecordedServer(route) as server:
        spec = SyncSpec("cs", "arxiv-oai", {"set": "cs"})
        with pytest.raises(LitsiftError):
            run_sync(
                spec,
                server.url,
                _client(),
                lambda r, b, p: got.append(len(r)),
                checkpoint=lambda t, hw: marks.append((t, hw)),
            )
        assert got == [6] and marks == [("726959|1001", "2014-12-22")]
        state["drop"] = False
        spec.resume_token, spec.resume_high_water = marks[-1]
        n = len(server.requests)
        result = run_sync(
            spec,
            server.url,
            _client(),
            lambda r, b, p: got.append(len(r)),
            checkpoint=lambda t, hw: marks.append((t, hw)),
        )
        assert server.requests[n][1] == {"verb": "ListRecords", "resumptionToken": "726959|1001"}
        assert result.resumed and result.records == 2 and got == [6, 2]
        assert marks[-1] == (None, "2015-01-03") and result.high_water == "2015-01-03"
        # a token the server no longer knows: the whole walk again, from the beginning
        spec.resume_token = "726959|9999"
        again = run_sync(spec, server.url, _client(), lambda r, b, p: None)
        assert not again.resumed and again.records == 8 and again.pages == 2


def test_cli_sync_stopped_midway_goes_on_where_it_stopped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    state = {"drop": True}
    good = _oai_route()

    def route(path: str, q: dict[str, str]):  # type: ignore[no-untyped-def]
        if "resumptionToken" in q and state["drop"]:
            return "drop"
        return good(path, q)

    with RecordedServer(route) as server:
        config = home / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(
            f'[sources.arxiv-oai]\nbase_url = "{server.url}/oai"\ndelay_s = 0\nmax_retries = 1\n',
            encoding="utf-8",
        )
        args = ["--home", str(home), "sync", "arxiv", "--set", "cs", "--from", "2015-01-01"]
        out = CliRunner().invoke(main, [*args, "--json"])
        assert out.exit_code != 0 and "Traceback" not in out.output
        from litsift.paths import get_paths
        from litsift.service.facade import LitsiftService

        with LitsiftService(get_paths(home)) as svc:
            (saved,) = svc.sources.saved_syncs()
            assert saved.resume_token == "726959|1001" and saved.high_water is None
            assert svc.store.count(Kind.PAPER) == 6  # page 1 was written before the failure
        state["drop"] = False
        n = len(server.requests)
        again = CliRunner().invoke(main, ["--home", str(home), "sync", "--json"])
        assert again.exit_code == 0, again.output
        (row,) = json.loads(again.output)
        assert row["resumed"] and row["resume_token"] is None
        assert (row["pages"], row["added"], row["high_water"]) == (1, 2, "2015-01-03")
        assert server.requests[n][1] == {"verb": "ListRecords", "resumptionToken": "726959|1001"}
        plain = CliRunner().invoke(main, ["--home", str(home), "sync"])
        assert plain.exit_code == 0 and "next run starts after 2015-01-03" in plain.output
    with LitsiftService(get_paths(home)) as svc:
        assert svc.store.count(Kind.PAPER) == 8
        (saved,) = svc.sources.saved_syncs()
        assert saved.resume_token is None and saved.high_water == "2015-01-03"
