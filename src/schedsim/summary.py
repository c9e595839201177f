"""The summary page: one self-contained HTML file that leads with the verdicts.

It opens with an overview (one row per family: its verdict counts and the share of its
judged claims that are reproduced, or explained by a named reading) and a table of
contents; then, family by family, every target's figure (a table target's table as a
table), its representative schedule, and its claims, each claim linked to its figure
and to its rows in the family's sensitivity table, which closes the family's section.
Pictures are embedded as PNG data (reduced to 256 colours): the page needs no other file.

A claim is *explained* when it is not reproduced under the default reading and a named
reading of the family's sensitivity table makes it reproduced (the project's rule for
claims: "Explained"). The share counts reproduced and explained claims among the judged
ones (reproduced, contradicted or inconclusive; informational and not checkable claims
judge nothing).
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schedsim.claims import Share

VERDICT_COLORS = {"reproduced": "#d4edda", "contradicted": "#f8d7da",
                  "inconclusive": "#fff3cd", "informational": "#d1ecf1",
                  "not checkable": "#e2e3e5"}
JUDGED = ("reproduced", "contradicted", "inconclusive")
DEFAULT_READING = "default"
STYLE = ("body{font-family:sans-serif;max-width:1500px;margin:auto;padding:0 1em}"
         "table{border-collapse:collapse;margin:.5em 0}"
         "td,th{border:1px solid #999;padding:3px 5px;vertical-align:top;font-size:13px}"
         "th{background:#eee}img{max-width:100%;border:1px solid #ddd}"
         "figure{margin:1em 0}figcaption{font-size:13px;color:#333}"
         "nav li{margin:.2em 0}.num{text-align:right}"
         "h2{border-bottom:2px solid #333;margin-top:2em}h3{margin-top:1.6em}")


@dataclass
class Pictures:
    """What the page shows per target: its figure, or its table; its schedule picture."""

    figures: Mapping[str, Path] = field(default_factory=dict)
    tables: Mapping[str, Any] = field(default_factory=dict)
    schedules: Mapping[str, Path] = field(default_factory=dict)
    schedule_captions: Mapping[str, str] = field(default_factory=dict)


def family_of(target: str) -> str:
    """``HRF-F5`` -> ``hrf`` (target ids are ``<FAMILY>-<id>``)."""
    return target.split("-", 1)[0].lower()


def summary_html(claims_table: Any, pictures: Pictures | Mapping[str, Path],
                 not_run: Mapping[str, str] | None = None,
                 sensitivity: Mapping[str, Any] | None = None,
                 lead: Sequence[str] = (), processes: int = 1) -> str:
    """The page (module docstring); ``sensitivity`` maps ``<FAMILY>-sensitivity`` to its
    table; ``not_run`` (target -> why) lists the targets that could not run; the families
    of the ``lead`` targets (every policy on the real logs, side by side) come first, as
    what the tool shows beyond the papers. The pictures are reduced by up to
    ``processes`` processes (``parallel.ordered_map``; the same page for any count)."""
    from schedsim.parallel import ordered_map

    if not isinstance(pictures, Pictures):
        pictures = Pictures(figures=pictures)
    sensitivity = {family_of(name): table for name, table in (sensitivity or {}).items()}
    # the figures come in the config's order (families as the papers are numbered)
    targets = list(dict.fromkeys([*pictures.figures, *pictures.tables,
                                  *claims_table["target"]]))
    families = list(dict.fromkeys([*(family_of(t) for t in lead if t in targets),
                                   *(family_of(t) for t in targets), *sensitivity]))
    shares = {family: family_share(claims_table, family, sensitivity.get(family))
              for family in families}
    shown = []  # the pictures the page embeds (a table target shows its table)
    for target in targets:
        if target in pictures.figures and target not in pictures.tables:
            shown.append(pictures.figures[target])
        if target in pictures.schedules:
            shown.append(pictures.schedules[target])
    png = dict(zip(shown, ordered_map(_compact_file, shown, processes), strict=True))
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
             "<title>schedsim: the papers' claims, reproduced</title>",
             f"<style>{STYLE}</style></head><body>",
             "<h1>The papers' claims, reproduced</h1>",
             _overview(claims_table, families, shares, sensitivity),
             _contents(families, targets, sensitivity),
             _not_run_html(not_run or {})]
    for family in families:
        parts.append(f"<h2 id='family-{family}'>{family.upper()}</h2>")
        for target in [t for t in targets if family_of(t) == family]:
            parts.append(_target_html(target, claims_table, pictures, png,
                                      sensitivity.get(family)))
        if family in sensitivity:
            parts.append(_sensitivity_html(family, sensitivity[family]))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# ----------------------------------------------------------------------------- overview


def family_share(claims_table: Any, family: str, table: Any) -> Share:
    """The share of ``family``'s judged claims reproduced, or explained by a named reading
    of its sensitivity table (``claims.explained_share``)."""
    from schedsim.claims import explained_share

    mine = claims_table[claims_table["target"].map(family_of) == family]
    return explained_share(mine, [] if table is None or table.empty else [table])


def _overview(claims_table: Any, families: Iterable[str], shares: Mapping[str, Share],
              sensitivity: Mapping[str, Any]) -> str:
    from schedsim.claims import explained_share

    heads = ["family", "claims", *VERDICT_COLORS, "explained by a reading",
             "reproduced or explained (of the judged)"]
    rows = []
    for family in families:
        mine = claims_table[claims_table["target"].map(family_of) == family]
        counts = mine["verdict"].value_counts()
        share = shares[family]
        ratio = (f"{share.count} of {share.judged} ({share.count / share.judged:.0%})"
                 if share.judged else "none judged")
        cells = [f"<a href='#family-{family}'>{family.upper()}</a>", str(len(mine)),
                 *(str(int(counts.get(v, 0))) for v in VERDICT_COLORS),
                 str(len(share.explained)), ratio]
        rows.append("<tr>" + "".join(f"<td class='num'>{c}</td>" if i else f"<td>{c}</td>"
                                     for i, c in enumerate(cells)) + "</tr>")
    total = explained_share(claims_table, [t for t in sensitivity.values() if not t.empty])
    head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
    return ("<h2 id='overview'>Overview</h2>"
            f"<table id='overview-table'><tr>{head}</tr>{''.join(rows)}</table>"
            f"<p>All families: {html.escape(total.text())}.</p>"
            "<p>A claim is <i>explained</i> when it is not reproduced under the default "
            "reading and a named reading of the family's sensitivity table reproduces it. "
            "The last column counts reproduced and explained claims among the judged ones "
            "(reproduced, contradicted, inconclusive); informational and not checkable "
            "claims judge nothing. Figures draw, below the paper's panels, the paired "
            "differences the verdicts test: a filled marker is an interval that excludes "
            "0.</p>")


def _contents(families: Iterable[str], targets: list[str],
              sensitivity: Mapping[str, Any]) -> str:
    items = []
    for family in families:
        links = [f"<a href='#{html.escape(t)}'>{html.escape(t)}</a>" for t in targets
                 if family_of(t) == family]
        if family in sensitivity:
            links.append(f"<a href='#sensitivity-{family}'>sensitivity</a>")
        items.append(f"<li><a href='#family-{family}'><b>{family.upper()}</b></a>: "
                     + ", ".join(links) + "</li>")
    return f"<nav id='contents'><h2>Contents</h2><ul>{''.join(items)}</ul></nav>"


def _not_run_html(not_run: Mapping[str, str]) -> str:
    if not not_run:
        return ""
    items = "".join(f"<li><b>{html.escape(t)}</b>: {html.escape(why)}</li>"
                    for t, why in not_run.items())
    return f"<h2 id='not-run'>Not run</h2><ul>{items}</ul>"


# ----------------------------------------------------------------------------- targets


def _target_html(target: str, claims_table: Any, pictures: Pictures,
                 png: Mapping[Path, bytes], sensitivity: Any) -> str:
    name = html.escape(target)
    parts = [f"<h3 id='{name}'>{name}</h3>"]
    if target in pictures.tables:
        parts.append(f"<div id='fig-{name}'>{_data_table(pictures.tables[target])}</div>")
    elif target in pictures.figures:
        parts.append(f"<figure id='fig-{name}'>{_image(png[pictures.figures[target]], target)}"
                     "</figure>")
    if target in pictures.schedules:
        caption = html.escape(pictures.schedule_captions.get(target, ""))
        parts.append(f"<figure id='schedule-{name}'>"
                     f"{_image(png[pictures.schedules[target]], f'{target} schedule')}"
                     f"<figcaption>Representative schedule: {caption}</figcaption></figure>")
    parts.append(_claims_html(claims_table[claims_table["target"] == target], target,
                              sensitivity))
    return "\n".join(parts)


def _image(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f"<img alt='{html.escape(alt)}' src='data:image/png;base64,{data}'>"


def _compact_file(path: Path) -> bytes:
    return compact_png(Path(path).read_bytes())


def compact_png(data: bytes) -> bytes:
    """The picture with at most 256 colours (median cut, no dithering: deterministic),
    when that is smaller: figures and schedules use few colours, and the page stays a
    few MB for the full run."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        fewer = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                                              dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    fewer.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue() if len(buffer.getvalue()) < len(data) else data


