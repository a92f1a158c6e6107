"""Snowballing from kept papers and ``litsift refs export`` on a small store built from a real
OpenAlex page (37 works citing each other and 1,026 referenced works): candidates ranked by
links to the kept papers, coupling and co-citation (checked against the edges in SQL), rounds
until nothing new, and the graph of a collection read back by networkx / pydot."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pydot
import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Label

CITED_BY = (
    shared_data_dir()
    / "sources"
    / "openalex"
    / "api"
    / "works_filter-cited_by_two-works_per-page-200_cursor.json"
)
GLOVE = "doi:10.3115/v1/d14-1162"


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [CITED_BY]).added == 37
        svc.set_label(Kind.PAPER, GLOVE, Label.KEEP)
        svc.triage.create_collection("glove")
        svc.triage.add_to_collection("glove", Kind.PAPER, GLOVE)
    yield home


def _refs(conn, key: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {r[0] for r in conn.execute("SELECT cited FROM citations WHERE citing = ?", (key,))}


def _citers(conn, key: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {r[0] for r in conn.execute("SELECT citing FROM citations WHERE cited = ?", (key,))}


def test_snowball_ranks_by_links_coupling_cocitation_until_nothing_new(home: Path) -> None:
    with LitsiftService(get_paths(home)) as svc:
        conn = svc.store._conn
        first = svc.refs.snowball()
        assert first.seeds == 1
        keys = [c.neighbour.key for c in first.candidates]
        # every reference and citing work of the kept paper, nothing else
        assert set(keys) == _refs(conn, GLOVE) | _citers(conn, GLOVE)
        for c in first.candidates:  # the evidence is what the edges say
            key = c.neighbour.key
            assert c.links == 1
            assert c.coupling == len(_refs(conn, key) & _refs(conn, GLOVE))
            assert c.cocitation == len(_citers(conn, key) & _citers(conn, GLOVE))
        scores = [c.score for c in first.candidates]
        assert scores == sorted(scores, reverse=True)
        top = first.candidates[0]
        assert top.neighbour.stored and top.coupling > 0 and "coupling" in top.why()
        assert not first.candidates[-1].neighbour.stored  # unresolved works: shown as keys
        # keep the best candidate: the next round starts from two kept papers, proposes its
        # neighbours too, and never the labelled ones
        svc.set_label(Kind.PAPER, top.neighbour.key, Label.KEEP)
        second = svc.refs.snowball()
        assert second.seeds == 2
        again = {c.neighbour.key for c in second.candidates}
        assert top.neighbour.key not in again and GLOVE not in again
        assert again >= set(keys) - {top.neighbour.key}
        assert max(c.links for c in second.candidates) == 2  # cited by both kept papers
        assert second.candidates[0].links == 2
        # discard every candidate: a round with nothing new ends the snowballing
        for c in second.candidates:
            if c.neighbour.stored:
                svc.set_label(Kind.PAPER, c.neighbour.key, Label.DISCARD)
        last = svc.refs.snowball()
        assert all(not c.neighbour.stored for c in last.candidates)


@pytest.mark.parametrize("fmt", ["graphml", "dot", "json"])
def test_export_collection_graph_reads_back(home: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"glove.{fmt}"
    result = CliRunner().invoke(
        main, ["--home", str(home), "refs", "export", "glove", "--format", fmt, "-o", str(out)]
    )
    assert result.exit_code == 0, result.stderr
    with LitsiftService(get_paths(home)) as svc:
        conn = svc.store._conn
        expected_nodes = {GLOVE} | _refs(conn, GLOVE) | _citers(conn, GLOVE)
    text = out.read_text(encoding="utf-8")
    if fmt == "graphml":
        # booleans as XML Schema spells them (networkx writes Python's "True", which yEd
        # and XSD validation refuse); read back as booleans
        assert ">true</data>" in text and ">True</data>" not in text
        g = nx.read_graphml(out)
        assert g.nodes[GLOVE]["member"] is True
    elif fmt == "json":
        g = nx.node_link_graph(json.loads(text), edges="links")
    else:
        dot = pydot.graph_from_dot_data(text)[0]
        g = nx.DiGraph()
        g.add_edges_from(
            (e.get_source().strip('"'), e.get_destination().strip('"')) for e in dot.get_edges()
        )
        for node in dot.get_nodes():
            g.add_node(node.get_name().strip('"'), **node.get_attributes())
    assert set(g.nodes) == expected_nodes
    assert g.number_of_edges() == len(expected_nodes) - 1  # each neighbour linked to GloVe once
    glove = g.nodes[GLOVE]
    assert str(glove["triage"]) == "keep" and str(glove["member"]) == "True"
    assert "Glove" in str(glove["title"])


def test_export_and_snowball_errors_are_messages(home: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["--home", str(home), "refs", "export", "nope"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "nope" in result.stderr and "hint:" in result.stderr
    empty = tmp_path / "empty"
    result = runner.invoke(main, ["--home", str(empty), "refs", "export"])
    assert result.exit_code == 1 and "no paper is kept yet" in result.stderr
    result = runner.invoke(main, ["--home", str(empty), "refs", "fetch", "doi:10.1/none"])
    assert result.exit_code == 1 and "no stored paper has the id" in result.stderr


#: a kept title as litsift's own JSONL stores it (text as given): OSC 0, CSI, BEL, NUL, C1 CSI,
#: and a bidi override (kept in a file, never shown on a terminal)
HOSTILE_TITLE = "Hostile \x1b]0;pwned\x07graph\x1b[2J \x00title\x9b31m end\u202e."


@pytest.mark.parametrize("fmt", ["graphml", "dot", "json"])
def test_a_title_with_control_characters_exports_readably(
    home: Path, tmp_path: Path, fmt: str
) -> None:
    """Before, ``write_graphml`` failed on it ("litsift failed unexpectedly (ValueError: All
    strings must be XML compatible ...)", exit 2: a bug report for a bad title), and DOT and
    JSON carried the raw sequences; to a terminal ``refs export`` wrote them unsanitised."""
    from tests.unit.test_export_notes import shown_on_a_terminal

    rows = tmp_path / "hostile.jsonl"
    rows.write_text(json.dumps({"id": "hostile-1", "title": HOSTILE_TITLE}) + "\n")
    with LitsiftService(get_paths(home)) as svc:
        assert svc.ingest(Kind.PAPER, rows).ok
        svc.set_label(Kind.PAPER, "hostile-1", Label.KEEP)
    out = tmp_path / f"kept.{fmt}"
    result = CliRunner().invoke(
        main, ["--home", str(home), "refs", "export", "--format", fmt, "-o", str(out)]
    )
    assert result.exit_code == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert not any(c in text for c in "\x1b\x07\x00\x9b"), text
    assert "Hostile graph title end" in text
    if fmt == "graphml":
        assert nx.read_graphml(out).nodes["hostile-1"]["title"] == "Hostile graph title end\u202e."
    shown = shown_on_a_terminal(["--home", str(home), "refs", "export", "--format", fmt])
    assert "Hostile graph title end." in shown
    assert not any(c in shown for c in "\x1b\x07\x00\x9b\u202e"), shown
