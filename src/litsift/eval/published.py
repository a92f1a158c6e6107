"""Published reference rows, copied from ``../shared/docs/EVALUATION.md`` (percentages).

They are printed next to our measurements; they are never computed here. A value of None
means the paper does not report that measure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class PublishedRow:
    """One published system's figures on one query set.

    Attributes:
        system: the system as the paper names it.
        query_set: our query set name (``"query"``, ``"keyphrase_query"``, ``"test"``, ...).
        values: ``{ir-measures name: percentage}``.
        source: where the figure comes from.
    """

    system: str
    query_set: str
    values: Mapping[str, float | None]
    source: str


def _df(system: str, full: tuple[float, ...], key: tuple[float, ...]) -> tuple[PublishedRow, ...]:
    names = ("P@5", "R@5", "AP", "RR")
    src = "Viswanathan et al., ACL 2023, DataFinder Table (EVALUATION.md §1)"
    return (
        PublishedRow(system, "query", dict(zip(names, full, strict=True)), src),
        PublishedRow(system, "keyphrase_query", dict(zip(names, key, strict=True)), src),
    )


_DATAFINDER = (
    *_df("BM25 (Pyserini, k1 0.8, b 0.4)", (4.7, 11.6, 8.0, 14.5), (6.6, 15.3, 11.4, 19.9)),
    *_df("kNN (BERT)", (7.1, 14.2, 9.7, 21.3), (2.8, 5.8, 3.3, 7.3)),
    *_df("COCO-DR, not fine-tuned", (6.1, 14.8, 8.8, 15.7), (6.2, 13.9, 9.6, 16.8)),
    *_df("Papers with Code search", (0.6, 1.7, 0.9, 1.2), (3.5, 10.0, 6.5, 9.1)),
    *_df("Google Dataset Search", (0.1, 0.1, 0.1, 0.3), (9.7, 19.5, 12.3, 24.0)),
    *_df(
        "Bi-encoder (SciBERT fine-tuned, GPU)",
        (16.0, 31.2, 23.4, 42.6),
        (16.5, 32.4, 23.3, 42.3),
    ),
)

_SCIFACT = (
    PublishedRow(
        "BM25 (Anserini, multifield; BEIR)",
        "test",
        {"nDCG@10": 66.5, "R@100": None},
        "Thakur et al., BEIR, NeurIPS 2021 (EVALUATION.md §2)",
    ),
)

#: benchmark name -> published rows. DORIS-MAE's paper figures are on another protocol
#: (100-abstract pools, R@20 on the test split), so none are comparable to the dev known-item
#: runs and none are listed.
PUBLISHED: Mapping[str, tuple[PublishedRow, ...]] = MappingProxyType(
    {"datafinder": _DATAFINDER, "scifact": _SCIFACT, "doris-mae-dev": ()}
)
