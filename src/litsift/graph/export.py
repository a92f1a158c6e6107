"""The citation graph of a set of papers in files common viewers open: GraphML (Gephi,
Cytoscape, yEd), Graphviz DOT (``dot``, xdot, Gephi) and node-link JSON (d3-force,
networkx ``node_link_graph``, Cytoscape.js after a rename). Written by networkx's own writers
(``write_graphml``, ``nx_pydot.to_pydot``, ``node_link_data``).

Titles and keys pass through :func:`litsift.text.for_storage` first: a title holding a
control character (one stored by litsift's own JSONL, which keeps text as given) made
``write_graphml`` fail ("All strings must be XML compatible") and reached a terminal raw
through DOT and JSON."""

from __future__ import annotations

import io
import json
import re
from typing import TYPE_CHECKING

from litsift.errors import LitsiftError
from litsift.text import for_storage

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["GRAPH_FORMATS", "write_graph"]

GRAPH_FORMATS = ("graphml", "dot", "json")


def _quoted(text: str) -> str:
    """``text`` as a DOT quoted string (backslashes and quotes escaped, newlines as spaces)."""
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'"{text}"'


def _text(value: object) -> object:
    """A string without escape sequences or control characters (XML 1.0 allows none but tab,
    line feed and carriage return); any other value as it is."""
    return for_storage(value) if isinstance(value, str) else value


_BOOLEAN_KEY = re.compile(r'<key id="([^"]+)"[^>]*attr\.type="boolean"')


def _xsd_booleans(xml: str) -> str:
    """GraphML ``boolean`` values as XML Schema spells them (``true`` / ``false``):
    networkx writes Python's ``True`` / ``False``, which strict readers (yEd, XSD validation)
    refuse."""
    for key in _BOOLEAN_KEY.findall(xml):
        for word in ("True", "False"):
            xml = xml.replace(
                f'<data key="{key}">{word}</data>', f'<data key="{key}">{word.lower()}</data>'
            )
    return xml


def write_graph(g: nx.DiGraph, fmt: str) -> str:
    """``g`` as the text of a GraphML, DOT or node-link JSON file.

    Node attributes must be str, int, float or bool (GraphML's types); None values are left
    out. Edges go ``citing -> cited``.

    Raises:
        LitsiftError: an unknown ``fmt``.
    """
    import networkx as nx

    clean = nx.DiGraph()
    for node, attrs in g.nodes(data=True):
        clean.add_node(_text(node), **{k: _text(v) for k, v in attrs.items() if v is not None})
    for a, b, attrs in g.edges(data=True):
        clean.add_edge(
            _text(a), _text(b), **{k: _text(v) for k, v in attrs.items() if v is not None}
        )
    if fmt == "graphml":
        buf = io.BytesIO()
        nx.write_graphml(clean, buf, encoding="utf-8")
        return _xsd_booleans(buf.getvalue().decode("utf-8"))
    if fmt == "dot":
        from networkx.drawing.nx_pydot import to_pydot

        # DOT ids with ':' must be quoted (nx_pydot refuses them bare); Graphviz shows a
        # node's ``label``: its title, cut, or its key
        dot = nx.relabel_nodes(clean, {n: _quoted(str(n)) for n in clean.nodes})
        for node, attrs in dot.nodes(data=True):
            title = str(attrs.get("title") or "")
            shown = title if len(title) <= 60 else title[:59] + "…"
            attrs["label"] = _quoted(shown or str(node).strip('"'))
            if "title" in attrs:
                attrs["title"] = _quoted(title)
        return str(to_pydot(dot).to_string())
    if fmt == "json":
        data = nx.node_link_data(clean, edges="links")
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    raise LitsiftError(f"unknown graph format {fmt!r}", f"use one of: {', '.join(GRAPH_FORMATS)}")
