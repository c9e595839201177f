"""docs/artifact.md: its per-target tables are those scripts/artifact_targets.py makes
from the config, the claims and docs/reproduction.md, and its links lead somewhere."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from schedsim import claims
from schedsim.experiments.family import CLAIMS, get_family, load_part

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "artifact_targets.py"
ARTIFACT = ROOT / "docs" / "artifact.md"


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("artifact_targets", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tables_are_current() -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_every_target_and_claim_of_the_full_configuration_is_in_the_appendix() -> None:
    text = ARTIFACT.read_text(encoding="utf-8")
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    targets = [t for name, section in config.items()
               if isinstance(section, dict) and "targets" in section
               for t in section["targets"]]
    assert len(targets) > 30
    for target in targets:
        assert f"| [{target}](reproduction.md#{target.lower()}) |" in text, target
    for family in ("hrf", "los", "goal", "ihap", "slack"):
        load_part(get_family(family), CLAIMS)  # registers the family's claims
        registered = claims.registered(family)
        assert registered, family
        for entry in registered:
            assert re.search(rf"[|,] {re.escape(entry.claim_id)}[,| ]", text), entry.claim_id


def test_a_change_makes_the_appendix_stale() -> None:
    module = script()
    document = ARTIFACT.read_text(encoding="utf-8")
    block = module.current()
    assert module.replaced(document, block) == document
    assert module.replaced(document, block.replace("HRF-F7", "HRF-F8")) != document
    with pytest.raises(SystemExit, match="markers"):
        module.replaced(document.replace(module.END, ""), block)


def test_a_target_without_a_section_in_reproduction_md_is_named() -> None:
    module = script()
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    config["hrf"]["targets"]["HRF-F99"] = {"policies": ["HRFBf"]}
    with pytest.raises(SystemExit, match="no section '### HRF-F99'"):
        module.tables(config, (ROOT / "docs" / "reproduction.md").read_text(encoding="utf-8"))


def test_the_links_lead_to_files_of_the_repository() -> None:
    text = ARTIFACT.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text)
    assert links
    for link in links:
        assert (ARTIFACT.parent / link).exists(), link
