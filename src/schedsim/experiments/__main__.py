"""``python -m schedsim.experiments``: see :mod:`schedsim.experiments.cli`; with
``SCHEDSIM_WORKER`` set, the step runs in a child of that worker
(:mod:`schedsim.experiments.worker`, handed over by
:mod:`schedsim.experiments.client`)."""

import os
import sys

if os.environ.get("SCHEDSIM_WORKER"):
    from schedsim.experiments.client import delegate

    raise SystemExit(delegate(sys.argv[1:], os.environ["SCHEDSIM_WORKER"]))

from schedsim.experiments.cli import main

raise SystemExit(main())
