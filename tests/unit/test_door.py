"""The service is a narrow door (issue 41, item 2): the command line and the evaluation never
reach through it to the parts behind it (store, encoder, engine, searchers), checked from
the source with :mod:`ast` (independent of import-linter, which sees imports, not attribute
access)."""

from __future__ import annotations

import ast
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import litsift
from litsift.types import Hit, Kind

if TYPE_CHECKING:
    from litsift.service.refs import RefsService
    from litsift.service.screening import ScreeningSession
    from litsift.store import IngestReport

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


# -- the TUI's door (service/api.py) ---------------------------------------------------------

#: modules whose records may cross the door: the shared records, settings and errors
DOOR_MODULES = ("litsift.types", "litsift.config", "litsift.errors", "litsift.service.api")
DOOR_LIMIT = 20


def _members(cls: type) -> dict[str, object]:
    names = {n for n in (*vars(cls), *vars(cls).get("__annotations__", {})) if n[0] != "_"}
    return {name: getattr(cls, name, None) for name in sorted(names)}


def _door_members() -> dict[str, object]:
    from litsift.service import api

    return _members(api.LitsiftAPI)


def _door_namespace() -> dict[str, object]:
    """api.py's globals plus what it imports only for type checking."""
    import importlib

    from litsift.service import api

    ns = dict(vars(api))
    for node in ast.walk(ast.parse(Path(api.__file__).read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = importlib.import_module(node.module)
            for alias in node.names:
                ns[alias.asname or alias.name] = getattr(module, alias.name)
    return ns


def _foreign_annotations(
    door: type | None = None, names: dict[str, object] | None = None
) -> list[str]:
    """``member: module.name`` of each type in a door member's annotations that comes from
    behind the door (search, store, llm, models_onnx, a service module's own classes); a
    member that hands out a sub-door (a Protocol of api.py, or of ``door``'s module) is
    checked through it, as ``member.method: module.name``. ``door`` defaults to
    ``LitsiftAPI``; ``names`` adds to api.py's namespace."""
    import typing

    from litsift.service import api

    door = api.LitsiftAPI if door is None else door
    ns = {**_door_namespace(), **(names or {})}
    homes = {api.__name__, door.__module__}
    found: list[str] = []
    seen: set[type] = set()

    def check(cls: type, members: dict[str, object], prefix: str) -> None:
        seen.add(cls)
        attributes = typing.get_type_hints(cls, globalns=ns)
        for name, member in members.items():
            func = member.fget if isinstance(member, property) else member
            if callable(func):
                hints = list(typing.get_type_hints(func, globalns=ns).values())
            else:
                hints = [attributes[name]]
            for hint in hints:
                for t in _leaves(hint):
                    module = getattr(t, "__module__", "builtins")
                    if not isinstance(t, type):
                        continue
                    if module in homes and getattr(t, "_is_protocol", False):
                        if t not in seen:
                            check(t, _members(t), f"{prefix}{name}.")
                    elif not (
                        module in {"builtins", "pathlib", "threading", "_thread", "typing", "types"}
                        or module.startswith(("collections", *DOOR_MODULES))
                    ):
                        found.append(f"{prefix}{name}: {module}.{t.__qualname__}")

    check(door, _members(door), "")
    return sorted(set(found))


def _leaves(hint: object) -> list[object]:
    import typing

    args = typing.get_args(hint)
    if not args:
        return [hint]
    return [typing.get_origin(hint), *(leaf for a in args for leaf in _leaves(a))]


def test_the_tuis_door_has_at_most_20_members() -> None:
    members = _door_members()
    assert len(members) <= DOOR_LIMIT, f"{len(members)} members: {', '.join(members)}"


def test_the_tuis_door_speaks_only_plain_records() -> None:
    found = _foreign_annotations()
    assert not found, "types from behind the door:\n" + "\n".join(found)


class _SubDoor(Protocol):
    def open(self) -> ScreeningSession: ...
    def fine(self, kind: Kind) -> list[Hit]: ...


class _Door(Protocol):
    calls_lock: threading.Lock

    @property
    def refs(self) -> RefsService: ...
    @property
    def reviews(self) -> _SubDoor: ...
    def ingest(self, kinds: Sequence[Kind]) -> IngestReport | None: ...


def test_the_door_check_sees_members_and_foreign_types() -> None:
    from litsift.service.refs import RefsService
    from litsift.service.screening import ScreeningSession
    from litsift.store import IngestReport

    members = _door_members()
    assert {"calls_lock", "state", "search", "annotate", "build"} <= set(members)
    assert "searcher" not in members and "llm_client" not in members
    names = {
        "RefsService": RefsService,
        "ScreeningSession": ScreeningSession,
        "IngestReport": IngestReport,
        "_SubDoor": _SubDoor,
    }
    assert _foreign_annotations(_Door, names) == [
        "ingest: litsift.store.report.IngestReport",
        "refs: litsift.service.refs.RefsService",
        "reviews.open: litsift.service.screening.ScreeningSession",
    ]
