"""Terminal injection (issue 14, item 2): one sanitiser for every string shown in a terminal.

Unit cases per escape-sequence class, a property test of the sanitiser, and the CLI end to end:
``litsift search`` and ``litsift answer`` over a home holding real rows of ``../shared/data``
plus one hostile record (and a scripted LLM that answers with escape sequences).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from itertools import islice, pairwise
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from litsift.cli.common import reports_errors
from litsift.cli.root import main
from litsift.errors import LitsiftError
from litsift.text import (
    for_storage,
    for_terminal,
    for_terminal_draft,
    json_for_terminal,
    split_escape_sequences,
)
from tests.conftest import DATASETS_GZ, PAPERS_GZ
from tests.llm_server import ScriptedLLMServer, chat_reply, configured_home

#: OSC 0 (set the window title), CSI 2J (erase the display), SGR 31 (red)
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred"


# -- the sanitiser ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1b]0;pwned\x07b", "ab"),  # OSC 0 ended by BEL
        ("a\x1b]0;pwned\x1b\\b", "ab"),  # OSC ended by ST
        ("a\x1b]8;;http://x\x07link\x1b]8;;\x07b", "alinkb"),  # OSC 8 hyperlink
        ("a\x1b[2Jb", "ab"),  # CSI erase display
        ("a\x1b[31mred\x1b[0mb", "aredb"),  # SGR
        ("a\x1b[?1049hb", "ab"),  # private CSI (alternate screen)
        ("a\x9b31mb", "ab"),  # 8-bit CSI
        ("a\x9d0;t\x9cb", "ab"),  # 8-bit OSC, 8-bit ST
        ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),  # DCS (sixel)
        ("a\x90q\x9cb", "ab"),  # 8-bit DCS
        ("a\x1b_apc\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d", "abcd"),  # APC, PM, SOS
        ("a\x1bcb\x1b7c\x1b(Bd", "abcd"),  # RIS, DECSC, designate G0
        ("a\x1b]0;no terminator", "a0;no terminator"),  # introducer dropped, text kept
        ("a\x1b", "a␛"),  # a lone ESC is made visible
        ("a\x85b", "a\ufffdb"),  # other C1 (NEL)
        ("a\ud800b\udfffc", "a\ufffdb\ufffdc"),  # lone surrogates
        ("abc\u202edcba\u202c!", "abcdcba!"),  # bidi override dropped
        ("a\u2066b\u2069c", "abc"),  # bidi isolate dropped
        ("a\x00b\x07c\x7fd", "a␀b␇c␡d"),  # NUL, BEL, DEL visible
        ("line 1\r\nline 2\rline 3", "line 1\nline 2\nline 3"),  # CR never overwrites
        ("tab\there\nnext", "tab\there\nnext"),  # \n and \t kept
        ("[bold]x[/bold] Übersetzung 機械翻訳 🚀", "[bold]x[/bold] Übersetzung 機械翻訳 🚀"),
    ],
)
def test_for_terminal(raw: str, shown: str) -> None:
    assert for_terminal(raw) == shown


def test_one_line_form_turns_newlines_and_tabs_into_spaces() -> None:
    assert for_terminal("a\nb\tc\r\nd", keep_newlines=False) == "a b c d"
    assert for_terminal(HOSTILE, keep_newlines=False) == "red"


def test_clean_text_is_returned_as_is() -> None:
    text = "An abstract with no control characters at all, 機械翻訳."
    assert for_terminal(text) is text


def test_long_runs_of_introducers_stay_linear() -> None:
    text = "\x9d" * 50_000 + "\x1b]" * 50_000 + "\x1bP" * 50_000
    out = for_terminal(text)
    assert "\x1b" not in out and "\x9d" not in out


_C0_KEPT = {"\n", "\t"}


def _is_safe(s: str) -> bool:
    return all(
        (ord(c) >= 0x20 or c in _C0_KEPT)
        and not 0x7F <= ord(c) <= 0x9F
        and not 0xD800 <= ord(c) <= 0xDFFF
        and not 0x202A <= ord(c) <= 0x202E
        and not 0x2066 <= ord(c) <= 0x2069
        for c in s
    )


#: text rich in what terminals interpret: ESC, C1, surrogates and sequence bytes
#: (click's CliRunner is run with ``color=True`` below so it strips no ANSI codes itself)
_NASTY = st.text(
    st.one_of(
        st.sampled_from(list("\x1b\x07\x9b\x9c\x9d\x90\x98\x9e\x9f[]P\\X^_;0123mJ\r\n\t")),
        st.characters(),  # any code point but surrogates...
        st.integers(0xD800, 0xDFFF).map(chr),  # ...which come from surrogateescape or bad JSON
        st.integers(0x80, 0x9F).map(chr),  # C1
    )
)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(s=st.one_of(st.text(), _NASTY), keep_newlines=st.booleans())
def test_output_is_safe_and_sanitising_is_idempotent(s: str, keep_newlines: bool) -> None:
    once = for_terminal(s, keep_newlines)
    assert _is_safe(once)
    assert "\x1b" not in once
    if not keep_newlines:
        assert "\n" not in once and "\t" not in once
    assert for_terminal(once, keep_newlines) == once


@settings(max_examples=500, deadline=None, derandomize=True)
@given(s=st.one_of(st.text(), _NASTY))
def test_json_is_lossless_and_carries_no_raw_control(s: str) -> None:
    obj = {"k": s, s: [s]}
    text = json_for_terminal(obj)
    assert _is_safe(text)
    # exactly the strings given, as far as JSON can say: a high + low surrogate code point
    # pair is one character in JSON (as with the standard library's ensure_ascii output)
    assert json.loads(text) == json.loads(json.dumps(obj))
    if not any("\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff" for a, b in pairwise(s)):
        assert json.loads(text) == obj


@settings(max_examples=500, deadline=None, derandomize=True)
@given(s=st.one_of(st.text(), _NASTY))
def test_split_escape_sequences_cuts_at_what_for_storage_removes(s: str) -> None:
    """The text between the sequences is what storage keeps of the whole: a parser can read
    it without the sequences' bytes (BibTeX's LaTeX decoding read an OSC's ``ESC \\``)."""
    pieces = split_escape_sequences(s)
    assert "".join(pieces) == s
    assert all(for_storage(seq) == "" for seq in pieces[1::2])
    assert all(split_escape_sequences(text) == [text] for text in pieces[::2])


