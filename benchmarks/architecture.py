"""The shape of litsift's imports: units (top-level modules and packages), import edges between
them, and import cycles between units and between modules (grimp, ``TYPE_CHECKING`` imports
included). Issue 41 counted 45 units, 204 edges and 8 module cycles before its re-layout.

Usage::

    python benchmarks/architecture.py [--depth 1] [--json]
"""

from __future__ import annotations

import argparse
import json

import grimp
import networkx as nx


def import_graph(package: str = "litsift") -> nx.DiGraph:
    """Module -> module import edges inside ``package`` (every import, lazy and typing ones too)."""
    graph = grimp.build_graph(package)
    out = nx.DiGraph()
    for module in graph.modules:
        out.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            out.add_edge(module, imported)
    return out


def unit_graph(modules: nx.DiGraph, depth: int = 1) -> nx.DiGraph:
    """The module graph collapsed to units: ``litsift.X`` at depth 1 (``litsift.X.Y`` at 2)."""
    out = nx.DiGraph()
    for module in modules.nodes:
        out.add_node(".".join(module.split(".")[: depth + 1]))
    for a, b in modules.edges:
        ua, ub = ".".join(a.split(".")[: depth + 1]), ".".join(b.split(".")[: depth + 1])
        if ua != ub:
            out.add_edge(ua, ub)
    return out


def cycles(graph: nx.DiGraph) -> list[list[str]]:
    """The strongly connected components of more than one node, each sorted."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    modules = import_graph()
    units = unit_graph(modules, args.depth)
    figures = {
        "modules": modules.number_of_nodes(),
        "module_edges": modules.number_of_edges(),
        "module_cycles": cycles(modules),
        "units": units.number_of_nodes(),
        "unit_edges": units.number_of_edges(),
        "unit_cycles": cycles(units),
        "layers": len(list(nx.topological_generations(units))) if not cycles(units) else None,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        print(f"{key:14} {len(value) if isinstance(value, list) else value}")
    for cycle in figures["module_cycles"]:
        print("  module cycle:", " <-> ".join(cycle))


if __name__ == "__main__":
    main()
