"""Online sources: the polite HTTP client, ``litsift sync`` and ``litsift refs fetch``."""
