"""``python -m schedsim.experiments``: see :mod:`schedsim.experiments.cli`."""

from schedsim.experiments.cli import main

raise SystemExit(main())
