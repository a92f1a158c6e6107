"""Triage through the service on a real indexed store: labels, undo, more-like-this, export."""

from __future__ import annotations

from pathlib import Path

import bibtexparser
import numpy as np
import pytest

from litsift.errors import QueryError
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Label, Query
from tests.conftest import copy_home


@pytest.fixture()
def writable_service(built_home: Path, tmp_path: Path, encoder):  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    copy_home(built_home, home)
    svc = LitsiftService(get_paths(home), encoder=encoder)
    yield svc
    svc.close()


def test_stored_vectors_match_fresh_encoding(writable_service: LitsiftService) -> None:
    res = writable_service.search(Query("graph neural networks", Kind.PAPER, k=5))
    recs = [h.record for h in res.hits]
    stored = writable_service.vectors(Kind.PAPER, recs)
    assert stored.shape == (5, writable_service.encoder.dim)
    assert np.allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-3)
    from litsift.search.retrieval.record_text import passage_text

    fresh = writable_service.encoder.encode_passages([passage_text(r) for r in recs])
    cos = np.sum(stored * fresh, axis=1)
    assert cos.min() > 0.97  # int8 activations are quantised per batch


def test_more_like_this_moves_toward_kept(writable_service: LitsiftService) -> None:
    svc = writable_service
    res = svc.search(Query("learning", Kind.PAPER, k=60))
    with pytest.raises(QueryError):
        svc.more_like_this(res)
    rl = [h for h in res.hits if "reinforcement" in (h.record.title + h.record.abstract).lower()]
    assert len(rl) >= 3
    for h in rl[:3]:
        svc.set_label(Kind.PAPER, h.record.id, Label.KEEP)
    before = np.mean([h.rank for h in res.hits if h in rl])
    after_res = svc.more_like_this(res)
    rl_ids = {h.record.id for h in rl}
    after = np.mean([h.rank for h in after_res.hits if h.record.id in rl_ids])
    assert after < before
    assert {h.record.id for h in after_res.hits} == {h.record.id for h in res.hits}


def test_labels_undo_and_bibtex_export_roundtrip(writable_service: LitsiftService) -> None:
    svc = writable_service
    res = svc.search(Query("machine translation", Kind.PAPER, k=5))
    ids = [h.record.id for h in res.hits]
    for i in ids[:3]:
        svc.set_label(Kind.PAPER, i, Label.KEEP)
    svc.set_label(Kind.PAPER, ids[3], Label.DISCARD)
    assert svc.undo_label() == (Kind.PAPER, ids[3], None)
    ann = svc.annotations(Kind.PAPER, ids)
    assert [ann[i].label if i in ann else None for i in ids[:4]] == [Label.KEEP] * 3 + [None]
    bib = svc.export("kept", "bibtex", Kind.PAPER)
    lib = bibtexparser.parse_string(bib)
    assert len(lib.entries) == 3 and not lib.failed_blocks
    titles = {e["title"].replace("{", "").replace("}", "") for e in lib.entries}
    assert len(titles) == 3
