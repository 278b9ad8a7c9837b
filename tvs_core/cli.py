"""``python -m tvs_core``: the library's main operations from a shell. Scripts rely on this
interface; change it only by adding.

Every refusal is one line on stderr — what is wrong, where, what to do — and exit status 2; no
traceback reaches the user. An unexpected error is written with its traceback to the workspace's
``logs/errors.log`` and reported in one line that gives that path."""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import pandas as pd

from .choice.summary import ChoiceSettings
from .data.demo import DEFAULT_DEMO, DEMOS, load_demo
from .data.io import read_table
from .data.limits import ENV, Limits
from .data.prepare import prepare_table
from .data.schema import infer_schema
from .data.validation import check
from .errors import DataError, DataErrors, TVSError, out_of_room
from .jobs.backends import BACKENDS, RAY_REFUSAL, Backend, risk
from .jobs.config import SETTINGS, SWITCHES, SweepConfig
from .model.generator import all_cores
from .model.ordering import algorithm1, table_associations
from .model.tvinesynth import TVineSynth
from .settings import declarations, default_of
from .storage.store import ACTIVE, JobStatus
from .storage.workspace import refuse_inside_workspace
from .text import printable, read_choice, whole_number

EXIT_USAGE = 2
PROG = "python -m tvs_core"


class UsageError(TVSError):
    """A command line that cannot be run as written."""


class Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line (not a usage dump) and exit status 2 via ``main``."""

    def error(self, message: str):
        if self.prog == PROG:
            raise UsageError(f"{message} (python -m tvs_core --help lists the commands)")
        raise UsageError(f"{message} ({self.prog} --help lists the options)")


# -- option types: each refuses by naming the value and the range -------------------------------------
def options(choices) -> list[str]:
    """An option's choices as the text typed on the command line: argparse names a refused value's choices by their
    repr, which for an Enum member is ``<FamilySet.FAST: 'fast'>``; the settings read the text back typed."""
    return [str(choice) for choice in choices]


def setting_flag(parser, name: str, of: type | None = None, note: str = "", **given) -> None:
    """The command-line flag of the setting (or switch) ``name`` of the dataclass ``of`` (a sweep's, ``SweepConfig``;
    the choice's, ``ChoiceSettings``), from its one declaration (``settings.declarations``): its flag, its help, how
    its text is read and, for a choice, its choices; its default the dataclass's, its value stored under the
    setting's name (``with_flags`` and ``_choice`` read them back). ``note``: what the flag means on this command."""
    of = of or SweepConfig
    declared = declarations(of)[name]
    default = default_of(of, name)
    if declared.kind is not None:  # read into its member here, at the edge, refused in read_choice's one wording
        given = {"choices": list(declared.kind), "default": default, "metavar": "{" + ",".join(options(declared.kind))
                 + "}", "type": argument_type(functools.partial(read_choice, declared.kind)), **given}
    elif isinstance(default, bool):
        given = {"action": "store_true", **given}
    else:
        given = {"default": default, **given}
    if declared.parse is not None:
        given.setdefault("type", argument_type(declared.parse))
    if declared.const is not None:
        given = {"nargs": "?", "const": declared.const, **given}
    if declared.metavar is not None:
        given.setdefault("metavar", declared.metavar)
    if isinstance(default, bool) or declared.const is not None:
        shown = ""
    elif default is None or default == []:
        shown = f" (default: {declared.unset})" if declared.unset else ""
    else:
        shown = f" (default: {', '.join(map(str, default)) if isinstance(default, list) else default})"
    typed = f"; {declared.typed}" if declared.typed else ""
    note = f"; {note}" if note else ""
    parser.add_argument(declared.flag, dest=name, help=f"{declared.screen_name}: {declared.help}{typed}{note}{shown}"
                        .replace("%", "%%"), **given)


def with_flags(args, **given):
    """A sweep's settings as the command's flags gave them (``setting_flag``; a flag left out: the setting's default),
    each checked by its constraint; ``given``: what the command read otherwise, e.g. the roles, which ``_roles``
    reads from their flags into the schema."""
    values = {name: getattr(args, name) for name, declared in {**SETTINGS, **SWITCHES}.items()
              if declared.flag is not None and hasattr(args, name)}
    values.update(given)
    config = SweepConfig(**{name: value for name, value in values.items() if name in SETTINGS})
    for name in SWITCHES.keys() & values.keys():  # a switch sets the field that carries it
        setattr(config, name, values[name])
    return config


def argument_type(read):
    """A reader of a setting's text (a ``DataError`` refuses it) as argparse's ``type``: the refusal in its words."""
    def typed(text: str):
        try:
            return read(text)
        except DataError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    typed.__name__ = getattr(read, "__name__", "value")
    return typed


def _integer(text: str, low: int, high: int | None = None) -> int:
    try:
        return whole_number(text, low, high)
    except DataError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def count(text: str) -> int:
    return _integer(text, 1)


def release_rows(text: str) -> int:
    from .release.export import MIN_RELEASE_ROWS

    return _integer(text, MIN_RELEASE_ROWS)


def file_name(text: str) -> str:
    """An output file's path: it must name a file (an empty string names the current folder)."""
    if not text.strip() or Path(text).name in ("", ".", ".."):
        raise argparse.ArgumentTypeError(f"{text!r} names no file; give a file name, e.g. synthetic.csv")
    return text


def level(text: str) -> int:
    return _integer(text, 0)




def external_file(text: str) -> tuple[str, str]:
    """``NAME=FILE``: a synthetic table made elsewhere, scored like a release under NAME."""
    name, equals, path = text.partition("=")
    if not equals or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: write NAME=FILE, e.g. mine=synthetic.csv")
    return name.strip(), path.strip()


def limit(text: str) -> tuple[str, str]:
    """``NAME=VALUE``: one of the limits checked before a table is read, raised (or lowered) for this run."""
    name, equals, value = (part.strip() for part in text.partition("="))
    if not equals or name not in ENV:
        raise argparse.ArgumentTypeError(f"{text!r}: write NAME=VALUE with NAME one of {', '.join(ENV)}, e.g. "
                                         "cells=200000000")
    try:
        Limits().with_values({name: value})
    except DataError as exc:
        raise argparse.ArgumentTypeError(exc.message.removeprefix(f"--limit {name}=").rstrip(".")) from None
    return name, value


# -- inputs -----------------------------------------------------------------------------------------------
def _load(args) -> pd.DataFrame:
    """DATA, or --demo NAME; with neither, the default demo (as the dashboard opens it)."""
    if args.data and args.demo:
        raise DataError("Both DATA and --demo were given.", fix="Pass one of them.")
    if not args.data:
        args.demo = args.demo or DEFAULT_DEMO
        return load_demo(args.demo)
    table = read_table(args.data, limits=_limits(args))
    if table.attrs.get("note"):
        _say(f"note: {table.attrs['note']}")
    return table


def _limits(args) -> Limits:
    """The environment's limits (``TVS_MAX_*``), with --limit's on top."""
    return Limits.from_env().with_values(dict(getattr(args, "limit", None) or []))


def _roles(args, table: pd.DataFrame):
    response = args.response
    sensitive = list(args.sensitive or [])
    if args.demo:
        demo = DEMOS[args.demo]
        response = response or demo.response
        sensitive = sensitive or list(demo.sensitive)
    if not response:
        raise DataError("No response column given.", fix="Pass --response COLUMN.")
    if response not in table.columns:
        raise DataError(f"--response {response}: there is no such column.", column=response,
                        fix=f"Choose one of: {', '.join(map(str, table.columns))}.")
    if not sensitive:
        raise DataError("No sensitive column given.", fix="Pass --sensitive COL[,COL...].")
    if response in sensitive:
        raise DataError(f"'{response}' is both the response and a sensitive column.", column=response,
                        fix="The response is what the synthetic data must predict; choose other sensitive columns.")
    repeated = sorted({s for s in sensitive if sensitive.count(s) > 1})
    if repeated:
        raise DataError(f"--sensitive names '{repeated[0]}' twice.", column=repeated[0], fix="Name it once.")
    unknown = [s for s in sensitive if s not in table.columns]
    if unknown:
        raise DataError(f"--sensitive {unknown[0]}: there is no such column.", column=unknown[0],
                        fix=f"Choose from: {', '.join(map(str, table.columns))}.")
    return infer_schema(table).with_roles(response, sensitive)


def _memory_available() -> int:
    """Bytes this process may still use (``jobs.memory.available_mb``); 4 GB when the system does not say."""
    from .jobs.memory import available_mb

    free = available_mb()
    return 4 * 1024**3 if free is None or free == float("inf") else int(free * 2**20)


def _check_rows(rows: int, columns: int) -> None:
    """Sampling holds a few float copies of the table, and pandas' text columns more: refuse what cannot fit."""
    per_row = max(columns, 1) * 8 * 12
    available = _memory_available()
    if rows * per_row > 0.5 * available:
        most = int(0.5 * available / per_row)
        raise DataError(f"--rows {rows} needs about {rows * per_row / 1e9:.1f} GB of memory; this machine has "
                        f"{available / 1e9:.1f} GB available.", fix=f"Ask for at most {most} rows at a time.")


# -- commands ---------------------------------------------------------------------------------------------
def cmd_inspect(args) -> dict:
    table = _load(args)
    schema = infer_schema(table)
    return {"rows": len(table), "columns": schema.to_dict()["columns"]}


def cmd_order(args) -> dict:
    table = _load(args)
    schema = _roles(args, table)
    check(table, schema, measure=args.measure)
    result = algorithm1(table_associations(table, schema, measure=args.measure), schema.response, schema.sensitive,
                        args.rho_star, args.measure)
    return {"order": result.order, "K": result.K, "tau_block": result.tau_block,
            "S": result.sensitive, "rho_star": result.rho_star, "measure": result.measure,
            "t_max": result.t_max, "t_max_reason": result.t_max_reason, "full_level": result.full_level}


def cmd_release(args) -> dict:
    """A release, as the Export page makes it (``release.Release``): from a stored sweep (``--job``) or from a
    model fitted here; the CSV and its manifest next to it, the guardrails' and the pooled check's verdicts
    printed, and the release recorded in the workspace's ledger unless ``--no-ledger``."""
    from .data.fingerprint import fingerprint_table
    from .jobs import JobView
    from .release.export import refuse_overwriting_inputs
    from .release.ledger import release_number
    from .release.release import Release, manifest_path_for
    from .report import table_name

    out = Path(args.out)
    refuse_inside_workspace(out, args.workspace)
    refuse_overwriting_inputs(out, (args.data,))  # before any work
    refuse_overwriting_inputs(manifest_path_for(out), (args.data,))
    store = None if args.no_ledger and not args.job else _store(args)
    if args.job:
        if args.data or args.demo:
            raise DataError("--job releases from a stored sweep: DATA and --demo are the sweep's already.",
                            fix="Leave them out, or leave --job out to fit a model here.")
        view = JobView(store, args.job)
        made = Release.from_sweep(view, args.level, args.rows, args.seed, _choice(args), table_name=table_name(view),
                                  store=store)
    else:
        table = _load(args)
        schema = _roles(args, table)
        rows = args.rows or len(table)
        _check_rows(rows, table.shape[1])
        seed = 0 if args.seed is None else args.seed
        model = TVineSynth(response=schema.response, sensitive=schema.sensitive, rho_star=args.rho_star,
                           measure=args.measure, order=args.order, families=args.families, margins=args.margins,
                           t_max=args.level, seed=seed, threads=args.threads, missing=args.missing)
        model.fit(table, schema)
        if args.level > model.order_.full_level:
            raise DataError(f"--level {args.level} is above the full vine's {model.order_.full_level} trees.",
                            fix=f"Choose a level from 0 to {model.order_.full_level}.")
        name = f"demo:{args.demo}" if args.demo else Path(args.data).name
        made = Release.from_model(model, table, args.level, rows, seed, fingerprint_table(table), name, store)
    if args.override_reason:
        made = made.overridden(args.override_reason)
    if args.despite_warnings:
        made = made.confirmed(args.despite_warnings)
    lines = ([f"verdicts at level {made.level}:", *verdict_lines(made.verdicts.to_json())] if made.verdicts else [])
    lines += [f"guardrail ({check.severity}): {check.message}" for check in made.checks]
    if made.pooled is not None:
        from .release.pooled import verdict

        lines.append(f"pooled check: {verdict(made.pooled)}")
        lines += [f"  {warning}" for warning in made.pooled.warnings]
        lines.append(f"privacy budget with this release: {made.pooled.budget.text}")
    made.refuse_if_blocked(fix="Fix the cause, or pass --override-reason TEXT to release anyway (the reason goes into "
                               "the manifest).")
    csv_path, manifest_path = made.write(out, inputs=(args.data,))
    recorded = None if args.no_ledger else release_number(store, made.record(store, note=args.note))
    return {"out": str(csv_path), "manifest": str(manifest_path), "rows": made.rows, "level": made.level,
            "seed": made.seed, "sha256": made.sha256, "ledger": recorded, "lines": lines,
            "order": made.model.order_.order if hasattr(made.model, "order_") else None}


def _choice(args, sensitive: list[str] | None = None) -> ChoiceSettings:
    """The choice settings as their flags gave them (``setting_flag``: each read by its declaration), the privacy
    axis's column checked against the sweep's ``sensitive`` columns (None: not checked)."""
    return ChoiceSettings(**{name: getattr(args, name) for name in declarations(ChoiceSettings)}).among(sensitive)


def cmd_report(args) -> dict:
    """The report renders a release: of the chosen level, or of the recommended one when none was chosen (its rows
    drawn with the sweep's seed for the figures and checks, not written, not recorded)."""
    from .jobs import JobView
    from .release.export import refuse_overwriting_inputs
    from .release.release import Release
    from .report import build_report, table_name, write_report

    refuse_inside_workspace(args.out, args.workspace)
    refuse_overwriting_inputs(args.out, ())
    if Path(args.out).is_dir():
        raise DataError(f"--out {args.out} is a folder.", fix="Give a file name, e.g. report.html.")
    settings = _choice(args)
    store = _store(args)
    view = JobView(store, args.job)
    level = args.level
    if level is None:
        selection = settings.select(view.summary(), view.config.sensitive)
        if selection is None or selection.best_level is None:
            raise DataError(f"Sweep {view.id} has no level with both a privacy and a utility value yet "
                            f"({view.job.done} of {view.job.total} tasks done).",
                            fix="Let the sweep run (or resume it) before making its report.")
        level = selection.best_level
    made = Release.from_sweep(view, level, settings=settings, table_name=table_name(view),
                              chosen_by_user=args.level is not None)
    text = build_report(made, reason=args.reason, exported=False)
    write_report(text, args.out)
    return {"out": args.out, "job_id": args.job, "level": args.level, "bytes": len(text.encode())}


def cmd_ledger(args) -> dict:
    from .data.fingerprint import fingerprint_table
    from .release.ledger import budget, ledger_frame, releases

    store = _store(args)
    if args.data or args.demo:
        fingerprints = [fingerprint_table(_load(args))]
    else:
        fingerprints = list(dict.fromkeys(e.fingerprint for e in releases(store)))
    tables = []
    for fingerprint in fingerprints:
        entries = releases(store, fingerprint)
        spent = budget(entries)
        rows = ledger_frame(entries).rename(columns={"ε": "epsilon"})
        tables.append({"fingerprint": fingerprint, "releases": json.loads(rows.to_json(orient="records")),
                       "epsilon_total": spent.epsilon, "dp_releases": spent.dp_releases,
                       "releases_without_dp": spent.other_releases, "budget": spent.text})
    return {"workspace": str(store.workspace), "tables": tables}


def _progress_bar(store, job_id):
    from .jobs.progress import progress

    def show(_job):
        p = progress(store, job_id)
        filled = int(30 * p["fraction"])
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {p['text']}   ")
        sys.stderr.flush()

    return show


def _attach(store, job_id: str, show) -> str:
    """Another process runs this very job: follow it instead of running it twice."""
    from .jobs.process import worker_alive

    _say(f"job {job_id}: already running in process {store.job(job_id).pid}; following it")
    while True:
        job = store.job(job_id)
        show(job)
        if job.status not in ACTIVE or not worker_alive(job):
            sys.stderr.write("\n")
            return store.job(job_id).status
        time.sleep(1.0)


def _in_this_process(args):
    """The command line's runner (``jobs.submission.Runner``): the job runs here, its progress on stderr, and Ctrl-C or
    SIGTERM stop it with what is finished kept."""
    from .jobs.lifecycle import Terminated
    from .jobs.worker import run_job

    def run_here(store, job_id: str):
        _say(f"job {job_id}: {'resuming' if store.done_tasks(job_id) else 'running'} in {store.workspace}")
        if warning := risk(args.backend, args.address):
            _say(warning)
        try:
            status = run_job(store, job_id, n_jobs=args.n_jobs, backend=args.backend, address=args.address,
                             progress=_progress_bar(store, job_id))
        except KeyboardInterrupt as exc:
            sys.stderr.write(f"\ninterrupted: finished tasks are stored; run the same command again to resume "
                             f"job {job_id}\n")
            raise SystemExit(143 if isinstance(exc, Terminated) else 130) from None
        sys.stderr.write("\n")
        return status

    return run_here


def cmd_sweep(args) -> dict:
    from .choice.summary import summary_json
    from .evaluation.summary import summarise
    from .jobs import JobView
    from .jobs.submission import Next, Started, check_sweep, run_sweep
    from .release.export import refuse_overwriting_inputs, write_csv, write_file

    refuse_open_ports(args)
    out = Path(args.out)
    refuse_inside_workspace(out, args.workspace)
    if out.exists() and not out.is_dir():
        raise DataError(f"--out {out} is a file; it must be a folder for results.csv and summary.json.",
                        fix="Give a folder (it is created if needed).")
    external_paths = dict(args.external or [])
    if len(external_paths) < len(args.external or []):
        raise DataError("Two --external files have the same name.", fix="Give each external set its own NAME.")
    for name in ("results.csv", "summary.json"):  # before any work: never replace a file given as input
        refuse_overwriting_inputs(out / name, (args.data, args.holdout, *external_paths.values()))
    holdout_path = args.holdout
    if holdout_path and args.data and Path(holdout_path).exists() and Path(args.data).exists() and \
            Path(holdout_path).resolve() == Path(args.data).resolve():
        raise DataError(f"--holdout {holdout_path} is the data file itself.",
                        fix="Give rows kept aside from the data, or leave --holdout out for a split.")
    table = _load(args)
    schema = _roles(args, table)
    holdout = read_table(holdout_path, limits=_limits(args)) if holdout_path else None
    externals = {name: read_table(path, limits=_limits(args))  # read once, copied on submit
                 for name, path in external_paths.items()}
    config = with_flags(args, response=schema.response, sensitive=schema.sensitive, schema=schema.to_dict())
    choice = _choice(args, config.sensitive)
    check_sweep(table, config, holdout)  # every check before a sweep: the Sweep page runs the same
    store = _store(args)
    if config.dp_audit_trials:
        _announce_audit(store, config, table, schema, args.n_jobs)
    started, status = ((Started(_finished_job(store, table, config, holdout, externals), Next.NOTHING), None)
                       if store.read_only else
                       run_sweep(store, table, config, _in_this_process(args), holdout, externals,
                                 _origin(holdout_path)))
    job_id = started.job_id
    if started.next == Next.NOTHING:
        _say(f"job {job_id}: answered from the store ({store.workspace})")
    elif started.next == Next.FOLLOW:
        status = _attach(store, job_id, _progress_bar(store, job_id))
    if started.next != Next.NOTHING and status != JobStatus.DONE:
        raise TVSError(f"job {job_id} {status}: {store.job(job_id).error or ''}".strip())
    view = JobView(store, job_id)
    records = view.records()
    scored = summarise(records)  # summarised and chosen once: summary.json and the verdicts read the same
    selection = choice.select(scored, config.sensitive)
    summary = summary_json(records, config.sensitive, alpha=choice.alpha, normalisation=choice.normalisation,
                           privacy=choice.privacy, utility_mix=choice.utility, chosen=(scored, selection))
    summary["job_id"] = job_id
    summary["verdicts"] = _verdicts(view, summary["best_level"], selection, records, scored).to_json()
    inputs = (args.data, args.holdout, *external_paths.values())
    out.mkdir(parents=True, exist_ok=True)
    write_csv(records, out / "results.csv", inputs)  # column names reach the records' attribute cells
    write_file(json.dumps(summary, indent=2, allow_nan=False, default=str).encode(), out / "summary.json", inputs)
    return {"job_id": job_id, "out": str(out), "best_level": summary["best_level"], "records": len(records),
            "dp_audit": summary.get("dp_audit", {}), "verdicts": summary["verdicts"]}


def _verdicts(view, level: int | None, selection, records, summary):
    """The verdicts of ``level`` of a stored sweep under ``selection`` (of ``summary``, the sweep's ``records``'), as
    the card and the report's first page say them (none without a level)."""
    from .choice.verdicts import Verdicts, sweep_verdicts

    if level is None or selection is None:
        return Verdicts()
    return sweep_verdicts(view, level, selection, records, summary)


def verdict_lines(verdicts: list[dict]) -> list[str]:
    """A level's verdicts as the command line prints them: one line each, its severity in a word first, then its
    topic (unless the sentence starts with it already: "GDPR criteria (can an attacker …)")."""
    from .choice.verdicts import Severity

    return [f"  [{Severity(v['severity']).word}] " + ("" if v["sentence"].startswith(v["axis"]) else f"{v['axis']}: ")
            + v["sentence"] + (f" {v['action']}" if v["action"] else "") for v in verdicts]


def _origin(path: str | None) -> dict | None:
    """A hold-out file's origin as the manifest and the report name it: its name and the SHA-256 of its bytes."""
    if not path:
        return None
    with open(path, "rb") as file:
        return {"file": Path(path).name, "sha256": hashlib.file_digest(file, "sha256").hexdigest()}


def _announce_audit(store, config, table, schema, workers: int) -> None:
    """Before any work: what the audit will fit and about how long it takes."""
    from .jobs import baseline_spec
    from .jobs.plan import audited
    from .jobs.progress import audit_seconds

    names = [spec.label for spec in audited([baseline_spec(n, config) for n in config.baselines])]
    columns = len(prepare_table(table, schema, config.missing).encoder.names)
    seconds = audit_seconds(store, config, int(len(table) * (1 - config.holdout_fraction)), columns, workers)
    _say(f"DP audit: {config.dp_audit_trials} fits of each of {', '.join(names)}; about {seconds / 60:.1f} min "
         "of the sweep's time")


def _finished_job(store, table, config, holdout, externals=None) -> str:
    """In a read-only workspace only a sweep that has finished can be served."""
    from .jobs.submission import job_id_of

    job_id = job_id_of(table, config, holdout, externals)
    job = store.job(job_id)
    if job is None or job.status != JobStatus.DONE:
        raise TVSError(f"The workspace {store.workspace} is read-only and this sweep has not finished there; "
                       "running it needs that folder to be writable (or pass --workspace with a writable one).")
    return job_id


def refuse_open_ports(args) -> None:
    """Ray starts only when the user has said, with the flag that names it, that its open ports are acceptable."""
    if read_choice(Backend, args.backend) == Backend.RAY and not args.accept_open_ports:
        raise TVSError(RAY_REFUSAL)


def cmd_worker(args) -> dict:
    from .jobs.lifecycle import Terminated
    from .jobs.standby import note_imports, process_started_at, warm
    from .jobs.worker import run_job
    from .storage.store import Store

    refuse_open_ports(args)
    ready_at = warm()  # what a standby worker imports before Start, this one after: recorded
    store = Store(args.workspace)
    note_imports(store, args.job_id, ready_at, process_started_at(os.getpid()))
    try:
        status = run_job(store, args.job_id, n_jobs=args.n_jobs, backend=args.backend,
                         address=args.address, resume_on_restart=True)
    except KeyboardInterrupt as exc:  # stored as the job's state already; its processes have ended
        raise SystemExit(143 if isinstance(exc, Terminated) else 130) from None
    return {"job_id": args.job_id, "status": status}


def cmd_standby(args) -> dict:
    """A worker that imports now and waits in the workspace's store for the job its dashboard hands it
    (jobs/standby.py)."""
    from .jobs.standby import serve
    from .jobs.worker import run_job

    return {"status": serve(args.workspace, args.dashboard, run_job)}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description="TVineSynth Studio command line.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser,
                                title="commands", metavar="{dashboard,inspect,order,release,sweep,report,ledger}")

    def limit_arg(p):
        p.add_argument("--limit", type=limit, action="append", metavar="NAME=VALUE",
                       help="raise a limit checked before or while a file is read (repeatable; default: "
                            "$TVS_MAX_NAME, else "
                            + ", ".join(f"{name}={getattr(Limits(), name)}" for name in ENV) + ")")

    def data_args(p, roles: bool):
        p.add_argument("data", nargs="?", help="CSV, Parquet or Excel (.xlsx) file (default: the clinical demo)")
        p.add_argument("--demo", choices=sorted(DEMOS), help="use a built-in demo table instead of DATA")
        limit_arg(p)
        if roles:
            setting_flag(p, "response", metavar="COLUMN")
            setting_flag(p, "sensitive")
            setting_flag(p, "rho_star")
            setting_flag(p, "measure")

    def choice_args(p, note: str = ""):
        """How a level is weighed (PU_t): the same four options wherever a choice is made or recorded."""
        for name in declarations(ChoiceSettings):
            setting_flag(p, name, ChoiceSettings, note)

    def model_args(p):
        setting_flag(p, "order")
        setting_flag(p, "seed")
        setting_flag(p, "families")
        setting_flag(p, "margins")

    data_args(sub.add_parser("inspect", help="print the inferred schema as JSON"), roles=False)
    data_args(sub.add_parser("order", help="print Algorithm 1's order, K and tau as JSON"), roles=True)
    release = sub.add_parser("release", help="write a synthetic CSV and its manifest, checked and recorded in the "
                                             "workspace's release ledger (as the Export page does)")
    data_args(release, roles=True)
    model_args(release)
    release.set_defaults(seed=None)  # with --job: the sweep's master seed, as on the Export page; else 0
    release.add_argument("--job", help="release from this stored sweep (its model, split and intervals: the Export "
                                       "page's release) instead of fitting a model on DATA here")
    release.add_argument("--level", type=level, required=True, help="truncation level t (0 or more)")
    release.add_argument("--rows", type=release_rows,
                         help="rows to generate, 2 or more (default: as many as the input, or the sweep's training "
                              "split)")
    setting_flag(release, "missing")
    release.add_argument("--threads", type=count, default=all_cores(),
                         help="threads of the fit and the draw (default: every core; the same file at any number)")
    release.add_argument("--out", required=True, type=file_name,
                         help="output CSV path: a new file or a regular file, never one of the inputs; the manifest "
                              "goes next to it as NAME.manifest.json")
    release.add_argument("--no-ledger", action="store_true",
                         help="do not record the release in the workspace's release ledger (recorded by default, "
                              "with a copy of its rows, so later releases are checked against it)")
    release.add_argument("--ledger", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for scripts
    release.add_argument("--note", help="why this release was made (kept in the ledger)")
    release.add_argument("--despite-warnings", metavar="REASON",
                         help="why you release the level although its verdicts warn (the Export page asks the same; "
                              "kept in the manifest and the ledger)")
    release.add_argument("--override-reason", help="release despite a blocking guardrail (exact copies of training "
                                                   "rows); the reason goes into the manifest")
    choice_args(release, "with --job, for the manifest's choice")
    release.add_argument("--workspace", help="store folder (default: $TVS_WORKSPACE or ~/.tvinesynth-studio)")

    report = sub.add_parser("report", help="write the HTML report of a stored sweep (print it to PDF from a browser)")
    report.add_argument("job", help="the sweep's job id (printed by the sweep command)")
    report.add_argument("--level", type=level, help="the chosen level (default: none chosen; the recommendation is "
                                                    "reported)")
    report.add_argument("--reason", help="why this level was chosen (shown on the first page)")
    choice_args(report)
    report.add_argument("--workspace", help="store folder (default: $TVS_WORKSPACE or ~/.tvinesynth-studio)")
    report.add_argument("--out", required=True, type=file_name, help="output HTML path")

    ledger = sub.add_parser("ledger", help="list the releases of a table (DATA or --demo), or of every table")
    ledger.add_argument("data", nargs="?",
                        help="CSV, Parquet or Excel (.xlsx) file, fingerprinted as the dashboard does")
    ledger.add_argument("--demo", choices=sorted(DEMOS), help="a built-in demo table instead of DATA")
    limit_arg(ledger)
    ledger.add_argument("--workspace", help="store folder (default: $TVS_WORKSPACE or ~/.tvinesynth-studio)")

    sweep = sub.add_parser("sweep", help="evaluate every truncation level (resumable; stored in the workspace)")
    data_args(sweep, roles=True)
    model_args(sweep)
    for name, declared in {**SETTINGS, **SWITCHES}.items():  # every declared setting: a new one needs no line here
        if declared.flag is not None and declared.flag not in sweep._option_string_actions:
            setting_flag(sweep, name)
    sweep.add_argument("--holdout", help="hold-out CSV/Parquet to use instead of a 20 %% split")
    sweep.add_argument("--external", type=external_file, action="append", metavar="NAME=FILE",
                       help="a synthetic table made elsewhere (repeatable): checked against the data's columns, "
                            "types and labels, copied into the workspace and scored by every release metric as "
                            "its own point; the attack games need a generator, so it does not play them")
    sweep.add_argument("--backend", choices=options(BACKENDS), default="loky",
                       help="where the tasks run: loky (default), processes of this account on this computer; dask, "
                            "a Dask cluster (one started here accepts only your account: encrypted, with a key of "
                            "its own); ray, a Ray cluster (its servers listen on every network address, so on a "
                            "shared server other users may reach it: it starts only with --accept-open-ports)")
    sweep.add_argument("--accept-open-ports", action="store_true",
                       help="start Ray (--backend ray) although its servers listen on every network address of this "
                            "computer")
    sweep.add_argument("--address",
                       help="your own Dask or Ray cluster instead of one started here, which you must secure: for "
                            "Dask a tls:// address, with the cluster's certificates in Dask's configuration "
                            "(distributed.comm.tls: ca-file, client.cert, client.key, e.g. in "
                            "~/.config/dask/distributed.yaml; without TLS a warning is printed); for Ray, its token "
                            "authentication (RAY_AUTH_MODE=token and its token)")
    sweep.add_argument("--n-jobs", type=count, default=2)
    choice_args(sweep)
    sweep.add_argument("--workspace", help="store folder (default: $TVS_WORKSPACE or ~/.tvinesynth-studio)")
    sweep.add_argument("--out", required=True, help="folder for results.csv and summary.json")

    dashboard = sub.add_parser("dashboard", help="start the dashboard on a free local port and print its address "
                                                 "with the access token")
    dashboard.add_argument("--port", type=int, help="the port to use (default: the first free one from 8501)")
    dashboard.add_argument("--workspace", help="store folder (default: $TVS_WORKSPACE or ~/.tvinesynth-studio)")

    worker = sub.add_parser("worker")  # no help: listed nowhere (it is how the dashboard starts a sweep)
    worker.add_argument("job_id")
    worker.add_argument("--workspace")
    worker.add_argument("--n-jobs", type=count, default=2)
    worker.add_argument("--backend", default="loky")
    worker.add_argument("--address")
    worker.add_argument("--accept-open-ports", action="store_true")

    standby = sub.add_parser("standby")  # no help: listed nowhere (the dashboard's worker, ready before Start)
    standby.add_argument("--workspace", required=True)
    standby.add_argument("--dashboard", type=int, required=True)
    return parser


def cmd_dashboard(args) -> dict:
    from .launch import launch

    launch(args.port, args.workspace)  # replaces this process
    return {}


COMMANDS = {"dashboard": cmd_dashboard, "inspect": cmd_inspect, "order": cmd_order, "release": cmd_release,
            "sweep": cmd_sweep, "report": cmd_report, "ledger": cmd_ledger, "worker": cmd_worker,
            "standby": cmd_standby}


def _log_unexpected(command: str | None, workspace: str | None) -> Path | None:
    """The traceback in the workspace's log under the command's name: not its arguments, which hold notes, reasons
    and paths."""
    from .storage.workspace import Workspace

    try:
        space = Workspace(workspace)
    except (OSError, TVSError):
        return None
    return space.log_unexpected(f"python -m tvs_core {command or ''}".strip())


def _store(args):
    """The workspace's store; what opening it closed to other accounts is said once."""
    from .storage import Store

    store = Store(args.workspace)
    if store.space.notice:
        _say(f"note: {store.space.notice}")
    return store


def _say(text: str) -> None:
    """A line for the user on stderr, without control characters (a column name may carry a terminal's escape
    codes)."""
    print(printable(text), file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    os.umask(0o077)  # what this process writes (the workspace, a worker's files, outputs) is its owner's alone
    args = None
    try:
        args = build_parser().parse_args(argv)
        answer = COMMANDS[args.command](args)  # printed below: in words, or as JSON
    except DataErrors as exc:
        _say("error: " + " | ".join(str(p) for p in exc.problems))
        return EXIT_USAGE
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:
        full = None if isinstance(exc, TVSError) else out_of_room(exc)  # a full disk, a file-size limit: named
        if full is not None or isinstance(exc, (TVSError, OSError)):
            _say(f"error: {' '.join(str(full or exc).split())}")
            return EXIT_USAGE
        # a bug, not the user's input: one line here, the traceback in the log
        log = _log_unexpected(getattr(args, "command", None), getattr(args, "workspace", None))
        where = f"; where it happened is in {log}" if log else ""
        _say(f"error: something unexpected went wrong ({type(exc).__name__}){where}. Its message is not shown, as it "
             "may quote the data.")
        return EXIT_USAGE
    if COMMANDS[args.command] is cmd_release:
        for line in answer["lines"]:
            _say(line)
        recorded = (f"; recorded in the release ledger as the table's release {answer['ledger']}"
                    if answer["ledger"] is not None
                    else "; not recorded in the ledger (--no-ledger)")
        _say(f"wrote {answer['rows']} rows at truncation level {answer['level']} to {answer['out']} and its manifest "
             f"to {answer['manifest']}{recorded}")
    elif args.command == "sweep":
        _say(f"wrote {answer['out']}/results.csv and summary.json; best level: {answer['best_level']}")
        if answer["verdicts"]:
            _say(f"verdicts at level {answer['best_level']} (the recommended level):")
            for line in verdict_lines(answer["verdicts"]):
                _say(line)
        for audit in answer["dp_audit"].values():  # a violated claim is the loudest line of the run
            _say(("WARNING, DP CLAIM REFUTED: " if audit["flagged"] else "DP audit: ") + audit["verdict"])
    elif args.command == "report":
        _say(f"wrote the report of job {answer['job_id']} to {answer['out']} ({answer['bytes'] / 1e6:.1f} MB)")
    else:
        try:
            json.dump(answer, sys.stdout, indent=2, default=str)
            sys.stdout.write("\n")
            sys.stdout.flush()
        except BrokenPipeError:  # the reader stopped early (``... | head``): what it read is what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
    return 0
