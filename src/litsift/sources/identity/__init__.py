"""Who is who: identifier normalisation, person names, the record matcher, stored identity keys and
``litsift dedup``."""
