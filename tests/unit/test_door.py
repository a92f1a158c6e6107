"""The service is a narrow door (issue 41, item 2): the command line and the evaluation never
reach through it to the parts behind it (store, encoder, engine, searchers), checked from
the source with :mod:`ast` (independent of import-linter, which sees imports, not attribute
access)."""

from __future__ import annotations

import ast
from pathlib import Path

import litsift

SRC = Path(litsift.__file__).parent
#: the parts of a home the service must not hand out
PARTS = {"store", "encoder", "engine", "searchers", "searcher"}
#: the names the service object goes by in the CLI and the evaluation
SERVICE_NAMES = {"svc", "service"}


def _is_service(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in SERVICE_NAMES
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "service"
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _reaches(path: Path, root: Path = SRC.parent) -> list[str]:
    """``file:line: .part`` of each reach through the service in ``path``, in line order."""
    tree = ast.parse(path.read_text(), str(path))
    reaches = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in PARTS and _is_service(node.value)
    ]
    reaches.sort(key=lambda n: (n.lineno, n.col_offset))
    return [f"{path.relative_to(root)}:{n.lineno}: .{n.attr}" for n in reaches]


def test_cli_and_eval_take_nothing_core_from_the_service() -> None:
    files = sorted([*(SRC / "cli").rglob("*.py"), *(SRC / "eval").rglob("*.py")])
    assert files
    found = [hit for path in files for hit in _reaches(path)]
    assert not found, "the service hands out a part:\n" + "\n".join(found)


def test_the_check_sees_a_reach(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "svc.store.count(k)\nservice.searcher(kind)\nself.service.engine\nsvc.counts()\n"
        "other.store\n"
    )
    hits = [h.rsplit(" ", 1)[1] for h in _reaches(sample, tmp_path)]
    assert hits == [".store", ".searcher", ".engine"]
