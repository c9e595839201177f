"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


def trace_path(name: str) -> Path:
    """Path of a real trace in ../shared/traces, or skip the test with the reason."""
    path = TRACES / name
    if not path.exists():
        pytest.skip(f"real trace {name} not found in {TRACES} (the project never ships traces)")
    return path
