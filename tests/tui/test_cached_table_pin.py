"""Issue 41: :class:`CachedTable` overrides ``DataTable``'s private render path, so ``textual`` is
pinned to the range it was tested on (``pyproject.toml``). These tests fail, naming the pin,
when the installed Textual leaves that range or no longer has the private methods and attributes
the widget overrides and reads, with the signatures it was written against (Textual 8.2.8).

Raising the pin: install the new Textual, run these tests and ``tests/tui/test_results_render.py``
(CachedTable's lines equal DataTable's, segment for segment), then move the pin and, if a
signature changed, the widget and the table below together.
"""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from textual import _segment_tools
from textual.widgets import DataTable
from textual.widgets.data_table import Column, Row

from litsift.tui.widgets.cached_table import CachedTable
from litsift.tui.widgets.fixed_rows import FixedRowsTable

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

#: DataTable's (and Widget's) private methods that the two classes override or call, with their
#: parameters in Textual 8.2.8
PRIVATE_METHODS: dict[str, list[str]] = {
    # overridden by CachedTable
    "_render_cell": ["self", "row_index", "column_index", "base_style", "width", "cursor", "hover"],
    "_render_line_in_row": [
        "self",
        "row_key",
        "line_no",
        "base_style",
        "cursor_location",
        "hover_location",
    ],
    "_render_line": ["self", "y", "x1", "x2", "base_style"],
    "_get_row_style": ["self", "row_index", "base_style"],
    # overridden by FixedRowsTable
    "_update_dimensions": ["self", "new_rows"],
    # called
    "_get_styles_to_render_cell": [
        "self",
        "is_header_cell",
        "is_row_label_cell",
        "is_fixed_style_cell",
        "hover",
        "cursor",
        "show_cursor",
        "show_hover_cursor",
        "has_css_foreground_priority",
        "has_css_background_priority",
    ],
    "_get_offsets": ["self", "y"],
    "_scroll_update": ["self", "virtual_size"],
}
#: public methods overridden, whose signatures the overrides copy
PUBLIC_METHODS: dict[str, list[str]] = {
    "render_line": ["self", "y"],
    "render_lines": ["self", "crop"],
    "refresh": ["self", "regions", "repaint", "layout", "recompose"],
    "notify_style_update": ["self"],
}
#: private properties read
PRIVATE_PROPERTIES = ["_should_render_row_labels", "_row_label_column_width"]
#: private instance attributes read (set in DataTable.__init__)
PRIVATE_ATTRIBUTES = ["_data", "_row_locations", "_show_hover_cursor", "_pseudo_class_state"]


def _pin() -> Requirement:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    (req,) = [Requirement(d) for d in config["project"]["dependencies"] if d.startswith("textual")]
    return req


def _says(what: str) -> str:
    return (
        f"{what}: CachedTable (src/litsift/tui/widgets/cached_table.py) overrides DataTable's "
        f"private render path and was tested on the range of the pin {_pin()} in "
        "pyproject.toml; installed: textual " + version("textual")
    )


def test_textual_is_pinned_to_a_bounded_range_and_installed_inside_it() -> None:
    pin = _pin()
    bounds = {spec.operator for spec in pin.specifier}
    assert "<" in bounds or "==" in bounds, _says("the textual pin has no upper bound")
    assert pin.specifier.contains(version("textual")), _says("textual is outside its pin")


@pytest.mark.parametrize("name", sorted(PRIVATE_METHODS | PUBLIC_METHODS))
def test_the_methods_cached_table_overrides_or_calls_keep_their_signature(name: str) -> None:
    expected = (PRIVATE_METHODS | PUBLIC_METHODS)[name]
    method = getattr(DataTable, name, None)
    assert callable(method), _says(f"DataTable.{name} is gone")
    params = list(inspect.signature(method).parameters)
    assert params == expected, _says(f"DataTable.{name}{inspect.signature(method)} changed")


def test_the_private_properties_and_attributes_it_reads_exist() -> None:
    for name in PRIVATE_PROPERTIES:
        assert isinstance(inspect.getattr_static(DataTable, name, None), property), _says(
            f"DataTable.{name} is no longer a property"
        )
    table = DataTable[str]()
    for name in PRIVATE_ATTRIBUTES:
        assert hasattr(table, name), _says(f"DataTable().{name} is gone")
    locations = table._row_locations
    assert callable(getattr(locations, "get", None)), _says("_row_locations.get is gone")
    assert callable(getattr(locations, "get_key", None)), _says("_row_locations.get_key is gone")
    assert isinstance(table._data, dict), _says("DataTable()._data is no longer a dict")
    fields = set(Column.__dataclass_fields__) | set(Row.__dataclass_fields__)
    missing = {"auto_width", "height", "auto_height", "label"} - fields
    assert not missing, _says(f"Column / Row lost {sorted(missing)}")
    crop = list(inspect.signature(_segment_tools.line_crop).parameters)
    assert crop == ["segments", "start", "end", "total"], _says("line_crop changed")


def test_every_private_override_is_listed_and_no_helper_shadows_datatable() -> None:
    """A new override of a private method is added to the lists above (and so checked); the
    widget's own helpers do not accidentally override a DataTable method of the same name."""
    own = {
        name
        for cls in (CachedTable, FixedRowsTable)
        for name, value in vars(cls).items()
        if name.startswith("_") and not name.startswith("__") and callable(value)
    }
    overriding = {name for name in own if hasattr(DataTable, name)}
    assert overriding <= set(PRIVATE_METHODS), _says(
        f"unlisted private overrides {sorted(overriding - set(PRIVATE_METHODS))}"
    )
    expected_own = {
        "_component_style",
        "_settings",
        "_plain_rows",
        "_row_cells",
        "_cell_styles",
        "_place_meta",
        "_styled_cell",
    }
    assert own - overriding == expected_own, _says("CachedTable's own helpers changed")
