"""litsift runs offline: loading and running the encoder leaves no trace of ONNX Runtime's
telemetry (1.29+ on Linux: a device id and an event database under the user's cache directory,
uploaded to mobile.events.data.microsoft.com, which `litsift index` looked up by DNS)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_ENCODE = """
from litsift.models_onnx import load_encoder
print(load_encoder().encode_queries(["graph neural networks"]).shape)
"""


def test_the_encoder_writes_no_onnxruntime_telemetry(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env["LITSIFT_EMBED_CACHE_DIR"] = "off"
    proc = subprocess.run(
        [sys.executable, "-c", _ENCODE],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "(1, 384)" in proc.stdout
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert not [p for p in written if "onnxruntime" in p.lower()], written