#: text a terminal shows as is: no control character (Cc), surrogate or bidi control
_PLAIN = st.text(
    st.characters(
        blacklist_categories=("Cc", "Cs"),
        blacklist_characters="\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
    )
)
#: an OSC string's body: anything but BEL, ESC and C1 (which end or break it)
_OSC_BODY = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x07\x1b"))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    before=_PLAIN,
    body=_OSC_BODY.filter(lambda b: not any(0x80 <= ord(c) <= 0x9F for c in b)),
    end=st.sampled_from(["\x07", "\x1b\\", "\x9c"]),
    after=_PLAIN,
    introducer=st.sampled_from(["\x1b]", "\x9d"]),
)
def test_an_osc_sequence_is_removed_whole(
    before: str, body: str, end: str, after: str, introducer: str
) -> None:
    """An OSC string ended by BEL, ``ESC \\`` or 8-bit ST leaves nothing of itself behind (no
    ``0;title``, no ``␇``), in the final text and in every draft of a stream cut anywhere."""
    text = before + introducer + body + end + after
    assert for_terminal(text) == before + after
    assert for_terminal_draft(text) == before + after
    for cut in range(len(before), len(text) + 1):
        shown = for_terminal_draft(text[:cut])
        assert (before + after).startswith(shown), (cut, shown)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("Albums \x1b]0;pwned-tit", "Albums "),  # an OSC not ended yet
        ("Albums \x1b]0;pwned-title\x1b", "Albums "),  # ... up to the ESC of its ST
        ("Albums \x1b]0;pwned-title\x07are", "Albums are"),  # ended: removed, text follows
        ("red \x1b[3", "red "),  # a CSI without its final byte
        ("red \x9b", "red "),  # an 8-bit CSI introducer
        ("x \x1b", "x "),  # a lone ESC, perhaps the start of a sequence
        ("x \x1bP1;2", "x "),  # a DCS string not ended yet
        ("line\r", "line"),  # a CR whose LF may follow
        ("done \x1b[2J.\x00", "done .␀"),  # complete sequences and controls as for_terminal
    ],
)
def test_draft_holds_back_a_sequence_cut_short(raw: str, shown: str) -> None:
    assert for_terminal_draft(raw) == shown


@settings(max_examples=300, deadline=None, derandomize=True)
@given(s=st.one_of(st.text(), _NASTY))
def test_draft_is_safe(s: str) -> None:
    shown = for_terminal_draft(s)
    assert _is_safe(shown) and "\x1b" not in shown
    assert shown == for_terminal(shown)


# -- the CLI ---------------------------------------------------------------------------------
def _real_rows(path: Path, n: int) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        lines = (line for line in f.read().split("\n") if line.strip())
        return [json.loads(line) for line in islice(lines, n)]


HOSTILE_DATASET = {
    "id": "HostileSet" + HOSTILE,
    "variants": ["HostileSet" + HOSTILE, "8-bit\x9b31m CSI"],
    "description": "A music genre dataset of albums " + HOSTILE + " with \x9d0;t\x9c tracks.",
    "year": 2020,
}
HOSTILE_PAPER = {
    "id": "hostile-1",
    "title": "Hostile music genre classification " + HOSTILE,
    "abstract": "We classify albums into music genres. " + HOSTILE + " Done\x9b2J.",
    "authors": ["A. Author"],
    "year": 2020,
    "venue": "TestConf",
}


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def ingest_as_written(svc: Any, kind: Any, path: Path) -> None:
    """Ingest the JSONL file ``path`` keeping its control characters, as litsift stored its
    own JSONL before it removed them (``LitsiftService.ingest`` removes them now): a store of
    that time holds them, and the terminal sanitiser is what keeps them off the screen."""
    from litsift.store import ingest_jsonl

    assert ingest_jsonl(svc.store, kind, path).ok


