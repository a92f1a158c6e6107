"""Screening: labelled review sets, the learning order, stopping rules and their simulation.

``data`` reads review sets, ``learner`` orders unread records by a model retrained as decisions
arrive, ``stopping`` says when screening may stop, ``measures`` scores a screening order and
``simulate`` runs the protocol of ``litsift eval screening``.
"""