def _claims_html(part: Any, target: str, sensitivity: Any) -> str:
    if part.empty:
        return "<p>No automatic claim for this target.</p>"
    family = family_of(target)
    with_rows = set(sensitivity["claim_id"]) if sensitivity is not None and \
        not sensitivity.empty else set()
    heads = ("claim", "statement", "paper", "ours", "verdict", "rule", "note", "see")
    rows = []
    for row in part.to_dict("records"):
        claim = str(row["claim_id"])
        links = [f"<a href='#fig-{html.escape(target)}'>figure</a>"]
        if claim in with_rows:
            links.append(f"<a href='#sens-{family}-{html.escape(claim)}'>sensitivity</a>")
        cells = [f"<td id='claim-{family}-{html.escape(claim)}'>{html.escape(claim)}</td>",
                 *(f"<td>{html.escape(str(row.get(c, '')))}</td>" for c in
                   ("statement", "paper_value", "our_value", "verdict", "rule", "note")),
                 f"<td>{' '.join(links)}</td>"]
        color = VERDICT_COLORS.get(str(row["verdict"]), "#fff")
        rows.append(f"<tr style='background:{color}'>{''.join(cells)}</tr>")
    head = "".join(f"<th>{h}</th>" for h in heads)
    return f"<table class='claims'><tr>{head}</tr>{''.join(rows)}</table>"


