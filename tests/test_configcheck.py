"""An unknown config key is named with its section and the allowed keys."""

from __future__ import annotations

from pathlib import Path

import yaml

from schedsim.experiments.configcheck import first_unknown_key

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def test_the_shipped_configs_have_no_unknown_key() -> None:
    assert first_unknown_key(CONFIG, SCHEMA) is None
    test = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
    assert first_unknown_key(test, SCHEMA) is None


def test_unknown_keys_at_every_depth() -> None:
    assert first_unknown_key({"seeds": {"cont": 2}}, SCHEMA) == \
        "unknown key 'cont' in seeds; allowed: start, count, values"
    found = first_unknown_key({"los": {"enabled": True, "machin": {}}}, SCHEMA)
    assert found is not None and found.startswith("unknown key 'machin' in los; allowed: ")
    found = first_unknown_key({"los": {"targets": {"LOS-F7": {"panels": [{"nmae": "x"}]}}}},
                              SCHEMA)
    assert found is not None and "'nmae' in los.targets.LOS-F7.panels[0]" in found
    found = first_unknown_key({"hrf": {"machine": {"procs": 8, "speed": [1]}}}, SCHEMA)
    assert found is not None and "'speed' in hrf.machine; allowed: procs, unit" in found
    assert "not a section" in str(first_unknown_key({"seedz": 3}, SCHEMA))
