"""Workload models (generators) and workload file formats."""
