"""Issue 41: no import cycle among the TUI's modules.

The main screen's parts (triage, ranking, research questions, background errors) see the screen
through the Protocols of ``litsift.tui.screens.host`` and never import it; screens never import
the app. Imports under ``TYPE_CHECKING`` count: a cycle of annotations is still a cycle a reader
has to untangle. The graph is grimp's, the one import-linter checks the contracts on.
"""

from __future__ import annotations

import grimp
import networkx as nx


def _cycles(package: str) -> list[list[str]]:
    """Each set of ``litsift`` modules that import one another in a circle and holds a module of
    ``package``, sorted."""
    graph = grimp.build_graph("litsift")
    edges = [
        (module, imported)
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
    ]
    components = nx.strongly_connected_components(nx.DiGraph(edges))
    return sorted(
        sorted(c)
        for c in components
        if len(c) > 1 and any(m == package or m.startswith(package + ".") for m in c)
    )


def test_the_tui_has_no_import_cycle() -> None:
    assert _cycles("litsift.tui") == [], (
        "modules of litsift.tui import one another in a circle: give the helper a Protocol in "
        "litsift.tui.screens.host (or post a message) instead of importing the screen"
    )


def test_the_screen_parts_do_not_import_the_search_screen() -> None:
    graph = grimp.build_graph("litsift")
    parts = [
        "litsift.tui.screens.command_keys",
        "litsift.tui.screens.job_errors",
        "litsift.tui.screens.ranking",
        "litsift.tui.screens.rq",
        "litsift.tui.screens.triage",
        "litsift.tui.screens.host",
    ]
    reaching = [
        p for p in parts if graph.chain_exists(importer=p, imported="litsift.tui.screens.search")
    ]
    assert reaching == []
