"""``litsift refs fetch`` and the citations screen's fetch against a real 127.0.0.1 server
answering as OpenAlex and Semantic Scholar do in the cases the recorded pages lack: S2's
``data: null`` for a paper whose publisher elided its references, and error pages in HTML.

The seed is the real OpenAlex Work W2162348455 (doi 10.1038/35002501); the other answers are
the recorded pages of ../shared/data/sources."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.store import citations
from litsift.types import Kind
from tests.unit.sources.recorded_server import RecordedServer

SRC = shared_data_dir() / "sources"
S2 = SRC / "semantic-scholar" / "graph-api"
SEED_FILE = SRC / "openalex" / "api" / "work_W2162348455.json"
SEED = "doi:10.1038/35002501"
JSON = {"Content-Type": "application/json"}
#: what S2 answers (HTTP 200) for the references of a paper whose publisher elided them
ELIDED = {
    "data": None,
    "citingPaperInfo": {
        "openAccessPdf": {
            "url": "",
            "status": None,
            "license": None,
            "disclaimer": "Notice: The following paper fields have been elided by the "
            "publisher: {'references'}. Paper or abstract available at "
            "https://api.unpaywall.org/v2/10.1038/35002501?email=<INSERT_YOUR_EMAIL>",
        }
    },
}


def _home(tmp_path: Path, url: str, retries: int = 0) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        "".join(
            f'[sources.{s}]\nbase_url = "{url}"\ndelay_s = 0\nmax_retries = {retries}\n'
            "timeout_s = 5\n"
            for s in ("openalex", "s2")
        )
    )
    with LitsiftService(get_paths(home)) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [SEED_FILE]).ok
    return home


def _run(home: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--home", str(home), "refs", "fetch", *args])
    return result.exit_code, result.stdout, result.stderr


def test_s2_references_elided_by_the_publisher_end_the_walk_with_a_note(tmp_path: Path) -> None:
    """S2 answers ``data: null`` (HTTP 200) for the references of a paper whose publisher
    elided them. Before, the walk 'failed' with "s2 said: holds no Semantic Scholar papers"
    (exit 1), was fetched again on every run, and the app's F said to fetch again later. It
    is an answer: the walk ends with nothing, and says why."""

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        assert path.startswith(f"/graph/v1/paper/DOI:{SEED[4:]}/")
        if path.endswith("/references"):
            return 200, JSON, json.dumps(ELIDED).encode()
        if query["offset"] == "0":
            return 200, JSON, (S2 / "paper-citations_offset0.json").read_bytes()
        return 200, JSON, json.dumps({"offset": int(query["offset"]), "data": []}).encode()

    with RecordedServer(route) as server:
        home = _home(tmp_path, server.url)
        code, out, err = _run(home, SEED, "--source", "s2")
        assert code == 0, err
        assert "2 walks (2 fetched)" in out
        assert f"{SEED}: Semantic Scholar gives none of its references (its publisher " in err
        assert "failed" not in out + err and "holds no" not in err
        asked = len(server.requests)
        code, out, _ = _run(home, SEED, "--source", "s2", "--json")
        assert code == 0 and len(server.requests) == asked  # both walks are done
        assert [w["status"] for w in json.loads(out)["walks"]] == ["cached", "cached"]
    with LitsiftService(get_paths(home)) as svc:
        # the seed's own 230 referenced_works (from its import), none from S2
        assert len(citations.references(svc.store._conn, SEED)) == 230
        assert len(citations.cited_by(svc.store._conn, SEED)) == 100


#: what a load balancer in front of an API sends when no backend answers (status 503)
LB_PAGE = (
    b"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>503 Service Temporarily "
    b"Unavailable</title><style>body{font-family:sans-serif}</style></head>\n<body><center>"
    b"<h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center>\n"
    b"</body></html>\n"
)
#: what a network's login page answers in place of any URL (status 200)
LOGIN_PAGE = (
    b"<html><head><title>Guest Wi-Fi \x1b[31m- sign in</title></head><body><form>"
    b"<input name='user'></form></body></html>"
)
INVALID_FILTER = SRC / "openalex" / "api" / "error_invalid-filter.json"


def test_error_pages_are_said_in_words_with_a_hint(tmp_path: Path) -> None:
    """Before, an HTML error page was printed as markup ("HTTP 503: <!DOCTYPE html><html>
    <head><meta charset=..."), a JSON error as its raw text, and a 200 login page in place of
    the API read "openalex sent a response litsift cannot read: not JSON (Expecting value:
    line 1 column 1 (char 0))" with no hint at all (a walk's hint was never printed)."""
    answer: dict[str, tuple[int, bytes]] = {"now": (503, LB_PAGE)}

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        status, body = answer["now"]
        kind = JSON if body.startswith(b"{") else {"Content-Type": "text/html"}
        return status, kind, body

    with RecordedServer(route) as server:
        home = _home(tmp_path, server.url)
        code, _, err = _run(home, SEED, "--backward")
        assert code == 1
        assert "/works: HTTP 503: 503 Service Temporarily Unavailable\n" in err
        assert "<" not in err and "hint: check the source's base_url" in err
        answer["now"] = (400, INVALID_FILTER.read_bytes())
        code, _, err = _run(home, SEED, "--backward")
        assert code == 1
        assert "HTTP 400: Invalid query parameters error.: DOESNTEXIST is not a valid field" in err
        answer["now"] = (200, LOGIN_PAGE)
        code, out, err = _run(home, SEED, "--backward")
        assert code == 1 and "1 walk (1 failed)" in out
        assert (
            f"{SEED}: OpenAlex answered with a web page, not its API's JSON "
            "(“Guest Wi-Fi - sign in”)\n"
        ) in err
        assert "\x1b" not in err
        assert "  hint: check base_url under [sources.openalex] in config.toml" in err


