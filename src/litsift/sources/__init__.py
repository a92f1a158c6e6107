"""Bringing literature in: one module per format or service, each yielding
:class:`~litsift.sources.base.SourceRecord` with identifiers and provenance
(:mod:`~litsift.sources.formats.registry` lists them and detects a file's format);
:mod:`~litsift.sources.importer` and :mod:`~litsift.sources.writer` store what they read,
merging duplicates with :mod:`~litsift.sources.identity.matcher`;
:mod:`~litsift.sources.dedup`
merges duplicates already stored; :mod:`~litsift.sources.online.sync` fetches from online services.
"""
