"""The summary page: every target's figure beside its claims, as one self-contained HTML file."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

VERDICT_COLORS = {"reproduced": "#d4edda", "contradicted": "#f8d7da",
                  "inconclusive": "#fff3cd", "informational": "#d1ecf1",
                  "not checkable": "#e2e3e5"}


def summary_html(claims_table: Any, figures: dict[str, Path],
                 not_run: dict[str, str] | None = None,
                 sensitivity: dict[str, Any] | None = None) -> str:
    """One page: per target its figure and its claims (paper vs ours, verdict, rule).

    Targets that were not run (``not_run``: target -> why) are listed first; the
    sensitivity tables (name -> table) come last, one section per family.
    """
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             "<title>schedsim reproduction: claims</title><style>",
             "body{font-family:sans-serif;max-width:1400px;margin:auto}",
             "table{border-collapse:collapse}td,th{border:1px solid #999;padding:4px;"
             "vertical-align:top;font-size:13px}img{max-width:100%}</style></head><body>",
             "<h1>Claims: paper vs this reproduction</h1>",
             _verdict_counts(claims_table), _share_html(claims_table, sensitivity or {}),
             _not_run_html(not_run or {})]
    targets = list(dict.fromkeys([*claims_table["target"], *figures]))
    for target in targets:
        parts.append(f"<h2>{html.escape(target)}</h2>")
        if target in figures:
            data = base64.b64encode(figures[target].read_bytes()).decode("ascii")
            parts.append(f"<img alt='{html.escape(target)}' src='data:image/png;base64,{data}'>")
        parts.append(_claims_html(claims_table[claims_table["target"] == target]))
    for name, table in (sensitivity or {}).items():
        parts.append(_sensitivity_html(name, table))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _not_run_html(not_run: dict[str, str]) -> str:
    if not not_run:
        return ""
    items = "".join(f"<li><b>{html.escape(t)}</b>: {html.escape(why)}</li>"
                    for t, why in not_run.items())
    return f"<h2>Not run</h2><ul>{items}</ul>"


def _verdict_counts(claims_table: Any) -> str:
    counts = claims_table["verdict"].value_counts()
    return "<p>" + ", ".join(f"{html.escape(k)}: {counts.get(k, 0)}"
                             for k in VERDICT_COLORS) + "</p>"


def _share_html(claims_table: Any, sensitivity: dict[str, Any]) -> str:
    """The share "reproduced, or explained by a named reading" (claims.explained_share)."""
    from schedsim.claims import explained_share

    return f"<p>{html.escape(explained_share(claims_table, sensitivity.values()).text())}</p>"


def _claims_html(part: Any) -> str:
    if part.empty:
        return "<p>No automatic claim for this target.</p>"
    return _table(part, ("claim_id", "statement", "paper_value", "our_value", "verdict", "rule",
                         "note"), ("claim", "statement", "paper", "ours (95% CI)", "verdict",
                                   "rule", "note"))


def _sensitivity_html(name: str, table: Any) -> str:
    title = f"<h2>Sensitivity: {html.escape(name)}</h2>"
    if table.empty:
        return title + "<p>No sensitivity reading is configured for this family.</p>"
    return title + _table(table, ("claim_id", "reading", "about", "verdict", "changed",
                                  "our_value", "rule"),
                          ("claim", "reading", "what it changes", "verdict",
                           "changed vs default", "ours", "rule"))


def _table(part: Any, columns: tuple[str, ...], heads: tuple[str, ...]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in heads)
    rows = []
    for row in part.to_dict("records"):
        color = VERDICT_COLORS.get(str(row["verdict"]), "#fff")
        rows.append(f"<tr style='background:{color}'>"
                    + "".join(f"<td>{html.escape(str(row.get(c, '')))}</td>" for c in columns)
                    + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"
