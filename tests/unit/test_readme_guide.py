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


def test_the_install_section_says_what_a_user_install_needs() -> None:
    """Install audit: hnswlib (a core dependency) has no wheels on PyPI, so pip compiles it and
    a machine without a C++ compiler fails ("Unsupported compiler"); every user-facing extra of
    pyproject.toml is named (before: no compiler, and no `plots`, the PRISMA diagram's)."""
    import tomllib

    section = README.split("## Install", 1)[1].split("\n## ", 1)[0]
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    assert "Python 3.11 or newer" in section and project["requires-python"] == ">=3.11"
    assert any(d.startswith("hnswlib") for d in project["dependencies"])
    assert "C++ compiler" in section
    # `dev` and `export` are the developer's (README's Development section, `litsift models`)
    user_extras = set(project["optional-dependencies"]) - {"dev", "export"}
    assert {e for e in user_extras if f'".[{e}]"' not in section} == set()


def test_the_docs_install_extras_from_the_clone_not_from_pypi() -> None:
    """litsift is not on PyPI: ``pip install "litsift[scale]"`` in docs/SCALE-OUT.md, SCALE.md
    and SCREENING.md asked PyPI for it and failed; README installs extras as ``".[scale]"``."""
    pypi = re.compile(r"""(?:pip|pipx) install\s+["']?litsift\b""")
    docs = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    assert {p.name for p in docs if pypi.search(p.read_text("utf-8"))} == set()
