"""Archive and citation metadata: .zenodo.json has what Zenodo requires, and LICENSE,
.zenodo.json, CITATION.cff and pyproject.toml agree on title, licence and version.

Zenodo's deposit metadata (the legacy REST API that reads .zenodo.json, zenodo.org/dev,
"Deposit metadata"): upload_type, title, creators (each with a name, "Family, Given" for
a person), description and access_right are required, license too when the access is
open or embargoed; publication_date defaults to the day of publication (a release).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

import schedsim

ROOT = Path(__file__).resolve().parents[1]
UPLOAD_TYPES = {"publication", "poster", "presentation", "dataset", "image", "video",
                "software", "lesson", "physicalobject", "other"}
ACCESS_RIGHTS = {"open", "embargoed", "restricted", "closed"}
RELATIONS = {"isCitedBy", "cites", "isSupplementTo", "isSupplementedBy", "isContinuedBy",
             "continues", "isDescribedBy", "describes", "hasMetadata", "isMetadataFor",
             "isNewVersionOf", "isPreviousVersionOf", "isPartOf", "hasPart", "isReferencedBy",
             "references", "isDocumentedBy", "documents", "isCompiledBy", "compiles",
             "isVariantFormOf", "isOriginalFormOf", "isIdenticalTo", "isAlternateIdentifier",
             "isReviewedBy", "reviews", "isDerivedFrom", "isSourceOf", "requires",
             "isRequiredBy", "isObsoletedBy", "obsoletes"}
RESOURCE_TYPES = {"dataset", "software", "other", "poster", "presentation", "lesson",
                  "physicalobject", "video", *(f"publication-{kind}" for kind in (
                      "article", "book", "conferencepaper", "deliverable", "milestone",
                      "other", "patent", "preprint", "proposal", "report", "section",
                      "softwaredocumentation", "technicalnote", "thesis", "workingpaper"))}
DOI = re.compile(r"^10\.\d{4,9}/\S+$")
MIT_GRANT = "Permission is hereby granted, free of charge, to any person obtaining a copy"


def zenodo_problems(meta: Any) -> list[str]:
    """What keeps ``meta`` from being accepted as Zenodo deposit metadata."""
    if not isinstance(meta, dict):
        return ["not a JSON object"]
    problems = []
    if meta.get("upload_type") not in UPLOAD_TYPES:
        problems.append(f"upload_type {meta.get('upload_type')!r}: one of {sorted(UPLOAD_TYPES)}")
    for key, shortest in (("title", 3), ("description", 1)):
        if not isinstance(meta.get(key), str) or len(meta[key].strip()) < shortest:
            problems.append(f"{key}: a non-empty string is required")
    creators = meta.get("creators")
    if not isinstance(creators, list) or not creators or not all(
            isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"].strip()
            for c in creators):
        problems.append("creators: a non-empty list of objects with a name is required")
    access = meta.get("access_right")
    if access not in ACCESS_RIGHTS:
        problems.append(f"access_right {access!r}: one of {sorted(ACCESS_RIGHTS)}")
    if access in ("open", "embargoed") and not meta.get("license"):
        problems.append(f"license: required with access_right {access!r}")
    keywords = meta.get("keywords", [])
    if not all(isinstance(k, str) and k.strip() for k in keywords) \
            or len(set(keywords)) != len(keywords):
        problems.append("keywords: distinct non-empty strings")
    for item in meta.get("related_identifiers", []):
        problems.extend(_identifier_problems(item))
    if not all(isinstance(r, str) and r.strip() for r in meta.get("references", [])):
        problems.append("references: non-empty strings")
    return problems


def _identifier_problems(item: Any) -> list[str]:
    if not isinstance(item, dict) or not isinstance(item.get("identifier"), str):
        return [f"related identifier {item!r}: an object with an identifier"]
    identifier, problems = item["identifier"], []
    if not (DOI.match(identifier) or identifier.startswith("https://")):
        problems.append(f"related identifier {identifier}: a DOI (10.x/...) or an https URL")
    if item.get("relation") not in RELATIONS:
        problems.append(f"related identifier {identifier}: relation {item.get('relation')!r}")
    if "resource_type" in item and item["resource_type"] not in RESOURCE_TYPES:
        problems.append(f"related identifier {identifier}: resource_type "
                        f"{item['resource_type']!r}")
    return problems


def zenodo() -> dict[str, Any]:
    return json.loads((ROOT / ".zenodo.json").read_text(encoding="utf-8"))


def citation() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def project() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_zenodo_json_has_what_the_archive_requires() -> None:
    meta = zenodo()
    assert zenodo_problems(meta) == []
    assert meta["upload_type"] == "software"


@pytest.mark.parametrize("key", ["upload_type", "title", "creators", "description",
                                 "access_right", "license"])
def test_the_check_rejects_metadata_without_a_required_field(key: str) -> None:
    meta = zenodo()
    del meta[key]
    assert zenodo_problems(meta), key


@pytest.mark.parametrize("change", [
    {"creators": [{"affiliation": "nowhere"}]},
    {"related_identifiers": [{"identifier": "10.1145/1", "relation": "inspiredBy"}]},
    {"related_identifiers": [{"identifier": "doi 10.1145/1", "relation": "cites"}]},
    {"keywords": ["HPC", "HPC"]},
    {"access_right": "public"},
])
def test_the_check_rejects_malformed_fields(change: dict[str, Any]) -> None:
    assert zenodo_problems({**zenodo(), **change})


def test_licence_title_and_version_agree() -> None:
    meta, cff, package = zenodo(), citation(), project()
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License\n") and MIT_GRANT in licence
    assert meta["license"] == cff["license"] == package["license"] == "MIT"
    assert package["license-files"] == ["LICENSE"]
    assert meta["title"] == cff["title"]
    assert meta["title"].startswith(f"{package['name']}: ")
    assert meta["version"] == str(cff["version"]) == package["version"] == schedsim.__version__
    assert [c["name"] for c in meta["creators"]] == [a["name"] for a in cff["authors"]]


def test_every_cited_work_is_in_the_archive_metadata() -> None:
    """The five papers and the archive: each title among the references, each DOI and URL
    a related identifier."""
    meta = zenodo()
    references = " ".join(meta["references"])
    identifiers = {item["identifier"] for item in meta["related_identifiers"]}
    works = citation()["references"]
    assert len(works) == 7  # five papers, the archive's paper, the archive
    for work in works:
        assert work["title"] in references, work["title"]
        for key in ("doi", "url"):
            if key in work:
                assert str(work[key]) in identifiers, work[key]
