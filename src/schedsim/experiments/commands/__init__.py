"""The commands of ``python -m schedsim.experiments``, one module per workflow stage.

Each module has ``add_arguments(parser)`` (its options) and ``run(args)`` (the
command), and imports only what its stage runs: a job's code version
(:mod:`schedsim.experiments.provenance`) hashes its stage's module, so an edit of one
stage's code reruns that stage's jobs and not the others'.
:mod:`schedsim.experiments.cli` imports the one module a command line names, by name.
"""
