"""The citation graph: the signal "linked to k of your kept papers" (with bibliographic
coupling and co-citation) and snowballing along references and citing papers."""
