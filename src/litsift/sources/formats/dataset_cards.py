"""Dataset descriptions: Hugging Face dataset cards and Papers-with-Code evaluation tables.

* **Hugging Face card** (a dataset directory with ``README.md``, or the ``README.md`` itself):
  the YAML front matter (PyYAML; ``pretty_name``, ``paperswithcode_id``, ``task_categories``,
  ``task_ids``) and the card's "Dataset Summary" section as the description;
  ``dataset_infos.json`` beside it gives the homepage and the BibTeX citation, from which the
  introducing paper's title and year are read (bibtexparser). The id is the
  ``paperswithcode_id`` when the card has one (so it joins Papers-with-Code's entry), else the
  directory name. A directory of card directories yields one record per card.
* **Papers with Code evaluation tables** (``evaluation-tables.json`` as PwC's sota-extractor
  writes it): one record per distinct dataset name, with its description, the tasks it is
  evaluated on, its sub-datasets as variants, the earliest result's year, its first link.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord, clean_text, year_from
from litsift.types import Kind

__all__ = ["FORMATS", "read_hf_card", "read_pwc_tables"]

_FRONT_RE = re.compile(r"^---\s*\n(.*?)\n---\s*\n", re.S)


def _dataset(location: str, fields: dict[str, Any]) -> SourceRecord:
    return SourceRecord(
        location=location, kind=Kind.DATASET, dataset=fields, source_key=str(fields["id"])
    )


def _section(markdown: str, name: str) -> str:
    m = re.search(rf"^#+\s*{name}\s*\n(.*?)(?=^#+\s)", markdown, re.S | re.M | re.I)
    text = m.group(1) if m else ""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links -> their text
    return clean_text(re.sub(r"[*_`>#]", " ", text))


#: configuration names of ``dataset_infos.json`` that name no sub-dataset (splits, formats,
#: versions): not kept as variants, so a search for "clean" or "all" does not find LibriSpeech
_GENERIC_CONFIGS = {
    "default",
    "plain_text",
    "all",
    "clean",
    "other",
    "full",
    "raw",
    "original",
    "train",
    "test",
    "validation",
    "metadata",
    "fulltext",
    "full_text",
    "embeddings",
    "corpus",
    "claims",
    "abstract",
    "documents",
    "queries",
    "qrels",
}
_VERSION_RE = re.compile(r"^v?\d+(?:\.\d+)*$")
#: what a card's "Dataset Summary" holds when its authors wrote none: the template's placeholder
#: or a licence pasted in (the web_of_science card)
_NO_SUMMARY_RE = re.compile(
    r"^\W*more information needed\W*$|^copyright\b|permission is hereby granted", re.I
)


def _is_variant(config: str) -> bool:
    name = config.strip()
    low = name.lower()
    return (
        bool(name)
        and low not in _GENERIC_CONFIGS
        and not low.endswith("_format")
        and not _VERSION_RE.match(name)
    )


def _citation(infos: dict[str, Any]) -> tuple[str, int | None]:
    cite = next(
        (v.get("citation") for v in infos.values() if isinstance(v, dict) and v.get("citation")), ""
    )
    if not cite:
        return "", None
    try:
        from bibtexparser.entrypoint import parse_string

        from litsift.sources.formats.bibtex_latex import latex

        entries = parse_string(cite).entries
    except Exception:
        return "", year_from(cite)
    if not entries:
        return "", year_from(cite)
    fields = {f.key.lower(): str(f.value) for f in entries[-1].fields}
    return latex(fields.get("title", "")), year_from(fields.get("year"))


def _card(readme: Path) -> SourceRecord:
    import yaml

    text = readme.read_text(encoding="utf-8", errors="replace")
    m = _FRONT_RE.match(text)
    if not m:
        raise IngestError(f"{readme}: no YAML front matter: not a Hugging Face dataset card", "")
    try:
        meta = yaml.safe_load(m.group(1)) or {}
    except yaml.YAMLError as err:
        raise IngestError(f"{readme}: broken YAML front matter ({err})"[:300], "") from None
    if not isinstance(meta, dict):
        raise IngestError(f"{readme}: the front matter is not a mapping", "")
    body = text[m.end() :]
    infos: dict[str, Any] = {}
    info_file = readme.parent / "dataset_infos.json"
    if info_file.is_file():
        try:
            loaded = json.loads(info_file.read_text(encoding="utf-8"))
            infos = loaded if isinstance(loaded, dict) else {}
        except ValueError:
            infos = {}
    paper_title, year = _citation(infos)
    name = readme.parent.name
    pwc = meta.get("paperswithcode_id")
    pretty = clean_text(meta.get("pretty_name")) if isinstance(meta.get("pretty_name"), str) else ""
    tasks = [str(t) for key in ("task_categories", "task_ids") for t in (meta.get(key) or [])]
    summary = _section(body, "Dataset Summary")
    if _NO_SUMMARY_RE.search(summary):
        summary = ""
    summary = summary or next(
        (
            clean_text(v.get("description"))
            for v in infos.values()
            if isinstance(v, dict) and v.get("description")
        ),
        "",
    )
    homepage = next(
        (v.get("homepage") for v in infos.values() if isinstance(v, dict) and v.get("homepage")), ""
    )
    description = summary + (f" Tasks: {', '.join(tasks)}." if tasks else "")
    configs = [c for c in infos if _is_variant(c)] if len(infos) > 1 else []
    variants = [v for v in dict.fromkeys([name, pretty, *configs]) if v]
    return _dataset(
        f"card {name}",
        {
            "id": str(pwc) if isinstance(pwc, str) and pwc else name,
            "variants": variants,
            "description": description.strip(),
            "intro_paper_title": paper_title,
            "year": year,
            "url": homepage or f"https://huggingface.co/datasets/{name}",
        },
    )


def read_hf_card(path: Path) -> Iterator[SourceRecord | BadItem]:
    """The dataset of a card directory / README.md, or every card below a directory.

    Raises:
        IngestError: a README.md without YAML front matter (a single card only).
    """
    if path.is_file():
        yield _card(path)
        return
    readmes = sorted(path.rglob("README.md"))
    if not readmes:
        raise IngestError(f"{path}: no dataset card (README.md) below it", "")
    for readme in readmes:
        try:
            yield _card(readme)
        except IngestError as err:
            yield BadItem(str(readme.relative_to(path)), err.message)


def read_pwc_tables(path: Path) -> Iterator[SourceRecord | BadItem]:
    """One dataset record per distinct dataset of a PwC evaluation-tables file.

    Raises:
        IngestError: the file is not JSON or not a list of tasks.
    """
    try:
        tasks = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as err:
        raise IngestError(f"{path}: not JSON ({err})"[:300], "") from None
    if not isinstance(tasks, list):
        raise IngestError(f"{path}: not a Papers-with-Code evaluation-tables list", "")
    found: dict[str, dict[str, Any]] = {}

    def walk(task: dict[str, Any]) -> None:
        for ds in task.get("datasets") or []:
            if not isinstance(ds, dict) or not clean_text(ds.get("dataset")):
                continue
            name = clean_text(ds["dataset"])
            entry = found.setdefault(
                name, {"tasks": [], "description": "", "variants": [], "years": [], "links": []}
            )
            entry["tasks"].append(clean_text(task.get("task")))
            entry["description"] = entry["description"] or clean_text(ds.get("description"))
            entry["variants"] += [
                clean_text(s.get("dataset"))
                for s in ds.get("subdatasets") or []
                if isinstance(s, dict)
            ]
            rows = ((ds.get("sota") or {}).get("rows")) or []
            entry["years"] += [
                y
                for r in rows
                if isinstance(r, dict) and (y := year_from(r.get("paper_date") or ""))
            ]
            entry["links"] += [
                lk.get("url")
                for lk in ds.get("dataset_links") or []
                if isinstance(lk, dict) and lk.get("url")
            ]
        for sub in task.get("subtasks") or []:
            if isinstance(sub, dict):
                walk(sub)

    for task in tasks:
        if isinstance(task, dict):
            walk(task)
    if not found:
        raise IngestError(f"{path}: holds no datasets", "")
    for name, e in found.items():
        tasks_ = [t for t in dict.fromkeys(e["tasks"]) if t]
        yield _dataset(
            f"dataset {name}",
            {
                "id": name,
                "variants": [v for v in dict.fromkeys(e["variants"]) if v and v != name],
                "description": (
                    e["description"] + (f" Tasks: {', '.join(tasks_)}." if tasks_ else "")
                ).strip(),
                "year": min(e["years"]) if e["years"] else None,
                "url": e["links"][0] if e["links"] else "",
            },
        )


def _sniff_card(head: bytes, path: Path) -> int:
    if path.is_dir():
        return (
            90
            if (path / "README.md").is_file() and (path / "README.md").read_bytes()[:4] == b"---\n"
            else (
                80 if any(path.glob("*/README.md")) and not (path / "zotero.sqlite").exists() else 0
            )
        )
    return 90 if path.name == "README.md" and head.startswith(b"---") else 0


def _sniff_pwc(head: bytes, path: Path) -> int:
    top = head[:4000]
    return 92 if top.lstrip().startswith(b"[") and b'"datasets"' in top and b'"sota"' in head else 0


FORMATS = [
    Format(
        "hf-card",
        Kind.DATASET,
        read_hf_card,
        _sniff_card,
        (".md",),
        False,
        "Hugging Face dataset card (README.md with YAML front matter)",
    ),
    Format(
        "hf-cards",
        Kind.DATASET,
        read_hf_card,
        _sniff_card,
        (),
        True,
        "a Hugging Face dataset card directory, or a directory of them",
    ),
    Format(
        "pwc-evaluation-tables",
        Kind.DATASET,
        read_pwc_tables,
        _sniff_pwc,
        (".json",),
        False,
        "Papers with Code evaluation-tables.json (task -> datasets)",
    ),
]
