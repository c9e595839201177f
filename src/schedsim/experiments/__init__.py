"""Paper experiments: config sections -> simulation points, results -> tables, figures, claims.

One module per paper family (``hrf`` now); :mod:`schedsim.experiments.common`
holds what they share, :mod:`schedsim.experiments.cli` the commands the
workflow rules call (``python -m schedsim.experiments ...``).
"""
