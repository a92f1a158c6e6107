"""litsift.paths.shared_data_dir: the one lookup of ``../shared/data``."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.paths import SHARED_DATA_ENV, shared_data_dir

CHECKOUT_DATA = (Path(__file__).resolve().parents[2] / ".." / "shared" / "data").resolve()


def test_shared_data_dir_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SHARED_DATA_ENV, raising=False)
    # from the checkout (this one has ../shared/data beside it), wherever the cwd is
    monkeypatch.chdir(tmp_path)
    assert CHECKOUT_DATA.is_dir() and shared_data_dir() == CHECKOUT_DATA
    # ../shared/data from the working directory comes first
    work = tmp_path / "work" / "repo"
    (tmp_path / "work" / "shared" / "data").mkdir(parents=True)
    work.mkdir()
    monkeypatch.chdir(work)
    assert shared_data_dir() == (tmp_path / "work" / "shared" / "data").resolve()
    # and $LITSIFT_EVAL_DATA before both
    monkeypatch.setenv(SHARED_DATA_ENV, str(tmp_path / "elsewhere"))
    assert shared_data_dir() == tmp_path / "elsewhere"
