"""Shared test helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The logs beside the repository, or where SCHEDSIM_TRACES points (a checkout elsewhere).
TRACES = Path(os.environ.get("SCHEDSIM_TRACES")
              or Path(__file__).resolve().parents[2] / "shared" / "traces")


def trace_path(name: str) -> Path:
    """Path of a real trace in ../shared/traces, or skip the test with the reason."""
    path = TRACES / name
    if not path.exists():
        pytest.skip(f"real trace {name} not found in {TRACES} (the project never ships traces)")
    return path