CITES = SRC / "openalex" / "api" / "works_filter-cites_two-works_per-page-200_cursor.json"
LAST = SRC / "openalex" / "api" / "works_filter-doi-list_per-page-200_cursor-page2-last.json"


def test_ctrl_c_says_what_was_saved_and_the_next_run_goes_on(tmp_path: Path) -> None:
    """Ctrl-C in ``refs fetch`` printed click's "Aborted!" (exit 1): not a word that the
    pages written stay and that the same command goes on from there. A real ``python -m
    litsift`` gets SIGINT while the server holds its second page."""
    import signal
    import subprocess
    import sys
    import threading

    asked, release = threading.Event(), threading.Event()
    cursor = json.loads(CITES.read_bytes())["meta"]["next_cursor"]

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        if query["cursor"] == "*":
            return 200, JSON, CITES.read_bytes()
        assert query["cursor"] == cursor
        if not asked.is_set():
            asked.set()
            release.wait(60)
        return 200, JSON, LAST.read_bytes()

    with RecordedServer(route) as server:
        home = _home(tmp_path, server.url)
        argv = [sys.executable, "-m", "litsift", "--home", str(home), "refs", "fetch", SEED]
        proc = subprocess.Popen(
            [*argv, "--forward"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert asked.wait(60), "the second page was never asked for"
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == -signal.SIGINT, err  # died by Ctrl-C, as a shell loop needs
        assert "stopped (Ctrl-C): 5 works of 1 walk were saved before the stop; the same " in err
        assert "Aborted" not in err and "Traceback" not in err
        code, out, err = _run(home, SEED, "--forward", "--json")
        assert code == 0, err
        assert [(w["status"], w["pages"]) for w in json.loads(out)["walks"]] == [("resumed", 1)]
        assert [q["cursor"] for _, q in server.requests] == ["*", cursor, cursor]
    with LitsiftService(get_paths(home)) as svc:
        assert len(citations.cited_by(svc.store._conn, SEED)) == 5
        assert svc.counts()[Kind.PAPER] == 6  # the seed and its 5 citing works, once each


CITED_BY = SRC / "openalex" / "api" / "works_filter-cited_by_two-works_per-page-200_cursor.json"


def test_the_summary_accounts_for_every_work_read(tmp_path: Path) -> None:
    """The summary said "43 works read, 42 added, 0 merged" the first time and "43 works read,
    0 added, 0 merged" the second: the works already stored (and the bad one) were not in it,
    so the numbers did not add up to what was read."""
    import re

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        if query["cursor"] != "*":
            return 200, JSON, LAST.read_bytes()
        return 200, JSON, (CITED_BY if "cited_by:" in query["filter"] else CITES).read_bytes()

    with RecordedServer(route) as server:
        home = _home(tmp_path, server.url)
        lines = []
        for again in ((), ("--refresh",)):
            code, out, err = _run(home, SEED, *again)
            assert code == 0, err
            lines.append(out.strip().splitlines()[-1])
    pattern = (
        r"(\d+) works read: (\d+) added, (\d+) updated, (\d+) merged, (\d+) already stored, "
        r"(\d+) bad; [\d,]+ new edges"
    )
    for line in lines:
        got = re.search(pattern, line)
        assert got, line
        read, *parts = (int(n) for n in got.groups())
        assert read == sum(parts) == 43, line
    assert "43 works read: 0 added, 0 updated, 0 merged, 42 already stored, 1 bad" in lines[1]
