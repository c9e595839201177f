"""The per-target tables of docs/artifact.md ("Evaluation and expected results").

Made from what defines them, so that they follow the code: the targets, replications
and readings of config/config.yaml, the claims each family registers, and each
target's figure or table as docs/reproduction.md names it.

    python scripts/artifact_targets.py            # print the tables
    python scripts/artifact_targets.py --write    # replace them in docs/artifact.md
    python scripts/artifact_targets.py --check    # exit 1 if docs/artifact.md is stale
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from schedsim import claims
from schedsim.experiments.family import CLAIMS, enabled_families, get_family, load_part

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "config.yaml"
REPRODUCTION = ROOT / "docs" / "reproduction.md"
ARTIFACT = ROOT / "docs" / "artifact.md"
BEGIN = "<!-- targets: begin (made by scripts/artifact_targets.py --write; do not edit) -->"
END = "<!-- targets: end -->"


def paper_sections(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """(family -> its heading, target -> what of the paper it is) from reproduction.md:
    ``## HRF: ...`` headings, and each ``### <target>`` section's first paragraph up to
    its first colon ("Fig. 5 a-c")."""
    families, targets = {}, {}
    for block in re.split(r"\n(?=##+ )", text):
        heading, _, body = block.partition("\n")
        if heading.startswith("### "):
            paragraph = body.strip().split("\n\n")[0].replace("\n", " ")
            label = paragraph.split(": ")[0] if ": " in paragraph else paragraph
            targets[heading[4:].strip()] = label.rstrip(".")
        elif heading.startswith("## ") and ":" in heading:
            families[heading[3:].split(":")[0].strip()] = heading[3:].strip()
    return families, targets


def seeds_text(block: Mapping[str, Any]) -> str:
    values = [int(v) for v in block.get("values") or []]
    if values:
        return f"{len(values)} seeds ({', '.join(map(str, values))})"
    start, count = int(block.get("start", 1)), int(block.get("count", 1))
    return f"{count} seeds ({start}-{start + count - 1})" if count > 1 else f"seed {start}"


def replications(config: Mapping[str, Any], section: Mapping[str, Any],
                 spec: Mapping[str, Any]) -> str:
    """The replications a target's intervals are over, in words."""
    if spec.get("enabled") is False:
        return "off in the full configuration (`enabled: true` runs it)"
    kind = spec.get("kind", "sweep")
    if kind == "example":
        return "none: computed, no simulation"
    if kind == "derived":
        return "those of " + ", ".join(spec.get("sources", []))
    trace = spec.get("trace")
    if trace and trace.get("months"):
        months = trace["months"]
        if len(months) == 1:
            return f"1 month of the {trace['name']} log ({months[0]})"
        return f"{len(months)} months of the {trace['name']} log ({months[0]} to {months[-1]})"
    if trace:
        fallback = ", else ".join(trace.get("fallback") or [])
        return (f"{trace['segments']} consecutive segments of the {trace['name']} log"
                + (f" ({fallback} if it cannot be had)" if fallback else ""))
    batches = section.get("batches")
    if batches:
        kept = batches["count"] - batches["discard"]
        return (f"{kept} batches of {batches['size']} jobs of one run per point "
                f"({batches['count']} batches, {batches['discard']} discarded at the start)")
    return seeds_text(section.get("seeds") or config.get("seeds", {}))


def seed_effect(spec: Mapping[str, Any]) -> str:
    """What other seeds change in a target (Expected differences, docs/artifact.md)."""
    kind = spec.get("kind", "sweep")
    if spec.get("enabled") is False:
        return "-"
    if kind == "example":
        return "nothing"
    if kind == "derived":
        return "as its sources"
    if spec.get("trace"):
        return "nothing: a fixed log"
    return "the workloads: values move within their intervals"


def readings_of(section: Mapping[str, Any], target: str) -> list[str]:
    return [name for name, reading in (section.get("sensitivity") or {}).items()
            if reading.get("enabled", True) and target in reading.get("targets", [])]


def family_table(config: Mapping[str, Any], family: str, heading: str,
                 labels: Mapping[str, str]) -> list[str]:
    section = config[family]
    load_part(get_family(family, section.get("module")), CLAIMS)  # registers its claims
    judged: dict[str, list[str]] = {}
    for entry in claims.registered(family):
        judged.setdefault(entry.target, []).append(entry.claim_id)
    level = float(section.get("level", 0.95))
    name = family.upper()
    lines = [f"### {heading}", "",
             f"Intervals: {level:.0%}. Recorded verdicts, with our values and what they mean: "
             f"[results-{family}.md](results-{family}.md). Readings: "
             f"`results/tables/{name}-sensitivity.csv`, and the section *Sensitivity: "
             f"{name}-sensitivity* of `results/summary.html`.", "",
             "| target | in the paper | claims judged with it | replications (full "
             "configuration) | other seeds change | readings that rerun it |",
             "|---|---|---|---|---|---|"]
    for target, spec in section["targets"].items():
        if target not in labels:
            raise SystemExit(f"{REPRODUCTION.relative_to(ROOT)}: no section '### {target}' "
                             f"(the target of config/config.yaml, {family}.targets)")
        anchor = target.lower()
        lines.append(f"| [{target}](reproduction.md#{anchor}) | {labels[target]} | "
                     f"{', '.join(judged.get(target, [])) or 'none (feeds other targets)'} | "
                     f"{replications(config, section, spec)} | {seed_effect(spec)} | "
                     f"{', '.join(readings_of(section, target)) or '-'} |")
    return [*lines, ""]


def tables(config: Mapping[str, Any], reproduction: str) -> str:
    families, labels = paper_sections(reproduction)
    lines = [BEGIN, ""]
    for family in enabled_families(config):
        lines += family_table(config, family, families.get(family.upper(), family.upper()),
                              labels)
    return "\n".join([*lines, END])


def current() -> str:
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    return tables(config, REPRODUCTION.read_text(encoding="utf-8"))


def replaced(document: str, block: str) -> str:
    """``document`` with the part from BEGIN to END replaced by ``block``."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{ARTIFACT.relative_to(ROOT)}: the markers {BEGIN!r} and {END!r} "
                         f"are missing")
    return document[:start] + block + document[end + len(END):]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="update docs/artifact.md")
    mode.add_argument("--check", action="store_true", help="exit 1 if it is stale")
    args = parser.parse_args(argv)
    block = current()
    if not (args.write or args.check):
        print(block)
        return 0
    document = ARTIFACT.read_text(encoding="utf-8")
    updated = replaced(document, block)
    if args.check:
        if updated != document:
            print(f"{ARTIFACT.relative_to(ROOT)} is stale: run "
                  f"`python scripts/artifact_targets.py --write`", file=sys.stderr)
            return 1
        return 0
    ARTIFACT.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
