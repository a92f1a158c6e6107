"""Issue 43: Zotero RDF exports (``.rdf``) are read and detected by content. Real file:
``tests/data/imports/zotero-rdf`` (see its README); collections, automatic tags, attachment
paths and an untitled item are added to a copy of it by the tests that say so.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.zotero_rdf import read_zotero_rdf

RDF = (
    Path(__file__).parents[2]
    / "data"
    / "imports"
    / "zotero-rdf"
    / "zotero-pmcid-fetcher_exported-items.rdf"
)


def test_zotero_rdf_is_detected_and_imported(tmp_path: Path) -> None:
    """Before the reader, no format claimed the file: 'not a format litsift reads'."""
    fmt = registry.detect(RDF)
    assert fmt is not None and fmt.name == "zotero-rdf"
    args = ["--home", str(tmp_path / "home"), "ingest", "papers", str(RDF), "--json"]
    out = CliRunner().invoke(main, args)
    report = json.loads(out.output)
    assert out.exit_code == 0 and report["bad"] == [] and report["added"] == 5


def test_items_fields() -> None:
    records = list(read_zotero_rdf(RDF))
    assert all(isinstance(r, SourceRecord) for r in records) and len(records) == 5
    first = records[0]
    assert isinstance(first, SourceRecord)
    assert (
        first.title
        == "TNF-α Blocker Therapy and Solid Malignancy Risk in ANCA-Associated Vasculitis"
    )
    assert first.authors == ["Francisco Silva", "Marcela Cisternas", "Ulrich Specks"]
    assert first.family_names == ["Silva", "Cisternas", "Specks"]
    assert (first.year, first.venue) == (2012, "Current Rheumatology Reports")
    assert first.ids == {"doi": "10.1007/s11926-012-0290-2"}  # on the bib:Journal
    assert first.url == "http://link.springer.com/10.1007/s11926-012-0290-2"
    assert first.abstract.startswith("ANCA-associated vasculitides (AAV)")
    last = records[-1]
    assert isinstance(last, SourceRecord)
    assert last.title == "Tumor Necrosis Factor Inhibitors" and last.year is None


def test_collections_tags_attachments_and_an_untitled_item(tmp_path: Path) -> None:
    """The file with, added: a plain and a ``z:AutomaticTag`` subject on item 1, a stored
    PDF path on its attachment, collections ``Reviews/TNF`` (holding item 1) and the title
    of item 2 removed."""
    text = RDF.read_text(encoding="utf-8")
    text = text.replace(
        '        <link:link rdf:resource="#item_1419"/>\n',
        '        <link:link rdf:resource="#item_1419"/>\n'
        "        <dc:subject>vasculitis</dc:subject>\n"
        "        <dc:subject><z:AutomaticTag><rdf:value>TNF</rdf:value></z:AutomaticTag>"
        "</dc:subject>\n",
    )
    text = text.replace(
        '    <z:Attachment rdf:about="#item_1419">\n',
        '    <z:Attachment rdf:about="#item_1419">\n'
        '        <rdf:resource rdf:resource="files/1419/Silva et al. - 2012.pdf"/>\n',
    )
    text = text.replace(
        "        <dc:title>The Safety and Efficacy of Infliximab in Moderate to Severe Chronic "
        "Obstructive Pulmonary Disease</dc:title>\n",
        "",
    )
    text = text.replace(
        "</rdf:RDF>",
        '    <z:Collection rdf:about="#collection_1"><dc:title>Reviews</dc:title>'
        '<dcterms:hasPart rdf:resource="#collection_2"/></z:Collection>\n'
        '    <z:Collection rdf:about="#collection_2"><dc:title>TNF</dc:title>'
        '<dcterms:hasPart rdf:resource="http://link.springer.com/10.1007/s11926-012-0290-2"/>'
        "</z:Collection>\n</rdf:RDF>",
    )
    edited = tmp_path / "export" / "My Library.rdf"
    edited.parent.mkdir()
    edited.write_text(text, encoding="utf-8")
    items = list(read_zotero_rdf(edited))
    bad = [i for i in items if isinstance(i, BadItem)]
    good = [i for i in items if isinstance(i, SourceRecord)]
    # the untitled item's abstract goes on to the writer (a review's import keeps it)
    assert len(good) == 5 and bad == []
    assert [g.location for g in good if not g.title] == ["line 65"]  # 62 + 3 added lines
    first = good[0]
    assert first.tags == ["vasculitis", "TNF"]
    assert first.collections == ["Reviews/TNF"]
    assert first.attachments == [edited.parent / "files/1419/Silva et al. - 2012.pdf"]


def test_items_keep_their_type_volume_issue_pages_and_publisher(tmp_path: Path) -> None:
    """``z:itemType``, the journal's ``prism:volume`` / ``prism:number``, ``bib:pages`` and
    the publisher were not read: a Zotero RDF item came in without the bibliographic details
    the same item has in Zotero's RIS or BibTeX export. The publisher is added to a copy as
    Zotero writes it (``dc:publisher/foaf:Organization/foaf:name``)."""
    publisher = (
        "<dc:publisher><foaf:Organization><foaf:name>Springer</foaf:name>"
        "</foaf:Organization></dc:publisher>"
    )
    text = RDF.read_text(encoding="utf-8")
    copy = tmp_path / "items.rdf"
    copy.write_text(text.replace("</bib:pages>", "</bib:pages>" + publisher, 1), encoding="utf-8")
    items = [r for r in read_zotero_rdf(copy) if isinstance(r, SourceRecord)]
    assert items[0].venue == "Current Rheumatology Reports"
    assert items[0].biblio == {
        "type": "article-journal",
        "volume": "14",
        "issue": "6",
        "pages": "501-508",
        "publisher": "Springer",
    }
    assert all(r.biblio.get("type") for r in items)