def _data_table(table: Any) -> str:
    shown = table.drop(columns=[c for c in ("target",) if c in table])
    head = "".join(f"<th>{html.escape(str(c).replace('_', ' '))}</th>" for c in shown.columns)
    rows = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>"
                   for row in shown.itertuples(index=False))
    return f"<table class='data'><tr>{head}</tr>{rows}</table>"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        text = "" if math.isnan(value) else f"{value:,.0f}" if abs(value) >= 1e4 \
            else f"{value:.4g}"
        return f"<td class='num'>{text}</td>"
    if isinstance(value, int | bool):
        return f"<td class='num'>{value}</td>"
    return f"<td>{html.escape(str(value))}</td>"


# ----------------------------------------------------------------------------- sensitivity


def _sensitivity_html(family: str, table: Any) -> str:
    title = (f"<h3 id='sensitivity-{family}'>Sensitivity: {family.upper()} claims under "
             "each reading</h3>")
    if table.empty:
        return title + "<p>No sensitivity reading is configured for this family.</p>"
    columns = ("claim_id", "reading", "about", "verdict", "changed", "our_value", "rule")
    heads = ("claim", "reading", "what it changes", "verdict", "changed vs default", "ours",
             "rule")
    head = "".join(f"<th>{h}</th>" for h in heads)
    rows, seen = [], set()
    for row in table.to_dict("records"):
        claim = str(row["claim_id"])
        anchor = "" if claim in seen else f" id='sens-{family}-{html.escape(claim)}'"
        seen.add(claim)
        first = (f"<td{anchor}><a href='#claim-{family}-{html.escape(claim)}'>"
                 f"{html.escape(claim)}</a></td>")
        cells = "".join(f"<td>{html.escape(str(row.get(c, '')))}</td>" for c in columns[1:])
        color = VERDICT_COLORS.get(str(row["verdict"]), "#fff")
        rows.append(f"<tr style='background:{color}'>{first}{cells}</tr>")
    return f"{title}<table class='sensitivity'><tr>{head}</tr>{''.join(rows)}</table>"
