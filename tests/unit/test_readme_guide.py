"""README is a user guide (issue 45 item 7): at most 300 lines, its first screen says what
litsift is, how to install it and how to search one's own papers; measurements live in docs/."""

from __future__ import annotations

import re

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_is_a_guide_of_at_most_300_lines() -> None:
    assert len(README.splitlines()) <= 300


def test_the_first_screen_says_what_how_to_install_and_how_to_search_ones_papers() -> None:
    first = "\n".join(README.splitlines()[:24])
    assert "searches the research papers" in first
    assert "pipx install ." in first and "pip install ." in first
    assert re.search(r"litsift ingest papers \S+", first) and "\nlitsift " in first


def test_no_engineering_log_in_the_readme() -> None:
    """No A/B tables, p-values or issue numbers: those are in docs/."""
    assert not re.search(r"\bp\s*[=<]\s*0\.\d", README)
    assert not re.search(r"\bissue \d+", README, flags=re.IGNORECASE)
    assert "A/B" not in README