@pytest.fixture(scope="module")
def hostile_home(tmp_path_factory: pytest.TempPathFactory, encoder: Any) -> Path:
    """A home with 8 real datasets + 8 real papers and one hostile record of each (stored with
    their control characters, :func:`ingest_as_written`), indexed."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

    root = tmp_path_factory.mktemp("hostile")
    datasets = _write_jsonl(root / "d.jsonl", [*_real_rows(DATASETS_GZ, 8), HOSTILE_DATASET])
    papers = _write_jsonl(root / "p.jsonl", [*_real_rows(PAPERS_GZ, 8), HOSTILE_PAPER])
    home = root / "home"
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        ingest_as_written(svc, Kind.DATASET, datasets)
        ingest_as_written(svc, Kind.PAPER, papers)
        svc.build_index(Kind.DATASET)
        svc.build_index(Kind.PAPER)
    return home


def test_search_plain_output_has_no_escape(hostile_home: Path) -> None:
    res = CliRunner().invoke(
        main,
        ["--home", str(hostile_home), "search", "--datasets", "music genre albums"],
        color=True,
    )
    assert res.exit_code == 0, res.output
    assert "HostileSet" in res.output and "\x1b" not in res.output and "\x9b" not in res.output


def test_search_json_round_trips_the_hostile_text(hostile_home: Path) -> None:
    res = CliRunner().invoke(
        main,
        ["--home", str(hostile_home), "search", "--datasets", "--json", "music genre albums"],
        color=True,
    )
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.output and "\x9b" not in res.output  # escaped, not raw
    hit = next(h for h in json.loads(res.output)["hits"] if h["id"] == HOSTILE_DATASET["id"])
    assert hit["title"] == HOSTILE_DATASET["id"]
    assert hit["aliases"] == HOSTILE_DATASET["variants"]


@pytest.fixture()
def llm_home(
    hostile_home: Path, srv: ScriptedLLMServer
) -> Iterator[tuple[Path, ScriptedLLMServer]]:
    with configured_home(hostile_home, srv):
        yield hostile_home, srv


def test_answer_final_text_has_no_escape(
    llm_home: tuple[Path, ScriptedLLMServer],
) -> None:
    home, srv = llm_home
    srv.push(chat_reply("Albums are \x1b]0;pwned\x07classified\x1b[2J by genre [1]."))
    res = CliRunner().invoke(
        main, ["--home", str(home), "answer", "music genre classification"], color=True
    )
    assert res.exit_code == 0, res.output
    assert "stream" not in srv.requests[-1].body  # stdout is no terminal: no draft to stream
    assert "classified" in res.output and "References" in res.output
    assert "Hostile music genre" in res.output  # the hostile paper is cited, its title cleaned
    assert "\x1b" not in res.output and "\x9b" not in res.output


def test_answer_json_round_trips_the_hostile_abstract(
    llm_home: tuple[Path, ScriptedLLMServer],
) -> None:
    home, srv = llm_home
    srv.push(chat_reply("Albums are \x1b[31mclassified by genre [1]."))
    res = CliRunner().invoke(
        main, ["--home", str(home), "answer", "--json", "music genre classification"], color=True
    )
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.output and "\x9b" not in res.output
    out = json.loads(res.output)
    assert "\x1b[31m" in out["answer"]
    texts = [p["text"] for p in out["passages"]]
    assert any(HOSTILE in t for t in texts)


def test_reported_errors_are_sanitised() -> None:
    @click.command()
    @reports_errors
    def fails() -> None:
        raise LitsiftError("bad title " + HOSTILE, "hint \x9b2J\x1b]0;x\x07 here")

    res = CliRunner().invoke(fails, [])
    assert res.exit_code == 1
    assert "error: bad title red" in res.output and "hint: hint  here" in res.output
    assert "\x1b" not in res.output and "\x9b" not in res.output


def test_answer_prints_the_answer_once_without_remnants_and_each_warning_once(
    llm_home: tuple[Path, ScriptedLLMServer],
) -> None:
    """`litsift answer ... | cat`: stdout is no terminal, so no draft is streamed there; the
    checked answer appears once, the OSC title sequence leaves no ``0;pwned-title`` and no BEL
    (raw or ␇), and the stripped [99] is reported once, in one wording."""
    home, srv = llm_home
    srv.push(
        chat_reply(
            "Albums are \x1b]0;pwned-title\x07classified by genre [1]. Lyrics help too [99]."
        )
    )
    res = CliRunner().invoke(
        main, ["--home", str(home), "answer", "Which datasets evaluate STS now?"], color=True
    )
    assert res.exit_code == 0, res.output
    assert res.stdout.count("Albums are classified by genre [1].") == 1, res.stdout
    assert res.stdout.count("Lyrics help too.") == 1 and "[99]" not in res.stdout
    assert res.stdout.count("References") == 1
    for remnant in ("0;pwned", "pwned-title", "\x1b", "\x07", "␇", "␛", "\x9b"):
        assert remnant not in res.stdout and remnant not in res.stderr, remnant
    assert res.stderr.count("stripped citations") == 1, res.stderr
    assert "note: stripped citations to passages that were never sent: [99]" in res.stderr
