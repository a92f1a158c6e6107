"""Who is who: identifier normalisation, person names, titles and locators (volume, issue, pages)
folded for matching, the record matcher, stored identity keys and ``litsift dedup``."""
