"""Paper experiments: config -> typed plan -> simulation points -> tables, figures, claims.

:mod:`~schedsim.experiments.spec` (typed specs), :mod:`~schedsim.experiments.plan`
(config -> plan), :mod:`~schedsim.experiments.kinds` (the generic target kinds),
:mod:`~schedsim.experiments.family` (the family plug-in base and registry),
:mod:`~schedsim.experiments.run` (one point), :mod:`~schedsim.experiments.provenance`
(code versions, run metadata), :mod:`~schedsim.experiments.cli` (the commands the
workflow rules call, ``python -m schedsim.experiments ...``, one module each in
:mod:`~schedsim.experiments.commands`); one module per paper family (with its measure,
claims and figures apart) in :mod:`schedsim.experiments.families`. docs/architecture.md
has the picture.
"""
