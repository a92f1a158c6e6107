"""The house plan of issue 41, checked from the imports (grimp, as import-linter uses it)."""

from __future__ import annotations

from pathlib import Path

from tests.bench import benchmark_module

architecture = benchmark_module("architecture")
SRC = Path(__file__).resolve().parents[2] / "src" / "litsift"


def test_no_module_imports_a_module_that_imports_it_back() -> None:
    """Every import counts, lazy and ``TYPE_CHECKING`` ones too: a cycle is a tangle to
    newcomers whether or not it runs."""
    assert architecture.cycles(architecture.import_graph()) == []


def test_units_and_edges_stay_about_half_of_the_flat_layout() -> None:
    """45 units and 204 import edges before issue 41's layout: the service and the command line
    are packages, so the top of the package is read in one screen."""
    units = architecture.unit_graph(architecture.import_graph())
    assert architecture.cycles(units) == []
    assert units.number_of_nodes() <= 25, sorted(units.nodes)
    assert units.number_of_edges() <= 110


def test_no_service_or_cli_module_lies_loose_at_the_package_top() -> None:
    loose = sorted(
        p.name
        for p in SRC.glob("*.py")
        if p.stem.startswith(("service", "cli")) or p.stem == "output"
    )
    assert loose == []
    assert (SRC / "service" / "facade.py").is_file() and (SRC / "cli" / "root.py").is_file()
