"""``python -m tvs_core``: the library's main operations from a shell. Scripts rely on this
interface; change it only by adding. Errors print one line on stderr and exit with status 2."""

from __future__ import annotations

import argparse
import json
import sys

import pandas as pd

from .choice.axes import axis_choices
from .data.demo import DEFAULT_DEMO, DEMOS, load_demo
from .data.io import read_table
from .data.prepare import prepare_table
from .data.schema import infer_schema
from .data.validation import check
from .errors import DataError, DataErrors, TVSError
from .evaluation.catalogue import DEFAULT_PRIVACY_AXIS
from .model.families import DEFAULT_PRESET, PRESETS
from .model.ordering import MEASURES, algorithm1, association_matrix
from .model.tvinesynth import TVineSynth

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

    sweep = sub.add_parser("sweep", help="evaluate every truncation level (resumable; stored in the workspace)")
    data_args(sweep, roles=True)
    sweep.add_argument("--order", help="explicit comma-separated covariate order (response is appended)")
    sweep.add_argument("--levels", help="comma-separated truncation levels (default: every 5th, 1 and t_max)")
    sweep.add_argument("--preset", choices=["quick", "paper"], default="quick")
    sweep.add_argument("--holdout", help="hold-out CSV/Parquet to use instead of a 20 %% split")
    sweep.add_argument("--seed", type=int, default=0)
    sweep.add_argument("--families", choices=sorted(PRESETS), default=DEFAULT_PRESET)
    sweep.add_argument("--margins", choices=["empirical", "kde"], default="empirical")
    sweep.add_argument("--baselines", help="comma-separated baselines, or 'none' (default: all)")
    sweep.add_argument("--per-target-shadows", action="store_true",
                       help="membership game: a shadow subset and OUT model per target, as the paper (slower)")
    sweep.add_argument("--baseline-games", action="store_true",
                       help="the baselines play both attack games too (slower; game MAB and PG for every model)")
    sweep.add_argument("--backend", choices=["loky", "dask", "ray"], default="loky")
    sweep.add_argument("--address", help="scheduler address for dask/ray (default: a local cluster)")
    sweep.add_argument("--n-jobs", type=int, default=2)
    sweep.add_argument("--alpha", type=float, default=0.5, help="privacy weight in PU_t (0..1)")
    sweep.add_argument("--normalisation", choices=["anchored", "minmax"], default="anchored")
    sweep.add_argument("--privacy", default=DEFAULT_PRIVACY_AXIS,
                       help="privacy axis of PU_t: " + ", ".join(axis_choices("privacy", ["COLUMN"])))
    sweep.add_argument("--workspace", help="store folder (default: $TVS_WORKSPACE or ~/.tvinesynth-studio)")
    sweep.add_argument("--out", required=True, help="folder for results.csv and summary.json")

    worker = sub.add_parser("worker", help=argparse.SUPPRESS)
    worker.add_argument("job_id")
    worker.add_argument("--workspace")
    worker.add_argument("--n-jobs", type=int, default=2)
    worker.add_argument("--backend", default="loky")
    worker.add_argument("--address")
    return parser


def _progress_bar(store, job_id):
    from .jobs.progress import progress

    def show(_job):
        p = progress(store, job_id)
        total = max(p["total"], 1)
        filled = int(30 * p["done"] / total)
        eta = "" if p["eta_seconds"] is None else f", ETA {p['eta_seconds']:.0f} s"
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {p['done']}/{p['total']} tasks{eta}   ")
        sys.stderr.flush()

    return show


def cmd_sweep(args) -> dict:
    from pathlib import Path

    from .choice.summary import summary_json
    from .jobs import DEFAULT_BASELINES, JobView, Store, SweepConfig, submit
    from .jobs.worker import run_job

    table = _load(args)
    schema = _roles(args, table)
    holdout = read_table(args.holdout) if args.holdout else None
    baselines = DEFAULT_BASELINES if args.baselines is None else [b for b in _split(args.baselines) if b != "none"]
    config = SweepConfig(response=schema.response, sensitive=schema.sensitive, rho_star=args.rho,
                         measure=args.measure, order=_split(args.order) or None,
                         levels=[int(v) for v in _split(args.levels)] or None, preset=args.preset,
                         families=args.families, margins=args.margins, seed=args.seed, baselines=list(baselines),
                         baseline_games=["aia", "mia"] if args.baseline_games else [], schema=schema.to_dict(),
                         protocol_overrides={"mia_shared_shadows": False} if args.per_target_shadows else None)
    store = Store(args.workspace)
    job_id = submit(store, table, config, holdout)
    job = store.job(job_id)
    if job["status"] == "done":
        print(f"job {job_id}: answered from the store ({store.workspace})", file=sys.stderr)
    else:
        verb = "resuming" if store.done_tasks(job_id) else "running"
        print(f"job {job_id}: {verb} in {store.workspace}", file=sys.stderr)
        try:
            status = run_job(store, job_id, n_jobs=args.n_jobs, backend=args.backend, address=args.address,
                             progress=_progress_bar(store, job_id))
        except KeyboardInterrupt:
            sys.stderr.write(f"\ninterrupted: finished tasks are stored; run the same command again to resume "
                             f"job {job_id}\n")
            raise SystemExit(130) from None
        sys.stderr.write("\n")
        if status != "done":
            raise TVSError(f"job {job_id} {status}: {store.job(job_id)['error'] or ''}".strip())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records = JobView(store, job_id).records()
    records.to_csv(out / "results.csv", index=False)
    summary = summary_json(records, config.sensitive, alpha=args.alpha, method=args.normalisation,
                           privacy=args.privacy)
    summary["job_id"] = job_id
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return {"job_id": job_id, "out": str(out), "best_level": summary["best_level"], "records": len(records)}


def cmd_worker(args) -> dict:
    from .jobs.store import Store
    from .jobs.worker import run_job

    status = run_job(Store(args.workspace), args.job_id, n_jobs=args.n_jobs, backend=args.backend,
                     address=args.address)
    return {"job_id": args.job_id, "status": status}


COMMANDS = {"inspect": cmd_inspect, "order": cmd_order, "release": cmd_release, "sweep": cmd_sweep,
            "worker": cmd_worker}


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
    elif args.command == "sweep":
        print(f"wrote {result['out']}/results.csv and summary.json; best level: {result['best_level']}",
              file=sys.stderr)
    else:
        json.dump(result, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    return 0
