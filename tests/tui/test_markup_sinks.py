"""Data text never reaches Textual's markup parser.

A ``str`` set as a ``border_title`` (or given to ``Static`` / ``Label`` without
``markup=False``) is parsed as content markup. A review named ``rev[@click=app.quit]x[b]``
showed "Review revx" with a clickable quit action in the criteria dialog's border; a dataset
whose name holds ``[/]`` closed the app with a ``MarkupError`` when its users were listed
(``C``), and ``[link=...]`` wrote a terminal hyperlink. Border titles from data go through
:func:`litsift.tui.widgets.safe_text.safe_title`; the scan below holds every call site to it.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from textual.app import App
from textual.content import Content
from textual.screen import Screen

from litsift.tui.screens.dataset_users import DatasetUsersScreen
from litsift.tui.screens.review_criteria import CriteriaScreen
from litsift.types import Paper
from litsift.types.citations import DatasetUsers
from tests.tui.test_hostile_text import assert_clean

TUI = Path(__file__).resolve().parents[2] / "src" / "litsift" / "tui"
#: markup that acts (a click runs an action, a link is an OSC 8 hyperlink), styles, or fails
MARKUP = "x[@click=app.quit]q[/][b]B[link=http://evil.example]L[/link][/]"
HOSTILE = MARKUP + "\x1b]0;pwned\x07\x1b[2J\u202e"


def _plain(title: object) -> str:
    assert isinstance(title, Content), type(title)
    assert not title.spans, title.spans  # no style, no @click, no link came from the text
    return title.plain


class _Host(App[None]):
    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self._first = screen

    def on_mount(self) -> None:
        self.push_screen(self._first)


async def test_a_dataset_named_in_markup_lists_its_users_under_its_literal_name() -> None:
    users = DatasetUsers("d1", total=1, papers=(Paper(id="p1", title="A paper", year=2020),))
    screen = DatasetUsersScreen("Set" + HOSTILE, users)
    app = _Host(screen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.screen is screen  # a MarkupError closed the app
        box = screen.query_one(".modal-box")
        assert _plain(box._border_title).startswith("Set" + MARKUP)
        assert_clean(app.export_screenshot())


async def test_a_review_named_in_markup_shows_its_literal_name() -> None:
    name = "rev[@click=app.quit]x[b]"
    screen = CriteriaScreen(name, "criteria " + HOSTILE, ["criteria"], ["r1"])
    app = _Host(screen)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        box = screen.query_one(".modal-box")
        assert _plain(box._border_title) == f"Review {name}"
        assert_clean(app.export_screenshot())


def _literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _called(node: ast.expr, name: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == name
    )


def _no_markup(call: ast.Call) -> bool:
    return any(
        k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in call.keywords
    )


def test_every_markup_sink_in_the_tui_gets_a_literal_or_safe_text() -> None:
    """``border_title`` / ``border_subtitle``: a literal or ``safe_title(...)``; ``Static`` and
    ``Label``: a literal first argument, ``markup=False``, or content already built;
    ``OptionList``: ``markup=False``."""
    bad: list[str] = []
    for path in sorted(TUI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        widgets = {  # Static / Label as Textual's (triage's Label is litsift's enum)
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "textual.widgets"
            for alias in node.names
        } & {"Static", "Label"}
        for node in ast.walk(tree):
            where = f"{path.relative_to(TUI)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and target.attr in ("border_title", "border_subtitle")
                        and not (_literal(node.value) or _called(node.value, "safe_title"))
                    ):
                        bad.append(f"{where} {target.attr} = {ast.unparse(node.value)}")
            if (  # its options are added later: parsed as markup unless markup=False
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "OptionList"
                and not _no_markup(node)
            ):
                bad.append(f"{where} {ast.unparse(node)[:80]}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in widgets
                and node.args
                and not _literal(node.args[0])
                and not _no_markup(node)
                and not any(_called(node.args[0], f) for f in ("safe_content", "Content"))
            ):
                bad.append(f"{where} {ast.unparse(node)[:80]}")
    assert not bad, "data text parsed as markup:\n" + "\n".join(bad)


async def test_a_toast_quoting_markup_shows_it_literally(empty_service: Any) -> None:
    from litsift.tui.app import create_app

    app = create_app(empty_service, show_timings=False)
    async with app.run_test(size=(120, 30)) as pilot:
        app.notify("bad row " + HOSTILE, title="x[/]")  # markup left to its default
        await pilot.pause()
        assert app.is_running  # a MarkupError closed the app
        assert_clean(app.export_screenshot())
        (note,) = list(app._notifications)  # run_test mounts no toast: as Toast.render reads it
        shown = Content.from_markup(note.message) if note.markup else Content(note.message)
        assert shown.plain.startswith("bad row x[@click=app.quit]q[/][b]B[link=")
        assert not shown.spans
