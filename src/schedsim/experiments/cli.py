"""``python -m schedsim.experiments``: the commands the workflow rules call.

Subcommands:

* ``plan``       list the workloads, points and targets a config defines;
* ``run-point``  run one point (all seeds inside) -> parquet, one row per simulation;
* ``aggregate``  run files of one target -> ``results/tables/<target>.csv`` (mean, 95% CI);
* ``figure``     a target's table -> PNG and PDF;
* ``claims``     tables -> ``results/claims.csv`` and one caption snippet per target;
* ``summary``    claims and figures -> one self-contained HTML page;
* ``benchmarks``  per-rule totals of the ``benchmark:`` files (docs/performance-pipeline.md).

A point or target is given either as ``--spec JSON`` (what the rules pass) or
by ``--config FILE`` plus its names (for running by hand). Errors in the input
end with exit code 2 and one line.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from schedsim.errors import InputError
from schedsim.experiments import common


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _spec_args(parser: argparse.ArgumentParser, point: bool) -> None:
    parser.add_argument("--spec", help="JSON spec (as the workflow passes it)")
    parser.add_argument("--config", help="config YAML (instead of --spec)")
    parser.add_argument("--target", help="target id, with --config")
    if point:
        parser.add_argument("--policy", help="policy name, with --config")
        parser.add_argument("--point", help="point name, with --config")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m schedsim.experiments",
                     description="Experiment steps of the reproduction workflow.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    plan = sub.add_parser("plan", help="list workloads, points and targets of a config")
    plan.add_argument("--config", required=True)
    run = sub.add_parser("run-point", help="simulate one point, all seeds")
    _spec_args(run, point=True)
    run.add_argument("--code-version", default="unknown", help="stored in the metadata")
    run.add_argument("--out", required=True, help="output parquet")
    agg = sub.add_parser("aggregate", help="mean and 95%% CI per point of one target")
    _spec_args(agg, point=False)
    agg.add_argument("--out", required=True, help="output CSV")
    agg.add_argument("--seeds-out", help="also write the per-seed table (CSV) the claims use")
    agg.add_argument("runs", nargs="*", help="run files (parquet) of the target")
    fig = sub.add_parser("figure", help="draw a target's figure")
    _spec_args(fig, point=False)
    fig.add_argument("--table", required=True)
    fig.add_argument("--png", required=True)
    fig.add_argument("--pdf", required=True)
    cla = sub.add_parser("claims", help="check every claim of the given families")
    cla.add_argument("--families", nargs="*", default=[], help="enabled families")
    cla.add_argument("--settings", default="{}", help="JSON: family -> claim settings")
    cla.add_argument("--out", required=True, help="output CSV")
    cla.add_argument("--captions", help="directory for one <target>.rst per target")
    cla.add_argument("tables", nargs="*", help="aggregated tables (<target>.csv)")
    bench = sub.add_parser("benchmarks", help="per-rule totals of Snakemake benchmark files")
    bench.add_argument("directory", nargs="?", default="results/benchmarks")
    summ = sub.add_parser("summary", help="claims and figures as one HTML page")
    summ.add_argument("--claims", required=True)
    summ.add_argument("--out", required=True)
    summ.add_argument("figures", nargs="*", help="figure PNGs (<target>.png)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (InputError, KeyError, ValueError, FileNotFoundError) as err:
        print(f"schedsim experiments {args.command}: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`
        return 0


# ----------------------------------------------------------------------------- specs


def _load_config(path: str) -> dict[str, Any]:
    import yaml

    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle) or {}


def _point_spec(args: argparse.Namespace) -> dict[str, Any]:
    if args.spec:
        return json.loads(args.spec)
    if not (args.config and args.target and args.policy and args.point):
        raise InputError("give --spec, or --config with --target, --policy and --point")
    spec = common.find_point(_load_config(args.config), args.target, args.policy, args.point)
    return json.loads(common.canonical_json(spec))  # key order as the workflow passes it


def _target_spec(args: argparse.Namespace) -> dict[str, Any]:
    if args.spec:
        return json.loads(args.spec)
    if not (args.config and args.target):
        raise InputError("give --spec, or --config with --target")
    plan = common.build_plan(_load_config(args.config))
    if args.target not in plan.targets:
        raise InputError(f"target {args.target} is not enabled in {args.config}; "
                         f"enabled: {', '.join(plan.targets)}")
    return plan.targets[args.target]


# ----------------------------------------------------------------------------- commands


def cmd_plan(args: argparse.Namespace) -> int:
    plan = common.build_plan(_load_config(args.config))
    print(f"{len(plan.workloads)} workloads, {len(plan.points)} points, "
          f"{len(plan.targets)} targets")
    for target, runs in plan.runs_of.items():
        print(f"{target}: {len(runs)} points")
        for run in runs:
            print(f"  {run}")
    return 0


def cmd_run_point(args: argparse.Namespace) -> int:
    spec = _point_spec(args)
    rows = common.run_point(spec)
    common.write_rows_parquet(rows, args.out, common.provenance(spec, args.code_version))
    print(f"{spec['target']} {spec['policy']} {spec['point']}: {len(rows)} simulations")
    return 0


def cmd_aggregate(args: argparse.Namespace) -> int:
    spec = _target_spec(args)
    table, seeds = aggregate_tables(spec, args.runs)
    write_csv(table, args.out)
    if args.seeds_out:
        write_csv(seeds, args.seeds_out)
    print(f"{spec['target']}: {len(table)} rows from {len(args.runs)} run files")
    return 0


def aggregate_tables(spec: dict[str, Any], runs: Sequence[str]) -> tuple[Any, Any]:
    """The aggregated table of one target and its per-seed table.

    An example target is computed directly, a derived one from the tables of its
    ``sources`` (given in ``runs``); their per-seed table is the same table.
    """
    import pandas as pd

    from schedsim.stats import seed_means, summarize_seeds

    if spec["kind"] == "example":
        table = common.family(spec["family"]).example_table(spec["target"])
        return table, table
    if spec.get("sources"):  # computed from other targets' tables (given as the inputs)
        table = common.family(spec["family"]).derived_table(spec, runs)
        return table, table
    if not runs:
        raise InputError(f"{spec['target']}: no run files given")
    frame = pd.concat([pd.read_parquet(path) for path in runs], ignore_index=True)
    metrics = [m for m in spec["metrics"] if m in frame]
    labels = _variant_labels(frame, spec)
    tables = [_labelled(summarize_seeds(frame, spec["group_by"], metrics), labels, spec),
              _labelled(seed_means(frame, spec["group_by"], metrics), labels, spec)]
    return tables[0], tables[1].sort_values("seed", kind="stable").pipe(_ordered, spec)


def _labelled(table: Any, labels: Any, spec: dict[str, Any]) -> Any:
    """Add the variant's label columns after the group keys, and the target first."""
    table = table.merge(labels, on=spec["variant_column"], how="left")
    keys, label_names = list(spec["group_by"]), [c for c in labels if c not in spec["group_by"]]
    table = table[keys + label_names + [c for c in table if c not in keys + label_names]]
    table.insert(0, "target", spec["target"])
    return _ordered(table, spec)


