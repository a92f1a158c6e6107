"""File formats litsift imports: one module per format, each defining ``FORMATS``;
:mod:`~litsift.sources.formats.registry` lists and detects them."""
