"""Run ASReview's default model (its ``Simulate`` loop) on one review set; no litsift imports.

This file is executed as a script by the interpreter that has the ``asreview`` package (the
``benchmark`` extra, or a separate venv when asreview's pins clash with litsift's), so it imports
only the standard library, numpy, pandas and asreview.

stdin: JSON ``{"title": [str], "abstract": [str], "labels": [0|1], "priors": [int, int]}``
(row indices, in the order the caller shuffled the records). stdout: JSON ``{"order": [int],
"asreview": version, "model": name}``: the rows screened after the priors, in ASReview's order,
until the last included record (ASReview's ``LastRelevant`` stopper).
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    """Read the request from stdin, simulate, write the order to stdout."""
    import asreview
    import numpy as np
    import pandas as pd
    from asreview.learner import ActiveLearningCycle
    from asreview.models.models import get_ai_config
    from asreview.models.queriers import TopDown
    from asreview.models.stoppers import IsFittable
    from asreview.simulation.simulate import Simulate

    req = json.load(sys.stdin)
    frame = pd.DataFrame({"title": req["title"], "abstract": req["abstract"]})
    labels = np.asarray(req["labels"], dtype=int)
    config = get_ai_config()
    cycles = [
        ActiveLearningCycle(querier=TopDown(), stopper=IsFittable()),
        ActiveLearningCycle.from_meta(config["value"]),
    ]
    sim = Simulate(frame, labels, cycles, print_progress=False)
    priors = [int(i) for i in req["priors"]]
    sim.label(priors)
    sim.review()
    screened = [int(i) for i in sim._results["record_id"].tolist()]
    order = [i for i in screened if i not in set(priors)]
    json.dump(
        {"order": order, "asreview": asreview.__version__, "model": config["name"]}, sys.stdout
    )


if __name__ == "__main__":
    main()
