"""The documents' verdict tables are generated from the committed snapshot of the full
run's claims (docs/verdicts/), and the documents in the repository are what the
generator writes: they say what claims.csv says."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from schedsim import verdict_docs
from schedsim.claims import COLUMNS, SENSITIVITY_COLUMNS


def test_the_documents_equal_their_generated_blocks() -> None:
    """`python -m schedsim.verdict_docs --check` on the repository: nothing stale."""
    assert verdict_docs.main(["--check"]) == 0


def test_every_family_document_has_its_blocks() -> None:
    for family in verdict_docs.FAMILIES:
        text = (verdict_docs.DOCS / f"results-{family}.md").read_text()
        for block in ("counts", "changes", "verdicts", "sensitivity"):
            assert f"<!-- generated: {block} {family} -->" in text, (family, block)


def test_the_snapshot_covers_every_registered_claim() -> None:
    snap = verdict_docs.Snapshot()
    from schedsim import claims
    from schedsim.experiments.families import (  # noqa: F401  (they register the claims)
        goal_claims,
        hrf_claims,
        ihap_claims,
        los_claims,
        slack_claims,
    )

    for family in verdict_docs.FAMILIES:
        ids = [c.claim_id for c in claims.registered(family)]
        assert list(snap.family(family)["claim_id"]) == ids, family
        assert set(snap.before(family)) == set(ids), family
        changed = [cid for cid, before in snap.before(family).items()
                   if before != snap.family(family).set_index("claim_id").loc[cid, "verdict"]]
        assert all(snap.why(family)[cid].strip() for cid in changed), family


def write_snapshot(directory: Path) -> None:
    claims = pd.DataFrame([
        {"target": "HRF-F5", "claim_id": "F5-a", "statement": "s", "paper_value": "p",
         "our_value": "x" * 400, "verdict": "inconclusive", "rule": "r", "note": "n | m"},
        {"target": "HRF-F7", "claim_id": "F7-b", "statement": "s", "paper_value": "q",
         "our_value": "y", "verdict": "reproduced", "rule": "r", "note": "n"},
        {"target": "LOS-F5", "claim_id": "F5-c", "statement": "s", "paper_value": "q",
         "our_value": "z", "verdict": "contradicted", "rule": "r", "note": "n"}],
        columns=list(COLUMNS))
    claims.to_csv(directory / "claims.csv", index=False)
    sensitivity = pd.DataFrame([
        {"claim_id": "F5-a", "target": "HRF-F5", "reading": "default", "verdict": "inconclusive"},
        {"claim_id": "F5-a", "target": "HRF-F5", "reading": "wide", "verdict": "reproduced"},
        {"claim_id": "F7-b", "target": "HRF-F7", "reading": "default", "verdict": "reproduced"},
        {"claim_id": "F7-b", "target": "HRF-F7", "reading": "tall", "verdict": "reproduced"}],
        columns=list(SENSITIVITY_COLUMNS))
    sensitivity.to_csv(directory / "HRF-sensitivity.csv", index=False)
    pd.DataFrame([{"family": "hrf", "claim_id": "F5-a", "before": "reproduced",
                   "why": "the rule needs an interval inside the bound now"},
                  {"family": "hrf", "claim_id": "F7-b", "before": "new", "why": "added"},
                  {"family": "los", "claim_id": "F5-c", "before": "contradicted", "why": ""}]
                 ).to_csv(directory / "changes.csv", index=False)


def test_blocks_from_a_small_snapshot(tmp_path: Path) -> None:
    write_snapshot(tmp_path)
    snap = verdict_docs.Snapshot(tmp_path)
    text = ("# HRF\n<!-- generated: counts hrf -->\nSTALE\n<!-- end generated -->\n"
            "<!-- generated: verdicts hrf -->\n<!-- end generated -->\n"
            "<!-- generated: changes hrf -->\n<!-- end generated -->\n"
            "<!-- generated: sensitivity hrf -->\n<!-- end generated -->\n")
    out = verdict_docs.render(text, snap)
    assert "STALE" not in out
    assert "Now: 2 claims: 1 reproduced, 0 contradicted, 1 inconclusive" in out
    assert "At 212151e: 1 claims: 1 reproduced" in out
    assert ("reproduced, or explained by a named reading: 2 of 2 judged claims (100%): "
            "1 reproduced, 1 explained (F5-a by wide)") in out
    assert "| F5-a | HRF-F5 | p | " + "x" * 296 + " ... | **inconclusive** | n / m |" in out
    assert "| F5-a | reproduced | inconclusive | the rule needs" in out
    assert "| F7-b | new | reproduced | added |" in out
    assert "| claim | default | wide | tall |" in out
    assert "| F5-a | inconclusive | **reproduced** |  |" in out
    assert "| F7-b | reproduced |  | reproduced |" in out
    assert verdict_docs.render(out, snap) == out  # rendering is idempotent


def test_claims_blocks_come_from_the_registry() -> None:
    out = verdict_docs.render("<!-- generated: claims HRF-T1 -->\n<!-- end generated -->\n",
                              None)
    assert "| T1-att | Average turnaround of allocation strategies A, B, C" in out
    empty = verdict_docs.render("<!-- generated: claims LOS-CS20 -->\n<!-- end generated -->",
                                None)
    assert "No claim of its own" in empty


def test_an_unknown_block_or_a_missing_snapshot_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown generated block"):
        verdict_docs.render("<!-- generated: tables hrf -->\n<!-- end generated -->", None)
    with pytest.raises(ValueError, match="needs the snapshot"):
        verdict_docs.render("<!-- generated: counts hrf -->\n<!-- end generated -->", None)


def test_snapshot_copies_a_full_run(tmp_path: Path) -> None:
    results, target = tmp_path / "results", tmp_path / "snap"
    (results / "tables").mkdir(parents=True)
    target.mkdir()
    write_snapshot(tmp_path)
    (tmp_path / "claims.csv").rename(results / "claims.csv")
    (tmp_path / "HRF-sensitivity.csv").rename(results / "tables" / "HRF-sensitivity.csv")
    verdict_docs.copy_snapshot(results, target)
    assert sorted(p.name for p in target.iterdir()) == ["HRF-sensitivity.csv", "claims.csv"]
