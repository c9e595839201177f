"""schedsim: reproducible simulation of parallel-job scheduling policies."""

__version__ = "0.1.0"
