"""``python -m tvs_core``: the library's main operations from a shell. Scripts rely on this
interface; change it only by adding. Errors print one line on stderr and exit with status 2."""

from __future__ import annotations

import argparse
import json
import sys

import pandas as pd

from .demo import DEFAULT_DEMO, DEMOS, load_demo
from .errors import DataError, DataErrors, TVSError
from .families import DEFAULT_PRESET, PRESETS
from .generator import prepare_table
from .io import read_table
from .model import TVineSynth
from .ordering import MEASURES, algorithm1, association_matrix
from .schema import infer_schema
from .validation import check

EXIT_USAGE = 2


def _split(text: str | None) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()] if text else []


def _load(args) -> pd.DataFrame:
    """DATA, or --demo NAME; with neither, the default demo (as the dashboard opens it)."""
    if args.data and args.demo:
        raise DataError("Both DATA and --demo were given.", fix="Pass one of them.")
    if not args.data:
        args.demo = args.demo or DEFAULT_DEMO
        return load_demo(args.demo)
    return read_table(args.data)


def _roles(args, table: pd.DataFrame):
    response = args.response
    sensitive = _split(args.sensitive)
    if args.demo:
        demo = DEMOS[args.demo]
        response = response or demo.response
        sensitive = sensitive or list(demo.sensitive)
    if not response:
        raise DataError("No response column given.", fix="Pass --response COLUMN.")
    if not sensitive:
        raise DataError("No sensitive column given.", fix="Pass --sensitive COL[,COL...].")
    return infer_schema(table).with_roles(response, sensitive)


def cmd_inspect(args) -> dict:
    table = _load(args)
    schema = infer_schema(table)
    return {"rows": len(table), "columns": schema.to_dict()["columns"]}


def cmd_order(args) -> dict:
    table = _load(args)
    schema = _roles(args, table)
    check(table, schema, measure=args.measure)
    values = prepare_table(table, schema).values
    result = algorithm1(association_matrix(values, args.measure), schema.response, schema.sensitive,
                        args.rho, args.measure)
    return {"order": result.order, "K": result.K, "tau_block": result.tau_block,
            "S": result.sensitive, "rho_star": result.rho_star, "measure": result.measure,
            "t_max": result.t_max, "t_max_reason": result.t_max_reason, "full_level": result.full_level}


def cmd_release(args) -> dict:
    table = _load(args)
    schema = _roles(args, table)
    model = TVineSynth(response=schema.response, sensitive=schema.sensitive, rho_star=args.rho,
                       measure=args.measure, order=_split(args.order) or None, families=args.families,
                       margins=args.margins, t_max=args.level, seed=args.seed, threads=args.threads,
                       missing=args.missing)
    model.fit(table, schema)
    if args.level > model.order_.full_level:
        raise DataError(f"--level {args.level} is above the full vine's {model.order_.full_level} trees.",
                        fix=f"Choose a level from 0 to {model.order_.full_level}.")
    rows = args.rows or len(table)
    synthetic = model.sample(rows, truncation_level=args.level, seed=args.seed)
    synthetic.to_csv(args.out, index=False)
    return {"out": args.out, "rows": rows, "level": args.level, "order": model.order_.order,
            "families": args.families, "margins": args.margins, "seed": args.seed}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tvs_core", description="TVineSynth Studio command line.")
    sub = parser.add_subparsers(dest="command", required=True)

    def data_args(p, roles: bool):
        p.add_argument("data", nargs="?", help="CSV or Parquet file (default: the clinical demo)")
        p.add_argument("--demo", choices=sorted(DEMOS), help="use a built-in demo table instead of DATA")
        if roles:
            p.add_argument("--response", help="response column Y")
            p.add_argument("--sensitive", help="comma-separated sensitive columns")
            p.add_argument("--rho", type=float, default=None,
                           help="association threshold rho* (default: Pearson 0.6 in the chosen measure)")
            p.add_argument("--measure", choices=MEASURES, default="kendall")

    data_args(sub.add_parser("inspect", help="print the inferred schema as JSON"), roles=False)
    data_args(sub.add_parser("order", help="print Algorithm 1's order, K and tau as JSON"), roles=True)
    release = sub.add_parser("release", help="fit TVineSynth and write a synthetic CSV")
    data_args(release, roles=True)
    release.add_argument("--order", help="explicit comma-separated covariate order (response is appended)")
    release.add_argument("--level", type=int, required=True, help="truncation level t")
    release.add_argument("--rows", type=int, help="rows to generate (default: as many as the input)")
    release.add_argument("--seed", type=int, default=0)
    release.add_argument("--families", choices=sorted(PRESETS), default=DEFAULT_PRESET)
    release.add_argument("--margins", choices=["empirical", "kde"], default="empirical")
    release.add_argument("--missing", choices=["drop_rows", "impute"], default="drop_rows")
    release.add_argument("--threads", type=int, default=1)
    release.add_argument("--out", required=True, help="output CSV path")
    return parser


COMMANDS = {"inspect": cmd_inspect, "order": cmd_order, "release": cmd_release}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = COMMANDS[args.command](args)
    except DataErrors as exc:
        print("error: " + " | ".join(str(p) for p in exc.problems), file=sys.stderr)
        return EXIT_USAGE
    except (TVSError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "release":
        print(f"wrote {result['rows']} rows at truncation level {result['level']} to {result['out']}",
              file=sys.stderr)
    else:
        json.dump(result, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    return 0
