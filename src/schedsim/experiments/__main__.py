"""``python -m schedsim.experiments``: see :mod:`schedsim.experiments.cli`; with
``SCHEDSIM_WORKER`` set, the step runs in a child of that worker
(:mod:`schedsim.experiments.worker`)."""

import os
import sys

if os.environ.get("SCHEDSIM_WORKER"):
    from schedsim.experiments.worker import delegate

    raise SystemExit(delegate(sys.argv[1:], os.environ["SCHEDSIM_WORKER"]))

from schedsim.experiments.cli import main

raise SystemExit(main())
