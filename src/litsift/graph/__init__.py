"""The citation graph: the signal "linked to k of your kept papers" (with bibliographic
coupling and co-citation) and snowballing along references and citing papers: in a record set
(:mod:`~litsift.graph.snowball`, what ``litsift eval snowball`` measures) and in the store, one
ranked round at a time (:mod:`~litsift.graph.rounds`, the TUI's snowball step); writing a
collection's graph for viewers (:mod:`~litsift.graph.export`)."""