def _variant_labels(frame: Any, spec: dict[str, Any]) -> Any:
    column = spec["variant_column"]
    label_names = sorted({k for v in spec["variant_labels"].values() for k in v})
    return frame.groupby(column, sort=False)[label_names].first().reset_index()


def _ordered(table: Any, spec: dict[str, Any]) -> Any:
    """Rows in config order: policy, variant, then the remaining parameters ascending."""
    column = spec["variant_column"]
    policy_rank = {p: i for i, p in enumerate(spec["policies"])}
    variant_rank = {v: i for i, v in enumerate(spec["variants"])}
    table = table.assign(_p=table["policy"].map(policy_rank), _v=table[column].map(variant_rank))
    rest = [c for c in spec["group_by"] if c not in ("policy", column)]
    return table.sort_values(["_p", "_v", *rest], kind="stable").drop(columns=["_p", "_v"])


def write_csv(table: Any, path: str | Path) -> None:
    """CSV with fixed float formatting; temp file + rename."""
    text = table.to_csv(index=False, float_format="%.10g", lineterminator="\n")
    common.write_bytes_atomic(path, text.encode("utf-8"))


def cmd_figure(args: argparse.Namespace) -> int:
    import pandas as pd

    from schedsim.plots import target_figure

    spec = _target_spec(args)
    target_figure(pd.read_csv(args.table), spec, args.png, args.pdf)
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    import pandas as pd

    from schedsim import claims

    for name in args.families:
        common.family(name)  # imports the module, which registers its claims
    tables = {Path(p).stem: pd.read_csv(p) for p in args.tables}
    result = claims.evaluate(args.families, tables, json.loads(args.settings))
    write_csv(result, args.out)
    if args.captions:
        for target in [t for t in tables if not t.endswith(common.SEEDS_SUFFIX)]:
            common.write_bytes_atomic(Path(args.captions) / f"{target}.rst",
                                      claims.caption_rst(result, target).encode("utf-8"))
    counts = result["verdict"].value_counts().to_dict()
    print(f"{len(result)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return 0


def cmd_summary(args: argparse.Namespace) -> int:
    import pandas as pd

    claims_table = pd.read_csv(args.claims, keep_default_na=False)
    page = summary_html(claims_table, {Path(p).stem: Path(p) for p in args.figures})
    common.write_bytes_atomic(args.out, page.encode("utf-8"))
    return 0


def cmd_benchmarks(args: argparse.Namespace) -> int:
    """Markdown table: per rule (first directory level) jobs, wall and CPU seconds, max RSS."""
    import pandas as pd

    root = Path(args.directory)
    frames = []
    for path in sorted(root.rglob("*.tsv")):
        frame = pd.read_csv(path, sep="\t")
        frame["rule"] = path.relative_to(root).parts[0]
        frame["group"] = "/".join(path.relative_to(root).with_suffix("").parts[:2])
        frames.append(frame)
    if not frames:
        raise InputError(f"{root}: no benchmark files")
    data = pd.concat(frames, ignore_index=True)
    print("| rule / target | jobs | wall s (sum) | wall s (mean) | wall s (max) | CPU s (sum) "
          "| max RSS MB |")
    print("|---|---|---|---|---|---|---|")
    for key, part in [*data.groupby("rule", sort=True), *data.groupby("group", sort=True)]:
        print(f"| {key} | {len(part)} | {part['s'].sum():.1f} | {part['s'].mean():.2f} | "
              f"{part['s'].max():.2f} | {part['cpu_time'].sum():.1f} | "
              f"{pd.to_numeric(part['max_rss'], errors='coerce').max():.0f} |")
    return 0


VERDICT_COLORS = {"reproduced": "#d4edda", "not reproduced": "#f8d7da",
                  "not checkable": "#e2e3e5"}


def summary_html(claims_table: Any, figures: dict[str, Path]) -> str:
    """One page: per target its figure and its claims (paper vs ours, verdict)."""
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             "<title>schedsim reproduction: claims</title><style>",
             "body{font-family:sans-serif;max-width:1400px;margin:auto}",
             "table{border-collapse:collapse}td,th{border:1px solid #999;padding:4px;"
             "vertical-align:top;font-size:13px}img{max-width:100%}</style></head><body>",
             "<h1>Claims: paper vs this reproduction</h1>",
             _verdict_counts(claims_table)]
    targets = list(dict.fromkeys([*claims_table["target"], *figures]))
    for target in targets:
        parts.append(f"<h2>{html.escape(target)}</h2>")
        if target in figures:
            data = base64.b64encode(figures[target].read_bytes()).decode("ascii")
            parts.append(f"<img alt='{html.escape(target)}' src='data:image/png;base64,{data}'>")
        parts.append(_claims_html(claims_table[claims_table["target"] == target]))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _verdict_counts(claims_table: Any) -> str:
    counts = claims_table["verdict"].value_counts()
    return "<p>" + ", ".join(f"{html.escape(k)}: {counts.get(k, 0)}"
                             for k in VERDICT_COLORS) + "</p>"


def _claims_html(part: Any) -> str:
    if part.empty:
        return "<p>No automatic claim for this target.</p>"
    head = "".join(f"<th>{c}</th>" for c in ("claim", "statement", "paper", "ours", "verdict",
                                              "note"))
    rows = []
    for row in part.itertuples(index=False):
        color = VERDICT_COLORS.get(row.verdict, "#fff")
        cells = [row.claim_id, row.statement, row.paper_value, row.our_value, row.verdict,
                 row.note]
        rows.append(f"<tr style='background:{color}'>"
                    + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


COMMANDS = {"plan": cmd_plan, "run-point": cmd_run_point, "aggregate": cmd_aggregate,
            "figure": cmd_figure, "claims": cmd_claims, "summary": cmd_summary,
            "benchmarks": cmd_benchmarks}
