"""Sync against servers that never finish: a whole-request deadline and a response-size cap.

Real HTTP servers on 127.0.0.1 (``RecordedServer``): one drips a byte at a time, one sends a
chunked body that never ends, one sends a 50 MB page. Each is a clear per-page error; what the
sync wrote before stays and the next run resumes at the page that failed (issue 34, item 4).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.config import ConfigError, load_config
from litsift.errors import LitsiftError
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.sources.online.http import FetchError, PoliteClient
from litsift.sources.online.sync import run_sync
from litsift.types import Kind, SyncSpec
from tests.unit.sources.recorded_server import RecordedServer
from tests.unit.sources.test_sync_arxiv import PAGE1, PAGE2, XML

DRIP_BYTES = 400  # at one byte per 50 ms: a 20 s response


def _drip(body: bytes, pause_s: float = 0.05) -> Iterator[bytes]:
    for i in range(len(body)):
        time.sleep(pause_s)
        yield body[i : i + 1]


def _endless(chunk: bytes = b"<x>" + b"a" * 65_530 + b"</x>") -> Iterator[bytes]:
    while True:
        yield chunk


def _client(**kw: float) -> PoliteClient:
    return PoliteClient(delay_s=0, max_retries=0, sleep=lambda s: None, **kw)  # type: ignore[arg-type]


def test_a_dripping_server_is_bounded_by_the_whole_request_deadline() -> None:
    # httpx's timeouts are per socket read: each byte arriving within 50 ms would reset them
    # forever. The deadline bounds connect + headers + body together.
    with RecordedServer(
        lambda p, q: (200, {**XML, "Content-Length": str(DRIP_BYTES)}, _drip(b"x" * DRIP_BYTES))
    ) as server:
        with pytest.raises(FetchError, match=r"no complete response within 1 s") as err:
            _client(timeout_s=1.0).get(server.url + "/oai")
        assert server.sent < DRIP_BYTES  # given up long before the server was done
    assert "Timeout" not in err.value.message and "httpx" not in err.value.message
    assert "timeout_s" in err.value.hint


def test_a_server_slow_to_send_its_headers_is_bounded_too() -> None:
    def route(path: str, q: dict[str, str]):  # type: ignore[no-untyped-def]
        time.sleep(3)
        return 200, XML, PAGE2

    with RecordedServer(route) as server:
        with pytest.raises(FetchError, match=r"no complete response within 0\.5 s"):
            _client(timeout_s=0.5).get(server.url)


def test_a_chunked_body_that_never_ends_stops_at_the_size_cap() -> None:
    cap = 2_000_000
    with RecordedServer(lambda p, q: (200, XML, _endless())) as server:
        with pytest.raises(FetchError, match=r"larger than 2 MB") as err:
            _client(timeout_s=30.0, max_response_bytes=cap).get(server.url)
    # read no further than the cap (plus what the socket buffers held): memory stays bounded
    assert server.sent < 20 * cap
    assert "max_response_mb" in err.value.hint


def test_a_50_mb_page_is_refused_from_its_content_length() -> None:
    body = b"x" * 50_000_000
    with RecordedServer(lambda p, q: (200, XML, body)) as server:
        with pytest.raises(FetchError, match=r"larger than 8 MB"):
            _client(timeout_s=30.0, max_response_bytes=8_000_000).get(server.url)


def test_an_oversized_response_is_not_retried_but_a_slow_one_is() -> None:
    client = PoliteClient(
        delay_s=0, timeout_s=0.5, max_retries=2, sleep=lambda s: None, max_response_bytes=1000
    )
    with RecordedServer(lambda p, q: (200, XML, b"y" * 5000)) as server:
        with pytest.raises(FetchError):
            client.get(server.url)
        assert len(server.requests) == 1
    with RecordedServer(lambda p, q: (200, XML, _drip(b"z" * 100, 0.1))) as server:
        with pytest.raises(FetchError, match=r"within 0\.5 s"):
            client.get(server.url)
        assert len(server.requests) == 3  # the first attempt and two retries


def test_a_sync_whose_second_page_drips_keeps_page_one_and_its_token() -> None:
    got: list[int] = []
    marks: list[tuple[str | None, str | None]] = []

    def route(path: str, q: dict[str, str]):  # type: ignore[no-untyped-def]
        if "resumptionToken" in q:
            return 200, {**XML, "Content-Length": str(len(PAGE2))}, _drip(PAGE2)
        return 200, XML, PAGE1

    with RecordedServer(route) as server:
        with pytest.raises(LitsiftError, match="within 1 s"):
            run_sync(
                SyncSpec("cs", "arxiv-oai", {"set": "cs"}),
                server.url,
                _client(timeout_s=1.0),
                lambda r, b, p: got.append(len(r)),
                checkpoint=lambda t, hw: marks.append((t, hw)),
            )
    assert got == [6] and marks == [("726959|1001", "2014-12-22")]


def test_limits_are_read_from_config_and_validated(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[sources.openalex]\ntimeout_s = 5\nmax_response_mb = 2\n", encoding="utf-8")
    settings = load_config(path).sources.service("openalex")
    assert (settings.timeout_s, settings.max_response_mb) == (5, 2)
    assert load_config(tmp_path / "none.toml").sources.service("crossref").max_response_mb == 64
    path.write_text("[sources.openalex]\nmax_response_mb = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="max_response_mb"):
        load_config(path)


@pytest.mark.parametrize("hostile", ["drip", "endless", "50mb"])
def test_cli_sync_reports_the_page_and_the_next_run_resumes(tmp_path: Path, hostile: str) -> None:
    home = tmp_path / "home"
    state = {"hostile": True}

    def route(path: str, q: dict[str, str]):  # type: ignore[no-untyped-def]
        if "resumptionToken" not in q:
            return 200, XML, PAGE1
        if not state["hostile"]:
            return 200, XML, PAGE2
        if hostile == "drip":
            return 200, {**XML, "Content-Length": str(len(PAGE2))}, _drip(PAGE2)
        if hostile == "endless":
            return 200, XML, _endless()
        return 200, XML, b" " * 50_000_000

    with RecordedServer(route) as server:
        config = home / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(
            f'[sources.arxiv-oai]\nbase_url = "{server.url}/oai"\ndelay_s = 0\n'
            "max_retries = 0\ntimeout_s = 2\nmax_response_mb = 4\n",
            encoding="utf-8",
        )
        args = ["--home", str(home), "sync", "arxiv", "--set", "cs", "--from", "2015-01-01"]
        out = CliRunner().invoke(main, args)
        assert out.exit_code == 1, out.output
        assert "Traceback" not in out.output and "Error:" not in out.output.split("\n")[0][:6]
        reason = "within 2 s" if hostile == "drip" else "larger than 4 MB"
        assert reason in out.output and "cannot fetch" in out.output
        with LitsiftService(get_paths(home)) as svc:
            (saved,) = svc.sources.saved_syncs()
            assert saved.resume_token == "726959|1001"
            assert svc.store.count(Kind.PAPER) == 6  # page 1 stays
        state["hostile"] = False
        again = CliRunner().invoke(main, ["--home", str(home), "sync", "--json"])
        assert again.exit_code == 0, again.output
        (row,) = json.loads(again.output)
        assert row["resumed"] and (row["pages"], row["added"]) == (1, 2)
    with LitsiftService(get_paths(home)) as svc:
        assert svc.store.count(Kind.PAPER) == 8
